import Foundation
import OfflineNewsModel

/// The feed formats ``FeedParser`` reads: the XML ones told apart by the document's root element and its namespace,
/// JSON Feed by its `version`.
public enum FeedFormat: String, Sendable, Hashable, CaseIterable {
  /// RSS 0.90: `<rdf:RDF>` with the Netscape namespace `http://my.netscape.com/rdf/simple/0.9/`.
  case rss090
  /// RSS 0.91 (Netscape/UserLand): `<rss version="0.91">`.
  case rss091
  /// RSS 0.92 (also 0.93 and 0.94): `<rss version="0.92">`.
  case rss092
  /// RSS 2.0 (<https://www.rssboard.org/rss-specification>): `<rss version="2.0">`, or an `<rss>` of any other or no
  /// version.
  case rss20
  /// RSS 1.0 (<https://web.resource.org/rss/1.0/spec>): `<rdf:RDF>` with items in `http://purl.org/rss/1.0/`.
  case rdf
  /// Atom 0.3 (the 2003 draft): `<feed>` in `http://purl.org/atom/ns#`.
  case atom03
  /// Atom 1.0 (RFC 4287, <https://www.rfc-editor.org/rfc/rfc4287>): `<feed>` in `http://www.w3.org/2005/Atom` (or a
  /// `<feed>` in no namespace).
  case atom10
  /// JSON Feed 1.0 (<https://www.jsonfeed.org/version/1/>): `"version": "https://jsonfeed.org/version/1"`.
  case jsonFeed10
  /// JSON Feed 1.1 (<https://www.jsonfeed.org/version/1.1/>): `"version": "https://jsonfeed.org/version/1.1"`.
  case jsonFeed11

  /// Whether the format is one of the RSS family (RSS 0.9x, 1.0, 2.0); `false` for Atom and JSON Feed.
  package var isRSS: Bool { ![.atom03, .atom10, .jsonFeed10, .jsonFeed11].contains(self) }
}

/// A feed document, read into one model for every format.
///
/// For example:
/// ```swift
/// let feed = try FeedParser.parse(data, feedURL: URL(string: "https://example.org/feed")!, charset: "utf-8")
/// for item in feed.items { print(item.published as Any, item.title, item.link as Any) }
/// for issue in feed.issues { print(issue) }   // values that could not be read; the items are kept
/// ```
public struct ParsedFeed: Sendable, Hashable {
  /// The format, from the content (never from a file name or `Content-Type`).
  public var format: FeedFormat
  /// The URL the document was read from, as given to the parser; relative links fall back to it.
  public var feedURL: URL
  /// The feed's title as plain text (RSS `channel/title`, Atom `feed/title`), white space collapsed; `nil` when absent.
  public var title: String?
  /// The site the feed belongs to: RSS `channel/link`, Atom `feed/link` with `rel="alternate"` (or no `rel`),
  /// resolved to an absolute URL.
  public var homePageURL: URL?
  /// The language: RSS `language` or `dc:language`, Atom `xml:lang` of `feed`, e.g. `en-us`.
  public var language: String?
  /// The feed's author: Atom `feed/author/name`; RSS `dc:creator`, `itunes:author` or `managingEditor`. Items
  /// without an author of their own carry this one.
  public var author: String?
  /// The feed's image: RSS `channel/image/url` or `itunes:image`, Atom `logo` or `icon`.
  public var imageURL: URL?
  /// The items (RSS `item`, Atom `entry`), in document order.
  public var items: [FeedItem] = []
  /// What could not be read: recovered XML errors, HTML entities, unreadable dates and URLs. Each cost a value, never
  /// an item.
  public var issues: [FeedIssue] = []
}

/// A value of a feed that could not be read as it stands, and what was done instead.
///
/// Its description reads like `https://example.org/feed: item[3].pubDate: not an RFC 822 date: "yesterday"; value
/// dropped`. Item positions are 0-based, in document order.
public struct FeedIssue: Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem it is.
  public enum Kind: String, Sendable, Hashable {
    /// libxml2 found the document not well-formed and recovered (the text says where and what).
    case recoveredXML
    /// Entities XML does not define were read as HTML's (`&nbsp;`).
    case htmlEntity
    /// The character encoding was decided against what a label said.
    case encoding
    /// A date that no supported form reads; the value is `nil`.
    case unreadableDate
    /// A link, image or enclosure URL that is not an absolute `http(s)` URL after resolution; the value is `nil`.
    case unreadableURL
    /// An entry of a subscription list that is not subscribed to (a newsboat query feed, an `exec:` or `filter:`
    /// line), or a part of one that is not kept (newsboat's hidden mark, its tags after the first): ``NewsboatURLs``.
    case notSubscribed
  }

  /// What kind of problem it is.
  public var kind: Kind
  /// The feed's URL.
  public var feed: URL
  /// The item's position (0-based, in document order), or `nil` for the feed or the document.
  public var itemIndex: Int?
  /// The element or attribute, e.g. `pubDate`, `link`, `enclosure@url`; `nil` for the document.
  public var element: String?
  /// The text that could not be read (cut to 200 characters), when there is one.
  public var text: String?
  /// What was wrong and what was done.
  public var message: String
  /// The 1-based line in the document, when known.
  public var line: Int?
  /// The 1-based column on that line, when known.
  public var column: Int?

  package init(
    kind: Kind, feed: URL, itemIndex: Int? = nil, element: String? = nil, text: String? = nil, message: String,
    line: Int? = nil, column: Int? = nil
  ) {
    self.kind = kind
    self.feed = feed
    self.itemIndex = itemIndex
    self.element = element
    self.text = text.map { $0.count > 200 ? String($0.prefix(200)) + "…" : $0 }
    self.message = message
    self.line = line
    self.column = column
  }

  public var description: String {
    let place = IssuePlace.path(itemIndex.map { "item[\($0)]" } ?? "", element ?? "")
    // Shown without passwords (``NewsQuery/shown(inText:)``): the feed's URL and a value quoted from the file.
    var text = NewsQuery.shown(feed)
    if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
    if !place.isEmpty { text += ": " + place }
    text += ": " + message
    if let value = self.text { text += ": \"\(NewsQuery.passwordsShown(in: value))\"" }
    return text
  }
}
