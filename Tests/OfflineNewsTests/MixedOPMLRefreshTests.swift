import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

/// Issue 29's "Done when": a new user with a mixed OPML list of real feeds (several languages, formats and
/// encodings) sees every item once, dated as published, after the feeds' posts are edited, moved and republished.
///
/// The real feeds of `../shared/fixtures/real/feeds/` are served on a loopback server (Slovak RSS in windows-1250,
/// an English RSS in UTF-16, an RDF feed whose charset only the HTTP header gives, German JSON Feed 1.1, Atom,
/// podcasts), listed in an OPML file that is imported (`NewsRepository.importOPML`) and refreshed
/// (`NewsRepository.refresh`), every article then marked read. Then the server gives edited versions, as publishers
/// do — a title and a text edited (feedbin/support#198), a post's slug fixed keeping its guid (NetNewsWire#3286,
/// lion-reader#1535) in RSS and in JSON Feed, an episode republished with a new `pubDate` (newsboat#1729) — and
/// everything is refreshed again.
@Suite("a mixed OPML list of real feeds, edited, moved and republished")
struct MixedOPMLRefreshTests {
  /// A served feed: its path, its bytes as served, its `Content-Type`.
  struct Served {
    var path: String
    var body: Data
    var contentType: String
  }

  /// The feeds as the publishers first serve them, and as they serve them after the edits.
  static func feeds(edited: Bool) throws -> [Served] {
    func text(_ name: String) throws -> String {
      try String(contentsOf: try Fixtures.sharedReal("feeds/\(name)"), encoding: .utf8)
    }
    /// `text` with `old` (which it holds once) replaced by `new`.
    func replacing(_ text: String, _ old: String, _ new: String) throws -> String {
      try #require(text.components(separatedBy: old).count == 2, "\(old) is in the feed once")
      return text.replacingOccurrences(of: old, with: new)
    }
    var served: [Served] = []
    func xml(_ name: String, _ body: String, charset: String? = nil) {
      served.append(
        Served(
          path: "/\(name)", body: Data(body.utf8),
          contentType: "application/xml" + (charset.map { "; charset=\($0)" } ?? "")))
    }
    for name in ["allthis.atom", "KatieFloyd.rss", "manton.rss", "scriptingNews.rss", "DaringFireball.atom"] {
      xml(name, try text(name))
    }
    // RDF with no XML declaration: its encoding is the HTTP charset's.
    xml("bio.rdf", try text("bio.rdf"), charset: "utf-8")

    // Slovak, in windows-1250 as its declaration says; edited: a sentence of the first item's text.
    var slovak = try replacing(
      try text("aktuality.rss"), #"<?xml version="1.0" encoding="UTF-8" ?>"#,
      #"<?xml version="1.0" encoding="windows-1250" ?>"#)
    if edited {
      slovak = try replacing(slovak, "Očakávajú totiž, že plán", "Analytici očakávajú, že plán")
    }
    served.append(
      Served(
        path: "/aktuality.rss", body: try #require(slovak.data(using: .windowsCP1250)),
        contentType: "application/rss+xml"))

    // English in UTF-16 with its byte order mark.
    let marley = try replacing(
      try text("EMarley.rss"), #"<?xml version="1.0" encoding="UTF-8"?>"#, #"<?xml version="1.0" encoding="UTF-16"?>"#)
    served.append(
      Served(path: "/EMarley.rss", body: try #require(marley.data(using: .utf16)), contentType: "text/xml"))

    // WordPress: the first post's slug fixed (its guid `?p=6602` kept) and its title edited.
    var natasha = try text("natasha.xml")
    if edited {
      natasha = try replacing(
        natasha, "<link>https://www.natashatherobot.com/url-apple-wallet-passkit-pass/</link>",
        "<link>https://www.natashatherobot.com/get-url-apple-wallet-passkit-pass/</link>")
      natasha = try replacing(
        natasha, "<title>The Easiest Way to Get a URL for your Apple Wallet Passkit Pass</title>",
        "<title>The Easiest Way to Get a URL for Your Apple Wallet Pass</title>")
    }
    xml("natasha.xml", natasha)

    // Blogger Atom: a title edited.
    var blogger = try text("4fsodonline.atom")
    if edited {
      blogger = try replacing(
        blogger, "<title type='text'>4FSOD Documentary: Bloopers and Stuff</title>",
        "<title type='text'>4FSOD Documentary: Bloopers and More</title>")
    }
    xml("4fsodonline.atom", blogger)

    // A podcast: the first episode republished with a new date.
    var omni = try text("theomnishow.rss")
    if edited {
      omni = try replacing(
        omni, "<pubDate>Wed, 06 Dec 2017 14:00:00 +0000</pubDate>", "<pubDate>Thu, 07 Dec 2017 09:30:00 +0000</pubDate>"
      )
    }
    xml("theomnishow.rss", omni)

    // JSON Feed 1.0 as it is; German JSON Feed 1.1: the first post's URL changed (its id kept), its text edited.
    served.append(
      Served(path: "/inessential.json", body: Data(try text("inessential.json").utf8), contentType: "application/json"))
    var german = try text("3960.json")
    if edited {
      german = try replacing(
        german, #""url": "https://journal.3960.org/posts/2020-02-21-lecker-lecker/""#,
        #""url": "https://journal.3960.org/posts/2020-02-21-lecker-lecker-rezept/""#)
      german = try replacing(german, #""title": "Lecker, lecker""#, #""title": "Lecker, lecker!""#)
    }
    served.append(Served(path: "/3960.json", body: Data(german.utf8), contentType: "application/feed+json"))
    return served
  }

  /// The OPML list of the served feeds, in two folders, as a reader exports it.
  static func opml(_ feeds: [Served], server: LoopbackHTTPServer) -> Data {
    let outlines = feeds.enumerated().map { index, feed in
      #"<outline type="rss" text="\#(feed.path.dropFirst())" xmlUrl="\#(server.url(feed.path))"/>"#
        + (index == feeds.count / 2 ? #"</outline><outline text="More">"# : "")
    }
    return Data(
      """
      <?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>Mixed</title></head><body>
      <outline text="News">\(outlines.joined(separator: "\n"))</outline></body></opml>
      """.utf8)
  }

  /// Every item's date as the feed gives it (published, else updated), in ms, of every served feed.
  static func itemDates(_ feeds: [Served], server: LoopbackHTTPServer) throws -> (dated: [Int64], undated: Int) {
    var dated: [Int64] = []
    var undated = 0
    for feed in feeds {
      let charset = feed.contentType.components(separatedBy: "charset=").dropFirst().first
      let parsed = try FeedParser.parse(feed.body, feedURL: server.url(feed.path), charset: charset)
      for item in parsed.items {
        if let date = item.published ?? item.updated {
          dated.append(Timestamp(date).millisecondsSince1970)
        } else {
          undated += 1
        }
      }
    }
    return (dated.sorted(), undated)
  }

  @Test(
    "every item once, dated as published, read marks kept across edits, a moved slug and a republished date",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real/feeds"))
  func mixedList() async throws {
    let directory = TemporaryDirectory("mixed-opml")
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data("no such feed".utf8)))
    defer { server.stop() }
    func serve(_ feeds: [Served]) {
      let routes = Dictionary(uniqueKeysWithValues: feeds.map { ($0.path, $0) })
      server.router = { request in
        routes[request.target].map { .respond(status: 200, headers: ["Content-Type": $0.contentType], body: $0.body) }
      }
    }
    let original = try Self.feeds(edited: false)
    serve(original)
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let repository = NewsRepository(
      storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 10, decoder: ArticleDecoder()))

    let sources = try await repository.importOPML(
      Self.opml(original, server: server), url: directory.url.appendingPathComponent("mixed.opml"))
    #expect(sources.count == original.count)
    let first = await repository.refresh(sources)
    #expect(first.sources.allSatisfy { $0.status == .new }, "\(first.sources.map { "\($0.source): \($0.status)" })")
    let firstDates = try Self.itemDates(original, server: server)
    let total = firstDates.dated.count + firstDates.undated
    #expect(try await storage.articleCount() == total)
    // Every item dated as its feed dates it: the stored dates are the items' dates, one for one.
    let stored = try await storage.articles(limit: nil)
    #expect(
      stored.filter { !isAround(now: $0.publishedAt) }.map { Timestamp($0.publishedAt).millisecondsSince1970 }
        .sorted() == firstDates.dated)
    #expect(stored.filter { isAround(now: $0.publishedAt) }.count == firstDates.undated)
    // Non-ASCII text arrived whole in every encoding.
    #expect(stored.contains { $0.summary?.contains("Očakávajú totiž") == true })
    #expect(stored.contains { $0.title == "Lecker, lecker" })
    #expect(try await repository.markRead(inFolder: []) == total)

    // The publishers edit, move and republish; everything is refreshed again.
    let edited = try Self.feeds(edited: true)
    serve(edited)
    let second = await repository.refresh(try await repository.subscriptions())
    #expect(second.sources.allSatisfy { $0.failure == nil && $0.inserted == 0 }, "\(second.sources)")
    let after = try await storage.articles(limit: nil)
    #expect(after.count == total, "every item once")
    #expect(after.allSatisfy { $0.isRead }, "read marks kept")
    let editedDates = try Self.itemDates(edited, server: server)
    #expect(
      after.filter { !isAround(now: $0.publishedAt) }.map { Timestamp($0.publishedAt).millisecondsSince1970 }
        .sorted() == editedDates.dated)
    // The moved posts are keyed by their new links; the old ones are gone.
    for (old, new) in [
      (
        "https://www.natashatherobot.com/url-apple-wallet-passkit-pass/",
        "https://www.natashatherobot.com/get-url-apple-wallet-passkit-pass/"
      ),
      (
        "https://journal.3960.org/posts/2020-02-21-lecker-lecker/",
        "https://journal.3960.org/posts/2020-02-21-lecker-lecker-rezept/"
      ),
    ] {
      #expect(after.contains { $0.url.absoluteString == new }, "\(new)")
      #expect(!after.contains { $0.url.absoluteString == old }, "\(old)")
    }
    #expect(after.contains { $0.title == "The Easiest Way to Get a URL for Your Apple Wallet Pass" })
    #expect(after.contains { $0.title == "4FSOD Documentary: Bloopers and More" })
    #expect(after.contains { $0.summary?.contains("Analytici očakávajú") == true })
    let episode = try #require(
      after.first {
        $0.link?.absoluteString == "https://theomnishow.omnigroup.com/episode/andrea-mcvittie-user-experience-designer/"
      })
    #expect(Timestamp(episode.publishedAt) == Timestamp(feedDate: "Thu, 07 Dec 2017 09:30:00 +0000"))
  }
}

/// Whether `date` is within a minute of now: a date the store gave an undated item (the time it was first seen).
private func isAround(now date: Date) -> Bool { abs(date.timeIntervalSinceNow) < 60 }
