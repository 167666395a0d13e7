import Foundation
import OfflineNews
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// newsboat (2.21 here) in `urls-source "feedhq"` mode — the Google Reader API: `accounts/ClientLogin`,
/// `subscription/list`, each subscription read as Google Reader's Atom stream `/reader/atom/feed%2F…`, `token`,
/// `edit-tag`, `mark-all-as-read` — against `news serve` (front door, libmicrohttpd) over loopback.
@Suite(
  "newsboat through the Google Reader API", .serialized,
  .enabled(if: Newsboat.available, "SKIPPED: newsboat or sqlite3 is not installed (apt-get install newsboat sqlite3)"))
struct ReaderNewsboatTests {
  /// newsboat's URL of the feed of `source`: the Atom stream of `feed/` + its URL.
  static func feedURL(_ server: Newsboat.Server, _ source: String) -> String {
    let stream = "feed/" + ServedTestLibrary.feedURL(source).absoluteString
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return server.url + "/reader/atom/" + (stream.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
      + "?n=100"
  }

  static func checkReloaded(_ client: Newsboat.Client, _ served: ServedTestLibrary, _ server: Newsboat.Server)
    async throws
  {
    let feeds = try await client.query("SELECT rssurl, title FROM rss_feed ORDER BY title")
    #expect(feeds.map { $0[1] } == ["Alpha", "Beta", "Gamma"])
    #expect(feeds.map { $0[0] } == ["alpha", "beta", "gamma"].map { Self.feedURL(server, $0) })
    let items = try await client.items()
    let stored = try await served.repository.read()
    #expect(items.count == stored.count)
    for article in stored {
      let item = try #require(items[article.title], "\(article.title) is not in newsboat's cache")
      #expect(item.link == article.url.absoluteString)
      #expect(item.date == Int(article.publishedAt.timeIntervalSince1970))
      #expect(item.unread == !article.isRead, "\(article.title)")
      #expect(item.guid == ServedIdentifiers.readerItemID(forKey: article.url.absoluteString))
      #expect(item.feed == Self.feedURL(server, String(article.title.split(separator: " ")[0]).lowercased()))
    }
  }

  @Test("newsboat -x reload signs in, fetches every subscription with its titles, links, dates, unread state")
  func reload() async throws {
    let served = try await ServedTestLibrary.synthetic()
    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Alpha", 3).absoluteString)
    let server = try Newsboat.Server(served.library)
    let client = try Newsboat.Client("feedhq", server: server)
    let outcome = try await client.reload()
    #expect(outcome.status == 0, "newsboat: \(outcome.out) \(outcome.err)")
    try await Self.checkReloaded(client, served, server)
    #expect(try await client.items()["Alpha 3"]?.unread == false)

    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Gamma", 2).absoluteString)
    try await served.repository.markRead(false, url: ServedTestLibrary.articleURL("Alpha", 3).absoluteString)
    #expect(try await client.reload().status == 0)
    try await Self.checkReloaded(client, served, server)
    #expect(try await client.items()["Gamma 2"]?.unread == false)
    #expect(try await client.items()["Alpha 3"]?.unread == true)
    await server.stop()
  }

  @Test(
    "an article marked read in newsboat's interface (N) is read in the repository; a feed marked read (A) too",
    .enabled(if: Newsboat.interactive, "SKIPPED: tmux is not installed (apt-get install tmux)"))
  func markedReadInNewsboat() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let server = try Newsboat.Server(served.library)
    let client = try Newsboat.Client("feedhq", server: server)
    #expect(try await client.reload().status == 0)
    let pane = try await Newsboat.Pane(client)
    try await pane.waitFor("Alpha")
    try await pane.send("Enter")
    try await pane.waitFor("Alpha 4")
    try await pane.send("N")
    let alpha4 = ServedTestLibrary.articleURL("Alpha", 4).absoluteString
    // newsboat sends the action token as `token` answered it, its final newline included (`T=…%0A`): the front
    // door trims it (it answered 401 before, and nothing reached the API).
    let toggled = try await Newsboat.eventually(seconds: 5) {
      try await served.repository.article(url: alpha4)?.isRead == true
    }
    #expect(toggled, "newsboat's toggle (N) did not reach the repository:\n\(server.log)")
    #expect(try await served.article(titled: "Alpha 3").isRead == false)
    try await pane.send("q")
    try await pane.waitFor("Beta")
    try await pane.send("Down")
    try await pane.send("A")
    let marked = try await Newsboat.eventually(seconds: 5) {
      try await served.repository.read(filter: ArticleFilter(source: "Beta")).allSatisfy(\.isRead)
    }
    #expect(marked, "newsboat's mark-feed-read (A) did not reach the repository:\n\(server.log)")
    #expect(try await served.article(titled: "Gamma 1").isRead == false)
    try await pane.send("q")
    await pane.kill()
    await server.stop()
  }
}
