import Foundation
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD
import Synchronization
import TestSupport
import Testing

@testable import OfflineNewsServer

/// Requests the transport refuses itself (431, 413) are logged like any other: a fresh user sent a 5 MB PUT, a
/// 20 KB header field and a 20 KB path, got 413 and 431, and found no line in the log (docs: every request logged).
@Suite("news serve's request log: the transport's own refusals too")
struct RefusedRequestLogTests {
  @Test func refusedRequestsAreLogged() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let lines = Mutex<[String]>([])
    let log = RequestLog { line in lines.withLock { $0.append(line) } }
    let server = try NewsServer(library: served.library, settings: NewsServer.Settings(log: log))
      .start(on: .microHTTPD, port: 0)
    let big = try rawExchange(
      port: server.port,
      Data("PUT /v1/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000000\r\n\r\n".utf8))
    #expect(big.hasPrefix("HTTP/1.1 413"))
    let header = String(repeating: "h", count: 20_000)
    let wide = try rawExchange(
      port: server.port, Data("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wide: \(header)\r\n\r\n".utf8))
    #expect(wide.hasPrefix("HTTP/1.1 431"))
    // The log is written by the handler's task: give it a moment.
    for _ in 0..<100 where lines.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
    let logged = lines.withLock { $0 }
    #expect(logged.contains { $0.hasPrefix("PUT /v1/entries 413") && $0.contains("body too large") }, "\(logged)")
    #expect(logged.contains { $0.hasPrefix("GET /v1/me 431") }, "\(logged)")
    #expect(!logged.joined().contains(header), "what was too large is not logged")
    await server.stop()
  }
}
