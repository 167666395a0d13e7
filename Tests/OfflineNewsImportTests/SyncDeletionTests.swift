import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("Sync deletion: opt-in, scoped, never after an unreadable payload")
struct SyncDeletionTests {
  static func feedItems() throws -> ImportMapping {
    try mapping(
      """
      {"name": "feed", "records": "items", "root": "item", "entities": [
        {"entity": "item", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "feed": {"type": "text"}, "score": {"type": "integer"}},
         "relationships": {"tags": {"to": "tag", "kind": "toMany"}}},
        {"entity": "tag", "identity": ["id"], "attributes": {"id": {"type": "text"}}}]}
      """)
  }

  static func item(_ id: Int64, _ feed: String, _ score: Int64? = nil) -> TableRow {
    ["id": .integer(id), "feed": .text(feed), "score": score.map(DatabaseValue.integer) ?? .null]
  }

  static let seed = """
    {"items": [{"id": 1, "feed": "a", "score": 1, "tags": ["t"]}, {"id": 2, "feed": "a", "score": 2, "tags": ["t"]},
               {"id": 3, "feed": "b", "score": 3}]}
    """

  static func seeded() async throws -> (ImportMapping, TestStore) {
    let mapping = try feedItems()
    let store = try TestStore(mapping)
    try await store.run(mapping, seed)
    #expect(try await store.rows("item") == [item(1, "a", 1), item(2, "a", 2), item(3, "b", 3)])
    return (mapping, store)
  }

  static let scopeA = Importer.Options(
    deleteMissing: .matching(FetchPredicate.attribute("feed") == "a"), importTime: importTime)

  @Test("without the option nothing is deleted")
  func optIn() async throws {
    let (mapping, store) = try await Self.seeded()
    let report = try await store.run(mapping, #"{"items": [{"id": 1, "feed": "a"}]}"#)
    #expect(counts(report) == expectedCounts(unchanged: 1))
    #expect(try await store.rows("item") == [Self.item(1, "a", 1), Self.item(2, "a", 2), Self.item(3, "b", 3)])
  }

  @Test("rows in the scope that the payload lacks are deleted (with their links); rows outside it are kept")
  func scoped() async throws {
    let (mapping, store) = try await Self.seeded()
    let report = try await store.run(
      mapping, #"{"items": [{"id": 1, "feed": "a", "score": 10}]}"#, options: Self.scopeA)
    #expect(counts(report) == expectedCounts(updated: 1, deleted: 1))
    #expect(try await store.rows("item") == [Self.item(1, "a", 10), Self.item(3, "b", 3)])
    #expect(try await store.links("item", "tags") == [[.integer(1), .text("t")]])
    #expect(try await store.rows("tag") == [["id": .text("t")]])
  }

  @Test("an empty page deletes the whole scope, and only the scope")
  func emptyPage() async throws {
    let (mapping, store) = try await Self.seeded()
    let report = try await store.run(mapping, #"{"items": []}"#, options: Self.scopeA)
    #expect(counts(report) == expectedCounts(deleted: 2))
    #expect(try await store.rows("item") == [Self.item(3, "b", 3)])
  }

  @Test("a payload that is not valid JSON, or not the mapping's shape, throws before anything is written or deleted")
  func unreadablePayload() async throws {
    let (mapping, store) = try await Self.seeded()
    let truncated = #"{"items": [{"id": 1, "feed": "a", "score": 99}, {"id": 4, "fe"#
    await #expect(throws: ImportError.self) { try await store.run(mapping, truncated, options: Self.scopeA) }
    do {
      try await store.run(mapping, truncated, options: Self.scopeA)
    } catch let error as ImportError {
      guard case .invalidJSON = error else {
        Issue.record("expected invalidJSON, got \(error)")
        return
      }
    }
    await #expect(throws: ImportError.self) {
      try await store.run(mapping, #"{"items": {"id": 1}}"#, options: Self.scopeA)
    }
    await #expect(throws: ImportError.self) {
      try await store.run(mapping, #"{"status": "error"}"#, options: Self.scopeA)
    }
    await #expect(throws: ImportError.self) { try await store.run(mapping, "<html></html>", options: Self.scopeA) }
    await #expect(throws: ImportError.self) { try await store.run(mapping, "", options: Self.scopeA) }
    #expect(try await store.rows("item") == [Self.item(1, "a", 1), Self.item(2, "a", 2), Self.item(3, "b", 3)])
    #expect(try await store.links("item", "tags") == [[.integer(1), .text("t")], [.integer(2), .text("t")]])
  }

  @Test("a record that is in the payload but has a bad value is not deleted as missing")
  func badValueIsNotMissing() async throws {
    let (mapping, store) = try await Self.seeded()
    let report = try await store.run(
      mapping, #"{"items": [{"id": 1, "feed": "a", "score": "many"}, {"id": 2, "feed": "a"}]}"#, options: Self.scopeA)
    #expect(report.failed == 0)
    #expect(report.warnings.map(\.keyPath) == ["items[0].score"])
    #expect(report.deleted == 0)
    #expect(try await store.rows("item") == [Self.item(1, "a", 1), Self.item(2, "a", 2), Self.item(3, "b", 3)])
  }

  @Test("a record whose identity cannot be read stops sync deletion (which row it is, is not known), with a warning")
  func unidentifiedRecordStopsDeletion() async throws {
    let (mapping, store) = try await Self.seeded()
    let report = try await store.run(
      mapping, #"{"items": [{"id": 1, "feed": "a"}, {"id": {"oops": 2}, "feed": "a"}]}"#, options: Self.scopeA)
    #expect(counts(report) == expectedCounts(unchanged: 1, failed: 1))
    #expect(report.warnings.contains { $0.reason.contains("sync deletion did not run") })
    #expect(try await store.rows("item") == [Self.item(1, "a", 1), Self.item(2, "a", 2), Self.item(3, "b", 3)])
  }
}
