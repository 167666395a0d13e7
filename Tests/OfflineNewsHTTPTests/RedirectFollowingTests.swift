import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import TestSupport
import Testing

/// Redirects are followed by the transport itself, by the request's rule, within one deadline; the response says
/// where it ended and where the resource now lives.
@Suite("Redirects: same origin by default, any origin when asked, secrets kept home, the final and permanent URL")
struct RedirectFollowingTests {
  @Test("same origin: followed with every header, a relative Location resolved; the response names the final URL")
  func sameOrigin() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 200, body: Data("moved here".utf8)))
    defer { server.stop() }
    server.enqueue(.respond(status: 302, headers: ["Location": "/b"], body: Data()))
    let transport = CurlHTTPTransport(timeout: 5)

    let response = try await transport.send(
      HTTPRequest(url: server.url("/a"), headers: ["X-Key": "k-1"], secrets: ["k-1"]))

    #expect(response.status == 200)
    #expect(response.body == Data("moved here".utf8))
    #expect(response.url == server.url("/b"))
    #expect(response.permanentURL == server.url("/a"))  // a 302 is temporary
    #expect(server.requests.map(\.target) == ["/a", "/b"])
    #expect(server.requests.map { $0.header("X-Key") } == ["k-1", "k-1"])
  }

  @Test("another origin, by default: the 3xx is the answer, and nothing reaches the other host")
  func crossOriginRefused() async throws {
    let elsewhere = try LoopbackHTTPServer(.respond(status: 200, body: Data()))
    defer { elsewhere.stop() }
    let target = elsewhere.url("/x")
    let server = try LoopbackHTTPServer(
      .respond(status: 301, headers: ["Location": target.absoluteString], body: Data()))
    defer { server.stop() }
    let transport = CurlHTTPTransport(timeout: 5)

    let response = try await transport.get(server.url("/a"), headers: ["X-Key": "k-1"])

    #expect(response.status == 301)
    #expect(response.header("location") == target.absoluteString)
    #expect(response.url == server.url("/a"))
    #expect(elsewhere.requests.isEmpty)
  }

  @Test("any origin, when asked: followed, without the headers that carry a secret")
  func crossOriginFollowed() async throws {
    let elsewhere = try LoopbackHTTPServer(.respond(status: 200, body: Data("feed".utf8)))
    defer { elsewhere.stop() }
    let server = try LoopbackHTTPServer(
      .respond(status: 308, headers: ["Location": elsewhere.url("/feed").absoluteString], body: Data()))
    defer { server.stop() }
    let transport = CurlHTTPTransport(timeout: 5, secrets: ["transport-key"])

    let response = try await transport.send(
      HTTPRequest(
        url: server.url("/old"),
        headers: ["Accept": "application/rss+xml", "X-Key": "request-key", "Authorization": "Bearer transport-key"],
        secrets: ["request-key"], redirects: .anyOrigin))

    #expect(response.status == 200)
    #expect(response.url == elsewhere.url("/feed"))
    #expect(response.permanentURL == elsewhere.url("/feed"))
    let home = try #require(server.requests.first)
    #expect(home.header("X-Key") == "request-key")
    #expect(home.header("Authorization") == "Bearer transport-key")
    let away = try #require(elsewhere.requests.first)
    #expect(away.header("Accept") == "application/rss+xml")
    #expect(away.header("X-Key") == nil)
    #expect(away.header("Authorization") == nil)
  }

  @Test(
    "the permanent URL: the end of an unbroken chain of 301/308 from the start",
    arguments: [
      ([301, 308], "/2"),  // both permanent: the last target
      ([301, 302], "/1"),  // permanent, then temporary: the first target
      ([302, 301], "/0"),  // temporary first: the request's URL
    ])
  func permanentURL(_ statuses: [Int], _ expected: String) async throws {
    let server = try LoopbackHTTPServer(.respond(status: 200, body: Data()))
    defer { server.stop() }
    for (index, status) in statuses.enumerated() {
      server.enqueue(.respond(status: status, headers: ["Location": "/\(index + 1)"], body: Data()))
    }
    let response = try await CurlHTTPTransport(timeout: 5).get(server.url("/0"))
    #expect(response.url == server.url("/2"))
    #expect(response.permanentURL == server.url(expected))
  }

  @Test("a redirect loop ends after the limit with tooManyRedirects")
  func loop() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 302, headers: ["Location": "/again"], body: Data()))
    defer { server.stop() }
    let error = await failure(CurlHTTPTransport(timeout: 5), HTTPRequest(url: server.url("/start")))
    #expect(error == .tooManyRedirects(limit: CurlHTTPTransport.maximumRedirects))
    #expect(error?.description == "more than 5 redirects")
    #expect(server.requests.count == CurlHTTPTransport.maximumRedirects + 1)
  }

  @Test("a Location that is not http(s) is not followed: the 3xx is the answer")
  func otherScheme() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 302, headers: ["Location": "ftp://example.org/feed"], body: Data()))
    defer { server.stop() }
    let response = try await CurlHTTPTransport(timeout: 5).send(
      HTTPRequest(url: server.url("/a"), redirects: .anyOrigin))
    #expect(response.status == 302)
    #expect(server.requests.count == 1)
  }
}
