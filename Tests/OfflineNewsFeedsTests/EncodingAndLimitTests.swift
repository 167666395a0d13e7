import Foundation
import OfflineNewsFeeds
import Testing

/// Encodings a feed declares where XML does not allow it, the same bytes never decoded twice, and limits that cut
/// nothing silently (issue 29, items 2 and 6).
@Suite("Feeds: declarations after white space, one decoding, large items read whole")
struct EncodingAndLimitTests {
  private static let url = URL(fileURLWithPath: "/feeds/feed.xml")

  /// `prefix` bytes, then `<?xml … encoding="label"?>` and an RSS document with `title`, encoded by iconv's name.
  private static func document(prefix: [UInt8], label: String, title: String, encoding: String.Encoding) throws
    -> Data
  {
    let head = "<?xml version=\"1.0\" encoding=\"\(label)\"?>\n<rss version=\"2.0\"><channel><title>"
    let body = try #require(title.data(using: encoding))
    return Data(prefix) + Data(head.utf8) + body + Data("</title></channel></rss>".utf8)
  }

  @Test(
    "white space before the XML declaration (after a BOM or at the start) does not lose its encoding",
    arguments: [[0x0A], [0x20, 0x20, 0x0A], [0x0D, 0x0A, 0x09]] as [[UInt8]])
  func declarationAfterWhiteSpace(prefix: [UInt8]) throws {
    // r-lib/xml2#181: a WordPress feed (physicsworld.com) with a blank line before <?xml …?>, "XML declaration
    // allowed only at the start of the document"; benbalter.github.com#158: Liferea refused such a feed. libxml2
    // recovers but ignores the declaration, so a windows-1251 title was read as windows-1252.
    let data = try Self.document(prefix: prefix, label: "windows-1251", title: "Привет, мир", encoding: .windowsCP1251)
    let feed = try FeedParser.parse(data, feedURL: Self.url)
    #expect(feed.title == "Привет, мир")
    #expect(!feed.issues.contains { $0.kind == .recoveredXML }, "\(feed.issues)")
    #expect(
      feed.issues.contains { $0.kind == .encoding && $0.message.contains("white space before the XML declaration") })

    let bom = try Self.document(prefix: [0xEF, 0xBB, 0xBF] + prefix, label: "utf-8", title: "Grüße", encoding: .utf8)
    #expect(try FeedParser.parse(bom, feedURL: Self.url).title == "Grüße")
  }

  @Test("the HTTP charset and the declaration are combined as RFC 7303 says, and the bytes are decoded once")
  func decodedOnce() throws {
    // RFC 7303 §3.2: the charset parameter wins over the declaration. A UTF-8 body declaring ISO-8859-1, served as
    // charset=utf-8, is UTF-8: "Café", never the double decoding "CafÃ©".
    let data = try Self.document(prefix: [], label: "ISO-8859-1", title: "Café", encoding: .utf8)
    #expect(try FeedParser.parse(data, feedURL: Self.url, charset: "utf-8").title == "Café")
    // Without the header, the declaration decides (the same bytes read as windows-1252, as declared).
    #expect(try FeedParser.parse(data, feedURL: Self.url).title == "CafÃ©")
    // A label iconv knows under another name is still one decoding: KOI8-R bytes, charset in quotes and in any case.
    let koi = try Self.document(prefix: [], label: "koi8-r", title: "Привет", encoding: .init(rawValue: 0x8000_0A02))
    #expect(try FeedParser.parse(koi, feedURL: Self.url, charset: "\"KOI8-R\"").title == "Привет")
  }

  @Test("one item larger than libxml2's 10 MB text limit is read whole, and the items after it are kept")
  func hugeItem() throws {
    // nokogiri#740 ("huge text node" cut), nokogiri#1869: a CDATA section over 10 MB made every later node vanish.
    let big = String(repeating: "<p>0123456789</p>", count: 700_000)  // 11.9 MB
    let xml = """
      <rss version="2.0"><channel><title>Big</title>
      <item><title>One</title><link>https://example.org/1</link><description><![CDATA[\(big)]]></description></item>
      <item><title>Two</title><link>https://example.org/2</link><description>small</description></item>
      </channel></rss>
      """
    let feed = try FeedParser.parse(Data(xml.utf8), feedURL: Self.url)
    #expect(feed.items.map(\.title) == ["One", "Two"])
    #expect(feed.items.first?.summary?.value.utf8.count == big.utf8.count)
    #expect(feed.issues.isEmpty, "\(feed.issues)")
  }

  @Test("a document over the 64 MiB cap is refused with a message that says so, never read in part")
  func overTheCap() throws {
    let data = Data(repeating: 0x20, count: FeedParser.maximumDocumentSize + 1)
    do {
      _ = try FeedParser.parse(data, feedURL: Self.url)
      Issue.record("read")
    } catch {
      guard case .tooLarge = error else {
        Issue.record("\(error)")
        return
      }
      #expect(error.description.contains("more than the \(FeedParser.maximumDocumentSize) a feed may have"))
    }
  }
}
