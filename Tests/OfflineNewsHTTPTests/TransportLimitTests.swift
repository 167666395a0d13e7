import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import TestSupport
import Testing

/// The transport's bounds: one deadline for the whole request, a cap on the body, secrets out of every error.
@Suite("Transport limits: a whole-request deadline, body caps, redaction")
struct TransportLimitTests {
  @Test("the deadline covers the whole request: two hops of 0.8 s each do not fit in 1 s")
  func deadlineSpansRedirects() async throws {
    let server = try LoopbackHTTPServer(.delayed(0.8, then: .respond(status: 200, body: Data())))
    defer { server.stop() }
    server.enqueue(.delayed(0.8, then: .respond(status: 302, headers: ["Location": "/next"], body: Data())))
    let clock = ContinuousClock()
    let start = clock.now
    let error = await failure(CurlHTTPTransport(timeout: 1), HTTPRequest(url: server.url("/first")))
    #expect(error == .transport(.timedOut, detail: "no complete answer within 1 s"))
    #expect(clock.now - start < .seconds(60))  // a bound, not a benchmark (the whole suite shares 2 cores)
  }

  @Test("deadlines that pass during redirect chains end each request with a timeout, never a trap")
  func deadlinesDuringRedirects() async throws {
    // Many chains whose hops straddle the 1 s deadline: the deadline must land at every point of a chain (during a
    // hop, between two) and each request still end, with a timeout or the loop's error. (URLSession, the transport
    // until libcurl replaced it, trapped when its cancel or its own timer came while a redirect's answer was
    // pending; CI runs under load hit both.)
    let server = try LoopbackHTTPServer(
      .delayed(0.19, then: .respond(status: 302, headers: ["Location": "/again"], body: Data())))
    defer { server.stop() }
    let transport = CurlHTTPTransport(timeout: 1)
    let errors = await withTaskGroup(of: HTTPError?.self) { group in
      for index in 0..<24 {
        group.addTask { await failure(transport, HTTPRequest(url: server.url("/chain/\(index)"))) }
      }
      var errors: [HTTPError?] = []
      for await error in group { errors.append(error) }
      return errors
    }
    #expect(errors.count == 24)
    for error in errors {
      let ended =
        error == .transport(.timedOut, detail: "no complete answer within 1 s")
        || error == .tooManyRedirects(limit: CurlHTTPTransport.maximumRedirects)
      #expect(ended, "\(String(describing: error))")
    }
  }

  @Test("a body dripped slower than the deadline times out, though the connection is never idle")
  func slowDrip() async throws {
    let body = Data(repeating: UInt8(ascii: "x"), count: 100)
    let server = try LoopbackHTTPServer(.slowDrip(status: 200, body: body, chunkSize: 1, interval: 0.1))
    defer { server.stop() }
    let error = await failure(CurlHTTPTransport(timeout: 1), HTTPRequest(url: server.url("/drip")))
    #expect(error == .transport(.timedOut, detail: "no complete answer within 1 s"))
  }

  @Test(
    "a body over the cap stops the transfer: endless, or a Content-Length that says too much",
    arguments: [
      LoopbackHTTPServer.Behaviour.endless(status: 200, contentType: "application/octet-stream"),
      .truncated(status: 200, body: Data(count: 10), declaredLength: 50_000_000_000),
    ])
  func bodyCap(_ behaviour: LoopbackHTTPServer.Behaviour) async throws {
    let server = try LoopbackHTTPServer(behaviour)
    defer { server.stop() }
    let clock = ContinuousClock()
    let start = clock.now
    let recorder = WaitRecorder()
    let response = try await CurlHTTPTransport(timeout: 120, retry: recorder.policy()).get(
      server.url("/big"), maxBodyBytes: 100_000)
    #expect(response.status == 200)
    #expect((response.bodyLimitExceeded ?? 0) > 100_000)
    #expect(response.body.isEmpty)
    #expect(server.requests.count == 1)
    #expect(clock.now - start < .seconds(90))  // stopped at the cap, not at the 120 s timeout
  }

  @Test("a body within the cap is read whole")
  func withinCap() async throws {
    let body = Data(repeating: UInt8(ascii: "y"), count: 100_000)
    let server = try LoopbackHTTPServer(.respond(status: 200, body: body))
    defer { server.stop() }
    let response = try await CurlHTTPTransport(timeout: 5).get(server.url("/a"), maxBodyBytes: 100_000)
    #expect(response.bodyLimitExceeded == nil)
    #expect(response.body == body)
  }

  @Test("secrets are redacted from errors: an unsupported URL carrying a key")
  func redaction() async throws {
    let transport = CurlHTTPTransport(timeout: 5, secrets: ["transport-secret"])
    let url = try #require(URL(string: "ftp://example.org/feed?token=request-secret&key=transport-secret"))
    let error = await failure(transport, HTTPRequest(url: url, secrets: ["request-secret"]))
    #expect(error == .unsupportedURL("ftp://example.org/feed?token=<redacted>&key=<redacted>"))
    #expect(
      Redaction.redacted("k-1 and k-1, not k-2", secrets: ["k-1", ""]) == "<redacted> and <redacted>, not k-2")
  }

  @Test("one transport carries concurrent requests, each with its own body")
  func concurrent() async throws {
    let server = try LoopbackHTTPServer()
    defer { server.stop() }
    server.router = { request in .respond(status: 200, body: Data("body of \(request.target)".utf8)) }
    let transport = CurlHTTPTransport(timeout: 10)
    let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for index in 0..<16 {
        group.addTask {
          let response = try await transport.get(
            server.url("/item/\(index)"), maxBodyBytes: index.isMultiple(of: 2) ? 1_000 : nil)
          return (index, String(decoding: response.body, as: UTF8.self))
        }
      }
      var bodies: [Int: String] = [:]
      for try await (index, body) in group { bodies[index] = body }
      return bodies
    }
    #expect(bodies == Dictionary(uniqueKeysWithValues: (0..<16).map { ($0, "body of /item/\($0)") }))
  }
}
