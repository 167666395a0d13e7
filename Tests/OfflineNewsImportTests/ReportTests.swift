import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("The import report")
struct ReportTests {
  static func things() throws -> ImportMapping {
    try mapping(
      """
      {"name": "things", "records": "data.items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "skip": [{"keyPath": "title", "equals": "[skip]"}],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "score": {"type": "integer"}},
         "relationships": {"owner": {"to": "person", "kind": "toOne"}}},
        {"entity": "person", "identity": ["id"], "attributes": {"id": {"type": "text"}, "born": {"type": "date"}}}]}
      """)
  }

  @Test("inserted, updated, unchanged, skipped, failed; each error with entity, identity, key path, reason")
  func report() async throws {
    let mapping = try Self.things()
    let store = try TestStore(mapping)
    try await store.run(mapping, #"{"data": {"items": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}}"#)
    let report = try await store.run(
      mapping,
      #"""
      {"data": {"items": [
        {"id": 1, "title": "a"},
        {"id": 2, "title": "B"},
        {"id": 3, "title": "c", "owner": {"id": "u1", "born": "someday"}},
        {"id": 4, "title": "[skip]"},
        {"id": 5, "score": "many"},
        {"title": "no id"},
        "not an object"]}}
      """#)
    #expect(counts(report) == expectedCounts(inserted: 1, updated: 1, unchanged: 1, skipped: 1, failed: 3))
    #expect(
      report.errors.map { [$0.entity, $0.identity ?? "nil", $0.keyPath] } == [
        ["person", "u1", "data.items[2].owner.born"],
        ["thing", "5", "data.items[4].score"],
        ["thing", "nil", "data.items[5].id"],
        ["thing", "nil", "data.items[6]"],
      ])
    let reasons = report.errors.map(\.reason)
    #expect(reasons.count == 4)
    if reasons.count == 4 {
      #expect(reasons[0].contains("\"someday\""))
      #expect(reasons[1].contains("\"many\""))
      #expect(reasons[2].contains("missing identity"))
      #expect(reasons[3].contains("object"))
    }
    let thing = report.entities["thing"]
    #expect([thing?.inserted, thing?.updated, thing?.unchanged, thing?.deleted] == [1, 1, 1, 0])
    #expect(
      try await store.rows("thing") == [
        ["id": .integer(1), "title": .text("a"), "score": .null, "owner": .null],
        ["id": .integer(2), "title": .text("B"), "score": .null, "owner": .null],
        // The nested person failed (skipRecord): the reference is not set, the post is saved.
        ["id": .integer(3), "title": .text("c"), "score": .null, "owner": .null],
      ])
    #expect(try await store.rows("person") == [])
  }

  @Test("a new row the store refuses (a required attribute missing) is failed, with identity and key path")
  func rejectedInsert() async throws {
    let mapping = try mapping(
      """
      {"name": "things", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text", "optional": false}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"{"items": [{"id": 1}, {"id": 2, "title": "t"}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 1, failed: 1))
    #expect(report.errors.count == 1)
    #expect(report.errors.first?.entity == "thing")
    #expect(report.errors.first?.identity == "1")
    #expect(report.errors.first?.reason.contains("title") == true)
    // Where in the input: the record (or its missing key), like every other error.
    #expect(report.errors.first?.keyPath.hasPrefix("items[0]") == true, "\(report.errors.first?.keyPath ?? "")")
    #expect(try await store.rows("thing") == [["id": .integer(2), "title": .text("t")]])
  }

  @Test(
    "the report encodes as {inserted, updated, unchanged, skipped, failed, errors:[{entity, identity, keyPath, reason}]}"
  )
  func encoding() throws {
    var report = ImportReport()
    report.inserted = 1
    report.failed = 1
    report.errors = [
      RecordError(entity: "thing", identity: "7", keyPath: "items[0].at", reason: "bad"),
      RecordError(entity: "thing", identity: nil, keyPath: "items[1].id", reason: "missing identity id"),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let object = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any]
    for key in ["inserted", "updated", "unchanged", "skipped", "failed", "errors"] {
      #expect(object?[key] != nil, "\(key)")
    }
    let errors = object?["errors"] as? [[String: Any]] ?? []
    #expect(errors.count == 2)
    for error in errors {
      #expect(Set(error.keys) == ["entity", "identity", "keyPath", "reason"], "\(error)")
    }
    #expect(errors.first?["identity"] as? String == "7")
    #expect(errors.last?["identity"] is NSNull)
  }
}
