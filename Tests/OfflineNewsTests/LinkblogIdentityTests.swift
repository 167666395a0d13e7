import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNews

/// The linkblog rule (issue 30, finding 6): one post of a blog read as RSS, Atom and JSON Feed is one article, keyed
/// by its permalink, linking to the article it is about; a store that keyed it by the linked page keeps that row
/// (re-keyed to the permalink).
@Suite("linkblog items: one article in every format")
struct LinkblogIdentityTests {
  static let permalink = "https://blog.example.org/linked/2026/12/01/storm"
  static let linked = "https://news.example.com/2026/12/01/storm-isolde.html"

  /// The same linked post as RSS 2.0 (link to the article, permalink guid: Kottke, Daring Fireball's RSS), Atom
  /// (alternate to the article, `related` to the post: Daring Fireball's Atom) and JSON Feed (`url` and
  /// `external_url`: pxlnv.com, reported in feedbin#647 and NetNewsWire#2569).
  static let rss = Data(
    """
    <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>
    <item><title>Storm</title><link>\(linked)</link><guid isPermaLink="true">\(permalink)</guid>
    <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>
    """.utf8)
  static let atom = Data(
    """
    <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:blog</id>
    <link rel="alternate" type="text/html" href="https://blog.example.org/"/><updated>2026-12-01T10:00:00Z</updated>
    <entry><title>Storm</title><link rel="alternate" type="text/html" href="\(linked)"/>
    <link rel="related" type="text/html" href="\(permalink)"/><id>tag:blog.example.org,2026:/linked//1</id>
    <published>2026-12-01T10:00:00Z</published><updated>2026-12-01T10:00:00Z</updated></entry></feed>
    """.utf8)
  static func jsonFeed() throws -> Data {
    try JSONSerialization.data(withJSONObject: [
      "version": "https://jsonfeed.org/version/1.1", "title": "Blog", "home_page_url": "https://blog.example.org/",
      "items": [
        [
          "id": permalink, "url": permalink, "external_url": linked, "title": "Storm",
          "date_published": "2026-12-01T10:00:00Z", "content_text": "Gusts.",
        ]
      ],
    ])
  }

  static func decode(_ data: Data) throws -> [Article] {
    let origin = try #require(URL(string: "https://blog.example.org/feed"))
    return try ArticleDecoder().decodePage(data, origin: origin, contentType: nil, httpStatus: 200, redacting: [])
      .articles
  }

  @Test("RSS, Atom and JSON Feed give one key (the permalink) and one link (the linked article)")
  func oneKeyInEveryFormat() throws {
    let articles = try [Self.rss, Self.atom, Self.jsonFeed()].map { try Self.decode($0) }
    #expect(articles.map(\.count) == [1, 1, 1])
    #expect(Set(articles.compactMap(\.first?.url.absoluteString)) == [Self.permalink])
    #expect(Set(articles.compactMap(\.first?.link?.absoluteString)) == [Self.linked])
    #expect(Set(articles.compactMap(\.first?.formerKey?.absoluteString)) == [Self.linked])
  }

  @Test("an item whose guid and link are on the blog's own site, or a guid that is no permalink, keeps its link key")
  func ordinaryItemsKeepTheirKey() throws {
    let own = Data(
      """
      <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>
      <item><title>A</title><link>https://blog.example.org/a</link><guid>https://blog.example.org/?p=1</guid></item>
      <item><title>B</title><link>\(Self.linked)</link><guid isPermaLink="false">b-1</guid></item>
      <item><title>C</title><link>\(Self.linked)?c</link><guid>https://elsewhere.example.net/c</guid></item>
      </channel></rss>
      """.utf8)
    let articles = try Self.decode(own)
    #expect(articles.map(\.url.absoluteString) == ["https://blog.example.org/a", Self.linked, Self.linked + "?c"])
    #expect(articles.allSatisfy { $0.formerKey == nil })
  }

  @Test(
    "a store that keyed the post by the linked page keeps that one row, read and bookmarked, re-keyed to the permalink")
  func existingStoresKeepTheirRow() async throws {
    let directory = TemporaryDirectory()
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    // As the rule before this one saved it: keyed by the linked article.
    var old = try #require(try Self.decode(Self.rss).first)
    old.url = try #require(URL(string: Self.linked))
    old.formerKey = nil
    try await storage.saveArticles([old], forQuery: "feed", fetchedAt: .now())
    _ = try await storage.setRead(true, url: Self.linked)
    _ = try await storage.setBookmarked(true, url: Self.linked)
    // The same post from every format, with today's rule.
    for data in try [Self.rss, Self.atom, Self.jsonFeed()] {
      try await storage.saveArticles(try Self.decode(data), forQuery: "feed", fetchedAt: .now())
    }
    #expect(try await storage.articleCount() == 1)
    // The one row, re-keyed to the permalink in place (ArticleWriter.Session.rekeyed), its state kept.
    let kept = try #require(try await storage.articles(limit: 10).first)
    #expect(kept.url.absoluteString == Self.permalink)
    #expect(kept.link?.absoluteString == Self.linked)
    #expect(kept.isRead && kept.isBookmarked)

    // A fresh store keys it by the permalink, once.
    let fresh = try StorageContext(path: directory.path("fresh.sqlite"))
    for data in try [Self.jsonFeed(), Self.rss, Self.atom] {
      try await fresh.saveArticles(try Self.decode(data), forQuery: "feed", fetchedAt: .now())
    }
    #expect(try await fresh.articleCount() == 1)
    #expect(try await fresh.article(url: Self.permalink) != nil)
  }
}
