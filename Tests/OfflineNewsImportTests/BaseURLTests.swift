import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("url attributes resolve relative references against a base read from the document")
struct BaseURLTests {
  static func links(base: String = #""baseURL": "home""#) throws -> ImportMapping {
    try mapping(
      """
      {"name": "links", "records": "items", "root": "link", "entities": [
        {"entity": "link", "identity": [["id", "href"]],
         "attributes": {"id": {"type": "text"}, "href": {"type": "url", \(base)}}}]}
      """)
  }

  /// RFC 3986 §5.4.1 "Normal Examples" with the base `http://a/b/c/d;p?q` (those with a host: a `url` attribute
  /// needs one, so `g:h` is left out), and §5.4.2's abnormal ones Foundation resolves the same way.
  static let rfc3986: [(String, String)] = [
    ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
    ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
    ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
    ("../../g", "http://a/g"),
  ]

  @Test("RFC 3986 §5.4.1: each reference resolves as the RFC says")
  func rfcExamples() async throws {
    let mapping = try Self.links()
    let store = try TestStore(mapping)
    let items = Self.rfc3986.enumerated().map { #"{"id": "\#($0.offset)", "href": "\#($0.element.0)"}"# }
    let report = try await store.run(
      mapping, #"{"home": "http://a/b/c/d;p?q", "items": [\#(items.joined(separator: ","))]}"#)
    #expect(counts(report) == expectedCounts(inserted: Self.rfc3986.count))
    #expect(report.warnings == [])
    let rows = try await store.rows("link")
    for (index, (reference, expected)) in Self.rfc3986.enumerated() {
      #expect(rows.first { $0["id"] == .text(String(index)) }?["href"] == .text(expected), "\(reference)")
    }
  }

  @Test("no base in the document, or none declared: the relative value is a warning saying why; absolute ones pass")
  func missingBase() async throws {
    let declared = try Self.links(base: #""baseURL": ["home", "feed"]"#)
    let store = try TestStore(declared)
    var report = try await store.run(
      declared,
      #"{"feed": "not absolute", "items": [{"id": "1", "href": "/a"}, {"id": "2", "href": "https://x.example/b"}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 2))
    #expect(report.warnings.map(\.keyPath) == ["items[0].href"])
    #expect(report.warnings.first?.reason.contains("no absolute base URL at home, feed") == true)
    #expect(try await store.rows("link").map { $0["href"] } == [.null, .text("https://x.example/b")])
    // The second key path is used when the first is missing.
    report = try await store.run(
      declared, #"{"feed": "https://f.example/feed.json", "items": [{"id": "1", "href": "/a"}]}"#)
    #expect(try await store.rows("link").first?["href"] == .text("https://f.example/a"))

    let undeclared = try Self.links(base: #""optional": true"#)
    let other = try TestStore(undeclared)
    report = try await other.run(undeclared, #"{"home": "https://h.example/", "items": [{"id": "1", "href": "/a"}]}"#)
    #expect(report.warnings.first?.reason.contains(#"declare "baseURL""#) == true)
  }

  @Test("$source: the URL the document was fetched from is the base (a file path is not)")
  func sourceBase() async throws {
    let mapping = try Self.links(base: #""baseURL": ["home", "$source"]"#)
    let store = try TestStore(mapping)
    try await store.run(mapping, #"{"items": [{"id": "1", "href": "p/1"}]}"#, source: "https://s.example/feeds/a.json")
    #expect(try await store.rows("link").first?["href"] == .text("https://s.example/feeds/p/1"))
    let report = try await store.run(mapping, #"{"items": [{"id": "2", "href": "p/2"}]}"#, source: "/tmp/a.json")
    #expect(report.warnings.first?.reason.contains("no absolute base URL") == true)
  }

  @Test("identity candidates: a record without its identity attribute is identified by the next candidate, as read")
  func identityCandidates() async throws {
    let mapping = try Self.links()
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"{"home": "https://h.example/", "items": [{"id": "a", "href": "/1"}, {"href": "/2"}, {"id": null, "href": "3"}, {"title": "neither"}]}"#
    )
    #expect(counts(report) == expectedCounts(inserted: 3, failed: 1))
    #expect(report.failures.first?.reason.contains("nor its candidates href") == true)
    // Candidates are read through their own mapping: the relative href resolved against the base.
    #expect(
      try await store.rows("link").map { $0["id"] } == [
        .text("a"), .text("https://h.example/2"), .text("https://h.example/3"),
      ])
  }
}
