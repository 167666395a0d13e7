import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNews

/// Identity that survives edits (issue 29, item 1): an item's `guid` / Atom `id` / JSON Feed `id`, unique within its
/// document, finds the one article again after its link was edited, and the row is re-keyed in place; text edits and
/// a new date never make a second article; an identifier repeated across items identifies none; a podcast episode
/// without guid or link is its enclosure.
///
/// From the public reports of feed readers:
/// - a slug fixed after publication shows up twice and unread: NetNewsWire#3286 (netlify.com's
///   `build-a-your-own-online-shop` fixed to `build-your-own-online-shop`), and lion-reader#1535 (WordPress:
///   `<guid isPermaLink="false">…?p=25585</guid>` stable beside the permalink);
/// - a title edited after publication makes a duplicate although the guid did not change: feedbin/support#198;
/// - an item whose guid repeats within the feed (the Netflix feed): ViennaRSS/vienna-rss#355;
/// - an item republished with a new date comes back unread: newsboat#1729;
/// - a podcast episode without guid: the Podcast Index namespace's recommendation (Podcastindex-org/podcast-namespace
///   #186, "other-recommendations.md#episode-guid": fall back to the enclosure URL), Apple's podcast RSS rules.
@Suite("item identity: a guid survives edits of the link and the text")
struct ItemIdentityTests {
  static func decode(_ text: String) throws -> [Article] {
    let origin = try #require(URL(string: "https://blog.example.org/feed"))
    return try ArticleDecoder().decodePage(
      Data(text.utf8), origin: origin, contentType: nil, httpStatus: 200, redacting: []
    ).articles
  }

  /// An RSS 2.0 feed of WordPress's shape: a `?p=N` guid that is no permalink beside the post's link.
  static func rss(_ items: [(guid: String?, link: String?, title: String, date: String)]) -> String {
    let body = items.map { item in
      "<item><title>\(item.title)</title>"
        + (item.link.map { "<link>\($0)</link>" } ?? "")
        + (item.guid.map { "<guid isPermaLink=\"false\">\($0)</guid>" } ?? "")
        + "<pubDate>\(item.date)</pubDate><description>Text of \(item.title).</description></item>"
    }.joined()
    return """
      <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>\(body)</channel></rss>
      """
  }

  static let typo = "https://blog.example.org/2026/12/01/build-a-your-own-shop/"
  static let fixed = "https://blog.example.org/2026/12/01/build-your-own-shop/"
  static let date = "Tue, 01 Dec 2026 10:00:00 GMT"

  static func store(_ directory: TemporaryDirectory) throws -> StorageContext {
    try StorageContext(path: directory.path("news.sqlite"))
  }

  @Test("the decoder scopes a unique guid to the feed as the article's itemID; the key stays the canonical link")
  func itemIDOfUniqueGuids() throws {
    let articles = try Self.decode(
      Self.rss([
        (guid: "https://blog.example.org/?p=1", link: Self.typo, title: "Shop", date: Self.date),
        (guid: "same", link: "https://blog.example.org/a", title: "A", date: Self.date),
        (guid: "same", link: "https://blog.example.org/b", title: "B", date: Self.date),
        (guid: nil, link: "https://blog.example.org/c", title: "C", date: Self.date),
      ]))
    #expect(
      articles.map(\.url.absoluteString) == [Self.typo] + ["a", "b", "c"].map { "https://blog.example.org/\($0)" })
    #expect(
      articles[0].itemID
        == ArticleIdentity.scoped("https://blog.example.org/", id: "https://blog.example.org/?p=1").absoluteString)
    // vienna-rss#355: a guid two items share identifies neither.
    #expect(articles[1].itemID == nil && articles[2].itemID == nil)
    #expect(articles[3].itemID == nil)
  }

  @Test("a slug fixed after publication updates the one article: key, link, read mark, bookmark, whole text kept")
  func slugFixedKeepsTheArticle() async throws {
    let directory = TemporaryDirectory()
    let storage = try Self.store(directory)
    let before = Self.rss([(guid: "https://blog.example.org/?p=1", link: Self.typo, title: "Shop", date: Self.date)])
    try await storage.saveArticles(try Self.decode(before), forQuery: "feed", fetchedAt: .now())
    #expect(try await storage.setRead(true, url: Self.typo))
    _ = try await storage.setBookmarked(true, url: Self.typo)
    #expect(
      try await storage.saveFullText(
        FullText(html: "<p>Whole shop text</p>", text: "Whole shop text"), forKey: Self.typo, at: .now()))

    let after = Self.rss([(guid: "https://blog.example.org/?p=1", link: Self.fixed, title: "Shop", date: Self.date)])
    let result = try await storage.saveArticles(try Self.decode(after), forQuery: "feed", fetchedAt: .now())
    #expect(result.inserted == 0 && result.updated == 1)
    let all = try await storage.articles(limit: 10)
    #expect(all.count == 1)
    let article = try #require(all.first)
    #expect(article.url.absoluteString == Self.fixed)
    #expect(article.handle == ArticleIdentity.handle(forKey: Self.fixed))
    #expect(article.isRead && article.isBookmarked)
    #expect(article.fullText == "Whole shop text")
    // The query's list follows the row, and the search index still finds it (same rowid).
    #expect(try await storage.articles(forQuery: "feed").map(\.url.absoluteString) == [Self.fixed])
    #expect(try await storage.search("whole shop").map(\.article.url.absoluteString) == [Self.fixed])
    // The old key is gone; it is not a second article, and fetching the fixed feed again changes nothing.
    #expect(try await storage.article(url: Self.typo) == nil)
    let again = try await storage.saveArticles(try Self.decode(after), forQuery: "feed", fetchedAt: .now())
    #expect(again.unchanged == 1)
  }

  @Test("Atom ids and JSON Feed ids re-key as RSS guids do")
  func atomAndJSONFeed() async throws {
    func atom(_ link: String) -> String {
      """
      <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:blog</id>
      <link rel="alternate" href="https://blog.example.org/"/><updated>2026-12-01T10:00:00Z</updated>
      <entry><title>Shop</title><link rel="alternate" href="\(link)"/><id>tag:blog.example.org,2026:1</id>
      <updated>2026-12-01T10:00:00Z</updated></entry></feed>
      """
    }
    func json(_ link: String) -> String {
      """
      {"version": "https://jsonfeed.org/version/1.1", "title": "Blog", "home_page_url": "https://blog.example.org/",
       "items": [{"id": "1", "url": "\(link)", "title": "Shop", "content_text": "Text.",
                  "date_published": "2026-12-01T10:00:00Z"}]}
      """
    }
    for format in [atom, json] {
      let directory = TemporaryDirectory()
      let storage = try Self.store(directory)
      try await storage.saveArticles(try Self.decode(format(Self.typo)), forQuery: "feed", fetchedAt: .now())
      #expect(try await storage.setRead(true, url: Self.typo))
      try await storage.saveArticles(try Self.decode(format(Self.fixed)), forQuery: "feed", fetchedAt: .now())
      let all = try await storage.articles(limit: 10)
      #expect(all.map(\.url.absoluteString) == [Self.fixed])
      #expect(all.first?.isRead == true)
    }
  }

  @Test("an edited title and text, or a new pubDate, update the one article and keep it read")
  func editsAndRepublishing() async throws {
    let directory = TemporaryDirectory()
    let storage = try Self.store(directory)
    let guid = "https://blog.example.org/?p=2"
    let link = "https://blog.example.org/comic"
    try await storage.saveArticles(
      try Self.decode(Self.rss([(guid: guid, link: link, title: "Comic (3 comments)", date: Self.date)])),
      forQuery: "feed", fetchedAt: .now())
    #expect(try await storage.setRead(true, url: link))
    // feedbin/support#198: the title counts comments; newsboat#1729: the item comes back with a new date.
    let republished = "Wed, 02 Dec 2026 08:30:00 GMT"
    try await storage.saveArticles(
      try Self.decode(Self.rss([(guid: guid, link: link, title: "Comic (9 comments)", date: republished)])),
      forQuery: "feed", fetchedAt: .now())
    let all = try await storage.articles(limit: 10)
    #expect(all.count == 1)
    #expect(all.first?.title == "Comic (9 comments)")
    #expect(all.first?.isRead == true)
    #expect(all.first.map { Timestamp($0.publishedAt) } == Timestamp(feedDate: republished))
  }

  @Test("a guid repeated across items, or an old key the document still carries, re-keys nothing")
  func noGuessing() async throws {
    let directory = TemporaryDirectory()
    let storage = try Self.store(directory)
    let a = "https://blog.example.org/a"
    let b = "https://blog.example.org/b"
    try await storage.saveArticles(
      try Self.decode(Self.rss([(guid: "g", link: a, title: "A", date: Self.date)])), forQuery: "feed",
      fetchedAt: .now())
    // The guid now names an item with another link, while the stored item's link is still in the document (under
    // another guid): both are articles, the stored one keeps its key.
    try await storage.saveArticles(
      try Self.decode(
        Self.rss([
          (guid: "g", link: b, title: "B", date: Self.date), (guid: "h", link: a, title: "A", date: Self.date),
        ])), forQuery: "feed", fetchedAt: .now())
    #expect(Set(try await storage.articles(limit: 10).map(\.url.absoluteString)) == [a, b])

    // Items sharing a guid have no itemID: a changed link is a new article (nothing to tell them apart by).
    let otherDirectory = TemporaryDirectory()
    let other = try Self.store(otherDirectory)
    let shared = [
      (guid: String?.some("x"), link: String?.some(a), title: "A", date: Self.date),
      (guid: "x", link: b, title: "B", date: Self.date),
    ]
    try await other.saveArticles(try Self.decode(Self.rss(shared)), forQuery: "feed", fetchedAt: .now())
    var moved = shared
    moved[0].link = "https://blog.example.org/a2"
    try await other.saveArticles(try Self.decode(Self.rss(moved)), forQuery: "feed", fetchedAt: .now())
    #expect(try await other.articleCount() == 3)
  }

  @Test("two posts sharing one anchor link and one guid (Scripting News) are two articles, not one")
  func sharedLinkAndGuid() async throws {
    let anchor = "http://scripting.com/2017/06/25.html#a080631"
    let feed = Self.rss([
      (guid: anchor, link: anchor, title: "Good morning", date: "Sun, 25 Jun 2017 12:27:31 GMT"),
      (guid: anchor, link: anchor, title: "Dropbox", date: "Sun, 25 Jun 2017 12:32:31 GMT"),
    ])
    let articles = try Self.decode(feed)
    #expect(Set(articles.map(\.url)).count == 2)
    #expect(articles.allSatisfy { $0.itemID == nil })
    // Before, both were keyed by the guid (the later one won): that row is kept, re-keyed to the first post.
    let before = ArticleIdentity.scoped("https://blog.example.org/", id: anchor)
    #expect(articles.map(\.formerKey) == [before, before])
    let directory = TemporaryDirectory()
    let storage = try Self.store(directory)
    var old = articles[1]
    old.url = before
    old.formerKey = nil
    try await storage.saveArticles([old], forQuery: "feed", fetchedAt: .now())
    #expect(try await storage.setRead(true, url: before.absoluteString))
    try await storage.saveArticles(articles, forQuery: "feed", fetchedAt: .now())
    #expect(try await storage.articleCount() == 2)
    #expect(try await storage.articles(limit: 10).filter(\.isRead).count == 1)
  }

  /// A podcast feed whose episodes have neither guid nor link (Apple: the enclosure URL then identifies the
  /// episode; the Podcast Index namespace's `podcast:guid` is the channel's).
  static func podcast(description: String) -> String {
    """
    <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Cast</title>
    <link>https://cast.example.net/</link><podcast:guid>917393e3-1b1e-5cef-ace4-edaa54e1f810</podcast:guid>
    <item><title>Episode 1</title><description>\(description)</description>
    <pubDate>Tue, 01 Dec 2026 06:00:00 GMT</pubDate>
    <enclosure url="https://media.example.net/ep1.mp3" length="1000" type="audio/mpeg"/></item>
    </channel></rss>
    """
  }

  @Test("a podcast episode without guid or link is its enclosure: an edited description keeps the one article")
  func podcastEpisodeByEnclosure() async throws {
    let first = try #require(try Self.decode(Self.podcast(description: "Show notes.")).first)
    #expect(first.url == ArticleIdentity.scoped("https://cast.example.net/", id: "https://media.example.net/ep1.mp3"))
    #expect(first.link == nil)
    let directory = TemporaryDirectory()
    let storage = try Self.store(directory)
    // As the fingerprint rule before this one keyed it.
    var old = first
    old.url = try #require(first.formerKey)
    old.formerKey = nil
    try await storage.saveArticles([old], forQuery: "cast", fetchedAt: .now())
    #expect(try await storage.setRead(true, url: old.url.absoluteString))
    // Today's rule re-keys that row to the enclosure; a later edit of the notes keeps it.
    for notes in ["Show notes.", "Show notes, with a correction."] {
      try await storage.saveArticles(
        try Self.decode(Self.podcast(description: notes)), forQuery: "cast", fetchedAt: .now())
    }
    let all = try await storage.articles(limit: 10)
    #expect(all.map(\.url) == [first.url])
    #expect(all.first?.isRead == true)
    #expect(all.first?.summary == "Show notes, with a correction.")
  }
}
