import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import TestSupport
import Testing

/// Conditional GETs (RFC 9110 §13.1): the request's validators become `If-None-Match` / `If-Modified-Since`, and the
/// response's `ETag` / `Last-Modified` become its validators.
@Suite("Conditional requests: validators sent as If-None-Match/If-Modified-Since, 304 is an answer")
struct ConditionalRequestTests {
  static let etag = #"W/"abc-1""#
  static let date = "Sun, 06 Nov 1994 08:49:37 GMT"

  @Test("no validators: an unconditional GET, and the 200's validators")
  func unconditional() async throws {
    let server = try LoopbackHTTPServer(.conditional(etag: Self.etag, lastModified: Self.date, body: Data("{}".utf8)))
    defer { server.stop() }
    let response = try await CurlHTTPTransport(timeout: 5).send(HTTPRequest(url: server.url("/feed")))
    #expect(response.status == 200)
    #expect(response.validators == CacheValidators(etag: Self.etag, lastModified: Self.date))
    #expect(server.requests.first?.header("If-None-Match") == nil)
    #expect(server.requests.first?.header("If-Modified-Since") == nil)
  }

  @Test("a Last-Modified in the second of the answer's Date is not kept: the feed may change again within it")
  func lastModifiedInTheSecondOfTheAnswer() throws {
    let url = try #require(URL(string: "http://127.0.0.1/feed"))
    func validators(_ headers: [String: String]) -> CacheValidators {
      HTTPResponse(url: url, status: 200, headers: headers, body: Data()).validators
    }
    let earlier = "Sun, 06 Nov 1994 08:49:36 GMT"
    #expect(validators(["Last-Modified": Self.date, "Date": Self.date]) == CacheValidators())
    #expect(
      validators(["Last-Modified": Self.date, "Date": Self.date, "ETag": Self.etag])
        == CacheValidators(etag: Self.etag))
    #expect(
      validators(["Last-Modified": earlier, "Date": Self.date]) == CacheValidators(lastModified: earlier))
    #expect(validators(["Last-Modified": Self.date]) == CacheValidators(lastModified: Self.date))
    #expect(
      validators(["Last-Modified": Self.date, "Date": "not a date"]) == CacheValidators(lastModified: Self.date))
  }

  @Test("validators: sent back unchanged; a 304 with its validators and no body")
  func notModified() async throws {
    let server = try LoopbackHTTPServer(.conditional(etag: Self.etag, lastModified: Self.date, body: Data("{}".utf8)))
    defer { server.stop() }
    let validators = CacheValidators(etag: Self.etag, lastModified: Self.date)
    let response = try await CurlHTTPTransport(timeout: 5).send(
      HTTPRequest(url: server.url("/feed"), headers: ["If-None-Match": "stale"], validators: validators))
    #expect(response.status == 304)
    #expect(response.body.isEmpty)
    #expect(response.validators == validators)
    #expect(server.requests.first?.header("If-None-Match") == Self.etag)
    #expect(server.requests.first?.header("If-Modified-Since") == Self.date)
  }

  @Test("repeated response fields: a list is joined by commas, a date or an entity tag keeps its first")
  func repeatedFields() {
    let fields = CurlHTTPTransport.fields([
      ("Last-Modified", "Mon, 01 Dec 2025 08:00:00 GMT"), ("ETag", #""a""#), ("Cache-Control", "max-age=60"),
      ("last-modified", "Tue, 02 Dec 2025 08:00:00 GMT"), ("ETag", #""b""#), ("cache-control", "public"),
    ])
    #expect(fields["last-modified"] == "Mon, 01 Dec 2025 08:00:00 GMT")
    #expect(fields["etag"] == #""a""#)
    #expect(fields["cache-control"] == "max-age=60, public")
  }

  @Test("field octets are text one scalar per octet, both ways; a Location in raw UTF-8 is still read as UTF-8")
  func fieldOctets() async throws {
    let octets: [UInt8] = [0x22, 0x63, 0xE9, 0xFF, 0xFE, 0xC3, 0xA9, 0x22]
    #expect(HTTPFieldText.octets(HTTPFieldText.text(octets)) == octets)
    #expect(HTTPFieldText.text(Array(#""abc""#.utf8)) == #""abc""#)
    #expect(HTTPFieldText.uriReference(HTTPFieldText.text(Array("/caf\u{E9}".utf8))) == "/caf\u{E9}")
    #expect(HTTPFieldText.uriReference(HTTPFieldText.text([0x2F, 0xE9])) == "/\u{E9}", "not UTF-8: as it is")
    let server = try LoopbackHTTPServer(.json("{}"))
    defer { server.stop() }
    server.router = { request in
      guard request.target == "/old" else { return nil }
      return .raw(Data("HTTP/1.1 302 Found\r\nLocation: /caf\u{E9}\r\nContent-Length: 0\r\n\r\n".utf8))
    }
    let response = try await CurlHTTPTransport(timeout: 5).send(HTTPRequest(url: server.url("/old")))
    #expect(response.status == 200)
    #expect(server.requests.last?.target == "/caf%C3%A9")
  }

  @Test("a field value loses only spaces and tabs at its ends (OWS): an octet 0xA0 there is part of the value")
  func fieldValueKeepsOctetA0() async throws {
    #expect(HTTPFieldText.trimmingOWS(" \t\u{A0}abc\u{A0} \t") == "\u{A0}abc\u{A0}")
    #expect(HTTPFieldText.trimmingOWS(" \t ") == "")
    let server = try LoopbackHTTPServer(.json("{}"))
    defer { server.stop() }
    let head =
      Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nETag: \t".utf8) + Data([0xA0, 0x22, 0x78, 0x22, 0xA0])
      + Data(" \r\n\r\n{}".utf8)
    server.router = { _ in .raw(head) }
    let response = try await CurlHTTPTransport(timeout: 5).send(HTTPRequest(url: server.url("/a")))
    #expect(response.headers["etag"].map { HTTPFieldText.octets($0) } == [0xA0, 0x22, 0x78, 0x22, 0xA0])
  }
}
