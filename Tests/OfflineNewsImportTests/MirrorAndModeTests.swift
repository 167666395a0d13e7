import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("Operation modes and mirror sync: insert-only, update-only, deleteMissing for the entity, deleteOrphans")
struct MirrorAndModeTests {
  static func albums(deleteOrphans: Bool = true) throws -> ImportMapping {
    try mapping(
      """
      {"name": "albums", "records": "albums", "root": "album", "entities": [
        {"entity": "album", "identity": ["id"], "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}},
         "relationships": {"tracks": {"to": "track", "kind": "toMany", "ordered": true, "deleteOrphans": \(deleteOrphans)}}},
        {"entity": "track", "identity": ["id"], "attributes": {"id": {"type": "integer"}, "name": {"type": "text"}}}]}
      """)
  }

  static let seed = #"""
    {"albums": [{"id": 1, "title": "One", "tracks": [{"id": 10, "name": "a"}, {"id": 11, "name": "b"}]},
                {"id": 2, "title": "Two", "tracks": [{"id": 20, "name": "c"}]}]}
    """#

  static func options(_ operation: Importer.Operation = .upsert, deleteMissing: MissingRowsScope? = nil)
    -> Importer.Options
  {
    Importer.Options(deleteMissing: deleteMissing, operation: operation, importTime: importTime)
  }

  @Test("insert-only adds new rows and leaves existing ones (and their lists) alone; update-only the reverse")
  func modes() async throws {
    let mapping = try Self.albums()
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.seed)
    let payload = #"{"albums": [{"id": 1, "title": "One!", "tracks": [10]}, {"id": 3, "title": "Three"}]}"#
    let inserted = try await store.run(mapping, payload, options: Self.options(.insertOnly))
    #expect(counts(inserted) == expectedCounts(inserted: 1, skipped: 1))
    #expect(try await store.rows("album").map { $0["title"] } == [.text("One"), .text("Two"), .text("Three")])
    #expect(try await store.orderedLinks("album", "tracks").count == 3)

    let updated = try await store.run(
      mapping, #"{"albums": [{"id": 2, "title": "Two!"}, {"id": 4, "title": "Four"}]}"#,
      options: Self.options(.updateOnly))
    #expect(counts(updated) == expectedCounts(updated: 1, skipped: 1))
    #expect(try await store.rows("album").map { $0["title"] } == [.text("One"), .text("Two!"), .text("Three")])
  }

  @Test("deleteMissing .entity: the store holds what the payload holds, children that left with their lists")
  func mirror() async throws {
    let mapping = try Self.albums()
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.seed)
    // Album 2 left the payload; track 11 left album 1's list; track 20 moved to album 1 (it is not an orphan).
    let report = try await store.run(
      mapping, #"{"albums": [{"id": 1, "tracks": [{"id": 10}, {"id": 20}]}]}"#,
      options: Self.options(deleteMissing: .entity))
    #expect(counts(report) == expectedCounts(updated: 1, deleted: 1))
    #expect(report.entities["track"]?.deleted == 1)
    #expect(try await store.rows("album").map { $0["id"] } == [.integer(1)])
    #expect(try await store.rows("track").map { $0["id"] } == [.integer(10), .integer(20)])
    #expect(
      try await store.orderedLinks("album", "tracks") == [
        [.integer(1), .integer(10), .integer(0)], [.integer(1), .integer(20), .integer(1)],
      ])
    // An empty payload mirrors to an empty store: every album, and their tracks with them.
    let empty = try await store.run(mapping, #"{"albums": []}"#, options: Self.options(deleteMissing: .entity))
    #expect(counts(empty) == expectedCounts(deleted: 1))
    #expect(try await store.count("track") == 0)
  }

  @Test("without deleteOrphans, children that leave a list stay as rows; an unreadable payload deletes nothing")
  func noOrphanDeletion() async throws {
    let mapping = try Self.albums(deleteOrphans: false)
    let store = try TestStore(mapping)
    try await store.run(mapping, Self.seed)
    try await store.run(mapping, #"{"albums": [{"id": 1, "tracks": []}]}"#)
    #expect(try await store.count("track") == 3)
    let orphaning = try Self.albums()
    await #expect(throws: ImportError.self) {
      try await store.run(
        orphaning, #"{"albums": [{"id": 1, "tracks": [{"id": 10}"#, options: Self.options(deleteMissing: .entity))
    }
    #expect(try await store.count("album") == 2)
    #expect(try await store.count("track") == 3)
  }

  @Test("a deletion scope from ATTRIBUTE=VALUE text, typed as the attribute; refused with the attributes listed")
  func deletionScopeText() throws {
    let mapping = try Self.albums()
    #expect(try mapping.deletionScope("id=2") == .matching(.compare("id", .equal, .integer(2))))
    #expect(try mapping.deletionScope("title=a=b") == .matching(.compare("title", .equal, .text("a=b"))))
    #expect(throws: ImportError.self) { try mapping.deletionScope("colour=red") }
    #expect(throws: ImportError.self) { try mapping.deletionScope("id=two") }
    #expect(throws: ImportError.self) { try mapping.deletionScope("nothing") }
  }
}
