import Foundation

/// A server a ``ServerStack`` started, listening: the port it is bound to and how to stop it.
package protocol RunningServer: Sendable {
  /// The TCP port the server is bound to (the one the system chose when asked for port 0).
  var port: Int { get }
  /// Stops the server gracefully: it stops accepting connections, answers the requests in flight (each handler
  /// call runs to its end, its response is sent), then closes every connection. Returns when all that is done;
  /// calling it again returns at once.
  func stop() async
}

/// Why a ``ServerStack`` could not start a server: a message for a person (`cannot listen on 127.0.0.1:8080:
/// Address already in use`).
package struct ServerStartError: Error, CustomStringConvertible, Sendable {
  /// The message, without the program's name.
  package var description: String
  /// Whether retrying cannot help because this program has no server at all (``ServerStack/none``).
  package var unavailable: Bool

  /// - Parameters: see the properties of the same names.
  package init(_ description: String, unavailable: Bool = false) {
    self.description = description
    self.unavailable = unavailable
  }
}

/// How a program starts HTTP servers: the transport its entry point (the composition root) chooses, injected as the
/// network is (``NetworkStack`` in OfflineNewsNetwork), so that `news`, which must start in a few milliseconds,
/// does not link libmicrohttpd: `news-online` passes `ServerStack.microHTTPD` (the `OfflineNewsMicroHTTPD`
/// module), `news` passes ``none`` and hands `news serve` to `news-online`.
///
/// For example:
/// ```swift
/// let server = try ServerStack.microHTTPD.start("127.0.0.1", 0, ServerLimits()) { _ in .text("hello") }
/// print(server.port)
/// await server.stop()
/// ```
package struct ServerStack: Sendable {
  /// Starts a server listening on `host` (an IPv4 or IPv6 literal without brackets, or `localhost`) and `port`
  /// (0: any free port), answering every request with `handler` within `limits`.
  ///
  /// - Throws: ``ServerStartError`` when the address is not a literal, cannot be bound (in use, not this
  ///   machine's) or the program has no server (``none``).
  package var start:
    @Sendable (_ host: String, _ port: Int, _ limits: ServerLimits, _ handler: @escaping ServerHandler)
      throws(ServerStartError) -> any RunningServer

  /// - Parameter start: see ``start``.
  package init(
    start:
      @escaping @Sendable (String, Int, ServerLimits, @escaping ServerHandler) throws(ServerStartError) ->
      any RunningServer
  ) {
    self.start = start
  }

  /// No server: ``start`` throws an ``ServerStartError`` saying that this program has none and which one has.
  package static let none = ServerStack { _, _, _, _ throws(ServerStartError) in
    throw ServerStartError(
      "this program has no HTTP server: news-online, which has, is not built beside it "
        + "(swift build --product news-online)", unavailable: true)
  }
}
