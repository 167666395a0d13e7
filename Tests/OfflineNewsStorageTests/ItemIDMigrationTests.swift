import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 15: `article.itemID`, the feed item's guid scoped to its feed (``Article/itemID``), by which the writer
/// re-keys a row whose link was edited. A store written before has no identifiers: the migration adds the column
/// and creates, merges and moves nothing; a row gets its identifier at the next fetch that still carries its key,
/// and only then can an edited link find it.
@Suite("Migration 15: feed item identifiers")
struct ItemIDMigrationTests {
  static let typo = "https://blog.example.org/build-a-your-own-shop"
  static let fixed = "https://blog.example.org/build-your-own-shop"
  static let itemID = ArticleIdentity.scoped("https://blog.example.org/", id: "https://blog.example.org/?p=1")
    .absoluteString

  /// A store at version 14 (migrations 1–14 on a new file) holding the article under its old link, read, in the
  /// feed's result list.
  private static func version14(_ path: String) throws {
    let db = try Connection(path: path)
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 14 })).migrate(db)
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE name = 'itemID'") == 0)
    try db.execute(
      """
      INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, isRead, handle)
      VALUES (?1, 'Shop', 1764583200000, 1764583200000, 'feed', 1, ?2)
      """, [.text(typo), .text(ArticleIdentity.handle(forKey: typo))])
    try db.execute("INSERT INTO query_result (query, url, position) VALUES ('feed', ?1, 0)", [.text(typo)])
  }

  static func article(_ link: String) throws -> Article {
    var article = Article(
      url: try #require(URL(string: link)), title: "Shop", publishedAt: Date(timeIntervalSince1970: 1_764_583_200))
    article.itemID = itemID
    return article
  }

  @Test("the upgrade adds nothing but the column; the next fetch fills it, and a later slug fix re-keys the one row")
  func upgradeThenRekey() async throws {
    let directory = TemporaryDirectory()
    let path = directory.path("news.sqlite")
    try Self.version14(path)
    let storage = try StorageContext(path: path)
    #expect(try await storage.int("PRAGMA user_version") == Int64(StorageContext.schemaVersion))
    #expect(try await storage.int("SELECT count(*) FROM article") == 1)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE itemID IS NOT NULL") == 0)

    // The same item fetched again (its key unchanged): the stored row gets its identifier, no second row.
    let filled = try await storage.saveArticles([try Self.article(Self.typo)], forQuery: "feed", fetchedAt: .now())
    #expect(filled.inserted == 0 && filled.updated == 1)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE itemID IS NOT NULL") == 1)

    // The slug fixed: the row is re-keyed, its read mark kept; the change names the old key deleted.
    let rekeyed = try await storage.saveArticles([try Self.article(Self.fixed)], forQuery: "feed", fetchedAt: .now())
    #expect(rekeyed.inserted == 0 && rekeyed.updated == 1)
    let all = try await storage.articles(limit: 10)
    #expect(all.map(\.url.absoluteString) == [Self.fixed])
    #expect(all.first?.isRead == true)
    #expect(try await storage.int("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test("a row stored before the upgrade, whose link changes at the first fetch after it, is not guessed at")
  func noIdentifierNoRekey() async throws {
    let directory = TemporaryDirectory()
    let path = directory.path("news.sqlite")
    try Self.version14(path)
    let storage = try StorageContext(path: path)
    try await storage.saveArticles([try Self.article(Self.fixed)], forQuery: "feed", fetchedAt: .now())
    #expect(Set(try await storage.articles(limit: 10).map(\.url.absoluteString)) == [Self.typo, Self.fixed])
  }

  @Test("a row an older rule keyed by the item's scoped guid is re-keyed to the article, keeping read and bookmark")
  func rowKeyedByItsIdentifier() async throws {
    let directory = TemporaryDirectory()
    let path = directory.path("news.sqlite")
    do {
      let db = try Connection(path: path)
      try db.execute(sql: "PRAGMA foreign_keys = ON")
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 14 })).migrate(db)
      try db.execute(
        """
        INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, isRead, bookmarkedAt, handle)
        VALUES (?1, 'Shop', 1764583200000, 1764583200000, 'feed', 1, 1764583300000, ?2)
        """, [.text(Self.itemID), .text(ArticleIdentity.handle(forKey: Self.itemID))])
      try db.execute("INSERT INTO query_result (query, url, position) VALUES ('feed', ?1, 0)", [.text(Self.itemID)])
    }
    let storage = try StorageContext(path: path)
    let saved = try await storage.saveArticles([try Self.article(Self.fixed)], forQuery: "feed", fetchedAt: .now())
    #expect(saved.inserted == 0 && saved.updated == 1)
    let all = try await storage.articles(limit: 10)
    #expect(all.map(\.url.absoluteString) == [Self.fixed])
    #expect(all.first?.isRead == true && all.first?.bookmarkedAt != nil)
    #expect(try await storage.int("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test("a first import writes item identifiers with its rows")
  func firstImport() async throws {
    let directory = TemporaryDirectory()
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    var articles: [Article] = []
    for index in 0..<1_200 {
      var article = try Self.article("https://blog.example.org/\(index)")
      article.itemID = "news-item:https://blog.example.org/\(index)"
      articles.append(article)
    }
    try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    #expect(try await storage.int("SELECT count(DISTINCT itemID) FROM article") == 1_200)
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_by_itemID'") == 1)
  }
}
