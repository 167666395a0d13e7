import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import TestSupport
import Testing

/// `ArticleIdentity.escape` writes a scoped key's parts (`news-item:SCOPE/ID`) on their UTF-8 bytes; the keys of
/// stored articles must not change, so every text a real feed gives for a key — its URL and home page, each item's
/// guid, link, permalink and enclosures, and titles for their variety of characters — is escaped exactly as
/// Foundation's `addingPercentEncoding(withAllowedCharacters:)` escaped it for the same allowed set before.
@Suite("Scoped keys: escaped on bytes exactly as Foundation escaped them")
struct ScopedKeyEscapeTests {
  /// The set the keys were escaped with before (ASCII letters and digits, `-._~:@!$'()*+,;=`), and Foundation's
  /// escaping by it: the oracle.
  private static let allowed: CharacterSet = {
    var set = CharacterSet.alphanumerics.intersection(
      CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
    set.insert(charactersIn: "-._~:@!$'()*+,;=")
    return set
  }()

  private static func foundationEscape(_ text: String) -> String? {
    text.addingPercentEncoding(withAllowedCharacters: allowed)
  }

  @Test("texts with every kind of character")
  func edgeCases() {
    let texts = [
      "", "42", "a b", "a/b?c#d", "%", "%41", "100%", "[::1]", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "ß",
      "日本語", "😀", "tag:example.org,2025:1", "https://example.com/a?x=1&y=2#top", "\"quoted\" <b>&amp;</b>",
      "-._~:@!$'()*+,;=", "\\", "^`{|}", "\r\n\t",
    ]
    for text in texts {
      #expect(ArticleIdentity.escape(text) == Self.foundationEscape(text), "\(text.debugDescription)")
    }
  }

  @Test("every key text of every real feed", .enabled(if: Fixtures.hasSharedReal))
  func realFeeds() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: RealFeeds.folder.path)
      .filter { !$0.hasSuffix(".html") && !$0.hasSuffix(".opml") && !$0.hasSuffix(".md") }.sorted()
    #expect(names.count >= 12)
    var checked = 0
    for name in names {
      let feedURL = try #require(URL(string: "https://feeds.example/\(name)"))
      let feed = try FeedParser.parse(Data(contentsOf: RealFeeds.url(name)), feedURL: feedURL)
      var texts = [feedURL.absoluteString, feed.homePageURL?.absoluteString].compactMap { $0 }
      for item in feed.items {
        texts += [item.guid, item.link?.absoluteString, item.permalink?.absoluteString, item.title].compactMap { $0 }
        texts += item.enclosures.map(\.url.absoluteString)
      }
      for text in texts {
        #expect(ArticleIdentity.escape(text) == Self.foundationEscape(text), "\(name): \(text.debugDescription)")
      }
      checked += texts.count
    }
    #expect(checked > 500)
  }
}
