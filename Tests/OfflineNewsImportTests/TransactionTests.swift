import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("One transaction per import; cancellation")
struct TransactionTests {
  static func posts() throws -> ImportMapping {
    try mapping(
      """
      {"name": "posts", "records": "posts", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"], "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}},
         "relationships": {"author": {"to": "person", "kind": "toOne"}, "tags": {"to": "tag", "kind": "toMany"}}},
        {"entity": "person", "identity": ["id"], "attributes": {"id": {"type": "text"}, "name": {"type": "text"}}},
        {"entity": "tag", "identity": ["id"], "attributes": {"id": {"type": "text"}}}]}
      """)
  }

  static let before: [TableRow] = [["id": .integer(1), "title": .text("old"), "author": .text("u0")]]

  static func seeded() async throws -> (ImportMapping, TestStore) {
    let mapping = try posts()
    let store = try TestStore(mapping)
    try await store.run(
      mapping, #"{"posts": [{"id": 1, "title": "old", "author": {"id": "u0", "name": "Zed"}, "tags": ["t0"]}]}"#)
    #expect(try await store.rows("post") == before)
    return (mapping, store)
  }

  static let payload = """
    {"posts": [{"id": 1, "title": "new", "author": {"id": "u1", "name": "Ann"}, "tags": ["t1"]},
               {"id": 2, "title": "two", "author": {"id": "u2", "name": "Bo"}, "tags": ["t1", "t2"]}]}
    """

  func expectUntouched(_ store: TestStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(try await store.rows("post") == Self.before, sourceLocation: sourceLocation)
    #expect(
      try await store.rows("person") == [["id": .text("u0"), "name": .text("Zed")]], sourceLocation: sourceLocation)
    #expect(try await store.rows("tag") == [["id": .text("t0")]], sourceLocation: sourceLocation)
    #expect(try await store.links("post", "tags") == [[.integer(1), .text("t0")]], sourceLocation: sourceLocation)
  }

  @Test("a storage failure in the middle of an import leaves nothing of it")
  func storageFailureRollsBack() async throws {
    let (mapping, store) = try await Self.seeded()
    // SQLite itself refuses post 2, after the people, the tags and the links were written.
    try await store.storage.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER refuse_post_2 BEFORE INSERT ON post WHEN NEW.id = 2
          BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
          """)
    }
    await #expect(throws: StorageError.self) { try await store.run(mapping, Self.payload) }
    try await expectUntouched(store)
  }

  @Test("a failing didImport delete (bad identity) rolls back every upsert before it")
  func failingDeleteRollsBack() async throws {
    let (mapping, store) = try await Self.seeded()
    var hooks = ImportHooks()
    hooks["post"] = EntityHooks(didImport: { _ in [(entity: "person", identity: Identity([]))] })
    await #expect(throws: (any Error).self) { try await store.run(mapping, Self.payload, hooks: hooks) }
    try await expectUntouched(store)
  }

  @Test("cancelling the task before the import runs writes nothing")
  func cancellation() async throws {
    let (mapping, store) = try await Self.seeded()
    let data = Data(Self.payload.utf8)
    let task = Task {
      while !Task.isCancelled { await Task.yield() }
      return try await Importer(mapping: mapping).run(
        data, into: store.storage, source: "test.json", options: Importer.Options(importTime: importTime))
    }
    task.cancel()
    let result = await task.result
    #expect(throws: ImportFailure.cancelled) { try result.get() }
    try await expectUntouched(store)
  }
}
