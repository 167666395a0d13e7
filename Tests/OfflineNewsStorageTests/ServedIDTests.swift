import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 20: `article.servedID`, the id the sync APIs give an article — its key's handle when the row is
/// inserted, kept by every update and by a re-key, the next free 13-digit prefix for a new row whose first 13 digits
/// (its Miniflux entry id) another row holds; stored rows get the handle the APIs served before.
@Suite("Migration 20: the ids news serve gives articles")
struct ServedIDTests {
  static func servedID(_ storage: StorageContext, _ key: String) async throws -> String? {
    try await storage.syncFacts(ofKeys: [key])[key]?.servedID
  }

  /// The 13-digit prefix after `id`'s, and `id`'s last 3 digits.
  static func next(_ id: String) throws -> String {
    let prefix = try #require(UInt64(id.prefix(13), radix: 16)) + 1
    let hex = String(prefix, radix: 16)
    return String(repeating: "0", count: 13 - hex.count) + hex + id.suffix(3)
  }

  @Test("a re-key keeps the row's id; a new article under the old key gets the next free prefix")
  func keptAcrossRekeys() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let (typo, fixed) = (articleURL("typo").absoluteString, articleURL("fixed").absoluteString)
    var post = makeArticle("typo")
    post.itemID = "news-item:https://example.com/news/1"
    try await storage.saveArticles([post], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let id = try #require(try await Self.servedID(storage, typo))
    #expect(id == ArticleIdentity.handle(forKey: typo))

    // The slug is fixed: the same item under a new key. The row moves, its handle follows the key, its id stays.
    var moved = makeArticle("fixed")
    moved.itemID = post.itemID
    let rekey = try await storage.saveArticles(
      [moved], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1000))
    #expect(rekey.inserted == 0)
    #expect(try await Self.servedID(storage, fixed) == id)
    #expect(
      try await storage.text("SELECT handle FROM article WHERE url = '\(fixed)'")
        == ArticleIdentity.handle(forKey: fixed))
    #expect(
      try await storage.articles(withServedIDPrefixes: [String(id.prefix(13))]).map(\.url.absoluteString) == [fixed])

    // An edit of the row (a new title) keeps it too.
    var edited = moved
    edited.title = "Edited"
    try await storage.saveArticles([edited], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0 + 2000))
    #expect(try await Self.servedID(storage, fixed) == id)

    // Another post under the old key: the handle the old id came from is taken, so the next prefix.
    let other = makeArticle("typo", title: "Another")
    let added = try await storage.saveArticles(
      [edited, other], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0 + 3000))
    #expect(added.inserted == 1)
    #expect(try await Self.servedID(storage, typo) == Self.next(id))
    #expect(try await Self.servedID(storage, fixed) == id)
    #expect(try await storage.articles(withServedIDPrefixes: [id]).map(\.url.absoluteString) == [fixed])
    #expect(
      try await storage.articles(withServedIDPrefixes: [String(try Self.next(id).prefix(13))]).map(\.title)
        == ["Another"])
  }

  @Test("a new row whose first 13 digits another row's id holds moves on until a prefix is free")
  func probesPastTakenPrefixes() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let key = articleURL("b").absoluteString
    let handle = ArticleIdentity.handle(forKey: key)
    // Two stored rows hold the key's 13 digits and the next (other last digits: another 64-bit id, one Miniflux id).
    try await storage.saveArticles(
      [makeArticle("a"), makeArticle("c")], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let last = handle.suffix(3) == "000" ? "001" : "000"
    let taken = [String(handle.prefix(13)) + last, String(try Self.next(handle).prefix(13)) + last]
    try await storage.write { db in
      try db.execute(
        "UPDATE article SET servedID = ?1 WHERE url = ?2", [.text(taken[0]), .text(articleURL("a").absoluteString)])
      try db.execute(
        "UPDATE article SET servedID = ?1 WHERE url = ?2", [.text(taken[1]), .text(articleURL("c").absoluteString)])
    }
    try await storage.saveArticles(
      [makeArticle("b")], forQuery: "feed", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1))
    #expect(try await Self.servedID(storage, key) == Self.next(Self.next(handle)))
  }

  @Test("a first import gives every row its handle and builds the index again")
  func firstImport() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let articles = (0..<1500).map { makeArticle("bulk-\($0)", publishedAt: t0 + Int64($0)) }
    let result = try await storage.saveArticles(
      articles, forQuery: "bulk", fetchedAt: Timestamp(millisecondsSince1970: t0))
    #expect(result.inserted == 1500)
    #expect(try await storage.int("SELECT count(*) FROM article WHERE servedID IS NOT handle") == 0)
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_by_servedID'") == 1)
    let key = articleURL("bulk-7").absoluteString
    #expect(try await Self.servedID(storage, key) == ArticleIdentity.handle(forKey: key))
  }

  @Test("a store at 19 gets the column, each row the id served before (its handle), and the index")
  func migration() async throws {
    let database = TestDatabase()
    let keys = ["a", "b"].map { articleURL($0).absoluteString }
    do {
      let db = try Connection(path: database.path)
      try db.execute(sql: "PRAGMA foreign_keys = ON")
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 19 })).migrate(db)
      #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE name = 'servedID'") == 0)
      for key in keys {
        try db.execute(
          """
          INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, handle, firstSeenAt)
          VALUES (?1, 'T', ?2, ?2, 'feed', ?3, ?2)
          """, [.text(key), .integer(t0), .text(ArticleIdentity.handle(forKey: key))])
      }
    }
    let storage = try database.open()
    // Read as it is until a read of the column, which migrates it first.
    let facts = try await storage.syncFacts(ofKeys: keys)
    #expect(
      facts.mapValues(\.servedID)
        == Dictionary(uniqueKeysWithValues: keys.map { ($0, ArticleIdentity.handle(forKey: $0)) }))
    #expect(try await storage.int("PRAGMA user_version") == Int64(StorageContext.schemaVersion))
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_by_servedID'") == 1)
    let plan = try await storage.read { db in
      try db.makeStatement("EXPLAIN QUERY PLAN SELECT url FROM article WHERE servedID >= 'a' AND servedID < 'b'")
        .fetchAll([]) { $0.string(3) ?? "" }
    }
    #expect(plan.contains { $0.contains("article_by_servedID") }, "\(plan)")
  }
}
