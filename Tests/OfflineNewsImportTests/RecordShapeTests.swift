import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("Record shapes: one object, an array of identifiers, the entity chosen by a value, owned value rows")
struct RecordShapeTests {
  /// A JSON Feed as one `feed` record (the document), its items nested and its items' attachments owned rows.
  static func feedDocument() throws -> ImportMapping {
    try mapping(
      """
      {"name": "feed-document", "record": "", "root": "feed", "entities": [
        {"entity": "feed", "identity": [["feedUrl", "homePageUrl"]],
         "attributes": {"feedUrl": {"type": "url"}, "homePageUrl": {"type": "url"}, "title": {"type": "text"},
                        "version": {"type": "text"}},
         "relationships": {"items": {"to": "post", "kind": "toMany", "ordered": true, "deleteOrphans": true}}},
        {"entity": "post", "identity": ["id"],
         "attributes": {"id": {"type": "text"}, "title": {"type": "text"}},
         "relationships": {"attachments": {"to": "attachment", "kind": "toMany", "ordered": true}}},
        {"entity": "attachment", "owned": true,
         "attributes": {"url": {"type": "url"}, "mimeType": {"type": "text"}, "sizeInBytes": {"type": "integer"}}}]}
      """)
  }

  @Test("a document that is one object is one record; its nested list and owned rows come with it")
  func singleObject() async throws {
    let mapping = try Self.feedDocument()
    let store = try TestStore(mapping)
    let feed = """
      {"version": "https://jsonfeed.org/version/1.1", "title": "T", "feed_url": "https://e.example/feed.json",
       "items": [{"id": "1", "title": "one", "attachments": [{"url": "https://e.example/a.mp3", "mime_type": "audio/mpeg"},
                                                        {"url": "https://e.example/b.pdf", "mime_type": "application/pdf"}]},
                 {"id": "2", "title": "two"}]}
      """
    let report = try await store.run(mapping, feed)
    #expect(counts(report) == expectedCounts(inserted: 1))
    #expect(report.failures == [] && report.warnings == [])
    #expect(report.entities["post"]?.inserted == 2)
    #expect(report.entities["attachment"]?.inserted == 2)
    #expect(
      try await store.rows("feed") == [
        [
          "feedUrl": .text("https://e.example/feed.json"), "homePageUrl": .null, "title": .text("T"),
          "version": .text("https://jsonfeed.org/version/1.1"),
        ]
      ])
    #expect(
      try await store.rows("attachment") == [
        [
          "_key": .text("post:1/attachments/0"), "url": .text("https://e.example/a.mp3"),
          "mimeType": .text("audio/mpeg"), "sizeInBytes": .null,
        ],
        [
          "_key": .text("post:1/attachments/1"), "url": .text("https://e.example/b.pdf"),
          "mimeType": .text("application/pdf"), "sizeInBytes": .null,
        ],
      ])
    // The owned list is replaced with the parent's: the second attachment left, its row goes; the first is
    // rewritten in place. The item that left the feed goes too (deleteOrphans).
    let second = try await store.run(
      mapping,
      """
      {"title": "T2", "feed_url": "https://e.example/feed.json",
       "items": [{"id": "1", "attachments": [{"url": "https://e.example/c.ogg", "mime_type": "audio/ogg", "size_in_bytes": 9}]}]}
      """)
    #expect(counts(second) == expectedCounts(updated: 1))
    #expect(second.entities["attachment"]?.deleted == 1)
    #expect(second.entities["post"]?.deleted == 1)
    #expect(
      try await store.rows("attachment") == [
        [
          "_key": .text("post:1/attachments/0"), "url": .text("https://e.example/c.ogg"),
          "mimeType": .text("audio/ogg"), "sizeInBytes": .integer(9),
        ]
      ])
    #expect(try await store.rows("post").map { $0["id"] } == [.text("1")])
    #expect(try await store.orderedLinks("post", "attachments").count == 1)
  }

  @Test("a record shape that does not match is refused before anything is written")
  func singleObjectRefusesArrays() async throws {
    let mapping = try Self.feedDocument()
    let store = try TestStore(mapping)
    await #expect(throws: ImportError.self) { try await store.run(mapping, #"[{"feed_url": "https://e.example/f"}]"#) }
    #expect(try await store.count("feed") == 0)
  }

  @Test("owned rows from a real feed's attachments", .enabled(if: Fixtures.hasSharedReal))
  func ownedAttachments() async throws {
    let url = try Fixtures.sharedReal("jsonfeed-1.1-extension-offsets.json")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    let expected = items.reduce(0) { $0 + (($1["attachments"] as? [Any])?.count ?? 0) }
    let mapping = try mapping(
      """
      {"name": "feed", "records": "items", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"], "attributes": {"id": {"type": "text"}},
         "relationships": {"attachments": {"to": "attachment", "kind": "toMany"}}},
        {"entity": "attachment", "owned": true,
         "attributes": {"url": {"type": "url"}, "mimeType": {"type": "text"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: url)
    #expect(counts(report) == expectedCounts(inserted: items.count))
    #expect(try await store.count("attachment") == expected)
    #expect(try await store.rows("attachment").allSatisfy { $0["mimeType"] == .text("application/zip") })
    #expect(try await counts(store.run(mapping, file: url)) == expectedCounts(unchanged: items.count))
    #expect(try await store.count("attachment") == expected)
  }

  @Test(
    "a root that is an array of identifiers: one row each (the set values with it); mirrored with deleteMissing",
    .enabled(if: Fixtures.hasSharedReal))
  func identifiers() async throws {
    let url = try Fixtures.sharedReal("hn-topstories-500-items.json")
    let stories = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
    let ids = stories.compactMap { $0["id"] as? Int }
    #expect(ids.count == 500)
    let mapping = try mapping(
      """
      {"name": "top", "records": "", "recordsAreIdentifiers": true, "root": "ranked", "entities": [
        {"entity": "ranked", "identity": ["list", "id"],
         "attributes": {"list": {"type": "text"}, "id": {"type": "integer"}, "seenAt": {"type": "date"}},
         "set": {"list": "topstories", "seenAt": "$importTime"}}]}
      """)
    let store = try TestStore(mapping)
    let first = try await store.run(mapping, "[" + ids.map(String.init).joined(separator: ",") + "]")
    #expect(counts(first) == expectedCounts(inserted: 500))
    let rows = try await store.rows("ranked")
    #expect(rows.map { $0["id"] } == ids.sorted().map { .integer(Int64($0)) })
    #expect(rows.allSatisfy { $0["list"] == .text("topstories") })
    // The next list: the first 100 left the front page.
    let next =
      Array(ids.dropFirst(100)).map(String.init) + [#""99999999""#, #"{"__type": "Pointer", "objectId": "88888888"}"#]
    let second = try await store.run(
      mapping, "[" + next.joined(separator: ",") + ", true]",
      options: Importer.Options(deleteMissing: .entity, importTime: importTime))
    #expect(counts(second) == expectedCounts(inserted: 2, unchanged: 400, failed: 1, deleted: 0))
    // A bad identifier means the list is not known exactly: nothing was deleted, and it says so.
    #expect(second.warnings.contains { $0.reason.contains("sync deletion did not run") })
    let third = try await store.run(
      mapping, "[" + Array(next.dropLast()).joined(separator: ",") + "]",
      options: Importer.Options(deleteMissing: .entity, importTime: importTime))
    #expect(counts(third) == expectedCounts(unchanged: 401, deleted: 101))
    #expect(try await store.count("ranked") == 401)
  }

  @Test(
    "entityBy picks each record's entity by its type; unmapped types are skipped with a warning",
    .enabled(if: Fixtures.hasSharedReal))
  func entityBy() async throws {
    let url = try Fixtures.sharedReal("hn-topstories-500-items.json")
    let items = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
    let types = items.map { $0["type"] as? String ?? "" }
    let stories = types.filter { $0 == "story" }.count
    let jobs = types.filter { $0 == "job" }.count
    #expect(stories + jobs == 500)
    #expect(jobs == 1)
    let mapping = try mapping(
      """
      {"name": "hn", "records": "", "entityBy": {"keyPath": "type", "map": {"story": "hn_story", "job": "hn_job"}},
       "entities": [
        {"entity": "hn_story", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "score": {"type": "integer"},
                        "time": {"type": "date", "unixTime": "seconds"}}},
        {"entity": "hn_job", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "url": {"type": "url"}}}]}
      """)
    #expect(mapping.rootEntities == ["hn_job", "hn_story"])
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: url)
    #expect(counts(report) == expectedCounts(inserted: 500))
    #expect(try await store.count("hn_story") == stories)
    #expect(try await store.count("hn_job") == jobs)
    let mixed = try await store.run(
      mapping, #"[{"id": 1, "type": "comment", "text": "hi"}, {"id": 2, "type": "job", "title": "Hiring"}, {"id": 3}]"#)
    #expect(counts(mixed) == expectedCounts(inserted: 1, skipped: 2))
    #expect(mixed.warnings.map(\.keyPath) == ["[0].type", "[2].type"])
    #expect(mixed.warnings.first?.reason.contains("\"comment\"") == true)
    #expect(mixed.warnings.first?.reason.contains("default") == true)
  }
}
