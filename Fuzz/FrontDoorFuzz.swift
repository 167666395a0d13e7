// libFuzzer target: the front door of `news serve` (`NewsServer.handle`), on requests made of the input: its first
// line the method, its second the request target, then `name: value` header lines up to an empty line, then the
// body. The transport (libmicrohttpd) is not in the loop: this is what the front door does with whatever a parsed
// request may hold.
//
// Built by scripts/fuzz.sh against OfflineNewsServer. The server has credentials the fuzzer cannot guess (a random
// password), so properties checked, each a crash when broken:
// - handling never traps, whatever the bytes;
// - every response has a status in 100...599 and the three security header fields;
// - a request whose Host the check refuses is answered 421;
// - no request gets past the door: only the sign-in page (200), redirects to it (303) and refusals (401, 403, 405,
//   421, 429) come back, never an API's or the web reader's answer.
import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsNetwork
import OfflineNewsStorage

@testable import OfflineNewsServer

private let server: NewsServer = {
  guard let hash = ServerCredentials.hash(password: ServerCredentials.randomToken()),
    let storage = try? StorageContext(path: ":memory:")
  else { fatalError("cannot set up the front door") }
  let library = ServedLibrary(
    repository: NewsRepository(storage: storage, network: FileNewsNetwork()), sources: { [] })
  return NewsServer(
    library: library,
    settings: NewsServer.Settings(
      listenHost: "127.0.0.1",
      credentials: ServerCredentials(user: "alice", passwordHash: hash, apiToken: ServerCredentials.randomToken()),
      names: ["news.example"], throttle: LoginThrottle(base: .zero, maximum: .zero)))
}()

private let check = HostCheck(listenHost: "127.0.0.1", names: ["news.example"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(bytes: data, count: size)
  var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
  guard lines.count >= 2 else { return 0 }
  let method = String(decoding: lines.removeFirst().prefix(16), as: UTF8.self)
  let target = String(decoding: lines.removeFirst(), as: UTF8.self)
  var headers: [(name: String, value: String)] = []
  while let line = lines.first, !line.isEmpty {
    lines.removeFirst()
    let text = String(decoding: line, as: UTF8.self)
    guard let colon = text.firstIndex(of: ":") else { continue }
    headers.append(
      (name: String(text[..<colon]), value: text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
  }
  let body = lines.dropFirst().map { Data($0) }.reduce(into: Data()) { $0 += $1 + [UInt8(ascii: "\n")] }
  let request = ServerRequest(
    method: method, target: target, headers: headers, body: body, remoteAddress: "192.0.2.1")
  guard case .success(let response) = blocking({ await server.handle(request) }) else { fatalError("no response") }
  guard (100...599).contains(response.status) else { fatalError("status \(response.status)") }
  for (name, value) in NewsServer.securityHeaders where response.header(name) != value {
    fatalError("\(name) missing on a \(response.status)")
  }
  if !check.allows(request.header("host")), response.status != 421 {
    fatalError("Host \(request.header("host") ?? "none") refused by the check but answered \(response.status)")
  }
  guard [200, 303, 401, 403, 405, 421, 429].contains(response.status) else {
    fatalError("\(method) \(target) got past the door: \(response.status)")
  }
  if response.status == 200, request.path != "/login" {
    fatalError("\(method) \(target) answered 200 without credentials")
  }
  return 0
}
