import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Synchronization
import Testing

@Suite("Identity and upsert")
struct IdentityTests {
  static func things(identity type: String) throws -> ImportMapping {
    try mapping(
      """
      {"name": "things", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"],
         "attributes": {"id": {"type": "\(type)"}, "title": {"type": "text"}}}]}
      """)
  }

  @Test("text identity: \"42\" and 42 are the same row")
  func textIdentity() async throws {
    let mapping = try Self.things(identity: "text")
    let store = try TestStore(mapping)
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": "42", "title": "a"}]}"#)) == expectedCounts(inserted: 1))
    #expect(try await store.rows("thing") == [["id": .text("42"), "title": .text("a")]])
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": 42, "title": "b"}]}"#)) == expectedCounts(updated: 1))
    #expect(try await store.rows("thing") == [["id": .text("42"), "title": .text("b")]])
    #expect(try await counts(store.run(mapping, #"{"items": [{"id": 42.0}]}"#)) == expectedCounts(unchanged: 1))
    #expect(try await store.rows("thing") == [["id": .text("42"), "title": .text("b")]])
  }

  @Test("integer identity: \"42\", 42 and \" 42 \" are the same row")
  func integerIdentity() async throws {
    let mapping = try Self.things(identity: "integer")
    let store = try TestStore(mapping)
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": "42", "title": "a"}]}"#)) == expectedCounts(inserted: 1))
    #expect(try await store.rows("thing") == [["id": .integer(42), "title": .text("a")]])
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": 42, "title": "b"}]}"#)) == expectedCounts(updated: 1))
    #expect(try await store.rows("thing") == [["id": .integer(42), "title": .text("b")]])
    #expect(
      try await counts(store.run(mapping, #"{"items": [{"id": " 42 ", "title": "c"}]}"#)) == expectedCounts(updated: 1))
    #expect(try await store.rows("thing") == [["id": .integer(42), "title": .text("c")]])
  }

  @Test("a date identity is the instant: stored as milliseconds, one row for one instant however written")
  func dateIdentity() async throws {
    let mapping = try mapping(
      """
      {"name": "days", "records": "days", "root": "day", "entities": [
        {"entity": "day", "identity": ["date"], "attributes": {"date": {"type": "date"}, "n": {"type": "integer"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping, #"{"days": [{"date": "2020-01-01T00:00:00Z", "n": 1}, {"date": "2020-01-01T02:00:00+02:00", "n": 2}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 1, duplicates: 1))
    #expect(try await store.rows("day") == [["date": .integer(utcMilliseconds(2020, 1, 1)), "n": .integer(2)]])
  }

  @Test("duplicates in one payload: one row, the last wins, counted and reported")
  func duplicates() async throws {
    let mapping = try Self.things(identity: "integer")
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping, #"{"items": [{"id": 1, "title": "first"}, {"id": 2, "title": "two"}, {"id": "1", "title": "last"}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 2, duplicates: 1))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.entity) == ["thing"])
    #expect(report.warnings.map(\.identity) == ["1"])
    #expect(report.warnings.map(\.keyPath) == ["items[2]"])
    #expect(report.warnings.first?.reason.contains("duplicate") == true)
    #expect(
      try await store.rows("thing") == [
        ["id": .integer(1), "title": .text("last")], ["id": .integer(2), "title": .text("two")],
      ])
  }

  @Test("the same nested object in many places is one row (one identity map per import)")
  func identityMap() async throws {
    let mapping = try mapping(
      """
      {"name": "posts", "records": "posts", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"], "attributes": {"id": {"type": "text"}},
         "relationships": {"author": {"to": "person", "kind": "toOne"}, "tags": {"to": "tag", "kind": "toMany"}}},
        {"entity": "person", "identity": ["id"], "attributes": {"id": {"type": "text"}, "name": {"type": "text"}}},
        {"entity": "tag", "identity": ["name"], "attributes": {"name": {"type": "text"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      """
      {"posts": [
        {"id": "p1", "author": {"id": "u1", "name": "Ada"}, "tags": [{"name": "swift"}]},
        {"id": "p2", "author": {"id": "u1", "name": "Ada"}, "tags": [{"name": "swift"}, {"name": "sql"}]},
        {"id": "p3", "author": {"id": "u1", "name": "Ada L."}, "tags": [{"name": "sql"}]}]}
      """)
    #expect(counts(report) == expectedCounts(inserted: 3))
    #expect(report.entities["person"]?.inserted == 1)
    #expect(report.entities["tag"]?.inserted == 2)
    #expect(
      try await store.rows("post") == [
        ["id": .text("p1"), "author": .text("u1")], ["id": .text("p2"), "author": .text("u1")],
        ["id": .text("p3"), "author": .text("u1")],
      ])
    #expect(try await store.rows("person") == [["id": .text("u1"), "name": .text("Ada L.")]])
    #expect(try await store.rows("tag") == [["name": .text("sql")], ["name": .text("swift")]])
    #expect(
      try await store.links("post", "tags") == [
        [.text("p1"), .text("swift")], [.text("p2"), .text("sql")], [.text("p2"), .text("swift")],
        [.text("p3"), .text("sql")],
      ])
  }

  @Test("a missing or unusable identity fails the record, reported with its key path")
  func badIdentity() async throws {
    let mapping = try Self.things(identity: "integer")
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"{"items": [{"title": "no id"}, {"id": true}, {"id": "4x"}, {"id": null}, {"id": 5, "title": "ok"}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 1, failed: 4))
    #expect(report.failures.map(\.keyPath) == ["items[0].id", "items[1].id", "items[2].id", "items[3].id"])
    #expect(report.failures.allSatisfy { $0.entity == "thing" && $0.identity == nil && !$0.reason.isEmpty })
    #expect(try await store.rows("thing") == [["id": .integer(5), "title": .text("ok")]])
  }

  @Test("existing rows are looked up one query per 500 records; writes are upserts, never INSERT OR REPLACE")
  func batchedLookups() async throws {
    let mapping = try Self.things(identity: "integer")
    let store = try TestStore(mapping)
    let items = (1...1200).map { #"{"id": \#($0), "title": "t\#($0)"}"# }.joined(separator: ",")
    let statements = Mutex<[String]>([])
    try await store.storage.traceWrites { sql in statements.withLock { $0.append(sql) } }
    let report = try await store.run(mapping, #"{"items": [\#(items)]}"#)
    try await store.storage.traceWrites(nil)
    #expect(counts(report) == expectedCounts(inserted: 1200))
    let traced = statements.withLock { $0 }
    let lookups = traced.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"thing\"") }
    #expect(lookups.count == 3)
    #expect(!traced.contains { $0.uppercased().contains("OR REPLACE") })
    #expect(try await store.count("thing") == 1200)
  }
}
