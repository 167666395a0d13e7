import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// newsboat against `news serve` (Miniflux and Google Reader modes) across a re-key: a post whose link the publisher
/// fixed (the same guid) stays one item in newsboat's cache, under the guid it had, with the read state it had;
/// newsboat keeps ids for ever, so a new id would have been a second, unread copy.
@Suite(
  "newsboat keeps one item across a re-key", .serialized,
  .enabled(if: Newsboat.available, "SKIPPED: newsboat or sqlite3 is not installed (apt-get install newsboat sqlite3)"))
struct StableServedIDNewsboatTests {
  static let typo = "https://alpha.example.org/posts/build-a-your-own-shop"
  static let fixed = "https://alpha.example.org/posts/build-your-own-shop"

  /// Saves Alpha's four synthetic articles and "Alpha 5" (guid-identified) under `link`, as a refresh of Alpha does.
  static func saveAlpha(_ served: ServedTestLibrary, link: String, at hours: Double) async throws {
    let alpha = try #require(served.configured.first { $0.name == "Alpha" })
    var articles = try await served.repository.read().filter { $0.title.hasPrefix("Alpha ") && $0.title != "Alpha 5" }
    var post = Article(
      key: try #require(URL(string: link)), link: URL(string: link), title: "Alpha 5", summary: "Summary of Alpha 5",
      publishedAt: ServedTestLibrary.start.addingTimeInterval(5 * 3600))
    post.itemID = "news-item:https://alpha.example.org/?p=5"
    articles.append(post)
    try await served.storage.saveArticles(
      articles, forQuery: alpha.query.cacheKey, source: alpha.query.source ?? alpha.query.cacheKey,
      fetchedAt: Timestamp(ServedTestLibrary.start.addingTimeInterval(hours * 3600)))
  }

  @Test(
    "the fixed post is the same newsboat item (guid, read state), not a second unread one",
    arguments: ["miniflux", "feedhq"])
  func rekeyedPost(mode: String) async throws {
    let served = try await ServedTestLibrary.synthetic()
    try await Self.saveAlpha(served, link: Self.typo, at: 6)
    let server = try Newsboat.Server(served.library)
    let client = try Newsboat.Client(mode, server: server)
    #expect(try await client.reload().status == 0)
    let before = try await client.query("SELECT guid, unread FROM rss_item WHERE title = 'Alpha 5'")
    #expect(before.count == 1 && before.first?[1] == "1", "\(before)")
    try await served.repository.markRead(url: Self.typo)
    #expect(try await client.reload().status == 0)

    try await Self.saveAlpha(served, link: Self.fixed, at: 7)
    #expect(try await served.repository.read().map(\.url.absoluteString).contains(Self.fixed))
    #expect(try await client.reload().status == 0)
    let after = try await client.query("SELECT guid, unread FROM rss_item WHERE title = 'Alpha 5'")
    #expect(after.count == 1, "\(mode): \(after)")
    #expect(after.first?[0] == before.first?[0])
    #expect(after.first?[1] == "0", "\(mode): \(after)")
    #expect(try await client.query("SELECT count(*) FROM rss_item").first?.first == "10")
    await server.stop()
  }
}
