import Foundation
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD
import Synchronization
import TestSupport
import Testing

@testable import OfflineNewsServer

/// RFC 9112's rules on repeated `Host` and `Content-Length` lines and on `Transfer-Encoding`, which libmicrohttpd
/// 0.9.75 does not apply itself: it read the first `Host` (`Host: 127.0.0.1` then `Host: evil.example` passed the
/// DNS-rebinding check) and the first `Content-Length` (`2` then `40`: the next "body" bytes were served as a second,
/// smuggled request), kept a connection open after `Transfer-Encoding` with `Content-Length`, and waited forever for
/// the body of `Transfer-Encoding: gzip`. Raw bytes over loopback to the whole server, as a client or proxy sends them.
@Suite("news serve refuses requests whose framing or Host RFC 9112 makes an error")
struct MessageFramingTests {
  /// Sends `request` to a fresh server and returns what came back and the log lines.
  private func exchange(_ request: String) async throws -> (answer: String, log: [String]) {
    let served = try await ServedTestLibrary.synthetic()
    let lines = Mutex<[String]>([])
    let log = RequestLog { line in lines.withLock { $0.append(line) } }
    let server = try NewsServer(library: served.library, settings: NewsServer.Settings(log: log))
      .start(on: .microHTTPD, port: 0)
    let answer = try rawExchange(port: server.port, Data(request.utf8))
    for _ in 0..<100 where lines.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
    await server.stop()
    return (answer, lines.withLock { $0 })
  }

  /// How many responses `answer` holds (status lines).
  private func responses(_ answer: String) -> Int { answer.components(separatedBy: "HTTP/1.1 ").count - 1 }

  @Test(arguments: [
    "Host: 127.0.0.1\r\nHost: evil.example", "Host: evil.example\r\nHost: 127.0.0.1",
    "Host: 127.0.0.1\r\nHost: 127.0.0.1",
  ])
  func twoHostLinesAreRefused400(hosts: String) async throws {
    let (answer, log) = try await exchange("GET /v1/me HTTP/1.1\r\n\(hosts)\r\nConnection: close\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    #expect(answer.contains("more than one Host header field"))
    #expect(log.contains { $0.hasPrefix("GET /v1/me 400") && $0.contains("more than one Host") }, "\(log)")
  }

  @Test(arguments: ["a@127.0.0.1", "127.0.0.1 evil.example", "127.0.0.1:80:80", "[::1", "127.0.0.1:8x"])
  func anInvalidHostIsRefused400(host: String) async throws {
    let (answer, _) = try await exchange("GET /v1/me HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(host): \(answer)")
  }

  @Test func anHTTP11RequestWithoutHostIsRefused400() async throws {
    let (answer, _) = try await exchange("GET /v1/me HTTP/1.1\r\nConnection: close\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    // HTTP/1.0 may go without Host (RFC 9112 §3.2): the DNS-rebinding check still refuses it.
    let old = try await exchange("GET /v1/me HTTP/1.0\r\n\r\n")
    #expect(old.answer.hasPrefix("HTTP/1.1 421"), "\(old.answer)")
  }

  @Test func contentLengthsThatDifferAreRefused400AndNoSmuggledRequestIsServed() async throws {
    let smuggled = "GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    let (answer, log) = try await exchange(
      "POST /v1/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: \(smuggled.utf8.count + 2)"
        + "\r\n\r\n{}" + smuggled)
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    #expect(responses(answer) == 1, "one answer, the connection closed: \(answer)")
    #expect(!log.contains { $0.hasPrefix("GET /v1/me") }, "\(log)")
  }

  @Test func identicalContentLengthsAreOneValue() async throws {
    let (answer, _) = try await exchange(
      "POST /v1/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n"
        + "Connection: close\r\n\r\n{}")
    #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer)")
  }

  @Test func transferEncodingWithContentLengthIsRefused400AndTheConnectionClosed() async throws {
    let next = "GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    let (answer, log) = try await exchange(
      "POST /v1/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "2\r\n{}\r\n0\r\n\r\n" + next)
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    #expect(responses(answer) == 1, "\(answer)")
    #expect(log.contains { $0.contains("both Transfer-Encoding and Content-Length") }, "\(log)")
  }

  @Test(arguments: [
    ("gzip", 400), ("chunked, gzip", 400), ("chunked\r\nTransfer-Encoding: chunked", 400), ("gzip, chunked", 501),
  ])
  func transferCodingsOtherThanOneChunkedAreRefused(coding: String, status: Int) async throws {
    let (answer, _) = try await exchange(
      "POST /v1/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: \(coding)\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(coding): \(answer)")
  }

  @Test func transferEncodingInHTTP10IsRefused400() async throws {
    let (answer, log) = try await exchange(
      "POST /v1/entries HTTP/1.0\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    #expect(log.contains { $0.contains("Transfer-Encoding in an HTTP/1.0 request") }, "\(log)")
  }

  @Test func aChunkedBodyIsStillRead() async throws {
    let (answer, _) = try await exchange(
      "POST /v1/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + "2\r\n{}\r\n0\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer)")
  }
}
