import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 18: `article.firstSeenAt`, when the store first saved an article — written by the insert of every save
/// path (a few rows, a bulk save, a first import), never moved by an update, whereas `fetchedAt` follows the last
/// write. The sync APIs page and filter by it (`ArticleOrder.firstSeen`, `firstSeenFrom`/`firstSeenBefore`).
@Suite("Migration 18: when each article was first saved")
struct FirstSeenTests {
  static func firstSeen(_ storage: StorageContext, _ slug: String) async throws -> Int64? {
    try await storage.int("SELECT firstSeenAt FROM article WHERE url = '\(articleURL(slug).absoluteString)'")
  }

  static func fetched(_ storage: StorageContext, _ slug: String) async throws -> Int64? {
    try await storage.int("SELECT fetchedAt FROM article WHERE url = '\(articleURL(slug).absoluteString)'")
  }

  @Test("an insert sets it to the save's time; a changed or unchanged save later moves fetchedAt, never it")
  func setOnceByTheWriter() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let first = Timestamp(millisecondsSince1970: t0 + 3_600_000)
    // Dated a year before it arrives: arrival is not publication.
    let old = makeArticle("old", publishedAt: t0 - 365 * 86_400_000)
    try await storage.saveArticles([old], forQuery: "feed", fetchedAt: first)
    #expect(try await Self.firstSeen(storage, "old") == first.millisecondsSince1970)

    // The feed edits the item: the row is rewritten (fetchedAt moves), its arrival stays.
    let edited = makeArticle("old", title: "Edited", publishedAt: t0 - 365 * 86_400_000)
    let later = Timestamp(millisecondsSince1970: t0 + 7_200_000)
    let changed = try await storage.saveArticles(
      [edited, makeArticle("new", publishedAt: t0)], forQuery: "feed", fetchedAt: later)
    #expect(changed.updated == 1 && changed.inserted == 1)
    #expect(try await Self.fetched(storage, "old") == later.millisecondsSince1970)
    #expect(try await Self.firstSeen(storage, "old") == first.millisecondsSince1970)
    #expect(try await Self.firstSeen(storage, "new") == later.millisecondsSince1970)

    // The same articles again: nothing is rewritten, nothing moves.
    try await storage.saveArticles(
      [edited, makeArticle("new", publishedAt: t0)], forQuery: "feed",
      fetchedAt: Timestamp(millisecondsSince1970: t0 + 10_800_000))
    #expect(try await Self.firstSeen(storage, "old") == first.millisecondsSince1970)
    #expect(try await Self.firstSeen(storage, "new") == later.millisecondsSince1970)
    let facts = try await storage.syncFacts(ofKeys: [articleURL("old").absoluteString, "https://absent/"])
    #expect(facts.mapValues(\.firstSeen) == [articleURL("old").absoluteString: first.date])
  }

  @Test("a first import (its rows inserted at given rowids) and a bulk save set it too; a re-import keeps it")
  func bulkPaths() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let imported = Timestamp(millisecondsSince1970: t0)
    let articles = (0..<1_500).map { makeArticle("a\($0)", publishedAt: t0 - Int64($0) * 60_000) }
    try await storage.saveArticles(articles, forQuery: "file", fetchedAt: imported)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE firstSeenAt = \(t0)") == 1_500)

    // A bulk save into the filled table: 1,000 new rows, 500 rows again with a changed title.
    let again = Timestamp(millisecondsSince1970: t0 + 60_000)
    let more =
      (1_000..<1_500).map { makeArticle("a\($0)", title: "Changed \($0)", publishedAt: t0 - Int64($0) * 60_000) }
      + (1_500..<2_500).map { makeArticle("a\($0)", publishedAt: t0 - Int64($0) * 60_000) }
    let result = try await storage.saveArticles(more, forQuery: "file", fetchedAt: again)
    #expect(result.inserted == 1_000 && result.updated == 500)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE firstSeenAt = \(t0)") == 1_500)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE firstSeenAt = \(t0 + 60_000)") == 1_000)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE firstSeenAt IS NULL") == 0)
  }

  @Test("the arrival order pages by keyset: latest arrival first, a save's articles newest first")
  func arrivalOrder() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    // One save of three items, then a later save of an item dated before all of them.
    try await storage.saveArticles(
      [
        makeArticle("b", publishedAt: t0 + 2_000), makeArticle("c", publishedAt: t0 + 3_000),
        makeArticle("a", publishedAt: t0 + 1_000),
      ],
      forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0 + 10_000))
    try await storage.saveArticles(
      [makeArticle("late", publishedAt: t0 - 86_400_000)], forQuery: "other",
      fetchedAt: Timestamp(millisecondsSince1970: t0 + 20_000))
    var selection = ArticleSelection(order: .firstSeen, limit: 2)
    let page1 = try await storage.articles(selecting: selection)
    #expect(slugs(page1) == ["late", "c"])
    let last = try #require(page1.last)
    selection.after = ArticlePlace(of: last, firstSeenAt: Timestamp(millisecondsSince1970: t0 + 10_000).date)
    #expect(slugs(try await storage.articles(selecting: selection)) == ["b", "a"])
    selection.ascending = true
    selection.after = nil
    #expect(slugs(try await storage.articles(selecting: selection)) == ["a", "b"])
    // Bounds on arrival, not publication: the late, old-dated item is the only one since t0 + 15 s.
    let since = ArticleSelection(firstSeenFrom: Timestamp(millisecondsSince1970: t0 + 15_000).date, order: .firstSeen)
    #expect(slugs(try await storage.articles(selecting: since)) == ["late"])
    let before = ArticleSelection(
      firstSeenBefore: Timestamp(millisecondsSince1970: t0 + 15_000).date, order: .firstSeen)
    #expect(slugs(try await storage.articles(selecting: before)) == ["c", "b", "a"])
    // Each page is a walk of the arrival index, not a sort of the table.
    let plan = try await storage.read { db in
      try db.makeStatement(
        "EXPLAIN QUERY PLAN SELECT url FROM article a ORDER BY a.firstSeenAt DESC, a.publishedAt DESC, a.url LIMIT 2"
      ).fetchAll([]) { $0.string(3) ?? "" }
    }
    #expect(plan.contains { $0.contains("article_by_firstSeenAt") }, "\(plan)")
    #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
  }

  @Test("a store at 17 gets the column, each row its fetchedAt (never earlier than its arrival), and the index")
  func migration() async throws {
    let database = TestDatabase()
    do {
      let db = try Connection(path: database.path)
      try db.execute(sql: "PRAGMA foreign_keys = ON")
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 17 })).migrate(db)
      #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE name = 'firstSeenAt'") == 0)
      // Published long before it was fetched (the row the old rule hid from incremental clients), and one dated
      // after its fetch (a feed's future date).
      for (slug, published, fetched) in [("old", t0 - 86_400_000, t0), ("future", t0 + 86_400_000, t0 + 1_000)] {
        let key = articleURL(slug).absoluteString
        try db.execute(
          """
          INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, handle)
          VALUES (?1, 'T', ?2, ?3, 'feed', ?4)
          """, [.text(key), .integer(published), .integer(fetched), .text(ArticleIdentity.handle(forKey: key))])
      }
    }
    let storage = try database.open()
    let facts = try await storage.syncFacts(ofKeys: [articleURL("old").absoluteString])
    #expect(
      facts.mapValues(\.firstSeen) == [articleURL("old").absoluteString: Timestamp(millisecondsSince1970: t0).date])
    #expect(try await storage.int("PRAGMA user_version") == Int64(StorageContext.schemaVersion))
    #expect(try await Self.firstSeen(storage, "old") == t0)
    #expect(try await Self.firstSeen(storage, "future") == t0 + 1_000)
    #expect(
      try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_by_firstSeenAt'") == 1)
    // The next save of the same item keeps the backfilled arrival.
    try await storage.saveArticles(
      [makeArticle("old", title: "Edited", publishedAt: t0 - 86_400_000)], forQuery: "feed",
      fetchedAt: Timestamp(millisecondsSince1970: t0 + 5_000))
    #expect(try await Self.firstSeen(storage, "old") == t0)
  }

  @Test("a store at 17 opened for reading is read as it is; a read of arrivals runs the migration first")
  func readAsItIsUntilArrivalsAreRead() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      try await storage.saveArticles(
        [makeArticle("a")], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0))
    }
    do {
      // Back to version 17, as an older build left it (its entities recorded: the readers open at once).
      let db = try Connection(path: database.path)
      try db.execute(
        sql: """
          DROP INDEX article_by_firstSeenAt; ALTER TABLE article DROP COLUMN firstSeenAt;
          DROP TABLE subscription_folder; PRAGMA user_version = 17;
          """)
    }
    let storage = try database.open()
    #expect(try await storage.int("PRAGMA user_version") == 17)
    #expect(slugs(try await storage.articles(limit: 10)) == ["a"])
    let facts = try await storage.syncFacts(ofKeys: [articleURL("a").absoluteString])
    #expect(facts.mapValues(\.firstSeen) == [articleURL("a").absoluteString: Timestamp(millisecondsSince1970: t0).date])
    #expect(try await storage.int("PRAGMA user_version") == Int64(StorageContext.schemaVersion))
    #expect(slugs(try await storage.articles(selecting: ArticleSelection(order: .firstSeen))) == ["a"])
  }
}
