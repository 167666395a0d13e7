import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Deletions that last: `deleteArticles(publishedBefore:)` remembers the keys it deleted (`article_tombstone`,
/// migration 13), so a refresh of a feed that still lists them does not bring them back as new (a user's
/// `news delete --before 2019-01-01` removed 463 articles, and the next `fetch --all` saved them all again).
@Suite("deleted articles stay deleted")
struct ArticleTombstoneTests {
  static let old = Date(timeIntervalSince1970: 1_500_000_000)  // 2017
  static let new = Date(timeIntervalSince1970: 1_760_000_000)  // 2025

  static func articles(_ count: Int) throws -> [Article] {
    try (0..<count).map { index in
      Article(
        url: try #require(URL(string: "https://example.org/posts/\(index)")), title: "Post \(index)",
        publishedAt: index < count / 2 ? old : new)
    }
  }

  @Test(
    "a refresh after delete --before skips the deleted keys, in small and bulk saves; forgetting lets them return",
    arguments: [10, 2_400])
  func deletedStayDeleted(count: Int) async throws {
    let folder = TemporaryDirectory()
    let storage = try StorageContext(path: folder.path("news.sqlite"))
    let articles = try Self.articles(count)
    let first = try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    #expect(first.inserted == count)
    let cutoff = Date(timeIntervalSince1970: 1_600_000_000)
    #expect(try await storage.deleteArticles(publishedBefore: cutoff) == count / 2)
    #expect(try await storage.deletedArticleCount() == count / 2)

    // The feed still lists every item: only the kept half is in the store after the refresh.
    let again = try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    #expect(again.inserted == 0, "\(again)")
    #expect(try await storage.articleCount() == count / 2)
    #expect(try await storage.articles(forQuery: "feed").count == count / 2)

    // Forgotten: the next refresh saves them again.
    #expect(try await storage.forgetDeletedArticles() == count / 2)
    let back = try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    #expect(back.inserted == count / 2)
    #expect(try await storage.articleCount() == count)
    await storage.close()
  }

  @Test("emptying the store (delete --all) forgets the deleted keys: a reset")
  func deleteAllIsAReset() async throws {
    let folder = TemporaryDirectory()
    let storage = try StorageContext(path: folder.path("news.sqlite"))
    let articles = try Self.articles(6)
    try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    try await storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: 1_600_000_000))
    #expect(try await storage.deletedArticleCount() == 3)
    #expect(try await storage.deleteAllArticles() == 3)
    #expect(try await storage.deletedArticleCount() == 0)
    #expect(try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now()).inserted == 6)
    await storage.close()
  }

  @Test("tombstones are bounded: expired ones and the oldest past the maximum are dropped at the next delete")
  func bounded() async throws {
    let folder = TemporaryDirectory()
    let storage = try StorageContext(path: folder.path("news.sqlite"))
    let articles = try Self.articles(4)
    try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    let longAgo = Timestamp(Date(timeIntervalSinceNow: -2 * StorageContext.tombstoneLifetime))
    try await storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: 1_600_000_000), now: longAgo)
    #expect(try await storage.deletedArticleCount() == 2)
    // A delete now drops the tombstones older than the lifetime.
    try await storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: 1_800_000_000))
    #expect(try await storage.deletedArticleCount() == 2)  // the two deleted now; the expired two are gone
    #expect(
      try await storage.saveArticles(Array(articles.prefix(2)), forQuery: "feed", fetchedAt: .now()).inserted == 2)
    await storage.close()
  }
}
