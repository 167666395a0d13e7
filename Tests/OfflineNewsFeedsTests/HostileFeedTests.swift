import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

/// Seeded random damage to feed documents: every damaged document is read as a feed or refused with a typed error,
/// never a crash or a hang (the fuzz harnesses of `Fuzz/` do not cover feeds yet; this is the cheap, deterministic
/// part of that).
@Suite("Feeds: damaged documents never crash the parser")
struct HostileFeedTests {
  private static let insertions: [[UInt8]] =
    [
      "&", "<", ">", "]]>", "<![CDATA[", "&nbsp;", "&#x0;", "&#xD800;", "<!DOCTYPE x [<!ENTITY e \"&e;\">]>", "&e;",
      "\u{0}", "\u{FEFF}", "<item>", "</channel>", "xml:base=\"::\"", "<link>javascript:x</link>", "\u{FFFF}",
    ].map { Array($0.utf8) } + [[0xFF, 0xFE], [0xC3], [0xED, 0xA0, 0x80]]

  private static func damaged(_ document: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
    var bytes = document
    for _ in 0..<Int(generator.next() % 4 + 1) {
      guard !bytes.isEmpty else { break }
      let position = Int(generator.next() % UInt64(bytes.count))
      switch generator.next() % 4 {
      case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
      case 1: bytes.removeSubrange(position..<min(bytes.count, position + Int(generator.next() % 64)))
      case 2: bytes.insert(contentsOf: insertions[Int(generator.next() % UInt64(insertions.count))], at: position)
      default: bytes = Array(bytes.prefix(position))
      }
    }
    return bytes
  }

  @Test("2,000 damaged copies of our fixtures")
  func damagedDocuments() throws {
    let folder = Fixtures.own("feeds/encodings")
    var documents = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
      Array(try Data(contentsOf: folder.appendingPathComponent($0)))
    }
    documents.append(Array(try Data(contentsOf: Fixtures.own("feeds/subscriptions.opml"))))
    documents.append(
      Array(
        rss(
          """
          <item><title>A &amp; B</title><link>/a</link><description>&lt;p&gt;x&lt;/p&gt;</description>
            <pubDate>Sun, 17 Jan 2021 23:46:22 +0100</pubDate><enclosure url="/e.mp3" length="1" type="audio/mpeg"/>
            <media:thumbnail url="/t.jpg"/><dc:creator>C</dc:creator><category>x</category></item>
          """
        ).utf8))
    documents.append(
      Array(
        atom(
          "<entry><title type=\"html\">&lt;b&gt;T&lt;/b&gt;</title><id>1</id><content type=\"xhtml\">"
            + "<div xmlns=\"http://www.w3.org/1999/xhtml\"><p>x</p></div></content></entry>"
        ).utf8))
    let url = try #require(URL(string: "https://example.org/feed"))
    var generator = SplitMix64(seed: 13)  // the same damage on every run
    var read = 0
    var refused = 0
    for round in 0..<2000 {
      let document = documents[round % documents.count]
      let bytes = Self.damaged(document, &generator)
      do {
        let feed = try FeedParser.parse(Data(bytes), feedURL: url, charset: round % 7 == 0 ? "utf-8" : nil)
        read += 1
        for item in feed.items { #expect(!item.title.isEmpty) }
      } catch {
        refused += 1
        #expect(!error.description.isEmpty)
      }
      _ = FeedFormatSniffer.kind(of: Data(bytes))
      _ = FeedDiscovery.read(Data(bytes), pageURL: url)
      _ = try? OPML.read(Data(bytes), url: url)
    }
    #expect(read + refused == 2000)
    #expect(read > 500, "most damage is recovered from")
  }
}
