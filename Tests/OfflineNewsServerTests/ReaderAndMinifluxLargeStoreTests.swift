import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The pages of both APIs on a 100,000-article store (50 feeds of 2,000), in process (handler → JSON, no HTTP): each
/// page is filtered and paged in SQL, so its cost is its page's, not the store's. What is checked here is how: each
/// page answers with its page of items, and the selections the APIs run are answered by the store's indexes (query
/// plans: the date index or the source index, never a sort of the store). How fast is measured in `news-bench
/// --serve` (release, over HTTP), not here: a timed test in a debug build on a shared machine is noise.
@Suite("Miniflux and Reader pages on a 100,000-article store", .serialized)
struct ReaderAndMinifluxLargeStoreTests {
  static let feeds = 50
  static let perFeed = 2000

  static func library() async throws -> ServedTestLibrary {
    let sources = (0..<feeds).map { index in
      NewsSource(
        name: "Feed \(index)", url: ServedTestLibrary.feedURL("feed\(index)"), folder: ["Folder \(index % 5)"])
    }
    let served = try ServedTestLibrary(configured: sources)
    for (index, source) in sources.enumerated() {
      let articles = (0..<perFeed).map { n in
        Article(
          key: URL(string: "https://feed\(index).example.org/posts/\(n)") ?? ServedTestLibrary.feedURL("x"),
          link: nil, title: "Feed \(index) post \(n)",
          summary: "A summary of some length, " + String(repeating: "words ", count: 40),
          publishedAt: ServedTestLibrary.start.addingTimeInterval(TimeInterval(n * 600 + index)),
          content: "<p>" + String(repeating: "Content of the post. ", count: 30) + "</p>")
      }
      try await served.repository.save(articles, for: source.query)
    }
    return served
  }

  @Test("each page answers its page; the selections behind them walk an index, never sort the store")
  func pages() async throws {
    let served = try await Self.library()
    #expect(try await served.repository.counts().total == Self.feeds * Self.perFeed)
    let miniflux = MinifluxAPI(library: served.library)
    let reader = ReaderAPI(library: served.library, user: "reader")
    let feed7 = ServedIdentifiers.feedID(forSourceNamed: "Feed 7")
    let calls: [(String, @Sendable () async -> ServerResponse)] = [
      (
        "/v1/entries?limit=100",
        { await miniflux.handle(ServerRequest(method: "GET", target: "/v1/entries?limit=100")) }
      ),
      (
        "/v1/entries?status=unread&limit=100&direction=asc",
        {
          await miniflux.handle(
            ServerRequest(method: "GET", target: "/v1/entries?status=unread&limit=100&direction=asc"))
        }
      ),
      (
        "/v1/feeds/{id}/entries?limit=100",
        {
          await miniflux.handle(ServerRequest(method: "GET", target: "/v1/feeds/\(feed7)/entries?limit=100"))
        }
      ),
      (
        "reading-list n=50",
        {
          await reader.handle(
            ServerRequest(
              method: "GET", target: "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=50"))
        }
      ),
      (
        "reading-list n=50 unread",
        {
          await reader.handle(
            ServerRequest(
              method: "GET",
              target:
                "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=50&xt=user/-/state/com.google/read"
            ))
        }
      ),
      (
        "feed/… n=50",
        {
          await reader.handle(
            ServerRequest(
              method: "GET", target: "/reader/api/0/stream/contents/feed/https://feed7.example.org/feed.xml?n=50"))
        }
      ),
      (
        "stream/items/ids n=1000",
        {
          await reader.handle(
            ServerRequest(
              method: "GET", target: "/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&n=1000"))
        }
      ),
    ]
    for (name, call) in calls {
      let response = await call()
      #expect(response.status == 200, "\(name)")
      let document = try json(response) as? [String: Any] ?? [:]
      let items = (document["entries"] ?? document["items"] ?? document["itemRefs"]) as? [Any] ?? []
      let expected = name.contains("n=1000") ? 1000 : name.contains("n=50") ? 50 : 100
      #expect(items.count == expected, "\(name): \(items.count) items")
    }
    let catalog = try await ServedCatalog.current(served.library)
    var page = catalog.everything
    page.limit = 100
    let everything = try await served.storage.queryPlan(selecting: page)
    #expect(everything.contains { $0.contains("article_by_publishedAt") }, "\(everything)")
    #expect(!everything.contains { $0.contains("TEMP B-TREE") }, "\(everything)")
    // The Reader API's reading list, in arrival order: a walk of the arrival index too.
    var arrivals = page
    arrivals.order = .firstSeen
    let arrivalPlan = try await served.storage.queryPlan(selecting: arrivals)
    #expect(arrivalPlan.contains { $0.contains("article_by_firstSeenAt") }, "\(arrivalPlan)")
    #expect(!arrivalPlan.contains { $0.contains("TEMP B-TREE") }, "\(arrivalPlan)")
    var one = catalog.selection(of: catalog.feeds.filter { $0.title == "Feed 7" })
    one.limit = 100
    let feedPlan = try await served.storage.queryPlan(selecting: one)
    #expect(feedPlan.contains { $0.contains("article_by_source") }, "\(feedPlan)")
    #expect(!feedPlan.contains { $0.contains("SCAN a ") || $0.hasSuffix("SCAN a") }, "\(feedPlan)")
  }
}
