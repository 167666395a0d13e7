import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import Testing

@Suite("Feeds: formats told apart by content")
struct FeedFormatTests {
  @Test("RSS 0.91 with the Netscape DOCTYPE, 0.92, 2.0 and no version")
  func rssVersions() throws {
    let netscape = """
      <?xml version="1.0" encoding="ISO-8859-1"?>
      <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN"
        "http://my.netscape.com/publish/formats/rss-0.91.dtd">
      <rss version="0.91"><channel><title>Old</title><link>https://example.org/</link><language>en-us</language>
      <item><title>Caf&eacute;&nbsp;time</title><link>https://example.org/1</link>
      <description>Plain &amp; simple</description></item></channel></rss>
      """
    let old = try parseFeed(netscape)
    #expect(old.format == .rss091)
    #expect(old.language == "en-us")
    #expect(old.items.first?.title == "Café time")
    #expect(old.items.first?.summary?.value == "Plain & simple")
    #expect(
      try parseFeed(rss("").replacingOccurrences(of: "version=\"2.0\"", with: "version=\"0.92\"")).format == .rss092)
    #expect(try parseFeed(rss("")).format == .rss20)
    #expect(try parseFeed("<rss><channel><title>x</title></channel></rss>").format == .rss20)
  }

  @Test("RSS 1.0 (RDF): items beside the channel, rdf:about, dc:date in date-only and year-month forms")
  func rdf() throws {
    let feed = try parseFeed(
      """
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
        xmlns:dc="http://purl.org/dc/elements/1.1/">
      <channel rdf:about="https://example.org/"><title>RDF</title><link>https://example.org/</link>
        <dc:language>cs</dc:language><items><rdf:Seq><rdf:li rdf:resource="https://example.org/1"/></rdf:Seq></items>
      </channel>
      <item rdf:about="https://example.org/1"><title>One</title><link>https://example.org/1</link>
        <dc:date>2019-08-27</dc:date><dc:creator>A. Author</dc:creator><dc:creator>B. Author</dc:creator>
        <dc:subject>Botany</dc:subject></item>
      <item rdf:about="https://example.org/2"><title>Two</title><dc:date>2019-08</dc:date></item>
      </rdf:RDF>
      """)
    #expect(feed.format == .rdf)
    #expect(feed.language == "cs")
    #expect(feed.items.count == 2)
    #expect(feed.items[0].guid == "https://example.org/1")
    #expect(feed.items[0].guidIsPermaLink == false)
    #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_566_864_000))  // date -u -d 2019-08-27 +%s
    #expect(feed.items[0].author == "A. Author, B. Author")
    #expect(feed.items[0].categories == ["Botany"])
    #expect(feed.items[1].link?.absoluteString == "https://example.org/2")  // from rdf:about
    #expect(feed.items[1].published == Date(timeIntervalSince1970: 1_564_617_600))  // 2019-08-01
  }

  @Test("RSS 0.90: the Netscape RDF namespace")
  func rss090() throws {
    let feed = try parseFeed(
      """
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
      <channel><title>Mozilla Dot Org</title><link>http://www.mozilla.org</link></channel>
      <item><title>New Status Updates</title><link>http://www.mozilla.org/status/</link></item>
      <item><title>Bugzilla Reorganized</title><link>http://www.mozilla.org/bugs/</link></item>
      </rdf:RDF>
      """)
    #expect(feed.format == .rss090)
    #expect(feed.title == "Mozilla Dot Org")
    #expect(feed.items.map(\.title) == ["New Status Updates", "Bugzilla Reorganized"])
    #expect(
      feed.items.map { $0.link?.absoluteString } == ["http://www.mozilla.org/status/", "http://www.mozilla.org/bugs/"])
  }

  @Test("Atom 0.3: issued and modified, escaped, inline XML and base64 content, the feed's author")
  func atom03() throws {
    let feed = try parseFeed(
      """
      <feed version="0.3" xmlns="http://purl.org/atom/ns#" xml:lang="en">
      <title>Old Atom</title><link rel="alternate" type="text/html" href="https://example.org/"/>
      <tagline>Since 2003</tagline><author><name>Jo Writer</name></author>
      <entry><title>Escaped</title><link rel="alternate" type="text/html" href="https://example.org/1"/>
        <id>tag:example.org,2004:1</id><issued>2004-01-02T03:04:05Z</issued><modified>2004-01-03T00:00:00Z</modified>
        <content type="text/html" mode="escaped">&lt;p&gt;Hi &amp;amp; bye&lt;/p&gt;</content></entry>
      <entry><title>Inline</title><link rel="alternate" type="text/html" href="https://example.org/2"/>
        <id>tag:example.org,2004:2</id><issued>2004-01-04</issued>
        <content type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml"><p>X <b>y</b></p></div></content></entry>
      <entry><title>Base64</title><id>tag:example.org,2004:3</id>
        <content type="text/plain" mode="base64">SGVsbG8gd29ybGQ=</content><summary>Sum</summary></entry>
      </feed>
      """)
    #expect(feed.format == .atom03)
    #expect(feed.language == "en")
    #expect(feed.homePageURL?.absoluteString == "https://example.org/")
    #expect(feed.items.count == 3)
    #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_073_012_645))  // 2004-01-02T03:04:05Z
    #expect(feed.items[0].updated == Date(timeIntervalSince1970: 1_073_088_000))
    #expect(feed.items[0].content == FeedText(value: "<p>Hi &amp; bye</p>", kind: .html, baseURL: feed.feedURL))
    // Atom 0.3 has no wrapper div (that is Atom 1.0's xhtml, RFC 4287 §3.1.1.3): the inline markup is kept as
    // written, without its namespace declaration (feedparser's tests/wellformed/atom/entry_summary_inline_markup.xml).
    #expect(feed.items[1].content?.value == "<div><p>X <b>y</b></p></div>")
    #expect(feed.items[1].content?.kind == .html)
    #expect(feed.items[2].content == FeedText(value: "Hello world", kind: .text, baseURL: feed.feedURL))
    #expect(feed.items[2].summary?.value == "Sum")
    #expect(feed.items.allSatisfy { $0.author == "Jo Writer" })
  }

  @Test("Atom in no namespace is read as Atom 1.0")
  func atomWithoutNamespace() throws {
    let feed = try parseFeed("<feed><title>Bare</title><entry><title>E</title><id>1</id></entry></feed>")
    #expect(feed.format == .atom10)
    #expect(feed.items.map(\.title) == ["E"])
  }
}

@Suite("Feeds: links resolved per RFC 3986 against xml:base, the channel link or the feed URL")
struct FeedLinkTests {
  @Test("RSS: the channel link, an item's xml:base, trimmed and percent-encoded references, non-http links dropped")
  func rssRelativeLinks() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>A</title><link>posts/a.html</link></item>
        <item xml:base="https://cdn.example.net/x/"><title>B</title><link>b.html</link>
          <enclosure url="../audio/b.mp3" type="audio/mpeg" length="12"/></item>
        <item><title>C</title><link>
            https://other.example/c
          </link></item>
        <item><title>D</title><link>javascript:alert(1)</link></item>
        <item><title>E</title><link>/e?q=a b&amp;r=ü</link></item>
        <item><title>F</title><link>//proto.example/f</link></item>
        """, channel: "<title>Rel</title><link>/blog/</link>"))
    #expect(feed.homePageURL?.absoluteString == "https://example.org/blog/")
    let links = feed.items.map { $0.link?.absoluteString }
    #expect(links[0] == "https://example.org/blog/posts/a.html")
    #expect(links[1] == "https://cdn.example.net/x/b.html")
    #expect(feed.items[1].enclosures.first?.url.absoluteString == "https://cdn.example.net/audio/b.mp3")
    #expect(links[2] == "https://other.example/c")
    #expect(links[3] == nil)
    #expect(feed.issues.contains { $0.kind == .unreadableURL && $0.itemIndex == 3 && $0.text == "javascript:alert(1)" })
    #expect(links[4] == "https://example.org/e?q=a%20b&r=%C3%BC")
    #expect(links[5] == "https://proto.example/f")
  }

  @Test("RSS without a channel link: the feed URL is the base")
  func rssFeedURLBase() throws {
    let feed = try parseFeed(rss("<item><title>A</title><link>../a</link></item>", channel: "<title>T</title>"))
    #expect(feed.items[0].link?.absoluteString == "https://example.org/a")
  }

  @Test("RSS: a permalink guid is the link when there is none; a guid with isPermaLink=false is not")
  func guidAsLink() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>A</title><guid>https://example.org/a</guid></item>
        <item><title>B</title><guid isPermaLink="false">https://example.org/b</guid></item>
        <item><title>C</title><guid>tag:example.org,2024:c</guid></item>
        <item><title>D</title><atom:link rel="alternate" href="https://example.org/d"/></item>
        """))
    #expect(feed.items.map { $0.link?.absoluteString } == ["https://example.org/a", nil, nil, "https://example.org/d"])
    #expect(
      feed.items.map(\.guid) == ["https://example.org/a", "https://example.org/b", "tag:example.org,2024:c", nil])
    #expect(feed.items.map(\.guidIsPermaLink) == [true, false, true, false])
  }

  @Test("Atom: nested xml:base, the alternate link (or none), never related or self")
  func atomBases() throws {
    let feed = try parseFeed(
      """
      <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/blog/">
      <title>T</title><link href="/"/><link rel="self" href="feed.atom"/>
      <entry xml:base="2024/"><title>A</title><link href="a.html"/><id>tag:a</id></entry>
      <entry><title>B</title><link rel="related" href="https://elsewhere.example/"/><link rel="alternate" href="b"/>
        <id>tag:b</id></entry>
      <entry><title>C</title><link rel="self" href="c"/><link rel="related" href="d"/><id>tag:c</id></entry>
      <entry><title>E</title><link rel="alternate" type="application/pdf" href="e.pdf"/>
        <link rel="alternate" type="text/html" href="e.html"/><id>tag:e</id></entry>
      </feed>
      """, url: "https://feeds.example/t.atom")
    #expect(feed.homePageURL?.absoluteString == "https://example.org/")
    #expect(
      feed.items.map { $0.link?.absoluteString } == [
        "https://example.org/blog/2024/a.html", "https://example.org/blog/b", nil, "https://example.org/blog/e.html",
      ])
  }

  @Test("without xml:base, Atom links resolve against the feed URL")
  func atomFeedURLBase() throws {
    let feed = try parseFeed(
      atom("<entry><title>A</title><link href=\"/a\"/><id>1</id></entry>"), url: "https://feeds.example/x/y.atom")
    #expect(feed.items[0].link?.absoluteString == "https://feeds.example/a")
  }
}

@Suite("Feeds: titles")
struct FeedTitleTests {
  @Test("plain text, entities decoded once, white space collapsed")
  func plainTitles() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>  Q&amp;A:
          &lt;b&gt; is &amp;amp; </title></item>
        <item><title><![CDATA[Fish & <Chips>]]></title></item>
        """))
    #expect(feed.items[0].title == "Q&A: <b> is &amp;")
    #expect(feed.items[1].title == "Fish & <Chips>")
    #expect(feed.items.allSatisfy { !$0.titleIsDerived })
  }

  @Test("Atom: an html title is read into text, an xhtml title is its text")
  func atomTitleTypes() throws {
    let feed = try parseFeed(
      atom(
        """
        <entry><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title><id>1</id></entry>
        <entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">X <i>and</i> Y</div></title><id>2</id></entry>
        <entry><title type="text">&lt;b&gt; stays</title><id>3</id></entry>
        """))
    #expect(feed.items.map(\.title) == ["Bold & more", "X and Y", "<b> stays"])
  }

  @Test("an item without a title gets one from its text: the first sentence, else 80 characters and …")
  func derivedTitles() throws {
    let long = String(repeating: "word ", count: 30)
    let feed = try parseFeed(
      rss(
        """
        <item><description>&lt;p&gt;First sentence &lt;b&gt;here&lt;/b&gt;. Second one.&lt;/p&gt;</description></item>
        <item><description>\(long)</description></item>
        <item><title></title><content:encoded><![CDATA[<p>Only <em>content</em> here</p>]]></content:encoded></item>
        <item><link>https://example.org/posts/7</link></item>
        <item><guid isPermaLink="false">x</guid></item>
        <item><description><![CDATA[<script>alert(1)</script><p>After the script!</p>]]></description></item>
        """))
    #expect(
      feed.items.map(\.title) == [
        "First sentence here.", String(long.prefix(79)) + "…", "Only content here", "example.org/posts/7", "Untitled",
        "After the script!",
      ])
    #expect(feed.items.allSatisfy { $0.titleIsDerived })
  }

  @Test(
    "the derivation rule on its own",
    arguments: [
      ("Went to the beach. The water was cold.", "Went to the beach."),
      ("Is it? Yes.", "Is it?"),
      ("No sentence end here at all", "No sentence end here at all"),
      ("Version 1.2 is out. Get it", "Version 1.2 is out."),
      ("   spaced\n\tout   text  ", "spaced out text"),
      ("", nil),
    ] as [(String, String?)])
  func derivationRule(text: String, expected: String?) {
    #expect(ArticleTitle.derived(from: text) == expected)
  }

  @Test("a cut title ends at a word and never with a comma")
  func cutAtWord() throws {
    let text = String(repeating: "abcdefghi, ", count: 12)
    let title = try #require(ArticleTitle.derived(from: text))
    #expect(title.hasSuffix("abcdefghi…"))
    #expect(title.count <= 81)
    let unbroken = String(repeating: "x", count: 120)
    #expect(ArticleTitle.derived(from: unbroken) == String(repeating: "x", count: 80) + "…")
  }
}

@Suite("Feeds: entities and broken XML")
struct FeedRecoveryTests {
  @Test("undefined HTML entities are read as HTML's; the entities after them are kept; the item too")
  func htmlEntities() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>A&nbsp;&mdash;&nbsp;B &amp; C</title>
          <description>x&nbsp;y &lt;b&gt;bold&lt;/b&gt; &hellip; &copy; &#8217;</description></item>
        <item><title>Second &amp; &lt;kept&gt;</title></item>
        """))
    #expect(feed.items.count == 2)
    #expect(feed.items[0].title == "A — B & C")
    #expect(feed.items[0].summary?.value == "x\u{A0}y <b>bold</b> … © ’")
    #expect(feed.items[1].title == "Second & <kept>")
    let issue = try #require(feed.issues.first { $0.kind == .htmlEntity })
    #expect(issue.message.contains("&nbsp; (3×)"))
    #expect(!feed.issues.contains { $0.kind == .recoveredXML })
  }

  @Test("an entity neither XML nor HTML defines is lost alone: the later &amp; and &lt; stay")
  func unknownEntity() throws {
    let feed = try parseFeed(
      rss(
        """
        <item><title>one &bogus; two</title><description>&lt;p&gt;kept &amp; sound&lt;/p&gt;</description></item>
        <item><title>Later &amp; &lt;fine&gt;</title></item>
        """))
    #expect(feed.items.count == 2)
    #expect(feed.items[0].title == "one two")
    #expect(feed.items[0].summary?.value == "<p>kept & sound</p>")
    #expect(feed.items[1].title == "Later & <fine>")
    let issue = try #require(feed.issues.first { $0.kind == .recoveredXML })
    #expect(issue.message.contains("bogus"))
    #expect(issue.line == 6)
  }

  @Test("a stray & and an unclosed item: recovered, reported with line and column, items kept")
  func brokenXML() throws {
    let document = """
      <rss version="2.0"><channel><title>Broken</title>
      <item><title>AT&T rocks</title><description>&lt;p&gt;x &amp; y&lt;/p&gt;</description></item>
      <item><title>Two</title><link>https://example.org/2</link>
      </channel></rss>
      """
    let feed = try parseFeed(document)
    #expect(feed.items.count == 2)
    #expect(feed.items[0].title.hasPrefix("AT"))
    #expect(feed.items[0].summary?.value == "<p>x & y</p>")
    #expect(feed.items[1].title == "Two")
    #expect(feed.items[1].link?.absoluteString == "https://example.org/2")
    let recovered = feed.issues.filter { $0.kind == .recoveredXML }
    #expect(recovered.count >= 2)
    #expect(recovered.first?.line == 2)
    #expect((recovered.first?.column ?? 0) > 0)
    #expect(recovered.first?.description.hasPrefix("https://example.org/feeds/main.xml:2:") == true)
  }

  @Test("bare ampersands are kept as text and reported once with their place; references, CDATA, comments untouched")
  func bareAmpersands() throws {
    let document = """
      <rss version="2.0"><channel><title>Q&A</title>
      <item><title>AT&T and Barnes & Noble merge</title><description>Q&A: R&D at P&G</description></item>
      <item><title>&amp; &#38; &#x26; &lt; &nbsp;kept</title><description><![CDATA[a &amp; b & c]]></description></item>
      <!-- R&D --><item><title><![CDATA[Tom & Jerry]]></title><link>https://example.org/a?x=1&y=2</link></item>
      </channel></rss>
      """
    let feed = try parseFeed(document)
    #expect(feed.title == "Q&A")
    #expect(feed.items.map(\.title) == ["AT&T and Barnes & Noble merge", "& & & < kept", "Tom & Jerry"])
    #expect(feed.items[0].summary?.value == "Q&A: R&D at P&G")
    #expect(feed.items[1].summary?.value == "a &amp; b & c", "CDATA is literal: nothing added")
    #expect(feed.items[2].link?.absoluteString == "https://example.org/a?x=1&y=2")
    let recovered = feed.issues.filter { $0.kind == .recoveredXML }
    #expect(recovered.count == 1, "\(recovered)")
    #expect(recovered.first?.message.contains("7 bare \"&\" kept as text") == true, "\(recovered)")
    #expect(recovered.first?.line == 1 && recovered.first?.column == 37, "\(recovered)")
  }

  @Test("a truncated end (elements open at the end, no end tag of the root) is refused, not read in part")
  func truncatedEnd() throws {
    let document = Data(
      """
      <rss version="2.0"><channel><title>Broken</title>
      <item><title>One</title></item>
      <item><title>Two</title><link>https://example.org/2</link>
      """.utf8)
    #expect {
      try FeedParser.parse(document, feedURL: try #require(URL(string: "https://example.org/feeds/main.xml")))
    } throws: { error in
      guard case .truncated(_, _, _, let message) = error as? FeedParseError else { return false }
      return message.hasPrefix("Premature end of data in tag item")  // the innermost open element
    }
  }

  @Test("an element left open: libxml2 closes it at the next end tag; the item is kept with its text")
  func unclosedElement() throws {
    let feed = try parseFeed(
      """
      <rss version="2.0"><channel><title>Broken</title>
      <item><title>One</title><link>https://example.org/1</link></item>
      <item><title>Two</title><description>text &lt;i&gt;<b>bold</description></item>
      </channel></rss>
      """)
    #expect(feed.items.map(\.title) == ["One", "Two"])
    #expect(feed.items[1].summary?.value == "text <i>bold")
    #expect(feed.issues.contains { $0.kind == .recoveredXML && $0.line == 3 })
  }

  @Test("entities a document declares are read; nested declarations cannot expand without bound")
  func declaredEntities() throws {
    let declared = try parseFeed(
      """
      <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY co "ACME &amp; Sons">]>
      <rss version="2.0"><channel><title>&co;</title><item><title>By &co;</title></item></channel></rss>
      """)
    #expect(declared.title == "ACME & Sons")
    #expect(declared.items.first?.title == "By ACME & Sons")

    var levels = "<!ENTITY l0 \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">"
    for level in 1...9 {
      levels += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">"
    }
    let laughs = """
      <?xml version="1.0"?><!DOCTYPE rss [\(levels)]>
      <rss version="2.0"><channel><title>x</title><item><title>&l9;</title></item></channel></rss>
      """
    let start = Date()
    let result = Result { try parseFeed(laughs) }
    #expect(Date().timeIntervalSince(start) < 10)
    if case .success(let feed) = result {
      #expect((feed.items.first?.title.utf8.count ?? 0) <= FeedParser.maximumDocumentSize)
    }
  }

  @Test(
    "what libxml2 cannot recover into a feed is refused with a typed error",
    arguments: [
      ("", "empty"), ("  \n\t ", "empty"), ("hello world", "notWellFormed"), ("\u{0}\u{1}\u{2}binary", "notWellFormed"),
      ("<opml version=\"2.0\"><head/><body/></opml>", "opml"), ("<html><body><p>hi</p></body></html>", "html"),
      ("<?xml version=\"1.0\"?><catalog><book/></catalog>", "unknown"),
      ("{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"title\":\"cut", "jsonFeed"), ("[1,2]", "json"),
      ("<?xml version=\"1.0\"?>", "notWellFormed"),
      ("<rss version=\"2.0\"><channel><item><title>One</title></item><item><title>Tw", "truncated"),
    ])
  func refused(text: String, expected: String) throws {
    let error = try #require(parseError(Data(text.utf8)), "\(text)")
    switch error {
    case .empty: #expect(expected == "empty")
    case .notWellFormed(let feed, let line, _, let message):
      #expect(expected == "notWellFormed", "\(error)")
      #expect(feed.absoluteString == "https://example.org/feed")
      #expect(line >= 0)
      #expect(!message.isEmpty)
    case .notAFeed(_, _, _, let kind):
      #expect(kind.rawValue == expected, "\(error)")
    case .json(_, let isJSONFeed):
      #expect(expected == (isJSONFeed ? "jsonFeed" : "json"))
    case .truncated(_, let line, _, let message):
      #expect(expected == "truncated", "\(error)")
      #expect(line == 1 && message.contains("Premature end of data"), "\(message)")
    case .tooLarge:
      Issue.record("\(error)")
    }
    #expect(error.description.hasPrefix("https://example.org/feed"))
  }

  @Test("libxml2's message, line and column name the place of an unrecoverable document")
  func notWellFormedMessage() throws {
    guard case .notWellFormed(_, let line, let column, let message)? = parseError(Data("\n\nplain text".utf8)) else {
      Issue.record("not refused as not well-formed")
      return
    }
    #expect(line == 3)
    #expect(column >= 1)
    #expect(message.contains("Start tag expected"))
  }

  /// A feed whose prologue is broken before its root element: what libxml2 says, where (never "a web page", never
  /// "not a feed"), with the line of the construct libxml2 could not close.
  static let brokenPrologues: [(name: String, text: String, line: Int, message: String)] = [
    (
      "DOCTYPE never closed",
      #"<?xml version="1.0"?>\#n<!DOCTYPE rss PUBLIC "-//Netscape//DTD RSS 0.91//EN" "x.dtd""#
        + "\n<rss version=\"0.91\"><channel><title>T</title><item><title>One</title></item></channel></rss>\n", 3,
      "DOCTYPE improperly terminated"
    ),
    (
      "DOCTYPE first, never closed",
      #"<!DOCTYPE rss PUBLIC "-//Netscape//DTD RSS 0.91//EN""#
        + "\n<rss version=\"0.91\"><channel><title>T</title><item><title>One</title></item></channel></rss>\n", 2,
      "SystemLiteral"
    ),
    ("DOCTYPE cut off", #"<?xml version="1.0"?>\#n<!DOCTYPE rss PUBLIC "-//Netscape"#, 2, "Public ID"),
    (
      "comment never closed", "<!-- generated\n<rss version=\"2.0\"><channel><title>T</title></channel></rss>\n", 3,
      "Comment not terminated"
    ),
    (
      "processing instruction never closed",
      "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"x.xsl\"\n<feed xmlns=\"http://www.w3.org/2005/Atom\"/>\n", 4,
      "never end"
    ),
  ]

  @Test("a feed whose prologue breaks before its root is refused with libxml2's error and place, as a feed")
  func brokenPrologue() throws {
    for broken in Self.brokenPrologues {
      let data = Data(broken.text.utf8)
      // A feed's start tag after the break makes it a feed; a document cut inside its DOCTYPE has none to show.
      let kind = FeedFormatSniffer.kind(of: data)
      #expect(kind == (broken.text.contains("<rss") || broken.text.contains("<feed") ? .xmlFeed : .unknown))
      let error = parseError(data)
      guard case .notWellFormed(_, let line, let column, let message)? = error else {
        Issue.record("\(broken.name): \(String(describing: error))")
        continue
      }
      #expect(line == broken.line && column >= 1, "\(broken.name): \(line):\(column)")
      #expect(message.contains(broken.message), "\(broken.name): \(message)")
    }
    // An internal subset never closed is one libxml2 recovers from: the items are read, the error is a note.
    let subset =
      #"<?xml version="1.0"?>\#n<!DOCTYPE rss [ <!ENTITY a "b">\#n<rss version="2.0"><channel>"#
      + "<title>T</title><item><title>One</title><link>https://t.example/1</link></item></channel></rss>\n"
    let feed = try FeedParser.parse(Data(subset.utf8), feedURL: #require(URL(string: "https://example.org/feed")))
    #expect(feed.items.map(\.title) == ["One"])
    #expect(!feed.issues.isEmpty)
    // A page whose prologue breaks is still a page: a feed's tag counts only before any html, head or body.
    #expect(FeedFormatSniffer.kind(of: Data("<!-- x\n<html><body><rss ".utf8)) != .xmlFeed)
  }

  @Test("a document larger than the limit is refused before it is read")
  func tooLarge() {
    let data = Data(count: FeedParser.maximumDocumentSize + 1)
    guard case .tooLarge(_, let bytes)? = parseError(data) else {
      Issue.record("not refused as too large")
      return
    }
    #expect(bytes == FeedParser.maximumDocumentSize + 1)
  }
}
