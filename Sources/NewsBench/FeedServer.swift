import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The feed benchmark's HTTP/1.1 origin on `127.0.0.1` (an ephemeral port): fixed bodies by path, each with an
/// `ETag` and a `Last-Modified`, answered `304 Not Modified` when the request's `If-None-Match` names it, or,
/// without `If-None-Match`, when its `If-Modified-Since` is that date (RFC 9110 §13.1.2, §13.1.3); `404` for
/// other paths. Connections are kept alive (a client may send several requests on one) unless the client asks
/// `Connection: close`. One thread accepts; each connection is served on its own thread.
///
/// It is the benchmark's own (Tests/TestSupport is not linked into `news-bench`) and only as large as the
/// benchmark needs: GET without a body, no chunked requests, no pipelining beyond reading one head at a time.
final class FeedServer: Sendable {
  /// A body the server serves, and its entity tag (quoted, `"…"`).
  struct Resource: Sendable {
    var body: Data
    var etag: String
    var contentType: String
  }

  /// How long a resource under `/slow/` takes to be answered, in seconds (the serving thread sleeps).
  static let slowSeconds = 2.0

  /// Every resource's `Last-Modified` (an HTTP-date, RFC 9110 §5.6.7), for clients that validate by date.
  static let lastModified = "Mon, 01 Dec 2025 08:00:00 GMT"

  let port: UInt16
  private let listener: Int32
  private let resources: [String: Resource]
  private let counts = Mutex(Counts())
  private let stopped = Atomic<Bool>(false)

  /// Requests served so far: all, and those answered `304`.
  struct Counts: Sendable {
    var requests = 0
    var notModified = 0
  }

  var served: Counts { counts.withLock { $0 } }

  /// Starts serving `resources` (by request target, e.g. `/3/bio.rdf`).
  init(resources: [String: Resource]) throws {
    _ = signal(SIGPIPE, SIG_IGN)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    let (bound, port) = withLoopbackAddress(port: 0) { address, length in
      bind(fd, address, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, address, &length) == 0
    }
    guard bound else {
      let message = String(cString: strerror(errno))
      close(fd)
      throw BenchError("cannot listen on 127.0.0.1: \(message)")
    }
    self.port = port
    listener = fd
    self.resources = resources
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  /// `http://127.0.0.1:<port><path>`.
  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  /// Stops accepting; connections in progress end with their client.
  func stop() {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    _ = shutdown(listener, Int32(SHUT_RDWR))
  }

  deinit { stop() }

  private func acceptLoop() {
    defer { close(listener) }
    while !stopped.load(ordering: .relaxed) {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        return
      }
      var one: Int32 = 1
      _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      let thread = Thread { [self] in serve(fd) }
      thread.start()
    }
  }

  private func serve(_ fd: Int32) {
    defer { close(fd) }
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    let terminator: [UInt8] = Array("\r\n\r\n".utf8)
    while true {
      // Read until a whole request head is pending.
      var end: Int?
      var searched = 0
      while end == nil {
        if pending.count >= 4 {
          for index in max(0, searched - 3)...(pending.count - 4)
          where pending[index..<(index + 4)].elementsEqual(terminator) {
            end = index
            break
          }
          searched = pending.count
        }
        if end != nil { break }
        guard pending.count < 65_536 else { return }
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return }
        pending += buffer[0..<n]
      }
      guard let end else { return }
      let head = String(decoding: pending[0..<end], as: UTF8.self)
      pending.removeFirst(end + 4)
      let lines = head.components(separatedBy: "\r\n")
      let requestLine = lines.first?.split(separator: " ") ?? []
      guard requestLine.count >= 2 else { return }
      var headers: [String: String] = [:]
      for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      let keepAlive =
        headers["connection"]?.lowercased() != "close" && requestLine.count >= 3 && requestLine[2] == "HTTP/1.1"
      guard send(respond(to: String(requestLine[1]), headers: headers, keepAlive: keepAlive), on: fd), keepAlive
      else { return }
    }
  }

  private func respond(to target: String, headers: [String: String], keepAlive: Bool) -> Data {
    if target.hasPrefix("/slow/") { Thread.sleep(forTimeInterval: Self.slowSeconds) }
    let connection = keepAlive ? "keep-alive" : "close"
    guard let resource = resources[target] else {
      counts.withLock { $0.requests += 1 }
      let body = "no such feed\n"
      return Data(
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: \(connection)\r\n\r\n\(body)"
          .utf8)
    }
    let tags = (headers["if-none-match"] ?? "").split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
    }
    // RFC 9110 §13.1.3: If-Modified-Since counts only without If-None-Match.
    let notModified =
      headers["if-none-match"] == nil
      ? headers["if-modified-since"] == Self.lastModified : tags.contains(resource.etag) || tags.contains("*")
    counts.withLock {
      $0.requests += 1
      if notModified { $0.notModified += 1 }
    }
    if notModified {
      let head =
        "HTTP/1.1 304 Not Modified\r\nETag: \(resource.etag)\r\nLast-Modified: \(Self.lastModified)\r\n"
        + "Connection: \(connection)\r\n\r\n"
      return Data(head.utf8)
    }
    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: \(resource.contentType)\r\nETag: \(resource.etag)\r\n"
      + "Last-Modified: \(Self.lastModified)\r\n"
      + "Content-Length: \(resource.body.count)\r\nConnection: \(connection)\r\n\r\n"
    return Data(head.utf8) + resource.body
  }

  private func send(_ data: Data, on fd: Int32) -> Bool {
    data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
      guard let base = bytes.baseAddress else { return true }
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if n < 0, errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
  }
}
