import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("StorageContext: batch delete")
struct BatchDeleteTests {
  @Test("deleteAllArticles returns the row count and empties every table")
  func deleteAll() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let fetched = Timestamp(millisecondsSince1970: t0)
    try await storage.saveArticles((0..<5).map { makeArticle("a\($0)") }, forQuery: "q1", fetchedAt: fetched)
    try await storage.saveArticles([makeArticle("a0"), makeArticle("b")], forQuery: "q2", fetchedAt: fetched)
    #expect(try await storage.int("SELECT count(*) FROM query_result") == 7)

    #expect(try await storage.deleteAllArticles() == 6)
    #expect(try await storage.articleCount() == 0)
    #expect(try await storage.int("SELECT count(*) FROM query_result") == 0)
    #expect(try await storage.int("SELECT count(*) FROM query_fetch") == 0)
    #expect(try await storage.fetchRecord(forQuery: "q1") == nil)
    #expect(try await storage.articles(forQuery: "q2") == [])
    #expect(try await storage.deleteAllArticles() == 0)
  }

  @Test("deleteArticles(publishedBefore:) removes exactly the strictly older rows and their result entries")
  func deleteBefore() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let cutoff = t0
    let articles = [
      makeArticle("older-day", publishedAt: cutoff - 86_400_000),
      makeArticle("older-second", publishedAt: cutoff - 1000),
      makeArticle("at-cutoff", publishedAt: cutoff),
      makeArticle("newer-second", publishedAt: cutoff + 1000),
      makeArticle("before-1970", publishedAt: -86_400_000),
    ]
    let fetched = Timestamp(millisecondsSince1970: t0)
    try await storage.saveArticles(articles, forQuery: "q1", fetchedAt: fetched)
    try await storage.saveArticles([articles[1], articles[3]], forQuery: "q2", fetchedAt: fetched)

    let deleted = try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: cutoff).date)
    #expect(deleted == 3)
    #expect(slugs(try await storage.articles()) == ["newer-second", "at-cutoff"])
    #expect(slugs(try await storage.articles(forQuery: "q1")) == ["newer-second", "at-cutoff"])
    #expect(slugs(try await storage.articles(forQuery: "q2")) == ["newer-second"])
    // The foreign key cascade removed the deleted articles' result rows: none dangles.
    #expect(try await storage.int("SELECT count(*) FROM query_result") == 3)
    #expect(
      try await storage.int("SELECT count(*) FROM query_result WHERE url NOT IN (SELECT url FROM article)") == 0)
    // Fetch records are not article rows; they stay.
    #expect(try await storage.fetchRecord(forQuery: "q2")?.articleCount == 2)

    #expect(try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: cutoff).date) == 0)
  }

  @Test("the cut-off is compared to the millisecond")
  func millisecondCutoff() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(
      [
        makeArticle("just-before", publishedAt: t0 - 1), makeArticle("at", publishedAt: t0),
        makeArticle("just-after", publishedAt: t0 + 1),
      ],
      forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    // 0.9 ms after t0 truncates to t0: only the article one millisecond before goes.
    let date = Date(timeIntervalSince1970: Double(t0) / 1000 + 0.0009)
    #expect(try await storage.deleteArticles(publishedBefore: date) == 1)
    #expect(slugs(try await storage.articles()) == ["just-after", "at"])
  }

  /// Another process's first import drops `article`'s triggers and indexes and creates them again; a connection that
  /// read the schema before it must prepare its delete against the new one. SQLite 3.40 otherwise fails the
  /// `DELETE` (foreign keys on) with `SQLITE_SCHEMA` "no such table: article", as `news delete` did after an import.
  @Test("a delete after another connection's first import rebuilt article's indexes sees the new schema")
  func deleteAfterAnotherConnectionsFirstImport() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    // The writer opens and reads the schema (and writes nothing) before the other's first import.
    #expect(try await storage.setRead(true, url: articleURL("none").absoluteString) == false)

    let other = try database.open()
    let fetched = Timestamp(millisecondsSince1970: t0)
    // 1,000 articles in one batch: a bulk first import (`ArticleWriter.bulk`).
    let articles = (0..<1000).map { makeArticle("bulk\($0)", publishedAt: t0 - 1000) }
    #expect(try await other.saveArticles(articles, forQuery: "q", fetchedAt: fetched).saved == 1000)

    #expect(try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0).date) == 1000)
    #expect(try await other.articleCount() == 0)
  }
}
