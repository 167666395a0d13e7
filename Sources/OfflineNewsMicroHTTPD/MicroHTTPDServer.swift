import CMicroHTTPD
import Foundation
import OfflineNewsHTTP

#if canImport(Glibc)
  import Glibc
#endif

/// An HTTP/1.1 server over GNU libmicrohttpd (0.9.75): libmicrohttpd accepts the connections and parses every
/// request; this turns each into a ``ServerRequest``, calls the ``ServerHandler`` in a Swift task and sends its
/// ``ServerResponse``, within ``ServerLimits``.
///
/// One libmicrohttpd thread polls every connection (epoll on Linux, `MHD_USE_AUTO`); a request whose body has
/// arrived is suspended (`MHD_suspend_connection`) while its handler runs on Swift's global executor, and resumed
/// with the response, so that a slow handler holds no thread and the server answers requests concurrently.
///
/// Limits (``ServerLimits``): `MHD_OPTION_CONNECTION_LIMIT` connections at once (one more is closed at accept), and
/// beyond loopback `MHD_OPTION_PER_IP_CONNECTION_LIMIT` from one client address;
/// `MHD_OPTION_CONNECTION_TIMEOUT` seconds idle; request line and header fields at most `maxHeaderBytes` (431,
/// counted here; libmicrohttpd's own pool, `MHD_OPTION_CONNECTION_MEMORY_LIMIT`, answers a request that does not
/// fit in it 431 or 414 itself); a body over `maxBodyBytes` is answered 413 and the connection closed (before it is
/// read when `Content-Length` says so, else once the excess has been read and dropped). A request whose framing or
/// `Host` RFC 9112 makes an error, which libmicrohttpd reads by its first line, is refused before its body
/// (``MessageCheck``: 400 or 501, the connection closed).
///
/// For example:
/// ```swift
/// let server = try MicroHTTPDServer.start(host: "127.0.0.1", port: 0) { request in .text("hello \(request.path)") }
/// print(server.port)
/// await server.stop()
/// ```
package final class MicroHTTPDServer: RunningServer, @unchecked Sendable {
  /// The TCP port the server is bound to.
  package let port: Int
  /// The address it listens on, as given (`127.0.0.1`, `::1`).
  package let host: String
  private let daemon: OpaquePointer
  private let context: DaemonContext
  private let retained: Unmanaged<DaemonContext>

  private init(
    host: String, port: Int, daemon: OpaquePointer, context: DaemonContext, retained: Unmanaged<DaemonContext>
  ) {
    self.host = host
    self.port = port
    self.daemon = daemon
    self.context = context
    self.retained = retained
  }

  /// Starts a server listening on `host` (an IPv4 literal, an IPv6 literal with or without brackets, or
  /// `localhost` for 127.0.0.1) and `port` (0: a free port the system chooses, then ``port``).
  ///
  /// - Throws: ``ServerStartError`` when `host` is not an address literal, the port is out of range, or the
  ///   address cannot be bound (`Address already in use`, not an address of this machine).
  package static func start(
    host: String, port: Int, limits: ServerLimits = ServerLimits(), handler: @escaping ServerHandler
  ) throws(ServerStartError) -> MicroHTTPDServer {
    guard (0...65_535).contains(port) else { throw ServerStartError("port \(port) is not between 0 and 65535") }
    var literal = host
    if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
    if literal == "localhost" { literal = "127.0.0.1" }
    var flags =
      MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
      | MHD_USE_ITC.rawValue
    let context = DaemonContext(handler: handler, limits: limits)
    let retained = Unmanaged.passRetained(context)
    let cls = retained.toOpaque()
    // libmicrohttpd's pool holds the request line and header fields as read, then the response's header fields:
    // room for maxHeaderBytes and a response's header (the check of maxHeaderBytes itself is ours).
    let memory = max(32 * 1024, limits.maxHeaderBytes + 16 * 1024)
    // On loopback every client is one address: only the whole limit applies there.
    let loopback = literal.hasPrefix("127.") || literal == "::1"
    let perClient = loopback ? 0 : UInt32(clamping: max(0, limits.maxConnectionsPerClient))
    // The daemon started on `socketAddress` (a `sockaddr_in` or `sockaddr_in6`, seen as the `sockaddr` it begins with).
    func listen<Address>(on socketAddress: inout Address) -> OpaquePointer? {
      withUnsafePointer(to: &socketAddress) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
          news_mhd_start(
            flags, address,
            { cls, connection, url, method, version, upload, size, requestContext in
              DaemonContext.access(cls, connection, url, method, version, upload, size, requestContext)
            }, cls, { cls, _, requestContext, _ in DaemonContext.completed(cls, requestContext) }, cls,
            UInt32(clamping: limits.maxConnections), perClient, UInt32(clamping: limits.idleTimeout), memory)
        }
      }
    }
    var started: OpaquePointer?
    var v4 = sockaddr_in()
    var v6 = sockaddr_in6()
    if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = in_port_t(UInt16(port).bigEndian)
      started = listen(on: &v4)
    } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = in_port_t(UInt16(port).bigEndian)
      flags |= literal == "::" ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue
      started = listen(on: &v6)
    } else {
      retained.release()
      throw ServerStartError("\(host) is not an IP address (give one such as 127.0.0.1 or [::1])")
    }
    guard let daemon = started else {
      let cause = String(cString: strerror(errno))
      retained.release()
      let shown = literal.contains(":") ? "[\(literal)]" : literal
      throw ServerStartError("cannot listen on \(shown):\(port): \(cause)")
    }
    return MicroHTTPDServer(
      host: literal, port: Int(news_mhd_bound_port(daemon)), daemon: daemon, context: context, retained: retained)
  }

  /// Stops gracefully: no new connection is accepted (`MHD_quiesce_daemon`), every request already begun is
  /// answered (responses sent meanwhile say `Connection: close`), then the daemon stops and closes the remaining
  /// idle connections. Calling it again (or concurrently) waits for the same stop.
  package func stop() async {
    guard context.beginStopping() else {
      await context.waitStopped()
      return
    }
    let listener = MHD_quiesce_daemon(daemon)
    await context.waitIdle()
    MHD_stop_daemon(daemon)
    if listener >= 0 { close(listener) }
    retained.release()
    context.markStopped()
  }

  /// Requests begun and not yet completed (for tests and the log).
  package var requestsInFlight: Int { context.inFlightCount }
}

extension ServerStack {
  /// Servers over GNU libmicrohttpd (``MicroHTTPDServer``): what `news-online` passes to the command line.
  package static let microHTTPD = ServerStack { host, port, limits, handler throws(ServerStartError) in
    try MicroHTTPDServer.start(host: host, port: port, limits: limits, handler: handler)
  }
}

/// A connection pointer carried into the task that answers it (libmicrohttpd's resume is thread-safe).
private struct ConnectionHandle: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// One request's state between libmicrohttpd's calls of the access handler (its `con_cls`).
private final class RequestState: @unchecked Sendable {
  let method: String
  let path: String
  var body = Data()
  var overflow = false
  var started = false
  private let lock = NSLock()
  private var response: ServerResponse?

  init(method: String, path: String) {
    self.method = method
    self.path = path
  }

  func setResponse(_ value: ServerResponse) { lock.withLock { response = value } }
  func takeResponse() -> ServerResponse? {
    lock.withLock {
      defer { response = nil }
      return response
    }
  }
}

/// Collects the key/value pairs libmicrohttpd iterates over (`MHD_get_connection_values`).
private final class PairCollector {
  var pairs: [(name: String, value: String)] = []
}

/// What the daemon's C callbacks reach through their `cls`: the handler, the limits and the count of requests in
/// flight that a graceful stop waits for.
private final class DaemonContext: @unchecked Sendable {
  let handler: ServerHandler
  let limits: ServerLimits
  private let lock = NSLock()
  private var inFlight = 0
  private var stopping = false
  private var stopped = false
  private var idleWaiters: [CheckedContinuation<Void, Never>] = []
  private var stopWaiters: [CheckedContinuation<Void, Never>] = []

  init(handler: @escaping ServerHandler, limits: ServerLimits) {
    self.handler = handler
    self.limits = limits
  }

  var inFlightCount: Int { lock.withLock { inFlight } }
  var isStopping: Bool { lock.withLock { stopping } }

  /// `true` for the first caller, who stops the daemon; `false` for the others, who wait.
  func beginStopping() -> Bool {
    lock.withLock {
      defer { stopping = true }
      return !stopping
    }
  }

  func waitIdle() async {
    await withCheckedContinuation { continuation in
      let now = lock.withLock {
        if inFlight == 0 { return true }
        idleWaiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  func waitStopped() async {
    await withCheckedContinuation { continuation in
      let now = lock.withLock {
        if stopped { return true }
        stopWaiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  func markStopped() {
    let waiters = lock.withLock {
      stopped = true
      defer { stopWaiters = [] }
      return stopWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func began() { lock.withLock { inFlight += 1 } }

  private func ended() {
    let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
      inFlight -= 1
      guard inFlight == 0 else { return [] }
      defer { idleWaiters = [] }
      return idleWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: - libmicrohttpd's callbacks

  /// `MHD_AccessHandlerCallback`: called when the header fields are in (first call), for each piece of the body,
  /// once the body is complete (the handler's task starts, the connection is suspended) and after the resume (the
  /// response is queued).
  static func access(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ upload: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
  ) -> MHD_Result {
    guard let cls, let connection, let uploadSize, let requestContext else { return .NO }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    guard let pointer = requestContext.pointee else {
      let state = RequestState(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
      requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
      daemon.began()
      return daemon.headersReceived(connection, state, version: version.map { String(cString: $0) } ?? "HTTP/1.1")
    }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
    if let response = state.takeResponse() { return daemon.queue(response, on: connection) }
    if uploadSize.pointee > 0 {
      let count = uploadSize.pointee
      if !state.overflow, let upload {
        if state.body.count + count > daemon.limits.maxBodyBytes {
          state.overflow = true
          state.body = Data()
        } else {
          upload.withMemoryRebound(to: UInt8.self, capacity: count) { state.body.append($0, count: count) }
        }
      }
      uploadSize.pointee = 0
      return .YES
    }
    if state.overflow {
      daemon.noteRefusal(413, state, connection)
      return daemon.queue(tooLarge(daemon.limits), on: connection, close: true)
    }
    guard !state.started else { return .YES }
    state.started = true
    let request = ServerRequest(
      method: state.method, path: state.path, query: values(connection, .GET_ARGUMENT_KIND),
      headers: values(connection, .HEADER_KIND), body: state.body, remoteAddress: peerAddress(connection))
    state.body = Data()
    MHD_suspend_connection(connection)
    let handle = ConnectionHandle(pointer: connection)
    let handler = daemon.handler
    Task {
      let response = await handler(request)
      state.setResponse(response)
      MHD_resume_connection(handle.pointer)
    }
    return .YES
  }

  /// `MHD_RequestCompletedCallback`: the request is over (answered, failed or timed out): its state is freed.
  static func completed(
    _ cls: UnsafeMutableRawPointer?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
  ) {
    guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    Unmanaged<RequestState>.fromOpaque(pointer).release()
    Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().ended()
  }

  /// The first call: the request line and header fields are parsed. Refuses header fields over the limit (431),
  /// a message whose framing or `Host` RFC 9112 makes an error (``MessageCheck``: 400 or 501, the connection
  /// closed) and a declared body over the limit (413, before the body is read).
  private func headersReceived(_ connection: OpaquePointer, _ state: RequestState, version: String) -> MHD_Result {
    let headers = Self.values(connection, .HEADER_KIND)
    let headerBytes = headers.reduce(state.method.utf8.count + state.path.utf8.count + 12) {
      $0 + $1.name.utf8.count + $1.value.utf8.count + 4
    }
    if headerBytes > limits.maxHeaderBytes {
      noteRefusal(431, state, connection)
      return queue(.text("request header fields too large\n", status: 431), on: connection, close: true)
    }
    if let refusal = MessageCheck.refusal(version: version, headers: headers) {
      noteRefusal(refusal.status, state, connection, reason: refusal.reason)
      return queue(.text(refusal.reason + "\n", status: refusal.status), on: connection, close: true)
    }
    if let length = headers.first(where: { $0.name.lowercased() == "content-length" })?.value,
      let bytes = UInt64(length.trimmingCharacters(in: .whitespaces)), bytes > UInt64(limits.maxBodyBytes)
    {
      noteRefusal(413, state, connection)
      return queue(Self.tooLarge(limits), on: connection, close: true)
    }
    return .YES
  }

  /// Hands the handler a request this transport refused itself (``ServerRequest/refusedWith``), so that it is
  /// logged; no header field, query or body is passed on (they are what was too large or malformed), the path at
  /// most 200 characters.
  func noteRefusal(_ status: Int, _ state: RequestState, _ connection: OpaquePointer, reason: String? = nil) {
    var request = ServerRequest(
      method: String(state.method.prefix(16)), path: String(state.path.prefix(200)), query: [], headers: [],
      body: Data(), remoteAddress: Self.peerAddress(connection))
    request.refusedWith = status
    request.refusalReason = reason
    let handler = self.handler
    Task { _ = await handler(request) }
  }

  private static func tooLarge(_ limits: ServerLimits) -> ServerResponse {
    .text("request body too large (at most \(limits.maxBodyBytes) bytes)\n", status: 413)
  }

  /// Queues `response` on `connection`: its header fields as given (but `Content-Length`, which libmicrohttpd
  /// computes), `Connection: close` when `close` or while the server stops; a file body is streamed from its
  /// descriptor (404 when it cannot be opened).
  private func queue(_ response: ServerResponse, on connection: OpaquePointer, close: Bool = false) -> MHD_Result {
    var made: OpaquePointer?
    var status = response.status
    switch response.body {
    case .data(let data):
      made = data.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
          bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .file(let path):
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      var info = stat()
      if fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
        made = MHD_create_response_from_fd(Int(info.st_size), fd)
        if made == nil { _ = Glibc.close(fd) }
      } else {
        if fd >= 0 { _ = Glibc.close(fd) }
        status = 404
        made = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
      }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers where header.name.lowercased() != "content-length" {
      if status == 404, case .file = response.body, header.name.lowercased() == "content-type" { continue }
      _ = MHD_add_response_header(made, header.name, header.value)
    }
    if close || isStopping { _ = MHD_add_response_header(made, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(clamping: status), made)
  }

  /// The pairs of `kind` (header fields, names lower-cased; or GET arguments, decoded by libmicrohttpd) in order.
  private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
    let collector = PairCollector()
    let box = Unmanaged.passUnretained(collector).toOpaque()
    _ = MHD_get_connection_values(
      connection, kind,
      { cls, kind, key, value in
        guard let cls, let key else { return .YES }
        let collector = Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue()
        let name = String(cString: key)
        collector.pairs.append(
          (
            name: kind == MHD_ValueKind.HEADER_KIND ? name.lowercased() : name,
            value: value.map { String(cString: $0) } ?? ""
          ))
        return .YES
      }, box)
    return withExtendedLifetime(collector) { collector.pairs }
  }

  /// The peer's numeric address (`127.0.0.1`, `::1`; an IPv4-mapped IPv6 address as IPv4).
  private static func peerAddress(_ connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    news_mhd_peer_address(connection, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
