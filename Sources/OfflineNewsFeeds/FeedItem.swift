import Foundation
import OfflineNewsHTML
import OfflineNewsModel

/// One item of a feed (RSS `item`, Atom `entry`), in the one model every format is read into.
///
/// **Identity.** A feed item has no single key every format gives. The integrator derives the article's identity in
/// this order:
/// 1. the canonical form of ``permalink`` for a linkblog item, else of ``link`` (when the item has one);
/// 2. else ``guid`` scoped to the feed (`feedURL` + `guid`: two feeds' item `"1"` are different items);
/// 3. else `contentFingerprint` scoped to the feed: an item with neither link nor guid (RSS allows it) keeps the
///    same identity on every fetch as long as its title, date, text and enclosures do not change.
public struct FeedItem: Sendable, Hashable {
  /// The item's position in the document (0-based).
  public var index: Int
  /// The item's web page, absolute `http(s)`:
  /// - RSS: `link`, else `atom:link` with `rel="alternate"`, else a `guid` that is a permalink (RSS 2.0:
  ///   `isPermaLink` absent or `true`) and an absolute `http(s)` URL; RDF: `link`, else `rdf:about` when it is one;
  /// - Atom: the `link` with `rel="alternate"` or no `rel` (one with `type` `text/html` preferred), never `related`,
  ///   `self`, `via` or `enclosure`.
  ///
  /// Relative references are resolved per RFC 3986 §5 (<https://www.rfc-editor.org/rfc/rfc3986#section-5>) against
  /// the `xml:base` in scope (itself resolved against the feed URL), else — in RSS — the channel's link, else the
  /// feed's URL.
  public var link: URL?
  /// The item's own page on the feed's site when ``link`` points elsewhere — a linkblog item, whose link is the
  /// article it comments on: RSS, a permalink `guid` (``guidIsPermaLink``) on the site of the feed's home page beside
  /// a `link` to another site; Atom, a `link rel="related"` on the feed's site beside an alternate link to another
  /// (Daring Fireball's convention). `nil` for every other item. The article is keyed by it (docs/ARCHITECTURE.md,
  /// "Feeds": the linkblog rule), so that the post read as RSS, Atom or JSON Feed (`url` beside `external_url`) is
  /// one article.
  public var permalink: URL?
  /// RSS `guid`, Atom `id`, RSS 1.0 `rdf:about`; trimmed, as written otherwise. `nil` when absent or empty.
  public var guid: String?
  /// RSS 2.0 `guid@isPermaLink`: `true` when the item has a `guid` and the attribute is absent or `true`; `false`
  /// without a guid. Always `false` for Atom ids and RSS
  /// 1.0 `rdf:about` (they name the item; they need not be its page).
  public var guidIsPermaLink: Bool
  /// The title as plain text: entities decoded exactly once (as XML decodes them; an Atom `type="html"` title is
  /// HTML and is read into text), white space collapsed to single spaces and trimmed. Never empty: a titleless item
  /// gets a title derived from its text (see ``titleIsDerived`` and `ArticleTitle.derived(from:)`).
  public var title: String
  /// Whether ``title`` was derived from the item's text because the item had none.
  public var titleIsDerived: Bool
  /// The summary: RSS `description` (an RSS `summary` when there is one beside it), else `dc:description`,
  /// `dcterms:abstract` or `itunes:summary`; Atom `summary`. Relative references inside HTML are resolved.
  public var summary: FeedText?
  /// The full content: RSS `content:encoded`, else `xhtml:body` or `fullitem` (or the `description` beside an RSS
  /// `summary`); Atom `content` (inline; an out-of-line `src` gives `nil`; Base64 of another media type decoded when
  /// it is UTF-8 text). Relative references inside HTML are resolved against the base in scope.
  public var content: FeedText?
  /// The author: RSS `author` (`name@example.org (Name)` is read as `Name`), `dc:creator` or `dc:author` (several
  /// joined by `, `),
  /// `itunes:author`; Atom `author/name` (several joined), else the entry's `source/author`; else the feed's
  /// ``ParsedFeed/author``. `nil` when none of them is given.
  public var author: String?
  /// When the item was published (UTC, whole milliseconds), read by `Timestamp(feedDate:)`: RSS `pubDate`, else
  /// `dcterms:issued` or `dcterms:created`, else `dc:date`; Atom 1.0 `published`, Atom 0.3 `issued`. `nil` when
  /// absent or unreadable (an unreadable one is also a ``FeedIssue``).
  public var published: Date?
  /// When the item was last changed (UTC, whole milliseconds): Atom 1.0 `updated`, Atom 0.3 `modified`; RSS
  /// `atom:updated` or `dcterms:modified`, else `dc:date`.
  public var updated: Date?
  /// The item's image: the first of `media:thumbnail`, `media:content` with `medium="image"` or an `image/` type
  /// (also inside `media:group`), an enclosure of an `image/` type, `itunes:image`.
  public var imageURL: URL?
  /// The attached files: RSS `enclosure`, Atom `link rel="enclosure"`, in document order.
  public var enclosures: [Enclosure]
  /// The categories (tags): RSS `category`, `dc:subject`, `media:category` texts and `itunes:category@text` (nested
  /// ones too), Atom `category@term`; trimmed, empty ones and repeats left out, in document order.
  public var categories: [String]
  /// A stable hash of the item's own content, for items with neither link nor guid: 32 hexadecimal digits (the first
  /// 128 bits of SHA-256) of the title as written (empty when derived), the date (``published``, else ``updated``,
  /// as RFC 3339 text; empty when none), the text (``content``, else ``summary``; empty when none) and the enclosure
  /// URLs, separated by U+001F. The same item read again gives the same fingerprint; a changed title, date, text or
  /// enclosure gives another. Computed when asked (only an item with neither link nor guid needs it): hashing every
  /// item's whole text was a tenth of a feed's decoding time.
  package var contentFingerprint: String {
    let date = (published ?? updated).map { Timestamp($0).rfc3339String } ?? ""
    let text = (content ?? summary)?.value ?? ""
    let fields = [titleIsDerived ? "" : title, date, text] + enclosures.map(\.url.absoluteString)
    return SHA256.hex(Array(fields.joined(separator: "\u{1F}").utf8), bytes: 16)
  }
}

/// A file attached to an item (a podcast episode's audio): RSS `enclosure`, Atom `link rel="enclosure"`, JSON Feed
/// `attachments`; the model's ``Enclosure``, which the article keeps. Its URL is absolute `http(s)` (resolved like
/// ``FeedItem/link``), its type as given (`nil` when absent), its length in bytes as given (`nil` when absent, not a
/// whole number, or negative; RSS 2.0 asks for bytes, feeds often write `0`, kept as `0`).
public typealias FeedEnclosure = Enclosure

/// A summary or content: its text and whether that text is HTML or plain text. HTML stays HTML (it is not
/// sanitised here); plain text stays plain text (it is not escaped).
public struct FeedText: Sendable, Hashable {
  /// How ``value`` is to be read.
  public enum Kind: String, Sendable, Hashable {
    /// HTML markup: RSS `description` and `content:encoded` (entity-encoded or CDATA HTML, RSS 2.0), Atom
    /// `type="html"` (the unescaped markup) and `type="xhtml"` (the children of its `div`, serialised).
    case html
    /// Plain text: Atom `type="text"` (the default) and other `text/` types.
    case text
  }

  /// The text: HTML or plain text, as ``kind`` says.
  public var value: String
  /// How ``value`` is written: HTML or plain text (RSS 2.0 `description`; RFC 4287 §3.1.1 `type`).
  public var kind: Kind
  /// The base URI in effect where the text was (its `xml:base`, else the feed's URL), for resolving relative links
  /// inside HTML.
  public var baseURL: URL?

  package init(value: String, kind: Kind, baseURL: URL? = nil) {
    self.value = value
    self.kind = kind
    self.baseURL = baseURL
  }

  /// The text without markup: for HTML, what a reader reads (``HTMLTextRenderer/text(of:)-(String)``: read by
  /// libxml2's HTML parser, scripts, styles and hidden elements left out, entities decoded, blocks apart by a blank
  /// line, list items with their `•` or number), without the final line break; for plain text, the text itself.
  public var plainText: String {
    guard kind == .html else { return value }
    var text = HTMLTextRenderer.text(of: value)
    if text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}
