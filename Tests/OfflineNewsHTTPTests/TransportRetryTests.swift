import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import TestSupport
import Testing

/// Retries at the transport: what is tried again, after which wait, and what the caller gets when it gives up.
@Suite("Transport retries: transport failures, 5xx and 429 with Retry-After; the last response when it gives up")
struct TransportRetryTests {
  @Test("503 then 429 (Retry-After: 2) then 200: three requests, the backoff then the server's wait, the 200")
  func recovers() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 200, body: Data("ok".utf8)))
    defer { server.stop() }
    server.enqueue(
      .respond(status: 503, body: Data("busy".utf8)),
      .respond(status: 429, headers: ["Retry-After": "2"], body: Data("slow down".utf8)))
    let recorder = WaitRecorder()
    let transport = CurlHTTPTransport(timeout: 5, retry: recorder.policy())

    let response = try await transport.get(server.url("/a"))

    #expect(response.status == 200)
    #expect(response.body == Data("ok".utf8))
    #expect(server.requests.count == 3)
    #expect(recorder.waits == [0.01, 2])
  }

  @Test("a 5xx still failing after the last attempt is returned, body and all, for the caller to read")
  func givesUpWithTheResponse() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 502, headers: ["Content-Type": "text/plain"], body: Data("bad gateway".utf8)))
    defer { server.stop() }
    let recorder = WaitRecorder()
    let response = try await CurlHTTPTransport(timeout: 5, retry: recorder.policy()).get(server.url("/a"))
    #expect(response.status == 502)
    #expect(response.body == Data("bad gateway".utf8))
    #expect(server.requests.count == 3)
    #expect(recorder.waits == [0.01, 0.02])
  }

  @Test("a Retry-After longer than the policy allows is not waited for: the 503 is the answer")
  func retryAfterTooLong() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 503, headers: ["Retry-After": "3600"], body: Data()))
    defer { server.stop() }
    let recorder = WaitRecorder()
    let response = try await CurlHTTPTransport(timeout: 5, retry: recorder.policy()).get(server.url("/a"))
    #expect(response.status == 503)
    #expect(server.requests.count == 1)
    #expect(recorder.waits.isEmpty)
  }

  @Test("other statuses are answers at once", arguments: [200, 304, 400, 401, 404, 410])
  func notRetried(_ status: Int) async throws {
    let server = try LoopbackHTTPServer(.respond(status: status, body: Data()))
    defer { server.stop() }
    let recorder = WaitRecorder()
    let response = try await CurlHTTPTransport(timeout: 5, retry: recorder.policy()).get(server.url("/a"))
    #expect(response.status == status)
    #expect(server.requests.count == 1)
    #expect(recorder.waits.isEmpty)
  }

  @Test("a refused connection is retried, then thrown as connectionRefused")
  func refused() async throws {
    let port = try LoopbackHTTPServer.refusedPort()
    let recorder = WaitRecorder()
    let url = try #require(URL(string: "http://127.0.0.1:\(port)/a"))
    let error = await failure(
      CurlHTTPTransport(timeout: 5, retry: recorder.policy()), HTTPRequest(url: url))
    #expect(error == .transport(.connectionRefused, detail: ""))
    #expect(recorder.waits == [0.01, 0.02])
  }

  @Test("a cut-short body is a lost connection, retried until a whole one arrives")
  func cutShort() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 200, body: Data("whole".utf8)))
    defer { server.stop() }
    server.enqueue(.truncated(status: 200, body: Data("wh".utf8), declaredLength: 5))
    let recorder = WaitRecorder()
    let response = try await CurlHTTPTransport(timeout: 5, retry: recorder.policy()).get(server.url("/a"))
    #expect(response.body == Data("whole".utf8))
    #expect(server.requests.count == 2)
  }

  @Test("what HTTPError retries: transport failures but TLS and cancellation; never a bad URL or a loop")
  func retryable() {
    #expect(HTTPError.transport(.connectionRefused, detail: "").isRetryable)
    #expect(HTTPError.transport(.timedOut, detail: "").isRetryable)
    #expect(HTTPError.transport(.connectionLost, detail: "").isRetryable)
    #expect(!HTTPError.transport(.secureConnectionFailed, detail: "").isRetryable)
    #expect(!HTTPError.transport(.other, detail: "cancelled").isRetryable)
    #expect(!HTTPError.unsupportedURL("ftp://x").isRetryable)
    #expect(!HTTPError.tooManyRedirects(limit: 5).isRetryable)
    #expect((500..<600).allSatisfy(RetryPolicy.isRetryable(status:)))
    #expect(RetryPolicy.isRetryable(status: 429))
    #expect(![200, 301, 304, 400, 401, 403, 404, 410, 426].contains(where: RetryPolicy.isRetryable(status:)))
  }
}
