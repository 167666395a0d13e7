import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 server on `127.0.0.1`, on an ephemeral port, for tests of real network code.
///
/// It is written on POSIX sockets: one background `Thread` accepts, and each connection is served on its own
/// `Thread` (never on Dispatch's global queues, which a few hung connections could starve). It reads the whole
/// request head (up to `\r\n\r\n`), records the request, then acts as its current ``behaviour`` says.
///
/// For example:
/// ```swift
/// let server = try LoopbackHTTPServer(.respond(status: 200, headers: ["Content-Type": "application/json"],
///                                              body: Data(#"{"status":"ok","articles":[]}"#.utf8)))
/// defer { server.stop() }
/// let url = server.url("/v2/top-headlines?country=us")
/// server.behaviour = .hang        // the next request is never answered
/// server.requests.last?.header("X-Api-Key")
/// ```
///
/// ``stop()`` closes the listening socket (later connections are refused) and every open connection (hung requests
/// end). It is also called when the server is deinitialized.
public final class LoopbackHTTPServer: Sendable {
  /// What the server does with a request, once it has read the request head.
  public enum Behaviour: Sendable, Hashable {
    /// A complete response: the status, the given headers, `Content-Length` and `Connection: close`, the body.
    case respond(status: Int, headers: [String: String] = [:], body: Data)
    /// A response that declares `Content-Length: declaredLength` (more than `body.count`), sends `body`, then closes.
    case truncated(status: Int, body: Data, declaredLength: Int)
    /// Never answers: keeps the connection open until the client gives up or the server stops.
    case hang
    /// Closes the connection without sending a byte.
    case closeImmediately
    /// A response whose head is sent at once and whose body is sent `chunkSize` bytes at a time, `interval` seconds
    /// apart (a slow drip), then closed. `Content-Length` is the whole body's.
    case slowDrip(status: Int, headers: [String: String] = [:], body: Data, chunkSize: Int, interval: TimeInterval)
    /// A response that declares `Content-Length: declaredLength`, sends the head and `body` (a part), then resets
    /// the connection (`SO_LINGER` 0: a TCP RST instead of a FIN).
    case resetMidBody(status: Int, body: Data, declaredLength: Int)
    /// Waits `seconds`, then acts as `then` says.
    indirect case delayed(TimeInterval, then: Behaviour)
    /// Answers `status` with no `Content-Length` and a body that never ends (64 KiB chunks of `x` as fast as the
    /// client reads) until the client closes or the server stops: a hostile download.
    case endless(status: Int, contentType: String)
    /// A validating origin server (RFC 9110 §13.1.2, §13.1.3): `304 Not Modified` with the validators, no body, when
    /// the request's `If-None-Match` lists `etag` (or is `*`), or, without `If-None-Match`, when its
    /// `If-Modified-Since` equals `lastModified`; otherwise `200` with `body` as JSON and `ETag` / `Last-Modified`.
    case conditional(etag: String?, lastModified: String?, body: Data)
    /// These bytes as they are (a whole response, head and body: bytes a `String` head could not hold), then closed.
    case raw(Data)

    /// A `200 OK` JSON response.
    public static func json(_ text: String, status: Int = 200) -> Behaviour {
      .respond(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
  }

  /// A request as received.
  public struct Request: Sendable, Hashable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target: the path and query, e.g. `/v2/top-headlines?country=us`.
    public var target: String
    /// The headers, keyed by lowercased name; a repeated header's values are joined with `, `.
    public var headers: [String: String]
    /// The request head's bytes as received (the request line and the fields, without the blank line after them):
    /// ``headers`` reads them as UTF-8, which changes bytes that are not.
    public var head = Data()

    /// The value of header `name` (any letter case), or `nil`.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
  }

  /// The port the server listens on (127.0.0.1).
  public let port: UInt16
  private let core: Core
  /// After ``stop()``: a socket bound to the old port (never listening, without `SO_REUSEADDR`), so that the port
  /// stays refused until the server is gone and no server of a test running in parallel can take it.
  private let placeholder = Mutex<Int32?>(nil)

  /// Starts a server with the given initial behaviour.
  ///
  /// - Throws: ``SocketError`` when the socket cannot be created, bound or listened on.
  public init(_ behaviour: Behaviour = .closeImmediately) throws(SocketError) {
    _ = LoopbackHTTPServer.ignoreSIGPIPE
    let fd = try LoopbackHTTPServer.boundSocket()
    guard listen(fd, 64) == 0 else {
      let error = SocketError(call: "listen", code: errno)
      close(fd)
      throw error
    }
    let port: UInt16
    do {
      port = try LoopbackHTTPServer.localPort(of: fd)
    } catch {
      close(fd)
      throw error
    }
    self.port = port
    let core = Core(listener: fd, behaviour: behaviour)
    self.core = core
    let thread = Thread { core.acceptLoop() }
    thread.name = "LoopbackHTTPServer.accept:\(port)"
    thread.start()
  }

  deinit {
    core.stop()
    if let fd = placeholder.withLock({ $0 }) { close(fd) }
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL { url("/") }

  /// The URL of `pathAndQuery` (starting with `/`) on this server.
  public func url(_ pathAndQuery: String = "/") -> URL {
    var components = URLComponents()
    components.scheme = "http"
    components.host = "127.0.0.1"
    components.port = Int(port)
    let parts = pathAndQuery.split(separator: "?", maxSplits: 1)
    components.percentEncodedPath = parts.first.map(String.init) ?? "/"
    if parts.count > 1 { components.percentEncodedQuery = String(parts[1]) }
    return components.url ?? URL(fileURLWithPath: "/invalid-loopback-url")
  }

  /// What the server does with the next requests. Changing it affects requests whose head is read afterwards.
  public var behaviour: Behaviour {
    get { core.state.withLock { $0.behaviour } }
    set { core.state.withLock { $0.behaviour = newValue } }
  }

  /// A function choosing the behaviour for each request from the request itself (a stub API: routes, query
  /// parameters); when it returns `nil`, or is not set, the queue and ``behaviour`` apply.
  public var router: (@Sendable (Request) -> Behaviour?)? {
    get { core.state.withLock { $0.router } }
    set { core.state.withLock { $0.router = newValue } }
  }

  /// Every request received so far, in order of arrival.
  public var requests: [Request] { core.state.withLock { $0.requests } }

  /// Returns once `count` requests have arrived (their heads read), at once if they have.
  public func waitForRequests(_ count: Int = 1) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let arrived = core.state.withLock { state in
        if state.requests.count >= count { return true }
        state.requestWaiters.append((count, continuation))
        return false
      }
      if arrived { continuation.resume() }
    }
  }

  /// Queues behaviours for the next requests: each request whose head is read from now on takes the first queued
  /// behaviour, in order; once the queue is empty, ``behaviour`` applies again. For example, two `503`s then a
  /// success: `server.enqueue(.json(error, status: 503), .json(error, status: 503))` with `behaviour` the success.
  public func enqueue(_ behaviours: Behaviour...) {
    core.state.withLock { $0.queued += behaviours }
  }

  /// The queued behaviours not yet used.
  public var queuedBehaviours: [Behaviour] { core.state.withLock { $0.queued } }

  /// Stops the server: closes the listening socket, so that new connections are refused, and shuts every open
  /// connection down, so that hung requests end. Returns once the listening socket is closed. Idempotent.
  public func stop() {
    core.stop()
    placeholder.withLock { reserved in
      guard reserved == nil else { return }
      reserved = try? Self.boundSocket(reusable: false, port: port)
    }
  }

  /// A port on 127.0.0.1 where nothing listens: a socket bound to an ephemeral port, without `SO_REUSEADDR`, that
  /// never listens and stays open until the process ends. Connecting to it is refused (`ECONNREFUSED`), and no other
  /// server can take the port meanwhile (closing the socket let a server of a test running in parallel bind the same
  /// port, and a "refused" request was answered).
  public static func refusedPort() throws(SocketError) -> UInt16 {
    let fd = try boundSocket(reusable: false)
    return try localPort(of: fd)  // the descriptor is kept open on purpose: it holds the port
  }

  /// A failed socket call.
  public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
  }

  // MARK: - Sockets

  private static let ignoreSIGPIPE: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
  }()

  /// A TCP socket bound to 127.0.0.1 on an ephemeral port, with `SO_REUSEADDR` when `reusable`.
  private static func boundSocket(reusable: Bool = true, port: UInt16 = 0) throws(SocketError) -> Int32 {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
    var yes: Int32 = 1
    guard !reusable || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
      let error = SocketError(call: "setsockopt(SO_REUSEADDR)", code: errno)
      close(fd)
      throw error
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
      let error = SocketError(call: "bind", code: errno)
      close(fd)
      throw error
    }
    return fd
  }

  private static func localPort(of fd: Int32) throws(SocketError) -> UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard rc == 0 else { throw SocketError(call: "getsockname", code: errno) }
    return UInt16(bigEndian: address.sin_port)
  }

  // MARK: - The shared state and the threads

  struct State: Sendable {
    var behaviour: Behaviour
    /// Behaviours for the next requests, one each, in order, before ``behaviour`` applies again.
    var queued: [Behaviour] = []
    var router: (@Sendable (Request) -> Behaviour?)?
    var requests: [Request] = []
    /// Callers of ``waitForRequests(_:)``, with the count each waits for.
    var requestWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Connections accepted and not yet closed. A descriptor is removed from here before it is closed, so every
    /// descriptor in this set is open, and `stop()` can shut it down without touching a reused number.
    var connections: Set<Int32> = []
    var stopped = false
  }

  /// What the threads share. The threads hold the core, not the server, so that the server can be deinitialized
  /// (and stop) while they run.
  final class Core: Sendable {
    let listener: Int32
    let state: Mutex<State>
    /// Signalled once the accept thread has closed the listening socket.
    private let listenerClosed = DispatchSemaphore(value: 0)
    private let stopOnce = Mutex(false)

    init(listener: Int32, behaviour: Behaviour) {
      self.listener = listener
      state = Mutex(State(behaviour: behaviour))
    }

    func stop() {
      let first = stopOnce.withLock { done in
        defer { done = true }
        return !done
      }
      guard first else { return }
      state.withLock { state in
        state.stopped = true
        // The listener is closed by the accept thread alone, after this wakes it; so it is still open here.
        _ = shutdown(listener, Int32(SHUT_RDWR))
        for fd in state.connections { _ = shutdown(fd, Int32(SHUT_RDWR)) }
      }
      listenerClosed.wait()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    func acceptLoop() {
      defer {
        close(listener)
        listenerClosed.signal()
      }
      while !isStopped {
        // Poll with a timeout, so that the loop sees `stopped` even where `shutdown` does not wake `accept`.
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, 100)
        if ready <= 0 { continue }
        let fd = accept(listener, nil, nil)
        if fd < 0 { continue }  // EINTR, ECONNABORTED, or the listener shut down: the loop condition decides
        let accepted = state.withLock { state -> Bool in
          guard !state.stopped else { return false }
          state.connections.insert(fd)
          return true
        }
        guard accepted else {
          close(fd)
          break
        }
        let thread = Thread { [self] in serve(fd) }
        thread.name = "LoopbackHTTPServer.connection:\(fd)"
        thread.start()
      }
    }

    private func finish(_ fd: Int32) {
      state.withLock { _ = $0.connections.remove(fd) }
      close(fd)
    }

    private func serve(_ fd: Int32) {
      defer { finish(fd) }
      guard let request = readRequest(fd) else { return }
      let (router, arrived) = state.withLock { state in
        state.requests.append(request)
        let count = state.requests.count
        let arrived = state.requestWaiters.filter { $0.count <= count }.map(\.continuation)
        state.requestWaiters.removeAll { $0.count <= count }
        return (state.router, arrived)
      }
      for waiter in arrived { waiter.resume() }
      let behaviour =
        router?(request)
        ?? state.withLock { state in state.queued.isEmpty ? state.behaviour : state.queued.removeFirst() }
      act(behaviour, fd, request)
    }

    private func act(_ behaviour: Behaviour, _ fd: Int32, _ request: Request) {
      switch behaviour {
      case .respond(let status, let headers, let body):
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key })
        where !["content-length", "connection"].contains(name.lowercased()) {
          head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Data(head.utf8) + body) else { return }
        closeGracefully(fd)
      case .raw(let bytes):
        guard sendAll(fd, bytes) else { return }
        closeGracefully(fd)
      case .truncated(let status, let body, let declaredLength):
        let head =
          "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nContent-Type: application/json\r\n"
          + "Content-Length: \(declaredLength)\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Data(head.utf8) + body) else { return }
        closeGracefully(fd)
      case .hang:
        // Read (and discard) until the client closes or `stop()` shuts the connection down.
        drain(fd)
      case .closeImmediately:
        return
      case .slowDrip(let status, let headers, let body, let chunkSize, let interval):
        guard sendAll(fd, Data(Self.head(status, headers, contentLength: body.count).utf8)) else { return }
        var offset = 0
        while offset < body.count {
          if state.withLock({ $0.stopped }) { return }
          Thread.sleep(forTimeInterval: interval)
          let end = min(body.count, offset + max(1, chunkSize))
          guard sendAll(fd, body.subdata(in: offset..<end)) else { return }
          offset = end
        }
        closeGracefully(fd)
      case .resetMidBody(let status, let body, let declaredLength):
        let head = Self.head(status, ["Content-Type": "application/json"], contentLength: declaredLength)
        guard sendAll(fd, Data(head.utf8) + body) else { return }
        // The behaviour itself, not a synchronisation: a peer that sends part of the body, pauses, then resets.
        // Whether the client reads the part before the reset comes or not, it sees a transport error.
        Thread.sleep(forTimeInterval: 0.05)
        var abort = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
      case .endless(let status, let contentType):
        let head =
          "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nContent-Type: \(contentType)\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Data(head.utf8)) else { return }
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        while !state.withLock({ $0.stopped }) {
          guard sendAll(fd, chunk) else { return }
        }
      case .delayed(let seconds, let then):
        let until = Date(timeIntervalSinceNow: seconds)
        while Date() < until {
          if state.withLock({ $0.stopped }) { return }
          Thread.sleep(forTimeInterval: min(0.01, max(0, until.timeIntervalSinceNow)))
        }
        act(then, fd, request)
      case .conditional(let etag, let lastModified, let body):
        var validators: [String: String] = [:]
        if let etag { validators["ETag"] = etag }
        if let lastModified { validators["Last-Modified"] = lastModified }
        let notModified: Bool
        if let ifNoneMatch = request.header("If-None-Match") {
          let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
          notModified = tags.contains("*") || (etag.map { tag in tags.contains { weak($0) == weak(tag) } } ?? false)
        } else if let since = request.header("If-Modified-Since") {
          notModified = since == lastModified
        } else {
          notModified = false
        }
        if notModified {
          var head = "HTTP/1.1 304 Not Modified\r\n"
          for (name, value) in validators.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
          head += "Connection: close\r\n\r\n"
          guard sendAll(fd, Data(head.utf8)) else { return }
          closeGracefully(fd)
        } else {
          validators["Content-Type"] = "application/json"
          act(.respond(status: 200, headers: validators, body: body), fd, request)
        }
      }
    }

    /// A response head with the given headers, `Content-Length` and `Connection: close`.
    private static func head(_ status: Int, _ headers: [String: String], contentLength: Int) -> String {
      var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
      for (name, value) in headers.sorted(by: { $0.key < $1.key })
      where !["content-length", "connection"].contains(name.lowercased()) {
        head += "\(name): \(value)\r\n"
      }
      return head + "Content-Length: \(contentLength)\r\nConnection: close\r\n\r\n"
    }

    /// Sends our FIN and waits for the client's, so that the client reads everything before the socket is gone
    /// (closing with unread input would send a reset instead).
    private func closeGracefully(_ fd: Int32) {
      _ = shutdown(fd, Int32(SHUT_WR))
      var timeout = timeval(tv_sec: 5, tv_usec: 0)
      _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      drain(fd)
    }

    private func drain(_ fd: Int32) {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { continue }
        if n < 0, errno == EINTR { continue }
        return
      }
    }

    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
      data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
        var offset = 0
        while offset < bytes.count {
          #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
          #else
            let flags: Int32 = 0
          #endif
          guard let base = bytes.baseAddress else { return true }
          let n = send(fd, base + offset, bytes.count - offset, flags)
          if n < 0, errno == EINTR { continue }
          if n <= 0 { return false }
          offset += n
        }
        return true
      }
    }

    /// Reads the request head (and a body announced by `Content-Length`); `nil` if the connection ends first or
    /// the head is larger than 64 KiB.
    private func readRequest(_ fd: Int32) -> Request? {
      var received: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      let terminator: [UInt8] = Array("\r\n\r\n".utf8)
      var headEnd: Int?
      while headEnd == nil {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return nil }
        let searchFrom = max(0, received.count - 3)
        received.append(contentsOf: buffer[0..<n])
        if received.count >= 4 {
          for i in searchFrom...(received.count - 4) where Array(received[i..<(i + 4)]) == terminator {
            headEnd = i
            break
          }
        }
        if headEnd == nil, received.count > 65_536 { return nil }
      }
      guard let headEnd else { return nil }
      let head = String(decoding: received[0..<headEnd], as: UTF8.self)
      var lines = head.components(separatedBy: "\r\n")
      let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
      guard requestLine.count >= 2 else { return nil }
      var headers: [String: String] = [:]
      for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
      }
      // Consume a request body, so that closing does not reset the connection.
      var bodyMissing = (headers["content-length"].flatMap { Int($0) } ?? 0) - (received.count - headEnd - 4)
      while bodyMissing > 0 {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, bodyMissing), 0) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { break }
        bodyMissing -= n
      }
      return Request(
        method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
        head: Data(received[0..<headEnd]))
    }
  }
}

/// An entity tag without its weakness prefix, for the weak comparison `If-None-Match` uses (RFC 9110 §8.8.3.2).
private func weak(_ tag: some StringProtocol) -> String {
  tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : String(tag)
}

private func reasonPhrase(_ status: Int) -> String {
  switch status {
  case 200: "OK"
  case 204: "No Content"
  case 304: "Not Modified"
  case 400: "Bad Request"
  case 401: "Unauthorized"
  case 404: "Not Found"
  case 426: "Upgrade Required"
  case 429: "Too Many Requests"
  case 500: "Internal Server Error"
  case 502: "Bad Gateway"
  case 503: "Service Unavailable"
  default: "Status"
  }
}
