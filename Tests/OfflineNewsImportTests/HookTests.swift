import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("Hooks and declarative skip rules")
struct HookTests {
  static func posts(skip: String = "[]") throws -> ImportMapping {
    try mapping(
      """
      {"name": "posts", "records": "posts", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"], "skip": \(skip),
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "status": {"type": "text"}},
         "relationships": {"editor": {"to": "person", "kind": "toOne"}}},
        {"entity": "person", "identity": ["id"], "attributes": {"id": {"type": "text"}, "name": {"type": "text"}}}]}
      """)
  }

  static func post(_ id: Int64, _ title: String?, status: String? = nil, editor: String? = nil) -> TableRow {
    [
      "id": .integer(id), "title": title.map(DatabaseValue.text) ?? .null,
      "status": status.map(DatabaseValue.text) ?? .null, "editor": editor.map(DatabaseValue.text) ?? .null,
    ]
  }

  @Test("shouldImport: returning false skips the record (counted skipped, no row)")
  func shouldImport() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    var hooks = ImportHooks()
    hooks["post"] = EntityHooks(shouldImport: { json in json[path: "status"] != .string("draft") })
    let report = try await store.run(
      mapping, #"{"posts": [{"id": 1, "title": "a", "status": "draft"}, {"id": 2, "title": "b"}]}"#, hooks: hooks)
    #expect(counts(report) == expectedCounts(inserted: 1, skipped: 1))
    #expect(try await store.rows("post") == [Self.post(2, "b")])
  }

  @Test("willImport: rewrites the JSON before it is mapped")
  func willImport() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    var hooks = ImportHooks()
    hooks["post"] = EntityHooks(willImport: { json in
      guard case .object(var fields) = json else { return json }
      if let headline = fields.removeValue(forKey: "headline") { fields["title"] = headline }
      return .object(fields)
    })
    let report = try await store.run(mapping, #"{"posts": [{"id": 1, "headline": "renamed"}]}"#, hooks: hooks)
    #expect(counts(report) == expectedCounts(inserted: 1))
    #expect(try await store.rows("post") == [Self.post(1, "renamed")])
  }

  @Test("didImport: may change the record and delete an orphan in the same transaction")
  func didImport() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    try await store.run(mapping, #"{"posts": [{"id": 1, "title": "a", "editor": {"id": "u1", "name": "Old"}}]}"#)
    #expect(try await store.rows("person") == [["id": .text("u1"), "name": .text("Old")]])
    var hooks = ImportHooks()
    hooks["post"] = EntityHooks(didImport: { record in
      record["status"] = .text("checked")
      // The post's previous editor is left without posts: delete it.
      return record["editor"] == .text("u2") ? [(entity: "person", identity: Identity(.text("u1")))] : []
    })
    let report = try await store.run(
      mapping, #"{"posts": [{"id": 1, "editor": {"id": "u2", "name": "New"}}]}"#, hooks: hooks)
    #expect(counts(report) == expectedCounts(updated: 1))
    #expect(report.entities["person"]?.deleted == 1)
    #expect(try await store.rows("post") == [Self.post(1, "a", status: "checked", editor: "u2")])
    #expect(try await store.rows("person") == [["id": .text("u2"), "name": .text("New")]])
  }

  struct Refused: Error, CustomStringConvertible {
    var description: String { "a refused title" }
  }

  @Test("custom attribute import: a value, nil to leave the attribute alone, or a thrown error reported")
  func customAttribute() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    var hooks = ImportHooks()
    hooks["post"] = EntityHooks(attributes: [
      "title": { json in
        guard case .string(let first)? = json[path: "name.first"] else { return nil }
        if first == "bad" { throw Refused() }
        let last = json[path: "name.last"].flatMap { value -> String? in
          if case .string(let text) = value { return text }
          return nil
        }
        return .text([first, last].compactMap { $0 }.joined(separator: " "))
      }
    ])
    try await store.run(mapping, #"{"posts": [{"id": 1, "title": "ignored"}, {"id": 2, "title": "x"}]}"#)
    let report = try await store.run(
      mapping,
      #"""
      {"posts": [{"id": 1, "name": {"first": "Ada", "last": "Lovelace"}, "title": "ignored"},
                 {"id": 2, "title": "not read by the hook"},
                 {"id": 3, "name": {"first": "bad"}}]}
      """#, hooks: hooks)
    // The hook's refusal costs that value (a warning), not the record: post 3 is saved without a title.
    #expect(counts(report) == expectedCounts(inserted: 1, updated: 1, unchanged: 1))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["posts[2].title"])
    #expect(report.warnings.map(\.identity) == ["3"])
    #expect(report.warnings.first?.reason.contains("a refused title") == true)
    #expect(try await store.rows("post") == [Self.post(1, "Ada Lovelace"), Self.post(2, "x"), Self.post(3, nil)])
  }

  @Test("declarative skip rules in the mapping leave records out")
  func skipRules() async throws {
    let mapping = try Self.posts(
      skip: #"[{"keyPath": "status", "equals": "draft"}, {"keyPath": "meta.hidden", "equals": true}]"#)
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"""
      {"posts": [{"id": 1, "status": "draft"}, {"id": 2, "meta": {"hidden": true}}, {"id": 3, "meta": {"hidden": 1}},
                 {"id": 4, "status": "live"}]}
      """#)
    #expect(counts(report) == expectedCounts(inserted: 2, skipped: 2))
    #expect(try await store.rows("post") == [Self.post(3, nil), Self.post(4, nil, status: "live")])
  }

  @Test("NewsAPI: [Removed] placeholders are skipped by the shipped mapping's rules")
  func newsAPIRemoved() async throws {
    let mapping = try shippedMapping("newsapi")
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"""
      {"status": "ok", "totalResults": 3, "articles": [
        {"source": {"id": null, "name": "[Removed]"}, "author": null, "title": "[Removed]", "description": "[Removed]",
         "url": "https://removed.com", "urlToImage": null, "publishedAt": "1970-01-01T00:00:00Z", "content": "[Removed]"},
        {"source": {"id": null, "name": "X"}, "title": "[Removed]", "url": "https://example.com/other",
         "publishedAt": "2024-01-01T00:00:00Z"},
        {"source": {"id": "s", "name": "S"}, "author": " ", "title": " Kept ", "description": "",
         "url": " https://example.com/kept ", "urlToImage": "", "publishedAt": "2024-01-01T00:00:00Z", "content": null}]}
      """#)
    #expect(counts(report) == expectedCounts(inserted: 1, skipped: 2))
    #expect(report.failures == [] && report.warnings == [])
    #expect(
      try await store.rows("article") == [
        [
          "url": .text("https://example.com/kept"), "title": .text("Kept"), "author": .null, "summary": .null,
          "imageURL": .null, "publishedAt": .integer(utcMilliseconds(2024, 1, 1)), "content": .null,
          "sourceID": .text("s"), "sourceName": .text("S"), "fetchedAt": .integer(importTime.millisecondsSince1970),
          "fetchQuery": .text("test.json"), "isRead": .integer(0), "bookmarkedAt": .null,
          // The link as given (" https://example.com/kept ", trimmed by the mapping) is the key itself: no
          // separate link; the source is the payload's.
          "link": .null, "source": .text("test.json"), "tags": .null, "enclosures": .null,
          "fullTextHTML": .null, "fullText": .null, "fullTextAt": .null, "fullTextError": .null,
          "handle": .text(ArticleIdentity.handle(forKey: "https://example.com/kept")), "summaryText": .null,
          "contentText": .null, "itemID": .null,
          // Set once, at the first save (migration 18).
          "firstSeenAt": .integer(importTime.millisecondsSince1970),
          // The sync APIs' id, the first key's handle (migration 20).
          "servedID": .text(ArticleIdentity.handle(forKey: "https://example.com/kept")),
          // Nothing to fold in its texts (migration 24).
          "searchFolds": .integer(0),
        ]
      ])
  }
}
