import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The pages of both APIs on a 100,000-article store (50 feeds of 2,000), in process (handler → JSON, no HTTP):
/// each page is filtered and paged in SQL, so its time is its page's, not the store's. The issue's target over HTTP
/// is p50 ≤ 5 ms for `/v1/entries?limit=100` and `stream/contents?n=50` (the benchmark in `news-bench` measures
/// it). Here, in a debug build on a shared machine, a Reader page's p50 must stay under 50 ms (measured: 2–4 ms) —
/// a page that sorted or loaded the store would take several times that. A Miniflux page also answers `total`, a
/// `count(*)` of every article it selects: the store has no narrow index for it, so it reads every row (about 50 ms
/// at 100,000 articles, whatever the page); its bound is 400 ms, and the page itself is checked apart (< 50 ms).
@Suite("Miniflux and Reader pages on a 100,000-article store", .serialized)
struct ReaderAndMinifluxLatencyTests {
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

  /// The median of `runs` timings of `body`, in milliseconds.
  static func median(_ runs: Int = 25, _ body: () async throws -> Void) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
      let start = ContinuousClock.now
      try await body()
      let elapsed = ContinuousClock.now - start
      times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return times.sorted()[runs / 2]
  }

  @Test("each page's median stays far below a scan of the store")
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
    var report: [String] = []
    for (name, call) in calls {
      let first = await call()
      #expect(first.status == 200, "\(name)")
      let median = try await Self.median { _ = await call() }
      report.append("\(name): p50 \(String(format: "%.1f", median)) ms")
      #expect(median < (name.hasPrefix("/v1/") ? 400 : 50), "\(name): p50 \(median) ms")
    }
    let catalog = try await ServedCatalog.current(served.library)
    var page = catalog.everything
    page.limit = 100
    let pageOnly = try await Self.median { _ = try await served.repository.articles(selecting: page) }
    let count = try await Self.median(9) { _ = try await served.repository.count(selecting: page) }
    report.append("the page of /v1/entries?limit=100 alone: p50 \(String(format: "%.1f", pageOnly)) ms")
    report.append("its total (count(*) of the store): p50 \(String(format: "%.1f", count)) ms")
    #expect(pageOnly < 50, "p50 \(pageOnly) ms")
    let counters = try await Self.median(5) {
      _ = await miniflux.handle(ServerRequest(method: "GET", target: "/v1/feeds/counters"))
    }
    report.append("/v1/feeds/counters (50 feeds, one statement): p50 \(String(format: "%.1f", counters)) ms")
    print(
      "Miniflux and Reader pages, 100,000 articles, in process (debug build):\n  " + report.joined(separator: "\n  "))
  }
}
