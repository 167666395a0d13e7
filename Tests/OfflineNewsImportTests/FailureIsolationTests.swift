import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// Point 1 of the mapping importer's rules: a bad value costs that value, not the record.
@Suite("A failure stays where it is: a bad value costs the value, a bad identity the record")
struct FailureIsolationTests {
  /// Seed 004's posts (`Tests/Fixtures/seed-004-posts.json`): two shapes of the user (`UserId` or `User`), a
  /// publisher code, tags by name.
  static func posts(onInvalidValue: String? = nil) throws -> ImportMapping {
    let policy = onInvalidValue.map { #""onInvalidValue": "\#($0)","# } ?? ""
    return try mapping(
      """
      {"name": "seed004", "records": "", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"], \(policy)
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}},
         "relationships": {"user": {"to": "user", "kind": "toOne", "from": ["UserId", "User"]},
                           "publisher": {"to": "publisher", "kind": "toOne", "from": "PublisherId"},
                           "tags": {"to": "tag", "kind": "toMany"}}},
        {"entity": "user", "identity": ["id"], "attributes": {"id": {"type": "integer"}, "name": {"type": "text"}}},
        {"entity": "publisher", "identity": ["code"], "attributes": {"code": {"type": "text"}}},
        {"entity": "tag", "identity": ["name"], "attributes": {"name": {"type": "text"}}}]}
      """)
  }

  static func post(_ id: Int64, _ title: String, user: Int64?, publisher: String?) -> TableRow {
    [
      "id": .integer(id), "title": .text(title), "user": user.map(DatabaseValue.integer) ?? .null,
      "publisher": publisher.map(DatabaseValue.text) ?? .null,
    ]
  }

  @Test("seed 004: every post imported; the to-one of the wrong shape and the bad tag list are warnings or failures")
  func seed004() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: Fixtures.own("seed-004-posts.json"))
    #expect(counts(report) == expectedCounts(inserted: 4))
    // `"PublisherId": ["DC"]` for a to-one: the value is lost, the post is kept.
    #expect(report.warnings.map(\.keyPath) == ["[2].PublisherId", "[3].Tags[1]"])
    #expect(report.warnings.map(\.identity) == ["3", "4"])
    #expect(report.warnings.first?.reason.contains("publisher is left as it was") == true)
    // The tag object without a name is a record that could not be imported: a failure of its own; post 4's list
    // keeps its other element (issue 30: never half-written, the bad element left out with its index).
    #expect(report.warnings.last?.reason.contains("left out of the list, the others kept") == true)
    #expect(report.failures.map { [$0.entity, $0.keyPath] } == [["tag", "[3].Tags[1].name"]])
    #expect(
      try await store.rows("post") == [
        Self.post(1, "Hello", user: 7, publisher: "DC"), Self.post(2, "Second", user: 8, publisher: "DC"),
        Self.post(3, "Third", user: 9, publisher: nil), Self.post(4, "Fourth", user: 7, publisher: nil),
      ])
    #expect(
      try await store.links("post", "tags") == [
        [.integer(1), .text("a")], [.integer(1), .text("b")], [.integer(4), .text("1")],
      ])
    #expect(try await store.rows("user").map { $0["name"] } == [.null, .null, .text("Ann")])
  }

  @Test("an existing row keeps the stored value where the new one cannot be read")
  func existingRowUnchanged() async throws {
    let mapping = try Self.posts()
    let store = try TestStore(mapping)
    try await store.run(mapping, #"[{"Id": 3, "Title": "Old", "PublisherId": "X", "Tags": ["keep"]}]"#)
    let report = try await store.run(mapping, #"[{"Id": 3, "Title": "New", "PublisherId": ["DC"], "Tags": "x"}]"#)
    #expect(counts(report) == expectedCounts(updated: 1))
    #expect(report.warnings.map(\.keyPath) == ["[0].PublisherId", "[0].Tags"])
    #expect(report.warnings.allSatisfy { $0.entity == "post" && $0.identity == "3" })
    #expect(try await store.rows("post") == [Self.post(3, "New", user: nil, publisher: "X")])
    #expect(try await store.links("post", "tags") == [[.integer(3), .text("keep")]])
  }

  @Test("onInvalidValue: skipRecord stays an explicit choice: the same values cost their records")
  func skipRecord() async throws {
    let mapping = try Self.posts(onInvalidValue: "skipRecord")
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: Fixtures.own("seed-004-posts.json"))
    #expect(counts(report) == expectedCounts(inserted: 2, failed: 2))
    #expect(report.warnings == [])
    #expect(
      report.failures.map { [$0.entity, $0.identity ?? "nil", $0.keyPath] } == [
        ["post", "3", "[2].PublisherId"], ["tag", "nil", "[3].Tags[1].name"], ["post", "4", "[3].Tags[1]"],
      ])
    #expect(try await store.rows("post").map { $0["id"] } == [.integer(1), .integer(2)])
    // Nothing of the skipped post's list: not its tag "1" either.
    #expect(!(try await store.rows("tag").contains { $0["name"] == .text("1") }))
  }

  /// Powers as references (`["4", null, "9"]`) or as nested objects, with the list's policy.
  static func heroes(nested: Bool, onInvalidValue: String? = nil) throws -> ImportMapping {
    let policy = onInvalidValue.map { #""onInvalidValue": "\#($0)","# } ?? ""
    let power =
      nested
      ? #"{"entity": "power", "identity": ["id"], "attributes": {"id": {"type": "text"}, "name": {"type": "text"}}}"#
      : #"{"entity": "power", "identity": ["id"], "attributes": {"id": {"type": "text"}}}"#
    return try mapping(
      """
      {"name": "heroes", "records": "", "root": "hero", "entities": [
        {"entity": "hero", "identity": ["id"], \(policy)
         "attributes": {"id": {"type": "integer"}},
         "relationships": {"powers": {"to": "power", "kind": "toMany"}}},
        \(power)]}
      """)
  }

  @Test("a null element of a to-many list is left out with a warning naming its index; the others are kept (issue 30)")
  func nullElement() async throws {
    let mapping = try Self.heroes(nested: false)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"[{"id": 1, "powers": ["4", null, "9"]}]"#)
    #expect(counts(report) == expectedCounts(inserted: 1))
    #expect(report.warnings.map(\.keyPath) == ["[0].powers[1]"])
    #expect(report.warnings.first?.reason.contains("null") == true)
    #expect(report.failures == [])
    #expect(try await store.links("hero", "powers") == [[.integer(1), .text("4")], [.integer(1), .text("9")]])
  }

  @Test("nested objects: a bad one in the middle is left out and the others kept, never the first ones only")
  func nestedBadElement() async throws {
    let mapping = try Self.heroes(nested: true)
    let store = try TestStore(mapping)
    let json = #"[{"id": 1, "powers": [{"id": "a", "name": "A"}, {"name": "no id"}, null, {"id": "c", "name": "C"}]}]"#
    let report = try await store.run(mapping, json)
    #expect(counts(report)["failed"] == 0)
    #expect(report.warnings.map(\.keyPath) == ["[0].powers[1]", "[0].powers[2]"])
    #expect(try await store.links("hero", "powers") == [[.integer(1), .text("a")], [.integer(1), .text("c")]])
  }

  @Test("under skipRecord a list with a bad element costs its record, and none of the list is written")
  func skipRecordWritesNoneOfTheList() async throws {
    let mapping = try Self.heroes(nested: true, onInvalidValue: "skipRecord")
    let store = try TestStore(mapping)
    let json =
      #"[{"id": 1, "powers": [{"id": "a", "name": "A"}, {"name": "no id"}, {"id": "c", "name": "C"}]}, {"id": 2, "powers": [{"id": "d", "name": "D"}, null]}, {"id": 3, "powers": [{"id": "e", "name": "E"}]}]"#
    let report = try await store.run(mapping, json)
    #expect(counts(report) == expectedCounts(inserted: 1, failed: 2))
    #expect(try await store.rows("hero").map { $0["id"] } == [.integer(3)])
    #expect(try await store.rows("power").map { $0["id"] } == [.text("e")])
    #expect(try await store.links("hero", "powers") == [[.integer(3), .text("e")]])
  }

  @Test("a null record in the root array is skipped with the reason, not failed")
  func nullRootRecord() async throws {
    let mapping = try Self.heroes(nested: false)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"[{"id": 1}, null, {"id": 2}]"#)
    #expect(counts(report) == expectedCounts(inserted: 2, skipped: 1))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["[1]"])
    #expect(report.warnings.first?.reason.contains("null") == true)
  }

  @Test("a required attribute that cannot be read skips the record; an optional one costs only itself")
  func requiredAttribute() async throws {
    let mapping = try mapping(
      """
      {"name": "m", "records": "", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text", "optional": false},
                        "score": {"type": "integer"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"[{"id": 1, "title": {"text": "x"}}, {"id": 2, "title": "ok", "score": "lots"}, {"id": 3, "title": null}]"#)
    #expect(counts(report) == expectedCounts(inserted: 1, failed: 2))
    #expect(report.failures.map(\.keyPath) == ["[0].title", "[2].title"])
    #expect(report.failures.allSatisfy { $0.reason.contains("required") })
    #expect(report.warnings.map(\.keyPath) == ["[1].score"])
    #expect(try await store.rows("post") == [["id": .integer(2), "title": .text("ok"), "score": .null]])
  }

  @Test("Parse: a Date wrapped twice is a date; a bad one costs its value, not the object")
  func parseMigratedDates() async throws {
    let mapping = try mapping(
      """
      {"name": "parse", "records": "results", "root": "parse_post", "entities": [
        {"entity": "parse_post", "identity": ["objectId"],
         "attributes": {"objectId": {"type": "text"}, "title": {"type": "text"}, "publishedAt": {"type": "date"},
                        "createdAt": {"type": "date"}, "updatedAt": {"type": "date"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: Fixtures.own("parse-Article-migrated-dates.json"))
    #expect(counts(report) == expectedCounts(inserted: 3))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["results[2].publishedAt"])
    #expect(report.warnings.first?.identity == "qwSs1WvAYL")
    #expect(report.warnings.first?.reason.contains("\"last week\"") == true)
    let published = try await store.rows("parse_post").map { $0["publishedAt"] }
    // Sorted by objectId: H5bkRCKczP (wrapped twice), oRwkdx7KgX (once), qwSs1WvAYL (bad).
    #expect(
      published == [
        .integer(utcMilliseconds(2023, 1, 5, 17, 30)), .integer(utcMilliseconds(2022, 12, 13, 9, 9, 4, ms: 845)), .null,
      ])
  }
}
