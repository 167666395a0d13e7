import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 6: a cache written before canonical keys, with rows that are one article under several spellings,
/// opens migrated — one row per article, no bookmark or read mark lost, query results following the new keys.
@Suite("Migration 6: canonical article keys and sorted query keys")
struct ArticleIdentityMigrationTests {
  /// A database as schema 5 left it: the current schema without migration 6's columns and index, nor migration 7's
  /// search folding.
  static func schema5(_ database: TestDatabase) async throws {
    let storage = try database.open()
    defer { _ = storage }
    try await storage.write { db in
      try db.execute(sql: SearchFoldingTests.version5Search)
      try db.execute(sql: SearchFoldingTests.laterColumns)
      try db.execute(
        sql: """
          DROP INDEX article_by_source; DROP INDEX article_by_source_read;
          ALTER TABLE article DROP COLUMN link; ALTER TABLE article DROP COLUMN source;
          ALTER TABLE article DROP COLUMN tags; ALTER TABLE article DROP COLUMN enclosures;
          DELETE FROM schema_entity WHERE name = 'article';
          PRAGMA user_version = 5;
          """)
    }
  }

  /// Rows as version 5 wrote them: the key is the URL as NewsAPI sent it.
  static func insert(
    _ db: Connection, _ url: String, title: String, fetchedAt: Int64, isRead: Bool = false,
    bookmarkedAt: Int64? = nil, query: String
  ) throws {
    try db.execute(
      """
      INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, isRead, bookmarkedAt)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
      """,
      [
        .text(url), .text(title), .integer(t0), .integer(fetchedAt), .text(query), .integer(isRead ? 1 : 0),
        bookmarkedAt.map { .integer($0) } ?? .null,
      ])
    try db.execute(
      "INSERT INTO query_result (query, url, position) VALUES (?1, ?2, 0) ON CONFLICT DO NOTHING",
      [.text(query), .text(url)])
    try db.execute(
      """
      INSERT INTO query_fetch (query, fetchedAt, articleCount) VALUES (?1, ?2, 1)
      ON CONFLICT(query) DO UPDATE SET fetchedAt = max(fetchedAt, excluded.fetchedAt)
      """, [.text(query), .integer(fetchedAt)])
  }

  @Test("equivalent spellings merge into one article keeping read state and bookmarks from either")
  func mergesDuplicates() async throws {
    let database = TestDatabase()
    try await Self.schema5(database)
    let old = try Connection(path: database.path)
    let a = "https://newsapi.org/v2/top-headlines?country=us"
    let b = "https://newsapi.org/v2/everything?q=x"
    try Self.insert(old, "HTTPS://Example.com:443/story#top", title: "Old", fetchedAt: t0, isRead: true, query: a)
    try Self.insert(
      old, "https://example.com/story?utm_source=rss", title: "New", fetchedAt: t0 + 5000, bookmarkedAt: t0 + 7000,
      query: b)
    try Self.insert(old, "https://example.com/story?id=2", title: "Other page", fetchedAt: t0, query: a)
    try Self.insert(old, "http://example.com/story", title: "Plain http", fetchedAt: t0, query: a)
    // A query written with its items in another order.
    try Self.insert(
      old, "https://example.com/z", title: "Z", fetchedAt: t0,
      query: "https://newsapi.org/v2/top-headlines?q=a&country=us")

    let storage = try database.open()
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    let keys = try await storage.read { db in
      try db.makeStatement("SELECT url FROM article ORDER BY url").fetchAll { $0.string(0) ?? "" }
    }
    #expect(
      keys == [
        "http://example.com/story", "https://example.com/story", "https://example.com/story?id=2",
        "https://example.com/z",
      ])
    let merged = try #require(try await storage.article(url: "https://EXAMPLE.com/story#x"))
    #expect(merged.title == "New")  // the row fetched last keeps its content
    #expect(merged.isRead)  // read in one spelling
    #expect(merged.bookmarkedAt == Timestamp(millisecondsSince1970: t0 + 7000).date)  // bookmarked in the other
    // Both queries' result lists point at the one key.
    #expect(try await storage.articles(forQuery: a).map(\.url.absoluteString).contains("https://example.com/story"))
    #expect(try await storage.articles(forQuery: b).map(\.url.absoluteString) == ["https://example.com/story"])
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE url NOT IN (SELECT url FROM article)") == 0)
    // The reordered query is found under its sorted key.
    #expect(
      try await storage.articles(forQuery: "https://newsapi.org/v2/top-headlines?country=us&q=a").map(\.title) == ["Z"])
    // Search still finds the merged row once, under its new key.
    let hits = try await storage.search("New").map(\.article.url.absoluteString)
    #expect(hits == ["https://example.com/story"])
    #expect(try await storage.search("Old") == [])
    #expect(try await storage.int("PRAGMA foreign_key_check") == nil)
  }
}
