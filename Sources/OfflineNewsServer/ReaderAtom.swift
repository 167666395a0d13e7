import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// A stream as Google Reader's Atom output (`/reader/atom/<stream id>?n=…`), the form FeedHQ served and newsboat's
/// `urls-source "feedhq"` reads (each subscription is fetched as `/reader/atom/feed%2F…`): Atom 1.0 (RFC 4287) with
/// Google Reader's `gr:` attributes. Each entry's state is a `category` of scheme `http://www.google.com/reader/`
/// labelled `read` or `fresh` (unread) and, when bookmarked, `starred`: the labels newsboat reads to set an item read
/// or unread.
enum ReaderAtom {
  /// The scheme of Google Reader's state categories.
  static let scheme = "http://www.google.com/reader/"

  /// The Atom document of `items` (each with its feed; `facts` the arrival and served id of each, by key) of the
  /// stream `streamID` titled `title`.
  static func document(
    streamID: String, title: String, siteURL: String?, items: [(Article, ServedFeed)], facts: [String: SyncFacts],
    continuation: String?, updated: Date
  ) -> String {
    var xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <feed xmlns="http://www.w3.org/2005/Atom" xmlns:gr="http://www.google.com/schemas/reader/atom/">
      <generator uri="https://github.com/offlinenews">news serve</generator>
      <id>tag:google.com,2005:reader/\(escaped(streamID))</id>
      <title>\(escaped(title))</title>

      """
    if let siteURL { xml += "<link rel=\"alternate\" href=\"\(escaped(siteURL))\" type=\"text/html\"/>\n" }
    if let continuation { xml += "<gr:continuation>\(escaped(continuation))</gr:continuation>\n" }
    xml += "<updated>\(ServedDates.rfc3339(updated))</updated>\n"
    for (article, feed) in items {
      xml += entry(
        article, feed: feed, firstSeen: facts[article.url.absoluteString]?.firstSeen,
        servedID: ServedIdentifiers.servedID(of: article, in: facts))
    }
    xml += "</feed>\n"
    return xml
  }

  /// One `entry`; its `gr:crawl-timestamp-msec` is its arrival, `firstSeen` (else its publication date), its id
  /// the Reader item id of `servedID`.
  static func entry(_ article: Article, feed: ServedFeed, firstSeen: Date?, servedID: String) -> String {
    let link = (article.displayURL ?? article.url).absoluteString
    let crawled = Timestamp(firstSeen ?? article.publishedAt)
    let date = ServedDates.rfc3339(article.publishedAt)
    var xml = "<entry gr:crawl-timestamp-msec=\"\(crawled.millisecondsSince1970)\">\n"
    xml += "<id gr:original-id=\"\(escaped(link))\">\(ServedIdentifiers.readerItemID(ofServedID: servedID))</id>\n"
    var states = [("reading-list", ReaderStream.readingListID)]
    states.append(article.isRead ? ("read", ReaderStream.readID) : ("fresh", "user/-/state/com.google/fresh"))
    if article.isBookmarked { states.append(("starred", ReaderStream.starredID)) }
    for (label, term) in states {
      xml += "<category term=\"\(term)\" scheme=\"\(scheme)\" label=\"\(label)\"/>\n"
    }
    if !feed.category.path.isEmpty {
      xml += "<category term=\"\(escaped(feed.category.streamID))\" label=\"\(escaped(feed.category.label))\"/>\n"
    }
    xml += "<title type=\"text\">\(escaped(article.title))</title>\n"
    xml += "<published>\(date)</published>\n<updated>\(date)</updated>\n"
    xml += "<link rel=\"alternate\" href=\"\(escaped(link))\" type=\"text/html\"/>\n"
    for enclosure in article.enclosures {
      xml += "<link rel=\"enclosure\" href=\"\(escaped(enclosure.url.absoluteString))\""
      if let type = enclosure.type { xml += " type=\"\(escaped(type))\"" }
      if let length = enclosure.length { xml += " length=\"\(length)\"" }
      xml += "/>\n"
    }
    xml += "<content type=\"html\">\(escaped(servedContent(of: article)))</content>\n"
    if let author = article.author, !author.isEmpty { xml += "<author><name>\(escaped(author))</name></author>\n" }
    xml +=
      "<source gr:stream-id=\"\(escaped(feed.streamID))\"><id>tag:google.com,2005:reader/\(escaped(feed.streamID))</id>"
    xml +=
      "<title>\(escaped(feed.title))</title><link rel=\"alternate\" href=\"\(escaped(feed.siteURL))\" type=\"text/html\"/></source>\n"
    xml += "</entry>\n"
    return xml
  }

  /// `text` escaped for XML character data and attribute values (`&`, `<`, `>`, `"`), with the characters XML 1.0
  /// forbids (C0 controls but tab, newline and carriage return) left out.
  static func escaped(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
