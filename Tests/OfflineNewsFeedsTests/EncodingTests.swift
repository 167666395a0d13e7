import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

/// The feeds of `Tests/Fixtures/feeds/encodings/`, written by `scripts/make-feed-encoding-fixtures.sh` with iconv:
/// the same text in each encoding, declared in the XML declaration.
@Suite("Feeds: character encodings (BOM, HTTP charset, XML declaration)")
struct EncodingTests {
  private static func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: Fixtures.own("feeds/encodings/\(name).xml"))
  }

  private static func parse(_ name: String, charset: String? = nil) throws -> ParsedFeed {
    let url = try #require(URL(string: "https://example.org/\(name).xml"))
    return try FeedParser.parse(fixture(name), feedURL: url, charset: charset)
  }

  @Test(
    "each declared encoding is honoured",
    arguments: [
      ("iso-8859-1", "Café à la crème, naïve façade"),
      ("iso-8859-2", "Příliš žluťoučký kůň úpěl ďábelské ódy"),
      ("iso-8859-5", "Съешь же ещё этих мягких булок"),
      ("iso-8859-7", "Καλημέρα κόσμε"),
      ("iso-8859-15", "Prix : 10 € pour une œuvre"),
      ("windows-1250", "Zażółć gęślą jaźń"),
      ("windows-1251", "Привет, мир"),
      ("windows-1252", "“Smart quotes” cost 5 € – ok"),
      ("windows-1253", "Ελληνικά γράμματα"),
      ("windows-1256", "مرحبا بالعالم"),
      ("koi8-r", "Привет, мир"),
      ("gb2312", "你好，世界"),
      ("gbk", "我們的世界"),
      ("shift_jis", "こんにちは世界"),
      ("euc-jp", "こんにちは世界"),
      ("euc-kr", "안녕하세요 세계"),
      ("utf-16le-bom", "Grüße, 你好, Привет"),
      ("utf-16be-bom", "Grüße, 你好, Привет"),
    ])
  func declared(name: String, text: String) throws {
    let feed = try Self.parse(name)
    #expect(feed.title == text, "\(name)")
    #expect(feed.items.first?.title == text, "\(name)")
    #expect(feed.items.first?.summary?.value == text, "\(name)")
    #expect(feed.issues.isEmpty, "\(name): \(feed.issues)")
  }

  @Test("labels are read as their WHATWG supersets: curly quotes in ISO-8859-1, GBK characters in GB2312")
  func supersets() throws {
    #expect(try Self.parse("latin1-label-cp1252-bytes").title == "“Quoted” text – with a dash")
    #expect(try Self.parse("gb2312-label-gbk-bytes").title == "我們的世界")
  }

  @Test("a byte order mark wins over the declaration and over the HTTP charset")
  func byteOrderMarkWins() throws {
    #expect(try Self.parse("utf8-bom-wrong-declaration").title == "Grüße aus Köln")
    let feed = try Self.parse("utf8-bom-wrong-declaration", charset: "windows-1251")
    #expect(feed.title == "Grüße aus Köln")
    #expect(feed.issues.contains { $0.kind == .encoding && $0.message.contains("byte order mark") })
    #expect(try Self.parse("utf-16le-bom", charset: "ISO-8859-1").title == "Grüße, 你好, Привет")
  }

  @Test("the HTTP charset wins over the XML declaration (RFC 7303 §3.2)")
  func charsetWins() throws {
    #expect(try Self.parse("cyrillic-declared-latin1", charset: "windows-1251").title == "Привет, мир")
    #expect(try Self.parse("cyrillic-declared-latin1").title != "Привет, мир")
    #expect(try Self.parse("undeclared-latin1", charset: "ISO-8859-1").title == "Café")
    #expect(try Self.parse("koi8-r", charset: "\"KOI8-R\"").title == "Привет, мир")
  }

  @Test("a charset of UTF-8 on bytes that are not UTF-8 gives way to the declaration, and says so")
  func wrongUTF8Charset() throws {
    let feed = try Self.parse("windows-1251", charset: "utf-8")
    #expect(feed.title == "Привет, мир")
    #expect(feed.issues.contains { $0.kind == .encoding && $0.message.contains("not UTF-8") })
  }

  @Test("no declaration and bytes that are not UTF-8: read as windows-1252, with an issue")
  func undeclaredFallback() throws {
    let feed = try Self.parse("undeclared-latin1")
    #expect(feed.title == "Café")
    #expect(feed.items.first?.title == "Café crème")
    #expect(feed.issues.contains { $0.kind == .encoding })
  }

  @Test("an unknown charset is ignored with an issue; the declaration is used")
  func unknownCharset() throws {
    let feed = try Self.parse("koi8-r", charset: "x-no-such-charset")
    #expect(feed.title == "Привет, мир")
    #expect(feed.issues.contains { $0.kind == .encoding && $0.message.contains("x-no-such-charset") })
  }

  @Test("the charset parameter is read out of a Content-Type value")
  func contentTypeCharset() {
    #expect(FeedParser.charset(fromContentType: "application/rss+xml; charset=ISO-8859-1") == "ISO-8859-1")
    #expect(FeedParser.charset(fromContentType: "text/xml;Charset=\"utf-8\"") == "utf-8")
    #expect(FeedParser.charset(fromContentType: "text/xml") == nil)
    #expect(FeedParser.charset(fromContentType: nil) == nil)
    #expect(FeedParser.charset(fromContentType: "text/xml; q=1; charset=") == nil)
  }
}
