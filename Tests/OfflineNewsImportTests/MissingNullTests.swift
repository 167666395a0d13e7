import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("Missing vs null, full representation, local-only attributes")
struct MissingNullTests {
  static func things(fullRepresentation: Bool = false) throws -> ImportMapping {
    try mapping(
      """
      {"name": "things", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "fullRepresentation": \(fullRepresentation),
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "score": {"type": "integer"},
                        "origin": {"type": "text"}},
         "relationships": {"owner": {"to": "person", "kind": "toOne"}, "tags": {"to": "tag", "kind": "toMany"}},
         "set": {"origin": "$source"}},
        {"entity": "person", "identity": ["id"], "attributes": {"id": {"type": "text"}}},
        {"entity": "tag", "identity": ["id"], "attributes": {"id": {"type": "text"}}}]}
      """)
  }

  static let full = #"{"items": [{"id": 1, "title": "a", "score": 5, "owner": "u1", "tags": ["t1", "t2"]}]}"#

  static func thing(
    title: DatabaseValue = .text("a"), score: DatabaseValue = .integer(5), owner: DatabaseValue = .text("u1")
  ) -> TableRow {
    ["id": .integer(1), "title": title, "score": score, "origin": .text("test.json"), "owner": owner]
  }

  static let twoTags: [[DatabaseValue]] = [[.integer(1), .text("t1")], [.integer(1), .text("t2")]]

  @Test("a missing key leaves the stored value; null clears it; [] and null empty a to-many")
  func missingAndNull() async throws {
    let mapping = try Self.things()
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.full)
    #expect(try await store.rows("thing") == [Self.thing()])
    #expect(try await store.links("thing", "tags") == Self.twoTags)
    #expect(try await store.rows("person") == [["id": .text("u1")]])
    #expect(try await store.rows("tag") == [["id": .text("t1")], ["id": .text("t2")]])

    // Every key missing: nothing changes.
    #expect(try await counts(store.run(mapping, #"{"items": [{"id": 1}]}"#)) == expectedCounts(unchanged: 1))
    #expect(try await store.rows("thing") == [Self.thing()])
    #expect(try await store.links("thing", "tags") == Self.twoTags)

    // null clears an attribute and a to-one; the others stay.
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": 1, "title": null, "owner": null}]}"#))
        == expectedCounts(updated: 1))
    #expect(try await store.rows("thing") == [Self.thing(title: .null, owner: .null)])
    #expect(try await store.links("thing", "tags") == Self.twoTags)
    #expect(try await store.rows("person") == [["id": .text("u1")]])

    // [] empties a to-many; its rows stay.
    try await store.run(mapping, #"{"items": [{"id": 1, "tags": []}]}"#)
    #expect(try await store.rows("thing") == [Self.thing(title: .null, owner: .null)])
    #expect(try await store.links("thing", "tags") == [])
    #expect(try await store.rows("tag") == [["id": .text("t1")], ["id": .text("t2")]])

    // null empties a to-many too.
    try await store.run(mapping, #"{"items": [{"id": 1, "tags": ["t2"]}]}"#)
    #expect(try await store.links("thing", "tags") == [[.integer(1), .text("t2")]])
    try await store.run(mapping, #"{"items": [{"id": 1, "tags": null}]}"#)
    #expect(try await store.links("thing", "tags") == [])
    #expect(try await store.rows("thing") == [Self.thing(title: .null, owner: .null)])
  }

  @Test("a change of to-many members alone is reported as an update, not unchanged")
  func toManyChangeIsAnUpdate() async throws {
    let mapping = try Self.things()
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.full)
    let report = try await store.run(mapping, #"{"items": [{"id": 1, "tags": ["t1"]}]}"#)
    #expect(try await store.links("thing", "tags") == [[.integer(1), .text("t1")]])
    #expect(counts(report) == expectedCounts(updated: 1))
    // Same members again: unchanged.
    let again = try await store.run(mapping, #"{"items": [{"id": 1, "tags": ["t1"]}]}"#)
    #expect(counts(again) == expectedCounts(unchanged: 1))
  }

  @Test("fullRepresentation: a missing key clears attributes, to-one and to-many (constants and identity kept)")
  func fullRepresentation() async throws {
    let mapping = try Self.things(fullRepresentation: true)
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.full)
    #expect(try await store.rows("thing") == [Self.thing()])
    #expect(try await store.links("thing", "tags") == Self.twoTags)
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": 1, "score": 6}]}"#)) == expectedCounts(updated: 1))
    #expect(try await store.rows("thing") == [Self.thing(title: .null, score: .integer(6), owner: .null)])
    #expect(try await store.links("thing", "tags") == [])
    #expect(try await store.rows("person") == [["id": .text("u1")]])
  }

  @Test("fullRepresentation: a required attribute missing from one record is that record's error, not the import's")
  func fullRepresentationRequired() async throws {
    let mapping = try mapping(
      """
      {"name": "things", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "fullRepresentation": true,
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text", "optional": false}}}]}
      """)
    let store = try TestStore(mapping)
    try await store.run(mapping, #"{"items": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}"#)
    // Record 1 lacks its required title: it must not abort the whole import (record 2 is fine).
    let report = try await store.run(mapping, #"{"items": [{"id": 1}, {"id": 2, "title": "c"}]}"#)
    #expect(report.updated == 1)
    #expect(report.failed == 1)
    #expect(report.failures.contains { $0.identity == "1" && $0.keyPath.hasPrefix("items[0]") })
    #expect(
      try await store.rows("thing") == [
        ["id": .integer(1), "title": .text("a")], ["id": .integer(2), "title": .text("c")],
      ])
  }

  @Test("null for a required attribute that has a default does not abort the import")
  func nullForRequiredWithDefault() async throws {
    let mapping = try mapping(
      """
      {"name": "things", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "count": {"type": "integer", "optional": false, "default": 0}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"{"items": [{"id": 1, "count": null}, {"id": 2, "count": 3}]}"#)
    #expect(report.inserted + report.failed == 2)
    let rows = try await store.rows("thing")
    #expect(rows.contains(["id": .integer(2), "count": .integer(3)]))
    #expect(!rows.contains { $0["count"] == .null })
  }

  // MARK: - Local-only attributes

  static let newsAPIPayload = """
    {"status": "ok", "totalResults": 1, "articles": [
      {"source": {"id": null, "name": "Example"}, "author": "Ann", "title": "%@", "description": "D",
       "url": "https://example.com/1", "urlToImage": null, "publishedAt": "2024-01-02T03:04:05Z", "content": "C",
       "isRead": false, "bookmarkedAt": null}]}
    """

  static func article(title: String, isRead: Int64, bookmarkedAt: DatabaseValue) -> TableRow {
    [
      "url": .text("https://example.com/1"), "title": .text(title), "author": .text("Ann"), "summary": .text("D"),
      "imageURL": .null, "publishedAt": .integer(utcMilliseconds(2024, 1, 2, 3, 4, 5)), "content": .text("C"),
      "sourceID": .null, "sourceName": .text("Example"), "fetchedAt": .integer(importTime.millisecondsSince1970),
      "fetchQuery": .text("test.json"), "isRead": .integer(isRead), "bookmarkedAt": bookmarkedAt,
      "link": .null, "source": .text("test.json"), "tags": .null, "enclosures": .null,
      "fullTextHTML": .null, "fullText": .null, "fullTextAt": .null, "fullTextError": .null,
      "handle": .text(ArticleIdentity.handle(forKey: "https://example.com/1")), "summaryText": .null,
      "contentText": .null, "itemID": .null,
      // Set once, at the first save (migration 18).
      "firstSeenAt": .integer(importTime.millisecondsSince1970),
      // The sync APIs' id, the first key's handle (migration 20).
      "servedID": .text(ArticleIdentity.handle(forKey: "https://example.com/1")),
      // Nothing to fold in its texts (migration 24).
      "searchFolds": .integer(0),
    ]
  }

  @Test("local-only attributes (article.isRead, bookmarkedAt) are never touched by an import")
  func localOnly() async throws {
    let mapping = try shippedMapping("newsapi")
    let store = try TestStore(mapping)
    let first = Self.newsAPIPayload.replacingOccurrences(of: "%@", with: "First")
    #expect(try await counts(store.run(mapping, first)) == expectedCounts(inserted: 1))
    #expect(try await store.rows("article") == [Self.article(title: "First", isRead: 0, bookmarkedAt: .null)])
    #expect(try await store.storage.setRead(true, url: "https://example.com/1"))
    #expect(
      try await store.storage.setBookmarked(
        true, url: "https://example.com/1", at: Timestamp(millisecondsSince1970: 1_000).date))
    let second = Self.newsAPIPayload.replacingOccurrences(of: "%@", with: "Second")
    #expect(try await counts(store.run(mapping, second)) == expectedCounts(updated: 1))
    #expect(
      try await store.rows("article") == [Self.article(title: "Second", isRead: 1, bookmarkedAt: .integer(1_000))])

    // A full-representation mapping of the article entity does not clear them either.
    let full = try MissingNullTests.articleMapping(fullRepresentation: true)
    #expect(try await counts(store.run(full, first)) == expectedCounts(updated: 1))
    let rows = try await store.rows("article")
    #expect(rows.map { $0["isRead"] } == [.integer(1)])
    #expect(rows.map { $0["bookmarkedAt"] } == [.integer(1_000)])
    #expect(rows.map { $0["title"] } == [.text("First")])
  }

  static func articleMapping(fullRepresentation: Bool) throws -> ImportMapping {
    try mapping(
      """
      {"name": "articles", "records": "articles", "root": "article", "entities": [
        {"entity": "article", "fullRepresentation": \(fullRepresentation),
         "attributes": {"url": {}, "title": {}, "publishedAt": {}, "author": {}},
         "set": {"fetchedAt": "$importTime", "fetchQuery": "$source"}}]}
      """)
  }

  @Test("a mapping that sets a local-only attribute is refused when it is read")
  func localOnlyConstantRefused() {
    let problem = mappingProblem(
      """
      {"name": "articles", "records": "articles", "root": "article", "entities": [
        {"entity": "article", "attributes": {"url": {}, "title": {}, "publishedAt": {}},
         "set": {"fetchedAt": "$importTime", "fetchQuery": "$source", "isRead": true}}]}
      """)
    #expect(problem?.contains("isRead") == true, "\(problem ?? "accepted")")
  }

  @Test("a mapping that maps a local-only attribute is refused")
  func localOnlyAttributeRefused() {
    let problem = mappingProblem(
      """
      {"name": "articles", "records": "articles", "root": "article", "entities": [
        {"entity": "article", "attributes": {"url": {}, "isRead": {}}}]}
      """)
    #expect(problem?.contains("isRead") == true, "\(problem ?? "accepted")")
  }
}
