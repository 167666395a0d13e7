import Foundation
import OfflineNews
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// newsboat (2.21 here) in `urls-source "miniflux"` mode against `news serve` (front door, libmicrohttpd) over
/// loopback, HTTP Basic authentication. newsboat keeps Miniflux ids in C `int`s: the feed and entry ids it stores
/// and sends back are our 52-bit ids truncated to 32 bits, which the server understands.
@Suite(
  "newsboat through the Miniflux API", .serialized,
  .enabled(if: Newsboat.available, "SKIPPED: newsboat or sqlite3 is not installed (apt-get install newsboat sqlite3)"))
struct MinifluxNewsboatTests {
  /// newsboat's feed id of source `name`: our id as its `int` holds it.
  static func feedID(_ name: String) -> String {
    String(Int32(truncatingIfNeeded: ServedIdentifiers.feedID(forSourceNamed: name)))
  }

  static func checkReloaded(_ client: Newsboat.Client, _ served: ServedTestLibrary) async throws {
    let feeds = try await client.query("SELECT rssurl FROM rss_feed ORDER BY rssurl").map { $0[0] }
    #expect(feeds == ["Alpha", "Beta", "Gamma"].map(Self.feedID).sorted())
    let items = try await client.items()
    let stored = try await served.repository.read()
    #expect(items.count == stored.count)
    for article in stored {
      let item = try #require(items[article.title], "\(article.title) is not in newsboat's cache")
      #expect(item.link == article.url.absoluteString)
      #expect(item.date == Int(article.publishedAt.timeIntervalSince1970))
      #expect(item.unread == !article.isRead, "\(article.title)")
      #expect(
        item.guid == String(Int32(truncatingIfNeeded: ServedIdentifiers.entryID(forKey: article.url.absoluteString))))
      #expect(item.feed == Self.feedID(String(article.title.split(separator: " ")[0])))
    }
  }

  @Test("newsboat with a trailing slash on the server's address (//v1/feeds, //accounts/ClientLogin) reads it all")
  func trailingSlash() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let server = try Newsboat.Server(served.library)
    for mode in ["miniflux", "feedhq"] {
      let client = try Newsboat.Client(mode, server: server, trailingSlash: true)
      let outcome = try await client.reload()
      #expect(outcome.status == 0, "\(mode): \(outcome.out) \(outcome.err)")
      // Every article of the three feeds: a fresh user's newsboat got 404 (Miniflux) and 403 (Reader) instead.
      #expect(try await client.items().count == 9, "\(mode): \(server.log)")
    }
    await server.stop()
  }

  @Test("newsboat -x reload fetches every feed's entries with their titles, links, dates and unread state")
  func reload() async throws {
    let served = try await ServedTestLibrary.synthetic()
    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Beta", 2).absoluteString)
    let server = try Newsboat.Server(served.library)
    let client = try Newsboat.Client("miniflux", server: server)
    let outcome = try await client.reload()
    #expect(outcome.status == 0, "newsboat: \(outcome.out) \(outcome.err)")
    try await Self.checkReloaded(client, served)
    #expect(try await client.items()["Beta 2"]?.unread == false)

    // Marked read (and unread) in the repository: so in newsboat after its next reload.
    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Gamma", 1).absoluteString)
    try await served.repository.markRead(false, url: ServedTestLibrary.articleURL("Beta", 2).absoluteString)
    #expect(try await client.reload().status == 0)
    try await Self.checkReloaded(client, served)
    #expect(try await client.items()["Gamma 1"]?.unread == false)
    #expect(try await client.items()["Beta 2"]?.unread == true)
    await server.stop()
  }

  @Test(
    "an article marked read in newsboat's interface (N) is read in the repository; a feed marked read (A) too",
    .enabled(if: Newsboat.interactive, "SKIPPED: tmux is not installed (apt-get install tmux)"))
  func markedReadInNewsboat() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let server = try Newsboat.Server(served.library)
    let client = try Newsboat.Client("miniflux", server: server)
    #expect(try await client.reload().status == 0)
    let pane = try await Newsboat.Pane(client)
    try await pane.waitFor("Alpha")
    // The first feed is Alpha's; its first article the newest, Alpha 4.
    try await pane.send("Enter")
    try await pane.waitFor("Alpha 4")
    try await pane.send("N")
    let alpha4 = ServedTestLibrary.articleURL("Alpha", 4).absoluteString
    #expect(
      try await Newsboat.eventually { try await served.repository.article(url: alpha4)?.isRead == true },
      "newsboat's toggle (N) did not reach the repository")
    #expect(try await served.article(titled: "Alpha 3").isRead == false)
    // Back to the feeds; the second (Beta) marked read as a whole.
    try await pane.send("q")
    try await pane.waitFor("Beta")
    try await pane.send("Down")
    try await pane.send("A")
    #expect(
      try await Newsboat.eventually {
        try await served.repository.read(filter: ArticleFilter(source: "Beta")).allSatisfy(\.isRead)
      }, "newsboat's mark-feed-read (A) did not reach the repository")
    #expect(try await served.article(titled: "Gamma 1").isRead == false)
    try await pane.send("q")
    await pane.kill()
    await server.stop()
  }
}
