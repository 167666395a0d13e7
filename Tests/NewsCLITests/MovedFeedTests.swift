import Foundation
import OfflineNews
import OfflineNewsStorage
import OfflineNewsURLSession
import TestSupport
import Testing

/// Feeds that move: a permanent redirect (`301`, `308`) re-links the subscription — in the store's list and in the
/// configuration file, every other byte of it kept — and a temporary one (`302`, `307`) does not; a feed that moved
/// to another origin (http → https, a new host) is followed, not refused (before, a redirect to another origin failed
/// the feed on every refresh). RFC 9110 §15.4.2 ("clients with link-editing capabilities ought to automatically
/// re-link references to the effective request URI"), §15.4.9; issue 29, item 5.
@Suite("Feeds that moved: permanent redirects re-link, temporary ones do not")
struct MovedFeedTests {
  static func rss(_ title: String) -> Data {
    Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>\(title)</title><link>https://example.org/</link>
      <item><title>\(title) post</title><link>https://example.org/\(title)/post</link>
      <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>
      """.utf8)
  }

  /// `old` answers `status` to `target` (another server: another origin), which serves the feed.
  static func servers(status: Int) throws -> (old: LoopbackHTTPServer, new: LoopbackHTTPServer) {
    let new = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: rss("moved")))
    let old = try LoopbackHTTPServer(
      .respond(status: status, headers: ["Location": new.url("/feed.xml").absoluteString], body: Data()))
    return (old, new)
  }

  @Test("news fetch --all: a 301 to another origin is followed and rewrites the feed in news.json; a 302 does not")
  func configurationFile() async throws {
    for status in [301, 308, 302, 307] {
      let (old, new) = try Self.servers(status: status)
      defer {
        old.stop()
        new.stop()
      }
      let cli = CLIHarness()
      let config = cli.directory.path("news.json")
      // Hand-written: its layout and key order must stay as they are.
      let text = """
        {
          "sources": {
            "Moved":   { "feed": "\(old.url("/feed.xml").absoluteString)",   "folder": "Tech" },
            "Other": { "file": "/nonexistent/feed.xml" }
          },
          "timeoutSeconds": 5
        }

        """
      try text.write(toFile: config, atomically: true, encoding: .utf8)
      let fetched = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      #expect(fetched.out.contains("Moved: 1 new"), "\(status): \(fetched.out) \(fetched.err)")
      let after = try String(contentsOfFile: config, encoding: .utf8)
      if status == 301 || status == 308 {
        #expect(
          after
            == text.replacingOccurrences(
              of: old.url("/feed.xml").absoluteString, with: new.url("/feed.xml").absoluteString),
          "\(status): only the feed's URL changes:\n\(after)")
        #expect(
          fetched.err.contains("Moved: moved permanently to \(new.url("/feed.xml").absoluteString)"), "\(fetched.err)")
      } else {
        #expect(after == text, "\(status): a temporary redirect leaves the file as it was")
        #expect(!fetched.err.contains("moved permanently"), "\(fetched.err)")
      }
    }
  }

  @Test("the store's subscription list: a 301 moves the subscription, a 307 keeps it")
  func storedSubscription() async throws {
    for status in [301, 307] {
      let (old, new) = try Self.servers(status: status)
      defer {
        old.stop()
        new.stop()
      }
      let directory = TemporaryDirectory("moved-feed")
      let repository = NewsRepository(
        storage: try StorageContext(path: directory.path("news.sqlite")),
        network: URLSessionNewsNetwork(apiKey: nil, timeout: 5))
      try await repository.subscribe(NewsSource(name: "Moved", url: old.url("/feed.xml")))
      let report = try await repository.refreshSubscriptions()
      #expect(report.sources.first?.status == .new, "\(status): \(String(describing: report.sources.first?.failure))")
      let url = try await repository.subscription(named: "moved")?.url
      if status == 301 {
        #expect(report.sources.first?.movedPermanently == new.url("/feed.xml"))
        #expect(url == new.url("/feed.xml"))
      } else {
        #expect(report.sources.first?.movedPermanently == nil)
        #expect(url == old.url("/feed.xml"))
      }
    }
  }
}
