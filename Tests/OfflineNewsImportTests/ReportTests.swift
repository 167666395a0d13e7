import Foundation
import OfflineNewsImport
import OfflineNewsModel
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
    // A bad value costs that value (a warning); a record without identity, or not an object, fails.
    #expect(counts(report) == expectedCounts(inserted: 2, updated: 1, unchanged: 1, skipped: 1, failed: 2))
    #expect(
      report.warnings.map { [$0.entity, $0.identity ?? "nil", $0.keyPath] } == [
        ["person", "u1", "data.items[2].owner.born"],
        ["thing", "5", "data.items[4].score"],
      ])
    #expect(
      report.failures.map { [$0.entity, $0.identity ?? "nil", $0.keyPath] } == [
        ["thing", "nil", "data.items[5].id"],
        ["thing", "nil", "data.items[6]"],
      ])
    let reasons = (report.warnings + report.failures).map(\.reason)
    #expect(reasons.count == 4)
    if reasons.count == 4 {
      #expect(reasons[0].contains("\"someday\""))
      #expect(reasons[1].contains("\"many\""))
      #expect(reasons[2].contains("missing identity"))
      #expect(reasons[3].contains("object"))
    }
    let thing = report.entities["thing"]
    #expect([thing?.inserted, thing?.updated, thing?.unchanged, thing?.deleted] == [2, 1, 1, 0])
    // print(report): the counts and the errors, not every field (the places of each record read).
    let printed = report.description.split(separator: "\n").map(String.init)
    #expect(printed.first == "inserted 2, updated 1, unchanged 1, skipped 1, failed 2, deleted 0, duplicates 0")
    #expect(printed.count == 5 && printed[1].hasPrefix("failed: ") && printed[3].hasPrefix("warning: "), "\(printed)")
    #expect(
      try await store.rows("thing") == [
        ["id": .integer(1), "title": .text("a"), "score": .null, "owner": .null],
        ["id": .integer(2), "title": .text("B"), "score": .null, "owner": .null],
        // The nested person lost its bad date, not itself: the reference is set.
        ["id": .integer(3), "title": .text("c"), "score": .null, "owner": .text("u1")],
        ["id": .integer(5), "title": .null, "score": .null, "owner": .null],
      ])
    #expect(try await store.rows("person") == [["id": .text("u1"), "born": .null]])
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
    #expect(report.failures.count == 1)
    #expect(report.failures.first?.entity == "thing")
    #expect(report.failures.first?.identity == "1")
    #expect(report.failures.first?.reason.contains("title") == true)
    // Where in the input: the record (or its missing key), like every other error.
    #expect(report.failures.first?.keyPath.hasPrefix("items[0]") == true, "\(report.failures.first?.keyPath ?? "")")
    #expect(try await store.rows("thing") == [["id": .integer(2), "title": .text("t")]])
  }

  @Test(
    "the report encodes as {inserted, updated, unchanged, skipped, failed, errors:[{entity, identity, keyPath, reason}]}"
  )
  func encoding() throws {
    var report = ImportReport()
    report.inserted = 1
    report.failed = 1
    report.warnings = [RecordError(entity: "thing", identity: "8", keyPath: "items[2].at", reason: "dropped")]
    report.failures = [
      RecordError(entity: "thing", identity: "7", keyPath: "items[0].at", reason: "bad"),
      RecordError(entity: "thing", identity: nil, keyPath: "items[1].id", reason: "missing identity id"),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // As `--json` writes it: every key, `null` for an unknown identity (``NullKeeping``).
    let object = try JSONSerialization.jsonObject(with: encoder.encode(NullKeeping(value: report))) as? [String: Any]
    for key in ["inserted", "updated", "unchanged", "skipped", "failed", "failures", "warnings"] {
      #expect(object?[key] != nil, "\(key)")
    }
    #expect(object?["errors"] == nil)
    #expect((object?["warnings"] as? [[String: Any]])?.count == 1)
    let errors = object?["failures"] as? [[String: Any]] ?? []
    #expect(errors.count == 2)
    for error in errors {
      #expect(Set(error.keys) == ["entity", "identity", "keyPath", "reason"], "\(error)")
    }
    #expect(errors.first?["identity"] as? String == "7")
    #expect(errors.last?["identity"] is NSNull)
  }

  @Test("a record error says its place, then its reason; one of the whole document (no key path) no empty place")
  func descriptionWithoutKeyPath() {
    #expect(
      RecordError(entity: "article", identity: "u", keyPath: "items[1].id", reason: "bad").description
        == "items[1].id (article u): bad")
    // Not " (article u): bad": the place is what is there, as every issue printer writes it (`IssuePlace`).
    #expect(RecordError(entity: "article", identity: "u", keyPath: "", reason: "bad").description == "(article u): bad")
  }
}
