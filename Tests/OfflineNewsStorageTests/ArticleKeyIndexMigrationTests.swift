import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 12: `article`'s key moves from the table's primary key to the unique index `article_by_url`, by a
/// rebuild of the table with foreign keys off. Every row must keep its rowid (the search index finds rows by it) and
/// every value, the rows that reference articles must stay, and the key must stay an identity.
@Suite("Migration 12: the article key as a unique index")
struct ArticleKeyIndexMigrationTests {
  /// A store at version 11 (migrations 1–11 on a new file), with three articles, result lists, an image and a
  /// column an entity added, written by raw SQL as version 11 would have: the search index through its triggers.
  private static func version11(_ path: String) throws {
    let db = try Connection(path: path)
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 11 })).migrate(db)
    #expect(try db.scalarInt("PRAGMA user_version") == 11)
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE pk = 1") == 1)
    try db.execute(sql: "ALTER TABLE article ADD COLUMN extra TEXT")
    for (rowid, slug, title) in [(7, "b", "Storm over the bay"), (3, "a", "Harbour closed"), (12, "c", "Café reopens")]
    {
      try db.execute(
        """
        INSERT INTO article (rowid, url, title, summary, publishedAt, fetchedAt, fetchQuery, isRead, extra, handle)
        VALUES (?1, ?2, ?3, 'the forecast', ?4, ?4, 'q', ?5, ?6, ?7)
        """,
        [
          .integer(Int64(rowid)), .text("https://example.com/\(slug)"), .text(title), .integer(t0 + Int64(rowid)),
          .integer(rowid == 7 ? 1 : 0), .text("extra \(slug)"), .text("h\(slug)"),
        ])
      try db.execute(
        "INSERT INTO query_result (query, url, position) VALUES ('q', ?1, ?2)",
        [.text("https://example.com/\(slug)"), .integer(Int64(rowid))])
    }
    try db.execute(
      sql: """
        INSERT INTO article_image (article, url, position, isLead, file)
        VALUES ('https://example.com/b', 'https://example.com/b.jpg', 0, 1, 'b.jpg')
        """)
  }

  /// A version 11 store as its `StorageContext` left one: migrations 1–11, the article entity recorded, WAL, three
  /// articles.
  private static func recordedVersion11(_ path: String) throws {
    let db = try Connection(path: path)
    try db.execute(sql: "PRAGMA journal_mode = WAL")
    try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 11 })).migrate(db)
    try EntityMigrator(entities: [.article]).reconcile(db)
    for (rowid, slug, title) in [
      (7, "b", "Storm over the bay"), (3, "a", "Harbour closed"), (12, "c", "Café reopens"),
    ] {
      try db.execute(
        """
        INSERT INTO article (rowid, url, title, publishedAt, fetchedAt, fetchQuery, handle)
        VALUES (?1, ?2, ?3, ?4, ?4, 'q', ?5)
        """,
        [
          .integer(Int64(rowid)), .text("https://example.com/\(slug)"), .text(title), .integer(t0 + Int64(rowid)),
          .text("h\(slug)"),
        ])
    }
  }

  /// Every row of `article` in rowid order with the columns a version 11 store has (migration 15's `itemID`, 18's
  /// `firstSeenAt`, 20's `servedID` and 24's `searchFolds`, which only later migrations add, left out), each as its
  /// values' text.
  private static func articleRows(_ db: Connection) throws -> [String] {
    let columns = try db.makeStatement(
      """
      SELECT name FROM pragma_table_info('article')
      WHERE name NOT IN ('itemID', 'firstSeenAt', 'servedID', 'searchFolds')
      ORDER BY cid
      """
    ).fetchAll { "\"" + ($0.string(0) ?? "") + "\"" }
    return try rows(db, "SELECT rowid, \(columns.joined(separator: ", ")) FROM article ORDER BY rowid")
  }

  /// Every row `sql` reads, each as its values' text.
  private static func rows(_ db: Connection, _ sql: String) throws -> [String] {
    try db.makeStatement(sql).fetchAll { row in
      (0..<row.count).map { row.string($0) ?? "NULL" }.joined(separator: " | ")
    }
  }

  @Test("a version 11 store: every row at its rowid with every value, references and search kept, the key unique")
  func rebuildKeepsEverything() throws {
    let directory = TemporaryDirectory("offlinenews-v12")
    let path = directory.path("news.sqlite")
    try Self.version11(path)
    let before = try Connection(path: path)
    let articleRows = try Self.articleRows(before)
    let results = try Self.rows(before, "SELECT * FROM query_result ORDER BY url")
    let images = try Self.rows(before, "SELECT * FROM article_image")
    let found = try Self.rows(before, "SELECT rowid FROM article_fts WHERE article_fts MATCH 'storm OR cafe'")
    #expect(articleRows.count == 3 && results.count == 3 && images.count == 1 && found.count == 2)

    let db = try Connection(path: path)
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    let secureDelete = try db.scalarInt("PRAGMA secure_delete")
    let cacheSize = try db.scalarInt("PRAGMA cache_size")
    try Migrator(migrations: Schema.migrations).migrate(db)
    #expect(try db.scalarInt("PRAGMA user_version") == Int64(Schema.migrations.count))
    #expect(try db.scalarInt("PRAGMA foreign_keys") == 1, "foreign keys are on again after the migration")
    // The settings the rebuild changes for its while are given back.
    #expect(try db.scalarInt("PRAGMA secure_delete") == secureDelete)
    #expect(try db.scalarInt("PRAGMA cache_size") == cacheSize)
    #expect(try Self.articleRows(db) == articleRows)
    #expect(try Self.rows(db, "SELECT * FROM query_result ORDER BY url") == results)
    #expect(try Self.rows(db, "SELECT * FROM article_image") == images)
    #expect(try Self.rows(db, "SELECT rowid FROM article_fts WHERE article_fts MATCH 'storm OR cafe'") == found)
    #expect(try db.scalarString("PRAGMA integrity_check") == "ok")
    try db.execute(sql: "INSERT INTO article_fts (article_fts) VALUES ('integrity-check')")
    #expect(try Self.rows(db, "PRAGMA foreign_key_check").isEmpty)
    // The key is the unique index now, and no column is the primary key.
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE pk > 0") == 0)
    #expect(
      try db.scalarString("SELECT sql FROM sqlite_master WHERE name = 'article_by_url'") == Migration.articleKeyIndex)
    #expect(throws: SQLiteError.self) {
      try db.execute(
        sql: """
          INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery)
          VALUES ('https://example.com/a', 'x', 0, 0, 'q')
          """)
    }
    // Every index, trigger and view is back, with its text.
    let schema =
      "SELECT type, name, sql FROM sqlite_master WHERE type <> 'table' AND name <> 'article_by_url' ORDER BY name"
    let fresh = TemporaryDirectory("offlinenews-v12-fresh")
    let new = try Connection(path: fresh.path("news.sqlite"))
    try new.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Schema.migrations).migrate(new)
    #expect(try Self.rows(db, schema) == Self.rows(new, schema))
    // The references still cascade from the rebuilt table.
    try db.execute(sql: "DELETE FROM article WHERE url = 'https://example.com/b'")
    #expect(try db.scalarInt("SELECT count(*) FROM query_result") == 2)
    #expect(try db.scalarInt("SELECT count(*) FROM article_image") == 0)
  }

  @Test("compacting a version 11 store migrates it first, then gives back the old table's pages, every row kept")
  func compactionMigratesFirst() throws {
    let directory = TemporaryDirectory("offlinenews-v12")
    let path = directory.path("news.sqlite")
    try Self.version11(path)
    // Enough rows that the old table's pages, freed by the rebuild, are most of the file (the connection is
    // closed before the compaction, which needs the store to itself).
    let (rows, results) = try { () throws -> ([String], [String]) in
      let db = try Connection(path: path)
      try db.execute(
        sql: """
          WITH RECURSIVE n(value) AS (SELECT 100 UNION ALL SELECT value + 1 FROM n WHERE value < 2099)
          INSERT INTO article (url, title, summary, publishedAt, fetchedAt, fetchQuery)
          SELECT 'https://example.com/n' || value, 'Title ' || value, printf('%.500c', 'x'), value, value, 'q' FROM n
          """)
      return (try Self.articleRows(db), try Self.rows(db, "SELECT * FROM query_result ORDER BY url"))
    }()
    #expect(rows.count == 2003)

    let compaction = try StorageContext.compact(path: path)
    #expect(compaction.migratedFrom == 11)
    do {
      let after = try Connection(path: path)
      #expect(try after.scalarInt("PRAGMA user_version") == Int64(Schema.migrations.count))
      #expect(
        try after.scalarString("SELECT sql FROM sqlite_master WHERE name = 'article_by_url'")
          == Migration.articleKeyIndex
      )
      #expect(try Self.articleRows(after) == rows)
      #expect(try Self.rows(after, "SELECT * FROM query_result ORDER BY url") == results)
      #expect(try after.scalarInt("PRAGMA freelist_count") == 0, "the rebuild's free pages are compacted away")
      #expect(try after.scalarString("PRAGMA integrity_check") == "ok")
      try after.execute(sql: "INSERT INTO article_fts (article_fts) VALUES ('integrity-check')")
    }
    // Compacted again (every connection closed), it is current: nothing to migrate.
    #expect(try StorageContext.compact(path: path).migratedFrom == nil)
  }

  @Test("a result-list row whose article is gone: the migration is rolled back and the store stays at version 11")
  func danglingReferenceRollsBack() throws {
    let directory = TemporaryDirectory("offlinenews-v12")
    let path = directory.path("news.sqlite")
    try Self.version11(path)
    let db = try Connection(path: path)
    // Written with foreign keys off, as a store written by another program might hold it.
    try db.execute(sql: "INSERT INTO query_result (query, url, position) VALUES ('q', 'https://example.com/gone', 9)")
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    let error = #expect(throws: StorageError.self) { try Migrator(migrations: Schema.migrations).migrate(db) }
    #expect(error.map { "\($0.kind)" }?.contains("query_result") == true)
    #expect(try db.scalarInt("PRAGMA user_version") == 11)
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE pk = 1") == 1)
    #expect(try db.scalarInt("SELECT count(*) FROM article") == 3)
    #expect(try db.scalarInt("PRAGMA foreign_keys") == 1)
  }

  @Test("an app's trigger on another table that reads article, and its views over article: kept, and they work after")
  func foreignTriggersAndViewsKept() throws {
    let directory = TemporaryDirectory("offlinenews-v12")
    let path = directory.path("news.sqlite")
    try Self.version11(path)
    let db = try Connection(path: path)
    try db.execute(
      sql: """
        CREATE TABLE app_log (at INTEGER, articles INTEGER);
        CREATE TRIGGER app_fetch_log AFTER INSERT ON query_fetch BEGIN
          INSERT INTO app_log SELECT new.fetchedAt, count(*) FROM article;
        END;
        CREATE VIEW app_recent AS SELECT url, title FROM article ORDER BY publishedAt DESC;
        CREATE VIEW app_recent_titles AS SELECT title FROM app_recent;
        """)
    let schema = "SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'app%' ORDER BY name"
    let before = try Self.rows(db, schema)
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Schema.migrations).migrate(db)
    #expect(try db.scalarInt("PRAGMA user_version") == Int64(Schema.migrations.count))
    #expect(try Self.rows(db, schema) == before)
    try db.execute(sql: "INSERT INTO query_fetch (query, fetchedAt, articleCount) VALUES ('q2', 5, 0)")
    #expect(try Self.rows(db, "SELECT * FROM app_log") == ["5 | 3"])
    #expect(try db.scalarInt("SELECT count(*) FROM app_recent_titles") == 3)
  }

  @Test(
    "a version 11 store on a disk too full for the rebuild: still read as it is (list, search), left at 11, untouched",
    .enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
  func fullDiskReadsVersion11() async throws {
    let mount = try ScratchMount.make("2m")
    let path = mount.path("news.sqlite")
    try Self.recordedVersion11(path)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(mount.fill() > 0)
    defer { mount.unfill() }

    let storage = try StorageContext(path: path)
    #expect(storage.readOnlyCause?.kind == .diskFull)
    #expect(
      try await storage.articles(limit: nil).map(\.title) == ["Café reopens", "Storm over the bay", "Harbour closed"])
    #expect(try await storage.search("storm", limit: 5).count == 1)
    await storage.close()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

    mount.unfill()
    let writable = try StorageContext(path: path)
    #expect(writable.readOnlyCause == nil)
    #expect(try await writable.saveArticles([makeArticle("new")], forQuery: "q2", fetchedAt: .now()).saved == 1)
    #expect(try await writable.text("PRAGMA user_version") == "\(StorageContext.schemaVersion)")
    #expect(try await writable.articleCount() == 4)
  }

  @Test("a version 11 store is read as it is, while another connection holds the write lock; the first write migrates")
  func readsDoNotMigrate() async throws {
    let directory = TemporaryDirectory("offlinenews-v12")
    let path = directory.path("news.sqlite")
    try Self.recordedVersion11(path)
    let holder = try Connection(path: path)
    try holder.execute(sql: "BEGIN IMMEDIATE")
    let storage = try StorageContext(path: path, busyTimeout: 0.2)
    #expect(
      try await storage.articles(limit: nil).map(\.title) == ["Café reopens", "Storm over the bay", "Harbour closed"])
    #expect(try await storage.search("harbour", limit: 5).count == 1)
    // The reader's and the server's counts (migration 17's index and fetch-log columns not there yet): all, one group.
    let counts = try await storage.articleCounts(ofGroups: [nil, [SourceMatch(source: "nobody", queries: ["q"])]])
    #expect(counts.first?.total == 3, "\(counts)")
    #expect(try await storage.text("PRAGMA user_version") == "11")
    try holder.execute(sql: "COMMIT")
    #expect(try await storage.saveArticles([makeArticle("new")], forQuery: "q2", fetchedAt: .now()).saved == 1)
    #expect(try await storage.text("PRAGMA user_version") == "\(StorageContext.schemaVersion)")
    #expect(try await storage.articleCount() == 4)
  }
}
