import Foundation
import OfflineNewsModel
import Synchronization
import Testing

@testable import OfflineNewsStorage

/// The batches of one streamed save, handed out in order; `failAfter` batches handed out, the next call throws.
private final class FailingBatches: Sendable {
  private let rest: Mutex<[[Article]]>
  private let left: Mutex<Int>
  init(_ batches: [[Article]], failAfter: Int = .max) {
    rest = Mutex(batches.reversed())
    left = Mutex(failAfter)
  }
  func next() throws -> [Article]? {
    let fail = left.withLock { left in
      defer { left -= 1 }
      return left <= 0
    }
    if fail { throw Boom() }
    return rest.withLock { $0.popLast() }
  }
}

/// A first bulk import drops the secondary indexes of `article` and builds them again at its end, in its own
/// transaction: it must leave exactly the schema a fresh store has, indexes that agree with the rows, and, when it
/// fails midway, the schema and data it began with.
@Suite("StorageContext: a first import gives back the schema it began with", .timeLimit(.minutes(5)))
struct FirstImportSchemaTests {
  private let at = Timestamp(millisecondsSince1970: t0)

  /// 3,000 articles in three batches of 1,000 (each a bulk batch), from 12 sources, every fifth one undated.
  private static func batches() -> [[Article]] {
    let all = (0..<3000).map { index in
      var article = makeArticle("schema\(index)", publishedAt: t0 + Int64(index % 977) * 1000)
      article.source = "source\(index % 12)"
      article.isUndated = index % 5 == 0
      return article
    }
    return [Array(all[0..<1000]), Array(all[1000..<2000]), Array(all[2000...])]
  }

  /// Every schema object of the database (type, name, table, SQL), sorted: what `sqlite_master` says the schema is.
  private func schema(_ storage: StorageContext) async throws -> [String] {
    try await storage.read { db in
      try db.makeStatement("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchAll {
        [$0.string(0), $0.string(1), $0.string(2), $0.string(3)].map { $0 ?? "NULL" }.joined(separator: " | ")
      }.sorted()
    }
  }

  /// The writer connection's temporary triggers (the change capture's: ``ChangeCapture``), as `sqlite_temp_master`
  /// holds them, sorted.
  private func temporaryTriggers(storage: StorageContext) async throws -> [String] {
    try await storage.write { db in
      try db.makeStatement("SELECT name, sql FROM sqlite_temp_master WHERE type = 'trigger'").fetchAll {
        "\($0.string(0) ?? "") | \($0.string(1) ?? "")"
      }.sorted()
    }
  }

  /// The statements the writer ran that drop or create an index, or upsert articles (their first 40 characters),
  /// in order.
  private final class IndexStatements: Sendable {
    let seen = Mutex<[String]>([])
    func record(_ sql: String) {
      let text = String(sql.drop { $0.isWhitespace })
      if text.hasPrefix("DROP INDEX") || text.hasPrefix("CREATE INDEX") || text.hasPrefix("CREATE UNIQUE INDEX") {
        seen.withLock { $0.append(text) }
      } else if text.hasPrefix("INSERT INTO article (") {
        seen.withLock { $0.append(String(text.prefix(40))) }
      }
    }
  }

  @Test("a first import leaves the schema a fresh store has, with indexes that agree with the rows")
  func sameSchemaAsFresh() async throws {
    let freshDatabase = TestDatabase()
    let expected = try await schema(try freshDatabase.open())
    // The indexes of `article` a first import may set aside: every one the schema declares, the key's included
    // (migration 12).
    let secondary = expected.filter { $0.hasPrefix("index | article_by_") }
    #expect(secondary.count == 10)
    let captureBefore = try await temporaryTriggers(storage: try freshDatabase.open())
    #expect(captureBefore.contains { $0.contains("offlinenews_capture_article_insert") })

    let database = TestDatabase()
    let storage = try database.open()
    let statements = IndexStatements()
    try await storage.traceWrites { statements.record($0) }
    let queue = FailingBatches(Self.batches())
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { try queue.next() })
    try await storage.traceWrites(nil)
    #expect(result.saved == 3000 && result.inserted == 3000)

    #expect(try await schema(storage) == expected)
    // The change capture's insert trigger, set aside with the key index, is back (the writer's own, temporary).
    #expect(try await temporaryTriggers(storage: storage) == captureBefore)
    // The path was taken: each index but the three kept (`fetchedAt`, the partial `bookmarkedAt` and `itemID`,
    // which a first import only appends to or hardly writes) dropped once and created once, from its own text, the
    // key's first.
    let kept = ArticleWriter.indexesKeptByFirstImport
    #expect(kept.count == 3 && kept.isSubset(of: Schema.articleIndexDefinitions))
    let ran = statements.seen.withLock { $0 }
    #expect(ran.filter { $0.hasPrefix("DROP INDEX") }.count == 7)
    #expect(ran.first { $0.hasPrefix("CREATE") } == Migration.articleKeyIndex)
    #expect(
      !ran.contains {
        $0.hasPrefix("DROP INDEX article_by_fetchedAt") || $0.hasPrefix("DROP INDEX article_by_bookmarkedAt")
      })
    let created = ran.filter { $0.hasPrefix("CREATE") }.sorted()
    #expect(
      created
        == secondary.map { $0.components(separatedBy: " | ")[3] }.filter { !kept.contains(Schema.collapsed($0)) }
        .sorted())
    #expect(created.count == 7)
    // The rebuilt indexes hold exactly the rows (`integrity_check` compares every index entry with its row).
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
    #expect(try await storage.int("SELECT count(*) FROM article INDEXED BY article_by_publishedAt") == 3000)
    #expect(
      try await storage.int("SELECT count(*) FROM article INDEXED BY article_by_source WHERE source = 'source5'")
        == 250)
    // The kept indexes were written row by row, and answer as built ones would.
    #expect(
      try await storage.int("SELECT count(*) FROM article INDEXED BY article_by_fetchedAt WHERE fetchedAt = \(t0)")
        == 3000)
    #expect(
      try await storage.int(
        "SELECT count(*) FROM article INDEXED BY article_by_bookmarkedAt WHERE bookmarkedAt IS NOT NULL") == 0)
  }

  @Test(
    "indexed for search by many statements, merged between them, a first import still builds the indexes once, at its end"
  )
  func indexesBuiltPastTheLimit() async throws {
    let freshDatabase = TestDatabase()
    let expected = try await schema(try freshDatabase.open())
    let database = TestDatabase()
    let storage = try database.open()
    let statements = IndexStatements()
    try await storage.traceWrites { statements.record($0) }
    let queue = FailingBatches(Self.batches())
    let result = try await storage.saveArticles(
      forQuery: "q", fetchedAt: at, searchIndexBuild: SearchIndexBuild(rowsPerStatement: 500, segmentLimit: 2),
      batches: { try queue.next() })
    try await storage.traceWrites(nil)
    #expect(result.inserted == 3000)
    // Built once, after the last batch: no upsert comes after the first of them (their sorts spill to files).
    let ran = statements.seen.withLock { $0 }
    #expect(ran.filter { $0.hasPrefix("CREATE") }.count == 7)
    let firstCreate = ran.firstIndex { $0.hasPrefix("CREATE") } ?? ran.startIndex
    // One row per statement while the key index is set aside (see `ArticleWriter.Session.insertFirstImport`).
    #expect(ran[..<firstCreate].filter { $0.hasPrefix("INSERT INTO article (") }.count == 3000)
    #expect(ran[firstCreate...].filter { $0.hasPrefix("INSERT INTO article (") }.isEmpty)
    #expect(try await schema(storage) == expected)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
    #expect(try await storage.int("SELECT count(*) FROM article INDEXED BY article_by_handle") == 3000)
  }

  @Test("an INSERT trigger of the app's own on article: the first import keeps the key index, and ends the same")
  func foreignInsertTriggerKeepsKeyIndex() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.write { db in
      try db.execute(
        sql: """
          CREATE TABLE app_log (url TEXT);
          CREATE TRIGGER app_log_insert AFTER INSERT ON article BEGIN INSERT INTO app_log VALUES (new.url); END;
          """)
    }
    let statements = IndexStatements()
    try await storage.traceWrites { statements.record($0) }
    let queue = FailingBatches(Self.batches())
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { try queue.next() })
    try await storage.traceWrites(nil)
    #expect(result.saved == 3000 && result.inserted == 3000)
    // The trigger ran for every row, and the key index was never set aside: the rows were upserted 500 at a time.
    #expect(try await storage.int("SELECT count(*) FROM app_log") == 3000)
    let ran = statements.seen.withLock { $0 }
    #expect(ran.filter { $0.hasPrefix("DROP INDEX") }.count == 6)
    #expect(!ran.contains { $0.hasPrefix("DROP INDEX article_by_url") || $0.hasPrefix("CREATE UNIQUE INDEX") })
    #expect(ran.filter { $0.hasPrefix("INSERT INTO article (") }.count == 6)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query = 'q'") == 3000)
  }

  @Test("a first import that fails midway leaves the old schema and data")
  func failedImportRollsBack() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    // Old data: a fetch of another query, whose article has gone since (the article table is empty again).
    try await storage.saveArticles([makeArticle("gone")], forQuery: "other", fetchedAt: at)
    try await storage.write { db in try db.execute(sql: "DELETE FROM article") }
    let before = try await schema(storage)
    let fetchesBefore = try await storage.int("SELECT count(*) FROM query_fetch WHERE query = 'other'")
    #expect(fetchesBefore == 1)

    let statements = IndexStatements()
    try await storage.traceWrites { statements.record($0) }
    let queue = FailingBatches(Self.batches(), failAfter: 2)
    await #expect(throws: Boom.self) {
      try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { try queue.next() })
    }
    try await storage.traceWrites(nil)
    // The indexes were dropped before the failure, and nothing created them again.
    let ran = statements.seen.withLock { $0 }
    #expect(ran.filter { $0.hasPrefix("DROP INDEX") }.count == 7)
    #expect(!ran.contains { $0.hasPrefix("CREATE") })

    #expect(try await schema(storage) == before)
    // The rollback gave the writer its change capture's insert trigger back, too.
    #expect(
      try await temporaryTriggers(storage: storage).contains { $0.contains("offlinenews_capture_article_insert") })
    #expect(try await storage.int("SELECT count(*) FROM article") == 0)
    #expect(try await storage.int("SELECT count(*) FROM query_result") == 0)
    #expect(try await storage.int("SELECT count(*) FROM query_fetch WHERE query = 'q'") == 0)
    #expect(try await storage.int("SELECT count(*) FROM query_fetch WHERE query = 'other'") == fetchesBefore)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")

    // The next import, on the same connection and its cached statements, works and ends as a fresh store.
    let again = FailingBatches(Self.batches())
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { try again.next() })
    #expect(result.inserted == 3000)
    #expect(try await schema(storage) == before)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
  }
}
