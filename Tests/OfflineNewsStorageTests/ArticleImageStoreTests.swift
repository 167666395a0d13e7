import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("StorageContext: article images (migration 10)")
struct ArticleImageStoreTests {
  static func image(_ name: String, position: Int, stored: Bool) -> ArticleImage {
    ArticleImage(
      url: articleURL("\(name).png"), position: position, file: "\(name).png", byteCount: stored ? 10 : nil,
      format: stored ? "png" : nil, storedAt: stored ? Timestamp(millisecondsSince1970: t0) : nil,
      error: stored ? nil : "HTTP 503", attemptedAt: Timestamp(millisecondsSince1970: t0))
  }

  @Test("a version 9 store gains article_image; rows are upserted, read in order, and go with their article")
  func migrationAndCascade() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      try await storage.saveArticles([makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: .now())
      try await storage.write { db in
        try db.execute(sql: SearchTextTests.version10Search)
        try db.execute(sql: "DROP TABLE article_image; PRAGMA user_version = 9;")
      }
    }
    let storage = try database.open()
    #expect(try await storage.int("PRAGMA user_version") == Int64(StorageContext.schemaVersion))
    let key = articleURL("a").absoluteString
    let rows = [Self.image("lead", position: 0, stored: true), Self.image("late", position: 1, stored: false)]
    #expect(try await storage.saveArticleImages(rows.reversed(), forKey: key, fullTextHTML: "<p>x</p>"))
    #expect(try await storage.articleImages(forKey: key) == rows)
    #expect(try await storage.article(url: key)?.fullTextHTML == "<p>x</p>")
    #expect(!(try await storage.saveArticleImages(rows, forKey: "https://example.com/none")), "no such article")
    let retryAll = Timestamp(millisecondsSince1970: t0 + 1)
    #expect(try await storage.keysNeedingImages([key], failedBefore: retryAll).isEmpty, "no whole text yet")
    try await storage.saveFullText(FullText(html: "<p>x</p>", text: "x"), forKey: key, at: .now())
    #expect(try await storage.keysNeedingImages([key], failedBefore: retryAll) == [key])
    #expect(try await storage.keysNeedingImages([key], failedBefore: Timestamp(millisecondsSince1970: t0)).isEmpty)
    #expect(try await storage.imageFileNames() == ["lead.png", "late.png"])
    try await storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: Double(t0) / 1000 + 1))
    #expect(try await storage.imageFileNames().isEmpty)
    #expect(try await storage.int("SELECT count(*) FROM article_image") == 0)
  }
}
