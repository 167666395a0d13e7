import Foundation
import OfflineNews
import OfflineNewsModel
import Testing

/// One derived-title rule (`ArticleTitle.derived`) for every format: the same untitled post, written as RSS 2.0,
/// Atom and JSON Feed, decoded by the public decoder, gets the same title (it got two: the feed readers and the
/// JSON Feed mapping's writer had a rule each, and the writer read the HTML, not its text).
@Suite("derived titles across formats")
struct DerivedTitleAcrossFormatsTests {
  static let html = "<p>Went to the <b>beach</b> today, and the water was cold. Really cold.</p><p>Then home.</p>"
  static let long =
    "<p>An untitled post whose first sentence runs on and on, well past the eighty characters a title keeps, "
    + "so that it is cut at a word</p>"

  static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }

  static func rss(_ html: String) -> Data {
    Data(
      """
      <?xml version="1.0" encoding="utf-8"?>
      <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>
      <item><link>https://blog.example.org/1</link><description>\(escaped(html))</description>
      <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>
      """.utf8)
  }

  static func atom(_ html: String) -> Data {
    Data(
      """
      <?xml version="1.0" encoding="utf-8"?>
      <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:blog</id>
      <link rel="alternate" href="https://blog.example.org/"/><updated>2026-12-01T10:00:00Z</updated>
      <entry><id>urn:blog:1</id><link rel="alternate" href="https://blog.example.org/1"/>
      <updated>2026-12-01T10:00:00Z</updated><content type="html">\(escaped(html))</content></entry></feed>
      """.utf8)
  }

  static func jsonFeed(_ html: String) throws -> Data {
    let document: [String: Any] = [
      "version": "https://jsonfeed.org/version/1.1", "title": "Blog", "home_page_url": "https://blog.example.org/",
      "items": [
        [
          "id": "1", "url": "https://blog.example.org/1", "content_html": html,
          "date_published": "2026-12-01T10:00:00Z",
        ]
      ],
    ]
    return try JSONSerialization.data(withJSONObject: document)
  }

  static func title(_ data: Data) throws -> String? {
    let origin = try #require(URL(string: "https://blog.example.org/feed"))
    let page = try ArticleDecoder().decodePage(
      data, origin: origin, contentType: nil, httpStatus: 200, redacting: [])
    return page.articles.first?.title
  }

  @Test("the same untitled post as RSS, Atom and JSON Feed gets one title", arguments: [html, long])
  func sameTitle(html: String) throws {
    let titles = [try Self.title(Self.rss(html)), try Self.title(Self.atom(html)), try Self.title(Self.jsonFeed(html))]
    #expect(Set(titles).count == 1, "\(titles)")
    let title = try #require(titles[0])
    if html == Self.html {
      #expect(title == "Went to the beach today, and the water was cold.")
    } else {
      #expect(title.hasSuffix("…") && title.count <= 81 && !title.contains("<"), "\(title)")
    }
  }

  @Test("the same posts as RSS and as JSON Feed are the same articles: keys, links, dates, texts, authors, tags")
  func sameArticles() throws {
    let rss = Data(
      """
      <?xml version="1.0" encoding="utf-8"?>
      <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>
      <item><title>One</title><link>https://blog.example.org/1?utm_source=feed</link><guid isPermaLink="false">1</guid>
      <description>&lt;p&gt;First &lt;b&gt;post&lt;/b&gt;&lt;/p&gt;</description><author>ann@example.org (Ann)</author>
      <category>notes</category><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate>
      <enclosure url="https://blog.example.org/1.mp3" type="audio/mpeg" length="99"/></item>
      <item><title>No link</title><guid isPermaLink="false">2</guid><description>Second</description></item>
      </channel></rss>
      """.utf8)
    let json = Data(
      """
      {"version": "https://jsonfeed.org/version/1.1", "title": "Blog", "home_page_url": "https://blog.example.org/",
       "items": [{"id": "1", "url": "https://blog.example.org/1?utm_source=feed", "title": "One",
                  "summary": "<p>First <b>post</b></p>", "authors": [{"name": "Ann"}], "tags": ["notes"],
                  "date_published": "2026-12-01T10:00:00Z",
                  "attachments": [{"url": "https://blog.example.org/1.mp3", "mime_type": "audio/mpeg",
                                   "size_in_bytes": 99}]},
                 {"id": "2", "title": "No link", "summary": "Second"}]}
      """.utf8)
    let origin = try #require(URL(string: "https://blog.example.org/feed"))
    func articles(_ data: Data) throws -> [Article] {
      try ArticleDecoder().decodePage(data, origin: origin, contentType: nil, httpStatus: 200, redacting: []).articles
    }
    let fromRSS = try articles(rss)
    let fromJSON = try articles(json)
    try #require(fromRSS.count == 2 && fromJSON.count == 2)
    for (a, b) in zip(fromRSS, fromJSON) {
      #expect(a.url == b.url)
      #expect(a.link == b.link)
      #expect(a.title == b.title)
      #expect(a.summary == b.summary)
      #expect(a.summaryText == b.summaryText)
      #expect(a.author == b.author)
      #expect(a.tags == b.tags)
      #expect(a.enclosures == b.enclosures)
      #expect(a.sourceName == b.sourceName)
      #expect(a.isUndated == b.isUndated)
      if !a.isUndated { #expect(a.publishedAt == b.publishedAt) }
    }
    #expect(fromJSON[0].summaryText == "First post")
    #expect(fromJSON[1].isUndated)
  }
}
