import Foundation

/// What a ``ServerHandler`` answers: a status, header fields and a body, which the server transport sends as it is
/// (adding `Content-Length` and `Date`).
public struct ServerResponse: Sendable {
  /// The body: bytes in memory, or a file the transport streams (an image or an asset; the handler has checked that
  /// the path cannot leave its folder).
  public enum Body: Sendable {
    /// These bytes.
    case data(Data)
    /// The whole file at this path.
    case file(String)
  }

  /// The status code: 200, 304, 400, 401, 403, 404, 405, 413, 429, 500 …
  public var status: Int
  /// The header fields, in order, as they are sent.
  public var headers: [(name: String, value: String)]
  /// The body (empty for 204 and 304, and for a `HEAD` whatever this says).
  public var body: Body

  /// - Parameters: see the properties of the same names.
  public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .data(Data())) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// `status` with a body of `type` (`application/json`, `text/html; charset=utf-8`).
  public init(status: Int = 200, type: String, data: Data, headers: [(name: String, value: String)] = []) {
    self.init(status: status, headers: [(name: "Content-Type", value: type)] + headers, body: .data(data))
  }

  /// A `text/plain; charset=utf-8` response.
  public static func text(_ text: String, status: Int = 200) -> ServerResponse {
    ServerResponse(status: status, type: "text/plain; charset=utf-8", data: Data(text.utf8))
  }

  /// The first value of header `name` (any case), or `nil`.
  public func header(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }

  /// The body's bytes when it is in memory (``Body/data(_:)``), else `nil`.
  public var data: Data? {
    if case .data(let data) = body { return data }
    return nil
  }
}

/// Answers one request: the whole of what a server does above its transport. Called concurrently, once per request.
public typealias ServerHandler = @Sendable (ServerRequest) async -> ServerResponse

/// The bounds a server transport keeps every connection and request within (a server is a door).
public struct ServerLimits: Sendable, Equatable {
  /// Connections open at once; one more is refused by the transport. 512 by default.
  public var maxConnections: Int
  /// Connections open at once from one client address when the server listens beyond loopback; one more from that
  /// address is refused by the transport (libmicrohttpd's `MHD_OPTION_PER_IP_CONNECTION_LIMIT`), so one host
  /// holding connections open with slow requests ("slowloris") cannot take every connection. On loopback every
  /// client is the same address and only ``maxConnections`` applies. 16 by default; 0: no limit.
  public var maxConnectionsPerClient: Int
  /// Bytes of request line plus header fields; a larger request is answered 431 (or 413) and closed. 16 KiB.
  public var maxHeaderBytes: Int
  /// Bytes of request body; a larger one is answered 413 and closed. 1 MiB.
  public var maxBodyBytes: Int
  /// Seconds a connection may stay idle (between requests, or a slow client mid-request) before it is closed. 30.
  public var idleTimeout: Int

  /// - Parameters: see the properties of the same names.
  public init(
    maxConnections: Int = 512, maxConnectionsPerClient: Int = 16, maxHeaderBytes: Int = 16 * 1024,
    maxBodyBytes: Int = 1 << 20, idleTimeout: Int = 30
  ) {
    self.maxConnections = maxConnections
    self.maxConnectionsPerClient = maxConnectionsPerClient
    self.maxHeaderBytes = maxHeaderBytes
    self.maxBodyBytes = maxBodyBytes
    self.idleTimeout = idleTimeout
  }
}
