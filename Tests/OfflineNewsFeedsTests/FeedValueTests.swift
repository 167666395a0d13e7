import Foundation
import OfflineNewsFeeds
import Testing

/// 2021-01-17T22:46:22Z (`date -u -d 2021-01-17T22:46:22Z +%s`).
private let reference = Date(timeIntervalSince1970: 1_610_923_582)

@Suite("Feeds: dates, authors, images, enclosures, categories, content")
struct FeedValueTests {
  @Test("dates: RFC 822 pubDate, RFC 3339 in a pubDate, dc:date, atom:updated; an unreadable one is nil, item kept")
  func dates() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>a</title><pubDate>Sun, 17 Jan 2021 23:46:22 +0100</pubDate></item>
        <item><title>b</title><pubDate>2021-01-17T22:46:22Z</pubDate></item>
        <item><title>c</title><dc:date>2021-01-17T23:46:22+01:00</dc:date></item>
        <item><title>d</title><pubDate>yesterday</pubDate><atom:updated>2021-01-17T22:46:22Z</atom:updated></item>
        <item><title>e</title><pubDate>Sun, 17 Jan 2021 17:46:22 EST</pubDate>
          <dcterms:modified>2021-01-17T22:46:22.999Z</dcterms:modified></item>
        <item><title>f</title><pubDate>  </pubDate></item>
        """))
    #expect(feed.items.count == 6)
    #expect(feed.items.map(\.published) == [reference, reference, reference, nil, reference, nil])
    #expect(feed.items[3].updated == reference)
    #expect(feed.items[4].updated == Date(timeIntervalSince1970: 1_610_923_582.999))
    let issues = feed.issues.filter { $0.kind == .unreadableDate }
    #expect(issues.count == 1)
    #expect(issues.first?.itemIndex == 3)
    #expect(issues.first?.element == "pubDate")
    #expect(issues.first?.text == "yesterday")
    #expect(issues.first?.description.contains("item[3].pubDate") == true)
  }

  @Test("Atom dates: published and updated, fractions and offsets, W3C-DTF reduced forms, a time without a zone as UTC")
  func atomDates() throws {
    let feed = try parseFeed(
      atom(
        """
        <entry><title>a</title><id>1</id><published>2021-01-17T15:46:22.5-07:00</published>
          <updated>2021-01-17T22:46:22Z</updated></entry>
        <entry><title>b</title><id>2</id><updated>2024-05-01T10:00</updated></entry>
        <entry><title>c</title><id>3</id><updated>2019-08</updated><published>not a date</published></entry>
        """))
    #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_610_923_582.5))
    #expect(feed.items[0].updated == reference)
    #expect(feed.items[1].published == nil)
    #expect(feed.items[1].updated == Date(timeIntervalSince1970: 1_714_557_600))
    #expect(feed.items[2].updated == Date(timeIntervalSince1970: 1_564_617_600))
    #expect(feed.issues.contains { $0.kind == .unreadableDate && $0.itemIndex == 2 && $0.element == "published" })
  }

  @Test("authors: 'email (Name)', several dc:creator, the feed's author as fallback, Atom names")
  func authors() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>a</title><author>joe@example.org (Joe Bloggs)</author></item>
        <item><title>b</title><dc:creator>Ann</dc:creator><dc:creator>Bob</dc:creator></item>
        <item><title>c</title></item>
        <item><title>d</title><author>Jane &lt;jane@example.org&gt;</author></item>
        <item><title>e</title><itunes:author>Pod Person</itunes:author></item>
        """,
        channel: "<title>T</title><dc:creator>The Editors</dc:creator>"))
    #expect(feed.author == "The Editors")
    #expect(feed.items.map(\.author) == ["Joe Bloggs", "Ann, Bob", "The Editors", "Jane", "Pod Person"])

    let atomFeed = try parseFeed(
      atom(
        """
        <entry><title>a</title><id>1</id><author><name>One</name></author><author><name>Two</name></author></entry>
        <entry><title>b</title><id>2</id><source><author><name>Syndicated</name></author></source></entry>
        <entry><title>c</title><id>3</id></entry>
        """, feed: "<title>T</title><author><name>Feed Author</name><email>f@example.org</email></author>"))
    #expect(atomFeed.items.map(\.author) == ["One, Two", "Syndicated", "Feed Author"])
  }

  @Test("images: media:thumbnail, then media:content images (also in media:group), an image enclosure, itunes:image")
  func images() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>a</title><media:thumbnail url="https://img.example/thumb.jpg"/>
          <media:content url="https://img.example/big.jpg" medium="image"/>
          <enclosure url="https://img.example/enc.jpg" type="image/jpeg" length="1"/>
          <itunes:image href="https://img.example/itunes.jpg"/></item>
        <item><title>b</title><media:group><media:content url="https://img.example/v.mp4" type="video/mp4"/>
          <media:content url="https://img.example/g.png" type="image/png"/></media:group></item>
        <item><title>c</title><enclosure url="https://img.example/enc.jpg" type="image/jpeg" length="1"/>
          <itunes:image href="https://img.example/itunes.jpg"/></item>
        <item><title>d</title><itunes:image href="https://img.example/itunes.jpg"/></item>
        <item><title>e</title><media:content url="https://img.example/a.mp3" medium="audio"/></item>
        """))
    #expect(
      feed.items.map { $0.imageURL?.lastPathComponent } == ["thumb.jpg", "g.png", "enc.jpg", "itunes.jpg", nil])
  }

  @Test("enclosures: url, type and length as given; a bad length is nil; one without a url is left out")
  func enclosures() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>a</title>
          <enclosure url="https://cdn.example/e1.mp3" type="audio/mpeg" length="24388318"/>
          <enclosure url="https://cdn.example/e2.m4a" type=" audio/mp4 " length="abc"/>
          <enclosure url="https://cdn.example/e3.ogg" length="-5"/>
          <enclosure type="audio/mpeg" length="1"/></item>
        """))
    let enclosures = try #require(feed.items.first?.enclosures)
    #expect(
      enclosures == [
        FeedEnclosure(
          url: try #require(URL(string: "https://cdn.example/e1.mp3")), type: "audio/mpeg", length: 24_388_318),
        FeedEnclosure(url: try #require(URL(string: "https://cdn.example/e2.m4a")), type: "audio/mp4", length: nil),
        FeedEnclosure(url: try #require(URL(string: "https://cdn.example/e3.ogg")), type: nil, length: nil),
      ])
    #expect(feed.issues.contains { $0.kind == .unreadableURL && $0.element == "enclosure" })

    let atomFeed = try parseFeed(
      atom(
        """
        <entry><title>a</title><id>1</id><link rel="enclosure" href="/ep1.mp3" type="audio/mpeg" length="100"/>
          <link rel="alternate" href="/ep1"/></entry>
        """), url: "https://pod.example/feed")
    #expect(atomFeed.items[0].enclosures.map(\.url.absoluteString) == ["https://pod.example/ep1.mp3"])
    #expect(atomFeed.items[0].link?.absoluteString == "https://pod.example/ep1")
  }

  @Test("categories: RSS category and dc:subject, Atom term; trimmed, repeats and empty ones left out")
  func categories() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>a</title><category> Swift </category><category domain="x">iOS</category><category>Swift</category>
          <category/><dc:subject>Apple</dc:subject></item>
        """))
    #expect(feed.items[0].categories == ["Swift", "iOS", "Apple"])
    let atomFeed = try parseFeed(
      atom(
        "<entry><title>a</title><id>1</id><category term=\"tech\" label=\"Technology\"/><category term=\"x\"/></entry>"
      ))
    #expect(atomFeed.items[0].categories == ["tech", "x"])
  }

  @Test("summary and content: HTML stays HTML, text stays text, xhtml is its div's children, src content is none")
  func contentKinds() throws {
    let rssFeed = try parseFeed(
      rss(
        """
        <item><title>a</title><description>  &lt;p&gt;Hi&lt;/p&gt;  </description>
          <content:encoded><![CDATA[<p>Full <b>text</b></p>]]></content:encoded></item>
        """))
    #expect(rssFeed.items[0].summary?.value == "<p>Hi</p>")
    #expect(rssFeed.items[0].summary?.kind == .html)
    #expect(rssFeed.items[0].content?.value == "<p>Full <b>text</b></p>")
    #expect(rssFeed.items[0].content?.plainText == "Full text")

    let feed = try parseFeed(
      atom(
        """
        <entry><title>a</title><id>1</id><summary>1 &lt; 2 &amp; plain</summary>
          <content type="html" xml:base="https://base.example/dir/">&lt;p&gt;&lt;a href="x"&gt;x&lt;/a&gt;&lt;/p&gt;</content></entry>
        <entry><title>b</title><id>2</id><summary type="html">&lt;em&gt;e&lt;/em&gt;</summary>
          <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hello <b>world</b></p><br/></div></content></entry>
        <entry><title>c</title><id>3</id><content src="https://example.org/c.html" type="text/html"/></entry>
        <entry><title>d</title><id>4</id><content type="image/png">iVBORw0KGgo=</content></entry>
        """))
    #expect(feed.items[0].summary == FeedText(value: "1 < 2 & plain", kind: .text, baseURL: feed.feedURL))
    #expect(feed.items[0].content?.kind == .html)
    // A relative reference inside the HTML is resolved against the xml:base in scope (the text is stored without it).
    #expect(feed.items[0].content?.value == "<p><a href=\"https://base.example/dir/x\">x</a></p>")
    #expect(feed.items[0].content?.baseURL?.absoluteString == "https://base.example/dir/")
    #expect(feed.items[1].summary?.kind == .html)
    #expect(feed.items[1].content?.value == "<p>Hello <b>world</b></p><br/>")
    #expect(feed.items[1].content?.kind == .html)
    #expect(feed.items[2].content == nil)
    #expect(feed.items[3].content == nil)
  }

  @Test("the feed: title, home page, language, author and image")
  func feedFields() throws {
    let feed = try parseFeed(
      rss(
        "",
        channel: """
          <title> My
            Feed </title><link>https://example.org/</link><language>de-DE</language>
          <managingEditor>ed@example.org (Ed Itor)</managingEditor>
          <image><url>/logo.png</url><title>x</title><link>https://example.org/</link></image>
          """))
    #expect(feed.title == "My Feed")
    #expect(feed.homePageURL?.absoluteString == "https://example.org/")
    #expect(feed.language == "de-DE")
    #expect(feed.author == "Ed Itor")
    #expect(feed.imageURL?.absoluteString == "https://example.org/logo.png")
    #expect(feed.items.isEmpty)
  }

  @Test("the content fingerprint: the same item gives the same one; title, date, text or enclosure change it")
  func fingerprints() throws {
    func fingerprint(_ item: String) throws -> String {
      try #require(parseFeed(rss(item)).items.first).contentFingerprint
    }
    let base =
      "<item><title>T</title><pubDate>Sun, 17 Jan 2021 23:46:22 +0100</pubDate><description>x</description></item>"
    let same = try fingerprint(base)
    #expect(same.count == 32)
    #expect(same.allSatisfy { $0.isHexDigit })
    #expect(try fingerprint(base) == same)
    // The same instant written another way is the same item.
    #expect(try fingerprint(base.replacingOccurrences(of: "23:46:22 +0100", with: "22:46:22 GMT")) == same)
    #expect(try fingerprint(base.replacingOccurrences(of: "<title>T", with: "<title>U")) != same)
    #expect(try fingerprint(base.replacingOccurrences(of: "23:46:22", with: "23:46:23")) != same)
    #expect(try fingerprint(base.replacingOccurrences(of: ">x<", with: ">y<")) != same)
    #expect(
      try fingerprint(
        base.replacingOccurrences(of: "</item>", with: "<enclosure url=\"https://e.example/a.mp3\"/></item>"))
        != same)
  }

  @Test("many feeds parsed at once on many threads give the same items as one at a time")
  func concurrentParsing() async throws {
    let documents = (0..<16).map { index in
      rss(
        "<item><title>Item \(index) &nbsp;&mdash; &amp;</title><description>broken &bogus; &lt;p&gt;</description></item>"
      )
    }
    let serial = try documents.map { try parseFeed($0) }
    let parallel = try await withThrowingTaskGroup(of: (Int, ParsedFeed).self) { group in
      for round in 0..<8 {
        for (index, document) in documents.enumerated() {
          group.addTask { (index, try parseFeed(document, url: "https://example.org/feeds/main.xml?\(round)")) }
        }
      }
      var results: [(Int, ParsedFeed)] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(parallel.count == 128)
    for (index, feed) in parallel {
      #expect(feed.items.map(\.title) == serial[index].items.map(\.title))
      #expect(feed.items.map { $0.summary?.value } == serial[index].items.map { $0.summary?.value })
    }
  }
}
