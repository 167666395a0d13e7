import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

/// A store opened without a mapping's entities (`StorageContext(path:)`, as an app first writes it) learns them when
/// that mapping first imports; a request for what it still lacks says so, naming the database and the fix (issue 27:
/// the Hacker News import failed with `no attribute "hnID"`, and a fetch with
/// `database : entity article has no attribute "hnScore"`, an empty path).
@Suite("a store learns a mapping's entities at its first import")
struct StoreLearnsEntitiesTests {
  static let items = """
    [{"id": 8863, "type": "story", "by": "dhouston", "time": 1175714200, "score": 111, "descendants": 71,
      "title": "My YC app: Dropbox", "url": "http://www.getdropbox.com/u/2/screencast.html"},
     {"id": 121003, "type": "story", "by": "tel", "time": 1203647620, "score": 25, "text": "Or not.",
      "title": "Ask HN: The Arc Effect"}]
    """

  static func hackernews() throws -> ImportMapping { try #require(try ImportMapping.shipped("hackernews")) }

  @discardableResult
  static func run(_ mapping: ImportMapping, _ json: String, into storage: StorageContext) async throws
    -> ImportReport
  {
    do throws(ImportFailure) {
      return try await Importer(mapping: mapping).run(
        Data(json.utf8), into: storage, source: "items.json", options: Importer.Options(importTime: importTime))
    } catch {
      switch error {
      case .input(let error): throw error
      case .storage(let error): throw error
      case .cancelled: throw CancellationError()
      }
    }
  }

  /// How many changes of each entity `changes` published until `count` of `entity` came, or 10 s passed.
  static func entities(in changes: AsyncStream<StorageEvent>, untilChangesOf entity: String, count: Int) async
    -> [String: Int]
  {
    await withTaskGroup(of: [String: Int].self) { group in
      group.addTask {
        var seen: [String: Int] = [:]
        for await event in changes {
          guard case .change(let change) = event else { continue }
          seen[change.entity, default: 0] += 1
          if seen[entity, default: 0] >= count { break }
        }
        return seen
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(10))
        return [:]
      }
      let first = await group.next() ?? [:]
      group.cancelAll()
      return first
    }
  }

  static let byScore = FetchRequest(
    entity: "article", predicate: .attribute("hnScore") > 100,
    sortDescriptors: [FetchPredicate.attribute("hnID").ascending])

  @Test("the Hacker News import into StorageContext(path:) adds hnID, hnScore, …; fetches by them work, reopened too")
  func plainStoreLearnsArticleExtensions() async throws {
    let folder = TemporaryDirectory()
    let path = folder.path("news.sqlite")
    let storage = try StorageContext(path: path)
    let report = try await Self.run(try Self.hackernews(), Self.items, into: storage)
    #expect(counts(report) == expectedCounts(inserted: 2), "\(report.failures)")
    let top = try await storage.fetch(Self.byScore)
    #expect(top.map { $0.values["hnID"] } == [DatabaseValue.integer(8863)])
    // Again: nothing left to learn, nothing rewritten.
    #expect(
      counts(try await Self.run(try Self.hackernews(), Self.items, into: storage)) == expectedCounts(unchanged: 2))
    await storage.close()

    let reopened = try StorageContext(path: path)
    #expect(try await reopened.fetch(Self.byScore).count == 1)
    await reopened.close()
  }

  @Test("new entities (tables, a to-many join table) are created at the first import, and their changes published")
  func plainStoreLearnsNewEntities() async throws {
    let mapping = try mapping(
      """
      {"name": "posts", "records": "", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}},
         "relationships": {"tags": {"to": "tag", "kind": "toMany"}}},
        {"entity": "tag", "identity": ["name"], "attributes": {"name": {"type": "text"}}}]}
      """)
    let folder = TemporaryDirectory()
    let storage = try StorageContext(path: folder.path("app.sqlite"))
    let report = try await Self.run(
      mapping, #"[{"id": 1, "title": "One", "tags": ["a", "b"]}, {"id": 2, "title": "Two", "tags": []}]"#,
      into: storage)
    #expect(report.inserted == 2, "\(report.failures)")
    #expect(try await storage.count(FetchRequest(entity: "tag")) == 2)
    let one = try await storage.fetch(FetchRequest(entity: "post", predicate: .attribute("id") == 1))
    #expect(one.first?.toMany["tags"]?.count == 2)
    // A raw write to a learned table is published like any other (its capture triggers were created).
    let changes = storage.changes()
    try await storage.write { db in try db.execute(sql: "UPDATE post SET title = 'Uno' WHERE id = 1") }
    let seen = await Self.entities(in: changes, untilChangesOf: "post", count: 1)
    #expect(seen == ["post": 1])
    await storage.close()
  }

  @Test("a context opened before another one imported finds the learned attributes in the database")
  func otherContextReadsLearnedEntities() async throws {
    let folder = TemporaryDirectory()
    let path = folder.path("news.sqlite")
    let reader = try StorageContext(path: path)
    let importer = try StorageContext(path: path)
    try await Self.run(try Self.hackernews(), Self.items, into: importer)
    #expect(try await reader.fetch(Self.byScore).count == 1)
    #expect(try await reader.count(Self.byScore) == 1)
    await importer.close()
    await reader.close()
  }

  @Test("a fetch of an attribute no import has added names the database, the attributes there and the fix")
  func unknownAttributeNamesTheDatabase() async throws {
    let folder = TemporaryDirectory()
    let path = folder.path("news.sqlite")
    let storage = try StorageContext(path: path)
    do throws(StorageError) {
      _ = try await storage.fetch(Self.byScore)
      Issue.record("the fetch of hnScore succeeded on a store without it")
    } catch {
      #expect(error.path == path)
      #expect(error.description.hasPrefix("database \(path): entity article has no attribute \"hnScore\""))
      #expect(error.description.contains("once it has imported into this store"))
    }
    do throws(StorageError) {
      _ = try await storage.count(FetchRequest(entity: "hn_item"))
      Issue.record("the count of an unknown entity succeeded")
    } catch {
      #expect(error.path == path)
      #expect(error.description.contains("no entity named \"hn_item\""))
    }
    await storage.close()
  }

  @Test("what cannot be learned is refused naming the database, and nothing is written")
  func refusalNamesTheDatabase() async throws {
    let folder = TemporaryDirectory()
    let path = folder.path("news.sqlite")
    let first = try mapping(
      """
      {"name": "a", "records": "", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}
      """)
    let storage = try StorageContext(path: path)
    try await Self.run(first, #"[{"id": 1}]"#, into: storage)
    // A new attribute that is required, without a default: rows already there would have no value.
    let second = try mapping(
      """
      {"name": "b", "records": "", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "name": {"type": "text", "optional": false}}}]}
      """)
    do {
      try await Self.run(second, #"[{"id": 2, "name": "two"}]"#, into: storage)
      Issue.record("a required attribute was added to a table with rows")
    } catch let error as StorageError {
      #expect(error.path == path)
      #expect(error.description.hasPrefix("database \(path): incompatible schema: entity thing"), "\(error)")
    }
    #expect(try await storage.count(FetchRequest(entity: "thing")) == 1)
    await storage.close()
  }

  @Test("a save's invalid record names the database (the writer's errors had an empty path)")
  func saveErrorNamesTheDatabase() async throws {
    let folder = TemporaryDirectory()
    let path = folder.path("news.sqlite")
    let storage = try StorageContext(path: path)
    var changes = ChangeSet()
    changes.upserts = [Record(entity: "nothing", values: ["id": .integer(1)])]
    do throws(StorageError) {
      try await storage.save(changes)
      Issue.record("a record of an unknown entity was saved")
    } catch {
      #expect(error.path == path)
      #expect(error.description.hasPrefix("database \(path): no entity named \"nothing\""))
    }
    await storage.close()
  }
}
