import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import TestSupport
import Testing

/// A scheme is case-insensitive (RFC 3986 §3.1): `HTTP://…` as a person may type it is fetched as `http://…`.
@Suite("The transport: a URL's scheme in any case")
struct SchemeCaseTests {
  @Test("HTTP:// in capitals is sent (URLSession alone refuses it as an unsupported URL)")
  func capitalScheme() async throws {
    let server = try LoopbackHTTPServer(.json("{}"))
    defer { server.stop() }
    let typed = try #require(
      URL(string: server.url("/feed").absoluteString.replacingOccurrences(of: "http:", with: "HTTP:")))
    #expect(typed.scheme == "HTTP")
    let response = try await CurlHTTPTransport(timeout: 5).send(HTTPRequest(url: typed))
    #expect(response.status == 200)
    #expect(server.requests.first?.target == "/feed")
  }
}
