import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// How many of this process's file descriptors are open on `path` itself (not its `-wal` or `-shm`): one per SQLite
/// connection to it (Linux: `/proc/self/fd`).
private func connections(to path: String) -> Int {
  let folder = "/proc/self/fd"
  let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  return descriptors.filter {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")) == resolved
  }
  .count
}

private let hasProcFD = FileManager.default.fileExists(atPath: "/proc/self/fd")

private let note = EntityDescription(
  name: "note", identity: ["id"], attributes: [Attribute("id", .text), Attribute("text", .text)])

/// A store opened on a database that needs nothing from the writer's open (current schema, WAL, every entity
/// recorded as declared) opens its writer at the first write: `news list` and `news search` open one connection.
@Suite("StorageContext: the writer opens at the first write", .enabled(if: hasProcFD, "needs /proc/self/fd"))
struct LazyWriterTests {
  /// A database with two articles, created and closed.
  private func current(entities: [EntityDescription] = []) async throws -> TestDatabase {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, entities: entities)
    try await storage.saveArticles(
      [makeArticle("a", publishedAt: t0), makeArticle("b", publishedAt: t0 + 1)], forQuery: "q",
      fetchedAt: Timestamp(millisecondsSince1970: t0))
    await storage.close()
    return database
  }

  @Test("reads of a current database use one connection; the first write opens the writer and writes as before")
  func readsThenWrites() async throws {
    let database = try await current()
    let storage = try database.open()
    #expect(connections(to: database.path) == 1)
    #expect(try await storage.articles().map(\.title) == ["Title b", "Title a"])
    #expect(try await storage.articleCount() == 2)
    #expect(connections(to: database.path) == 1, "the reads shared the reader that the open checked the file with")

    // A raw write is published like every write: the change capture is installed with the writer.
    let log = ChangeLog(storage)
    try await storage.write { db in
      try db.execute("UPDATE article SET title = 'Changed' WHERE url = ?1", [.text(articleURL("a").absoluteString)])
    }
    #expect(connections(to: database.path) == 2)
    #expect(
      await log.next() == [StorageChange(entity: "article", updated: [Identity(.text(articleURL("a").absoluteString))])]
    )
    #expect(try await storage.articles().map(\.title) == ["Title b", "Changed"])
    try await storage.saveArticles([makeArticle("c", publishedAt: t0 + 2)], forQuery: "q2", fetchedAt: .now())
    #expect(try await storage.articleCount() == 3)
    #expect(try await storage.search("Title").count == 2, "the search index follows the writes")
    #expect(try await storage.search("Changed").map(\.article.url) == [articleURL("a")])
  }

  @Test("the recorded entities of a current database are the store's, as a full open gives them")
  func recordedEntities() async throws {
    let database = try await current(entities: [note])
    let lazy = try database.open()
    #expect(connections(to: database.path) == 1)
    #expect(lazy.entities.map(\.name) == ["article", "note"])
    #expect(try lazy.entity("note") == note)
    try await lazy.save(ChangeSet(upserts: [Record(entity: "note", values: ["id": .text("n1"), "text": .text("x")])]))
    #expect(try await lazy.fetch(FetchRequest(entity: "note")).count == 1)
  }

  @Test("a database that needs the writer's open gets it at once: a new entity's table is there before any write")
  func newEntity() async throws {
    let database = try await current()
    let storage = try StorageContext(path: database.path, entities: [note])
    #expect(connections(to: database.path) == 3, "the writer and both readers, as before")
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'note'") == 1)
  }

  @Test("an entity declared with a new attribute gets the full open: the column is there before any write")
  func newAttribute() async throws {
    let database = try await current(entities: [note])
    let extended = EntityDescription(
      name: "note", identity: ["id"], attributes: note.attributes + [Attribute("stars", .integer)])
    let storage = try StorageContext(path: database.path, entities: [extended])
    #expect(connections(to: database.path) == 3)
    #expect(try await storage.int("SELECT count(*) FROM pragma_table_info('note') WHERE name = 'stars'") == 1)
    let again = try StorageContext(path: database.path, entities: [extended])
    #expect(connections(to: database.path) == 4, "the second store opened only a reader: nothing left to record")
    #expect(try again.entity("note") == extended)
  }

  @Test(
    "a database file that cannot be written is opened by the full open, which says so",
    .enabled(if: geteuid() != 0, "root may write a read-only file"))
  func readOnlyFile() async throws {
    let database = try await current()
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.path)
    defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database.path) }
    let storage = try database.open()
    #expect(storage.readOnlyCause != nil)
    #expect(try await storage.articleCount() == 2)
  }

  /// Sets the recorded definition of `entity` in `schema_entity`, as another build (or a damaged file) may have it.
  private func record(_ definition: String, for entity: String, in database: TestDatabase) throws {
    let connection = try Connection(path: database.path, busyTimeout: 1)
    try connection.execute(
      "UPDATE schema_entity SET definition = ?1 WHERE name = ?2", [.text(definition), .text(entity)])
  }

  @Test("a definition recorded in another layout than this build's text still reads as the entity it describes")
  func otherLayout() async throws {
    let database = try await current(entities: [note])
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted]
    let text = String(decoding: try encoder.encode(EntityDescription.article), as: UTF8.self)
    #expect(text != EntityDescription.article.definitionText)
    try record(text, for: "article", in: database)
    let lazy = try database.open()
    #expect(connections(to: database.path) == 1, "the same entity: nothing for the writer's open to do")
    #expect(try lazy.entity("article") == EntityDescription.article)
    #expect(try lazy.entity("note") == note)
  }

  @Test("an attribute a mapping added to the article, recorded, is the store's when it is opened without the mapping")
  func recordedExtension() async throws {
    let category = EntityDescription(
      name: "article", identity: ["url"], attributes: [Attribute("url", .text), Attribute("category", .text)])
    let database = try await current(entities: [category])
    let lazy = try database.open()
    #expect(connections(to: database.path) == 1)
    #expect(try lazy.entity("article").attribute("category") == Attribute("category", .text))
    #expect(try lazy.entity("article") == EntityDescription.article.extended(with: category))
  }

  @Test("a recorded definition that differs from the declared entity is still found: the full open refuses it")
  func changedDefinition() async throws {
    let database = try await current(entities: [note])
    let changed = EntityDescription(
      name: "note", identity: ["id"], attributes: [Attribute("id", .text), Attribute("text", .integer)])
    try record(try #require(changed.definitionText), for: "note", in: database)
    do {
      _ = try StorageContext(path: database.path, entities: [note])
      Issue.record("a changed attribute type was opened")
    } catch {
      guard case .incompatibleSchema(let problem) = error.kind else {
        Issue.record("expected incompatibleSchema, got \(error)")
        return
      }
      #expect(problem.contains("attribute text was integer, now text"), "\(problem)")
    }
  }
}
