import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

@Suite("Feeds: OPML subscription lists")
struct OPMLTests {
  private static let fileURL = URL(fileURLWithPath: "/tmp/subs.opml")

  @Test("feed: URIs name their http(s) feed; FreshRSS's scraped sources and empty xmlUrls are reported, not added")
  func otherReadersOutlines() throws {
    let document = try OPML.read(
      Data(
        """
        <opml version="2.0"><body>
          <outline text="Old Safari" xmlUrl="feed://old.example/rss.xml"/>
          <outline text="Wrapped" xmlUrl="FEED:https://wrapped.example/atom"/>
          <outline text="Scraped" type="HTML+XPath" xmlUrl="https://page.example/news"/>
          <outline text="Nothing" xmlUrl=""/>
        </body></opml>
        """.utf8), url: Self.fileURL)
    #expect(
      document.subscriptions.map(\.feedURL.absoluteString) == [
        "http://old.example/rss.xml", "https://wrapped.example/atom",
      ])
    #expect(document.issues.map(\.element) == ["outline@type", "outline@xmlUrl"], "\(document.issues)")
    #expect(document.issues.allSatisfy { $0.line != nil })
  }

  @Test("an xmlUrl on a Unicode host (IDN) names its IDNA host, which DNS resolves, not a percent-encoded one")
  func internationalizedHost() throws {
    let document = try OPML.read(
      Data(
        """
        <opml version="2.0"><body>
          <outline text="Bücher" xmlUrl="http://bücher.example/feed" htmlUrl="http://bücher.example/"/>
          <outline text="RF" xmlUrl="https://пример.рф/rss?тема=новости"/>
        </body></opml>
        """.utf8), url: Self.fileURL)
    #expect(
      document.subscriptions.map(\.feedURL.absoluteString) == [
        "http://xn--bcher-kva.example/feed",
        "https://xn--e1afmkfd.xn--p1ai/rss?%D1%82%D0%B5%D0%BC%D0%B0=%D0%BD%D0%BE%D0%B2%D0%BE%D1%81%D1%82%D0%B8",
      ])
    #expect(document.subscriptions.first?.homePageURL?.absoluteString == "http://xn--bcher-kva.example/")
    #expect(document.issues.isEmpty, "\(document.issues)")
  }

  @Test("nested folders, title or text, xmlUrl and htmlUrl in any letter case; bad outlines reported")
  func nested() throws {
    let document = try OPML.read(
      Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0"><head><title>My &amp; feeds</title></head><body>
          <outline type="rss" text="Top" xmlUrl="https://top.example/feed" htmlUrl="https://top.example/"/>
          <outline text="Tech">
            <outline text="Swift" title="Swift">
              <outline text="Swift Blog" type="rss" xmlUrl="https://swift.org/atom.xml"/>
            </outline>
            <outline title="Titled" text="Texted" xmlurl="https://titled.example/rss" htmlurl=""/>
            <outline text="Not a feed" xmlUrl="mailto:someone@example.org"/>
          </outline>
          <outline text="Empty folder"/>
          <outline xmlUrl="https://untitled.example/feed"/>
        </body></opml>
        """.utf8), url: Self.fileURL)
    #expect(document.title == "My & feeds")
    #expect(
      document.subscriptions == [
        OPMLSubscription(
          title: "Top", feedURL: try #require(URL(string: "https://top.example/feed")),
          homePageURL: URL(string: "https://top.example/")),
        OPMLSubscription(
          title: "Swift Blog", feedURL: try #require(URL(string: "https://swift.org/atom.xml")),
          folder: ["Tech", "Swift"]),
        OPMLSubscription(
          title: "Titled", feedURL: try #require(URL(string: "https://titled.example/rss")), folder: ["Tech"]),
        OPMLSubscription(
          title: "https://untitled.example/feed", feedURL: try #require(URL(string: "https://untitled.example/feed"))),
      ])
    #expect(document.issues.contains { $0.kind == .unreadableURL && $0.text == "mailto:someone@example.org" })
  }

  /// An OPML body whose feed `deep` sits inside `depth` folders, and a feed `after` after them.
  static func nested(_ depth: Int, entity: Bool = false) -> Data {
    let doctype = entity ? "<!DOCTYPE opml [<!ENTITY site \"example\">]>" : ""
    return Data(
      ("<?xml version=\"1.0\"?>\(doctype)<opml version=\"2.0\"><body>"
        + (0..<depth).map { "<outline text=\"f\($0)\">" }.joined()
        + "<outline text=\"deep\" type=\"rss\" xmlUrl=\"https://deep.example/feed\"/>"
        + String(repeating: "</outline>", count: depth)
        + "<outline text=\"after\" type=\"rss\" xmlUrl=\"https://after.example/feed\"/></body></opml>").utf8)
  }

  @Test("a feed 300 folders deep is read with the feed after it; deeper than libxml2 reads is refused, not cut")
  func deepNesting() throws {
    let deep = try OPML.read(Self.nested(300), url: Self.fileURL)
    #expect(deep.subscriptions.map(\.title) == ["deep", "after"])
    #expect(deep.subscriptions.first?.folder.count == 300)
    // With an entity declared, libxml2 keeps its limit of 256 levels and halts there: refused, not read in part.
    let refused = Result { try OPML.read(Self.nested(300, entity: true), url: Self.fileURL) }
    guard case .failure(let error) = refused, case .truncated(_, _, _, let message) = error as? OPMLError else {
      Issue.record("a document libxml2 stopped reading was read in part")
      return
    }
    #expect(message.hasPrefix("libxml2 stopped reading here: ") && message.contains("depth"), "\(message)")
  }

  @Test("what is not OPML is refused")
  func refused() {
    #expect(throws: OPMLError.self) { try OPML.read(Data("<rss version=\"2.0\"/>".utf8), url: Self.fileURL) }
    #expect(throws: OPMLError.self) { try OPML.read(Data("not xml".utf8), url: Self.fileURL) }
  }

  @Test("written OPML 2.0 reads back the same: titles, feeds, home pages, folders, escaping")
  func roundTrip() throws {
    let subscriptions = [
      OPMLSubscription(
        title: "A & \"B\" <C>", feedURL: try #require(URL(string: "https://a.example/feed?x=1&y=2")),
        homePageURL: URL(string: "https://a.example/")),
      OPMLSubscription(
        title: "Nested", feedURL: try #require(URL(string: "https://n.example/rss")), folder: ["Tech", "Swift"]),
      OPMLSubscription(title: "Sibling", feedURL: try #require(URL(string: "https://s.example/rss")), folder: ["Tech"]),
      OPMLSubscription(
        title: "Später", feedURL: try #require(URL(string: "https://z.example/rss")), folder: ["Tech", "Swift"]),
    ]
    let data = OPML.write(subscriptions, title: "news")
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
    #expect(text.contains("<opml version=\"2.0\">"))
    let read = try OPML.read(data, url: Self.fileURL)
    #expect(read.title == "news")
    #expect(read.issues.isEmpty)
    // Folders group their feeds: the order is that of the folders' first appearance.
    #expect(Set(read.subscriptions) == Set(subscriptions))
    #expect(read.subscriptions.map(\.title) == ["A & \"B\" <C>", "Nested", "Später", "Sibling"])
  }

  @Test("Subs.opml: every outline with an xmlUrl, with its folder", .enabled(if: Fixtures.hasSharedReal))
  func subs() throws {
    let url = RealFeeds.url("Subs.opml")
    let document = try OPML.read(Data(contentsOf: url), url: url)
    // The independent reading: every outline element with an xmlUrl attribute, and its ancestors' texts.
    let root = try XMLOracle.read(url)
    var expected: [(String, [String])] = []
    func walk(_ element: OracleElement, _ folder: [String]) {
      for outline in element.all("outline") {
        if let feed = outline.attributes["xmlUrl"] {
          expected.append((feed, folder))
          walk(outline, folder)
        } else {
          walk(outline, folder + [outline.attributes["title"] ?? outline.attributes["text"] ?? ""])
        }
      }
    }
    walk(try #require(root.first("body")), [])
    #expect(document.subscriptions.count == expected.count)
    #expect(document.subscriptions.map(\.feedURL.absoluteString) == expected.map(\.0))
    #expect(document.subscriptions.map(\.folder) == expected.map(\.1))
    #expect(Set(document.subscriptions.flatMap(\.folder)) == ["Programming", "Macintosh", "Weblogs", "Writers"])
    let again = try OPML.read(OPML.write(document.subscriptions, title: document.title), url: url)
    #expect(Set(again.subscriptions) == Set(document.subscriptions))
  }
}

@Suite("Feeds: discovery of the feeds a page announces")
struct FeedDiscoveryTests {
  @Test("rel alternate with a feed type, hrefs resolved against <base> and the page, in order, with titles")
  func own() throws {
    let page = FeedDiscovery.read(
      Data(
        """
        <!doctype html><html><head><title> Example
          Site </title><base href="/sub/">
        <link rel="stylesheet" type="text/css" href="style.css">
        <link rel="alternate" type="application/rss+xml" title="Posts" href="feed.rss">
        <link rel="Alternate Home" type="application/atom+xml; charset=utf-8" href="https://other.example/atom">
        <link rel="alternate" type="application/feed+json" title="JSON" href="//cdn.example/feed.json">
        <link rel="alternate" type="application/json+oembed" href="/oembed">
        <link rel="alternate" hreflang="de" href="/de/">
        <link rel="alternate" type="application/rss+xml" title="Again" href="/sub/feed.rss">
        <link rel=alternate type=application/json href=/unquoted.json>
        </head><body><p>x</body></html>
        """.utf8), pageURL: try #require(URL(string: "https://example.org/page/index.html")))
    #expect(page.title == "Example Site")
    #expect(
      page.feeds == [
        DiscoveredFeed(
          url: try #require(URL(string: "https://example.org/sub/feed.rss")), title: "Posts",
          type: "application/rss+xml"),
        DiscoveredFeed(url: try #require(URL(string: "https://other.example/atom")), type: "application/atom+xml"),
        DiscoveredFeed(
          url: try #require(URL(string: "https://cdn.example/feed.json")), title: "JSON", type: "application/feed+json"),
        DiscoveredFeed(url: try #require(URL(string: "https://example.org/unquoted.json")), type: "application/json"),
      ])
  }

  @Test("a page that announces nothing, and bytes that are not HTML, give no feeds")
  func nothing() throws {
    let url = try #require(URL(string: "https://example.org/"))
    #expect(FeedDiscovery.read(Data("<html><head></head></html>".utf8), pageURL: url).feeds.isEmpty)
    #expect(FeedDiscovery.read(Data(), pageURL: url).feeds.isEmpty)
    #expect(FeedDiscovery.read(Data("{\"json\": true}".utf8), pageURL: url).feeds.isEmpty)
  }

  @Test(
    "DaringFireball.html and sixcolors.html, against the link elements XMLParser-free string scanning finds",
    .enabled(if: Fixtures.hasSharedReal),
    arguments: [
      (
        "DaringFireball.html", "https://daringfireball.net/", "https://daringfireball.net/feeds/main",
        "application/atom+xml"
      ),
      ("sixcolors.html", "https://sixcolors.com/", "http://feedpress.me/sixcolors", "application/rss+xml"),
    ])
  func real(name: String, page: String, feed: String, type: String) throws {
    let data = try Data(contentsOf: RealFeeds.url(name))
    let found = FeedDiscovery.read(data, pageURL: try #require(URL(string: page)))
    // The independent count: `<link …alternate…>` tags with a feed type, found by splitting the text at "<link".
    let text = String(decoding: data, as: UTF8.self)
    let announced = text.components(separatedBy: "<link").dropFirst().filter { tag in
      let head = tag.prefix { $0 != ">" }.lowercased()
      return head.contains("alternate") && (head.contains("rss+xml") || head.contains("atom+xml"))
    }
    #expect(found.feeds.count == announced.count)
    #expect(found.feeds.first?.url.absoluteString == feed)
    #expect(found.feeds.first?.type == type)
    #expect(found.title?.isEmpty == false)
  }
}
