import Foundation
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// What a test client received: status, header fields (names lower-cased), body.
struct ClientResponse: Sendable {
  var status: Int
  var headers: [String: String]
  var body: Data
  var text: String { String(decoding: body, as: UTF8.self) }
  func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Requests over loopback with URLSession (not for a 401 with `WWW-Authenticate`: FoundationNetworking on Linux
/// retries those in a loop, or crashes when a delegate answers the challenge; ``curlRequest(_:_:headers:body:)``
/// asks those) (a real client: libcurl under FoundationNetworking on Linux), without
/// cookies, caches or redirects followed.
final class TestClient: Sendable {
  let base: String
  private let session: URLSession

  init(port: Int, host: String = "127.0.0.1") {
    base = host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieAcceptPolicy = .never
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    configuration.timeoutIntervalForRequest = 30
    configuration.httpMaximumConnectionsPerHost = 128
    session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
  }

  func request(
    _ method: String = "GET", _ target: String, headers: [String: String] = [:], body: Data? = nil
  ) async throws -> ClientResponse {
    guard let url = URL(string: base + target) else { throw URLError(.badURL) }
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
    }
    return ClientResponse(status: http.statusCode, headers: fields, body: data)
  }
}

/// Keeps a redirect as the response.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) { completionHandler(nil) }
}

/// Sends `bytes` on a new TCP connection to 127.0.0.1:`port` and returns everything read until the server closes
/// it (or 5 s pass): for requests no client library sends (oversized header fields).
func rawExchange(port: Int, _ bytes: Data) throws -> String {
  let fd = try connectLoopback(port: port)
  defer { close(fd) }
  var timeout = timeval(tv_sec: 5, tv_usec: 0)
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  var received = Data()
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = recv(fd, &buffer, buffer.count, 0)
    if count <= 0 { break }
    received.append(contentsOf: buffer[0..<count])
  }
  return String(decoding: received, as: UTF8.self)
}

/// A new TCP connection to 127.0.0.1:`port`; the caller closes the returned descriptor.
func connectLoopback(port: Int) throws -> Int32 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw POSIXError(.EIO) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard connected == 0 else {
    close(fd)
    throw POSIXError(.ECONNREFUSED)
  }
  return fd
}

/// A TCP connection to 127.0.0.1:`port` that has sent the start of a request and no more (a "slowloris" client);
/// the caller closes the returned descriptor.
func openSlowConnection(port: Int) throws -> Int32 {
  let fd = try connectLoopback(port: port)
  let start = Data("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
  _ = start.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  return fd
}

/// Runs `curl -s -D -` (when installed, by ``ProgramRun``) with `arguments`: its output, the response's header then
/// its body; `nil` with a printed notice when curl is not installed.
func runCurl(_ arguments: [String]) async throws -> String? {
  guard let curl = ProgramRun.program("curl") else {
    print("notice: curl is not installed; the curl checks are skipped")
    return nil
  }
  return try await ProgramRun.run(curl, ["-s", "-D", "-"] + arguments).out
}

/// A request made with curl (when installed), read back as a ``ClientResponse``; `nil` with a printed notice when
/// curl is not installed.
func curlRequest(
  _ method: String, _ url: String, headers: [String: String] = [:], body: String? = nil
) async throws -> ClientResponse? {
  var arguments = ["-X", method, url]
  for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
  if let body { arguments += ["--data-binary", body] }
  guard let output = try await runCurl(arguments) else { return nil }
  guard let end = output.range(of: "\r\n\r\n") else { throw URLError(.badServerResponse) }
  let lines = output[..<end.lowerBound].components(separatedBy: "\r\n")
  guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
  else { throw URLError(.badServerResponse) }
  var fields: [String: String] = [:]
  for line in lines.dropFirst() {
    guard let colon = line.firstIndex(of: ":") else { continue }
    fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
  }
  return ClientResponse(status: status, headers: fields, body: Data(output[end.upperBound...].utf8))
}
