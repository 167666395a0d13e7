import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

/// Requests carry secrets in headers (`X-Api-Key`, `X-Parse-REST-API-Key`); URLSession would carry them along a
/// redirect to any host. Only same-origin redirects are followed.
@Suite("Redirects: followed within the origin only, so header secrets never reach another host")
struct RedirectTests {
  static let body =
    #"{"status":"ok","totalResults":1,"articles":[{"source":{"id":null,"name":"S"},"title":"T","url":"https://example.com/a","publishedAt":"2024-01-01T00:00:00Z"}]}"#

  @Test("NewsAPI: a redirect to another host is not followed, and the key is not sent there")
  func newsAPICrossOrigin() async throws {
    let elsewhere = try LoopbackHTTPServer(.json(Self.body))
    defer { elsewhere.stop() }
    let target = "http://localhost:\(elsewhere.port)/v2/top-headlines"
    let server = try LoopbackHTTPServer(.respond(status: 302, headers: ["Location": target], body: Data()))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: "secret-key-123456", apiKeyHosts: ["127.0.0.1"], timeout: 5)
    do {
      _ = try await network.fetch(NewsQuery(url: server.url("/v2/top-headlines")))
      Issue.record("a cross-origin redirect was followed")
    } catch {
      guard case .httpStatus(302, _) = error else {
        Issue.record("expected HTTP 302, got \(error)")
        return
      }
    }
    #expect(elsewhere.requests.isEmpty)
  }

  @Test("NewsAPI: a redirect within the same origin is followed")
  func newsAPISameOrigin() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    server.enqueue(.respond(status: 301, headers: ["Location": server.url("/v2/moved").absoluteString], body: Data()))
    let network = HTTPNewsNetwork(apiKey: "secret-key-123456", apiKeyHosts: ["127.0.0.1"], timeout: 5)
    let page = try await network.fetch(NewsQuery(url: server.url("/v2/top-headlines")))
    #expect(page.articles.count == 1)
    #expect(server.requests.map(\.target) == ["/v2/top-headlines", "/v2/moved"])
    #expect(server.requests.last?.header("X-Api-Key") == "secret-key-123456")
  }

  @Test(
    "HTTPTransport: a cross-origin redirect comes back as the 3xx, with or without a body limit",
    arguments: [nil, 1_000_000] as [Int?])
  func transportCrossOrigin(_ limit: Int?) async throws {
    let elsewhere = try LoopbackHTTPServer(.json(#"{"results":[]}"#))
    defer { elsewhere.stop() }
    let server = try LoopbackHTTPServer(
      .respond(status: 307, headers: ["Location": "http://localhost:\(elsewhere.port)/x"], body: Data()))
    defer { server.stop() }
    let transport = CurlHTTPTransport(timeout: 5)
    let headers = ["X-Parse-REST-API-Key": "rest-secret"]
    let response =
      if let limit {
        try await transport.get(server.url("/parse/classes/A"), headers: headers, maxBodyBytes: limit)
      } else {
        try await transport.get(server.url("/parse/classes/A"), headers: headers)
      }
    #expect(response.status == 307)
    #expect(elsewhere.requests.isEmpty)
  }
}
