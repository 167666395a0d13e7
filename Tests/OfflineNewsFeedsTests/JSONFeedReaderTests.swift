import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

/// JSON Feed 1.0 and 1.1 read by FeedParser into the one model of every feed (ParsedFeed), so that its items get the
/// rules RSS and Atom items get.
@Suite("JSON Feed: read into the one feed model")
struct JSONFeedReaderTests {
  func parse(_ json: String, url: String = "https://example.org/feed.json") throws -> ParsedFeed {
    try FeedParser.parse(Data(json.utf8), feedURL: try #require(URL(string: url)))
  }

  @Test("a JSON Feed 1.0 file: relative URLs against home_page_url, zoneless dates as UTC and said, the feed's author")
  func ownFixture() throws {
    let url = Fixtures.own("jsonfeed-1.0-zoneless-relative.json")
    let feed = try FeedParser.parse(Data(contentsOf: url), feedURL: url)
    #expect(feed.format == .jsonFeed10)
    #expect(feed.title == "A small blog")
    #expect(feed.homePageURL?.absoluteString == "https://blog.example.org/")
    let first = try #require(feed.items.first)
    #expect(first.link?.absoluteString == "https://blog.example.org/2018/01/06/post-100.html")
    #expect(feed.items[1].link?.absoluteString == "https://blog.example.org/2018/01/07/post-101.html")
    #expect(first.guid == "post-100")
    #expect(first.title == "Post 100")
    #expect(first.content == FeedText(value: "<p>Post number 100.</p>", kind: .html, baseURL: first.content?.baseURL))
    #expect(first.published == Date(timeIntervalSince1970: 1_515_225_600))  // 2018-01-06T08:00Z
    #expect(first.imageURL?.absoluteString == "https://blog.example.org/images/post-100.jpg")
    #expect(first.categories == ["notes", "2018"])
    #expect(first.author == "Sam")
    #expect(feed.issues.contains { $0.element == "date_published" && $0.message.contains("without a UTC offset") })
  }

  @Test("external_url makes a linkblog post: linked to the page it is about, its own url the permalink")
  func linkblog() throws {
    let feed = try parse(
      """
      {"version": "https://jsonfeed.org/version/1.1", "title": "Links", "home_page_url": "https://links.example/",
       "items": [{"id": 7, "url": "https://links.example/7", "external_url": "https://news.example/story",
                  "content_text": "Worth reading.", "date_published": "2024-03-01T10:00:00+01:00",
                  "authors": [{"name": "Ann"}, {"name": "Bo"}],
                  "attachments": [{"url": "https://links.example/a.mp3", "mime_type": "audio/mpeg",
                                   "size_in_bytes": 1234}, {"url": 5}]}]}
      """)
    #expect(feed.format == .jsonFeed11)
    let item = try #require(feed.items.first)
    #expect(item.link?.absoluteString == "https://news.example/story")
    #expect(item.permalink?.absoluteString == "https://links.example/7")
    #expect(item.guid == "7")
    #expect(item.content?.kind == .text)
    #expect(item.author == "Ann, Bo")
    #expect(
      item.enclosures == [
        FeedEnclosure(url: try #require(URL(string: "https://links.example/a.mp3")), type: "audio/mpeg", length: 1234)
      ])
    #expect(item.published == Date(timeIntervalSince1970: 1_709_283_600))
    // No title: derived from the text, by the one rule RSS and Atom items get.
    #expect(item.titleIsDerived)
    #expect(item.title == "Worth reading.")
  }

  @Test("bad values cost the value, not the item; a cut-off JSON Feed is refused whole")
  func badValues() throws {
    let feed = try parse(
      """
      {"version": "https://jsonfeed.org/version/1.1", "title": "T",
       "items": [{"id": "a", "title": "Kept", "date_published": "yesterday", "url": "http://[bad"}, 42]}
      """)
    #expect(feed.items.map(\.title) == ["Kept"])
    #expect(feed.items.first?.published == nil)
    #expect(feed.issues.contains { $0.kind == .unreadableDate && $0.text == "yesterday" })
    #expect(feed.issues.contains { $0.itemIndex == 1 && $0.message.contains("not an object") })
    let cut = Data(#"{"version": "https://jsonfeed.org/version/1.1", "items": [{"title": "x"#.utf8)
    #expect(throws: FeedParseError.self) { try FeedParser.parse(cut, feedURL: URL(fileURLWithPath: "/tmp/cut.json")) }
  }

  @Test(
    "the real JSON Feeds: every item read with a title and a link", .enabled(if: Fixtures.hasSharedReal),
    arguments: ["feeds/inessential.json", "feeds/3960.json"])
  func realFeeds(name: String) throws {
    let url = try Fixtures.sharedReal(name)
    let feed = try FeedParser.parse(Data(contentsOf: url), feedURL: url)
    #expect(!feed.items.isEmpty)
    #expect(feed.title?.isEmpty == false)
    for item in feed.items {
      #expect(!item.title.isEmpty)
      #expect(item.link != nil || item.guid != nil)
    }
  }
}
