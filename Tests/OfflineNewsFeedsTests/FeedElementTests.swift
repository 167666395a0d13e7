import Foundation
import OfflineNewsFeeds
import OfflineNewsHTML
import TestSupport
import Testing

/// Every element that carries an item's data (issue 29, item 4), each on a small document of our own written from a
/// public report of a feed reader or parser that missed it. feedparser's own cases for the same rules run in
/// scripts/feedparser-conformance.sh.
@Suite("Feeds: every element that carries the data")
struct FeedElementTests {
  @Test("RSS 2.0 in UserLand's, Harvard's or any other default namespace on <rss> is read")
  func rssInDefaultNamespace() throws {
    // Simon Fell's RSS test suite (feedparser tests/wellformed/namespace/rss2.0NSwithModules.xml), and newsboat#1086:
    // an <rss> with Atom's namespace as its default gave 0 items ("rss, item … aren't RSS tags").
    for namespace in [
      "http://backend.userland.com/rss2", "http://blogs.law.harvard.edu/tech/rss", "http://www.w3.org/2005/Atom",
    ] {
      let feed = try parseFeed(
        """
        <rss version="2.0" xmlns="\(namespace)"><channel><title>NS</title><link>https://example.org/</link>
        <item><title>One</title><link>https://example.org/1</link><pubDate>Sat, 28 Sep 2002 21:00:02 GMT</pubDate></item>
        </channel></rss>
        """)
      #expect(feed.title == "NS", "\(namespace)")
      #expect(feed.items.map(\.title) == ["One"], "\(namespace)")
      #expect(feed.items.first?.link?.absoluteString == "https://example.org/1", "\(namespace)")
      #expect(feed.items.first?.published == Date(timeIntervalSince1970: 1_033_246_802), "\(namespace)")
    }
  }

  @Test("Dublin Core and DCMI terms: dc:title, dc:creator, dc:author, dc:description, dcterms:issued and modified")
  func dublinCore() throws {
    // jangernert/FeedReader#853: the author is in dc:creator, not in RSS author; SimplePie#104: RSS author
    // "lawyer@boyer.net (Lawyer Boyer)" is the name Lawyer Boyer.
    let feed = try parseFeed(
      rss(
        """
        <item><dc:title>From DC</dc:title><dc:author>Jo Author</dc:author><dc:description>Short</dc:description>
          <dcterms:issued>2003-12-31T10:14:55Z</dcterms:issued><dcterms:modified>2004-01-01T00:00:00Z</dcterms:modified>
          <guid isPermaLink="false">a</guid></item>
        <item><title>Two</title><author>lawyer@boyer.net (Lawyer Boyer)</author><dc:date>2003-12-31T10:14:55Z</dc:date>
          <guid isPermaLink="false">b</guid></item>
        <item><title>Three</title><dcterms:created>2003-12-31T10:14:55Z</dcterms:created><guid isPermaLink="false">c</guid></item>
        """, channel: "<dc:title>Channel from DC</dc:title>"))
    #expect(feed.title == "Channel from DC")
    #expect(feed.items[0].title == "From DC")
    #expect(feed.items[0].author == "Jo Author")
    #expect(feed.items[0].summary?.value == "Short")
    #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_072_865_695))
    #expect(feed.items[0].updated == Date(timeIntervalSince1970: 1_072_915_200))
    #expect(feed.items[1].author == "Lawyer Boyer")
    // dc:date is the date of publication, and of modification when nothing else says (feedparser: updated).
    #expect(feed.items[1].published == Date(timeIntervalSince1970: 1_072_865_695))
    #expect(feed.items[1].updated == Date(timeIntervalSince1970: 1_072_865_695))
    #expect(feed.items[2].published == Date(timeIntervalSince1970: 1_072_865_695))
  }

  @Test("xhtml:body is the content, as markup; a description beside an RSS summary becomes the content")
  func xhtmlBody() throws {
    // feedparser tests/wellformed/rss/item_xhtml_body.xml and item_summary_and_description.xml.
    let feed = try parseFeed(
      """
      <rss version="2.0" xmlns:xhtml="http://www.w3.org/1999/xhtml"><channel><title>B</title>
      <item><title>a</title><guid isPermaLink="false">1</guid>
        <xhtml:body><xhtml:p>Example <xhtml:b>content</xhtml:b></xhtml:p></xhtml:body></item>
      <item><title>b</title><guid isPermaLink="false">2</guid><summary>Sum</summary><description>Desc</description></item>
      </channel></rss>
      """)
    #expect(feed.items[0].content?.kind == .html)
    #expect(feed.items[0].content?.plainText == "Example content")
    #expect(feed.items[0].content?.value.contains("<xhtml:b>content</xhtml:b>") == true)
    #expect(feed.items[1].summary?.value == "Sum")
    #expect(feed.items[1].content?.value == "Desc")
  }

  @Test("Atom text constructs: base64 content of another media type, type=\"\" is text, binary content is none")
  func atomTextConstructs() throws {
    // RFC 4287 §4.1.3.3 (5): content of a type that is neither XML nor text/* is Base64; feedparser
    // tests/wellformed/atom10/entry_content_base64.xml and entry_title_type_empty-no-crash.xml.
    let feed = try parseFeed(
      atom(
        """
        <entry><id>1</id><title type="">evil</title>
          <content type="application/octet-stream">RXhhbXBsZSA8Yj5BdG9tPC9iPg==</content></entry>
        <entry><id>2</id><title type="application/octet-stream">RXhhbXBsZQ==</title>
          <content type="image/png">iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB</content></entry>
        """))
    #expect(feed.items[0].title == "evil")
    #expect(feed.items[0].content == FeedText(value: "Example <b>Atom</b>", kind: .text, baseURL: feed.feedURL))
    #expect(feed.items[1].title == "Example")
    #expect(feed.items[1].content == nil)
  }

  @Test("relative links and images inside HTML content are resolved against the xml:base in scope")
  func relativeReferencesInContent() throws {
    // fluent-reader#692 (images of a content with xml:base broke), node-feedparser#275 (Kottke's relative images),
    // Feedbin support#338 (an entry's xml:base ignored).
    let feed = try parseFeed(
      atom(
        """
        <entry xml:base="https://example.com/posts/"><id>1</id><title>t</title>
          <content type="html">&lt;p&gt;&lt;img src="images/bird.jpg"&gt; &lt;a href="/about"&gt;me&lt;/a&gt;
          &lt;a href="#n1"&gt;1&lt;/a&gt; &lt;a href="https://other.example/x"&gt;x&lt;/a&gt;&lt;/p&gt;</content>
          <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="../up">up</a></div></summary></entry>
        """))
    let content = try #require(feed.items.first?.content?.value)
    #expect(content.contains(#"src="https://example.com/posts/images/bird.jpg""#))
    #expect(content.contains(#"href="https://example.com/about""#))
    #expect(content.contains("href=\"#n1\""))
    #expect(content.contains(#"href="https://other.example/x""#))
    #expect(feed.items.first?.summary?.value == #"<a href="https://example.com/up">up</a>"#)
    // HTML without a relative reference is kept byte for byte (not parsed and written again).
    let untouched = #"<p>A <a href="https://example.org/a">link</a><br/>&nbsp;</p>"#
    #expect(HTMLRelativeLinks.resolving(untouched, against: feed.feedURL) == untouched)
  }

  @Test("iTunes elements in either spelling of the namespace; media:title and media:category; xml:lang en_US")
  func podcastsAndMedia() throws {
    // Apple documents the namespace as http://www.itunes.com/dtds/podcast-1.0.dtd, feeds also write …/DTDs/Podcast…
    // (feedparser tests/wellformed/itunes/itunes_item_author_map_author.xml).
    let feed = try parseFeed(
      """
      <rss xmlns:itunes="http://www.itunes.com/DTDs/Podcast-1.0.dtd" xmlns:media="http://search.yahoo.com/mrss/">
      <channel><title>P</title>
      <item><guid isPermaLink="false">1</guid><itunes:author>Mark Pilgrim</itunes:author>
        <itunes:summary>Example summary</itunes:summary>
        <itunes:category text="Technology"><itunes:category text="Gadgets"/></itunes:category></item>
      <item><guid isPermaLink="false">2</guid><media:title>bar</media:title><media:category>cat1</media:category></item>
      </channel></rss>
      """)
    #expect(feed.items[0].author == "Mark Pilgrim")
    #expect(feed.items[0].summary?.value == "Example summary")
    #expect(feed.items[0].categories == ["Technology", "Gadgets"])
    #expect(feed.items[1].title == "bar")
    #expect(feed.items[1].categories == ["cat1"])
    let atomFeed = try parseFeed(#"<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en_US"><title>x</title></feed>"#)
    #expect(atomFeed.language == "en-US")
  }

  @Test("a German item is dated as published; an unreadable date is an issue and the item is kept, undated")
  func datesInFeeds() throws {
    // fabarea/rss_display#43: German pubDates made SimplePie return false; the items were dated "now".
    let feed = try parseFeed(
      rss(
        """
        <item><title>Eins</title><link>https://example.org/1</link><pubDate>Di, 04 Okt 2016 10:00:00 MESZ</pubDate></item>
        <item><title>Zwei</title><link>https://example.org/2</link><dc:date>2016/10/4 8:00:00</dc:date></item>
        <item><title>Drei</title><link>https://example.org/3</link><pubDate>gestern</pubDate></item>
        """))
    #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_475_568_000))
    #expect(feed.items[1].published == Date(timeIntervalSince1970: 1_475_568_000))
    #expect(feed.items.count == 3)
    #expect(feed.items[2].published == nil)
    let issue = try #require(feed.issues.first { $0.kind == .unreadableDate })
    #expect(issue.itemIndex == 2)
    #expect(issue.text == "gestern")
    #expect(issue.message.hasSuffix("value dropped"))
  }

  @Test("every item of every real feed is dated, with no unreadable date", .enabled(if: Fixtures.hasSharedReal))
  func realFeedsAreDated() throws {
    for name in RealFeeds.xmlFeeds {
      let data = try Data(contentsOf: RealFeeds.url(name))
      let feed = try FeedParser.parse(data, feedURL: RealFeeds.url(name))
      #expect(feed.items.allSatisfy { $0.published != nil || $0.updated != nil }, "\(name)")
      #expect(!feed.issues.contains { $0.kind == .unreadableDate }, "\(name)")
    }
  }
}
