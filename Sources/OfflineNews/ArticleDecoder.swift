import Foundation
import OfflineNewsFeeds
import OfflineNewsImport
import OfflineNewsNetwork
import OfflineNewsStorage

/// The decoder of every format a news source sends, told apart by the body's content (never by a file name or a
/// `Content-Type`), each handed to its one decoder:
///
/// | the body | decoded by |
/// |---|---|
/// | XML: RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3/1.0, and a JSON object with `"version": "https://jsonfeed.org/version/1…"` (JSON Feed 1.0, 1.1) | ``FeedParser`` (`decodeFeed`): one model, one set of identity, title and date rules |
/// | any other JSON | ``NewsAPIDecoder`` (NewsAPI v2) |
///
/// Articles are returned with their keys derived as every writer of `article` expects (``ArticleIdentity``), and
/// with the text of HTML summaries and contents for search (`summaryText`, `contentText`), as `news` stores them.
/// Give it to a network (`HTTPNewsNetwork(…, decoder: ArticleDecoder())`, `FileNewsNetwork`) so that an app reads every
/// format `news` reads.
public struct ArticleDecoder: NewsPageDecoder {
  private let newsAPI = NewsAPIDecoder()

  /// The decoder of every format.
  public init() {}

  /// Decodes a body of any source format (the table above), told apart by its content.
  ///
  /// - Parameters:
  ///   - data: the body, complete.
  ///   - origin: the request's URL, or the file's `file:` URL: the scope of item ids and the base of relative links.
  ///   - contentType: the response's `Content-Type` (its `charset` names the encoding of an XML body), if any.
  ///   - httpStatus: the HTTP status, or `nil` for a file.
  ///   - secrets: texts to redact from any error (API keys).
  /// - Throws: ``NewsNetworkError``: `.api` (a NewsAPI error body), `.httpStatus` for a non-2xx status,
  ///   `.invalidResponse` for a body that is not entirely of a known format, saying what it is (an HTML page, OPML,
  ///   …); nothing of such a body is used.
  public func decodePage(
    _ data: Data, origin: URL, contentType: String?, httpStatus: Int?, redacting secrets: [String]
  ) throws(NewsNetworkError) -> NewsPage {
    switch FeedFormatSniffer.kind(of: data) {
    case .jsonFeed:
      if let status = httpStatus, !(200..<300).contains(status) {
        throw .httpStatus(status, bodyPrefix: String(decoding: data.prefix(200), as: UTF8.self))
      }
      return try decodeFeed(data, origin: origin, contentType: contentType)
    case .xmlFeed where httpStatus.map { (200..<300).contains($0) } ?? true:
      return try decodeFeed(data, origin: origin, contentType: contentType)
    case .opml where httpStatus.map { (200..<300).contains($0) } ?? true:
      // Named as what it is (not "an XML document"): its feeds are added by `news import`, never fetched as one.
      throw .invalidResponse(
        BodyProblem(.subscriptionList, "\(Self.subscriptionListPrefix) (\(data.count) bytes), not a feed"))
    case .html where httpStatus.map { (200..<300).contains($0) } ?? true:
      // A web page where a feed was expected: named as one, with whether it announces a feed (what the person can
      // do next: `news add` finds an announced feed; an article page's text is `news extract`'s), never as "not
      // JSON". Here, where the body is at hand, for a file and a URL alike.
      throw .invalidResponse(Self.webPageProblem(data, contentType: contentType))
    case .unknown
    where (httpStatus.map { (200..<300).contains($0) } ?? true) && !Self.startsAsJSON(data)
      && ResponseBodySummary.nonText(data) == nil:
      // Text that is no JSON and was not told apart as a feed: markup whose XML breaks before its first element, or
      // text before a feed's `<?xml` (a PHP warning). Read as a feed, so that the error says what is wrong with it as
      // one — libxml2's error with its line and column, or the root element that is no feed's.
      if ResponseBodySummary.markupProblem(data, contentType: contentType)?.kind == .htmlPage {
        throw .invalidResponse(Self.webPageProblem(data, contentType: contentType))
      }
      do {
        return try decodeFeed(data, origin: origin, contentType: contentType)
      } catch {
        // Text before any markup: what it starts with says more than libxml2's "Start tag expected".
        guard case .invalidResponse(var problem) = error, let start = Self.textStart(data) else { throw error }
        problem.detail += "; it starts with \"\(start)\": neither a feed's XML nor JSON"
        throw .invalidResponse(problem)
      }
    default:
      return try newsAPI.decode(data, httpStatus: httpStatus, redacting: secrets, contentType: contentType)
    }
  }

  /// A web page's problem: ``BodyProblem/Kind/htmlPageAnnouncingNoFeed`` "an HTML page (text/html, 1,234 bytes)
  /// that announces no feed" when it has no feed link (``FeedDiscovery/announcesFeeds(_:)``), else
  /// ``BodyProblem/Kind/htmlPage`` "an HTML page (text/html, 1,234 bytes) that announces a feed, not the feed".
  static func webPageProblem(_ data: Data, contentType: String?) -> BodyProblem {
    let summary = ResponseBodySummary.markup(data, contentType: contentType) ?? "an HTML page (\(data.count) bytes)"
    return FeedDiscovery.announcesFeeds(data)
      ? BodyProblem(.htmlPage, "\(summary) that announces a feed, not the feed")
      : BodyProblem(.htmlPageAnnouncingNoFeed, "\(summary) \(Self.announcingNoFeed)")
  }

  /// The first line of a body that does not start with `<` (after white space), cut to 60 characters and made
  /// printable; `nil` for markup.
  static func textStart(_ data: Data) -> String? {
    let text = String(decoding: data.prefix(512), as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
    guard let first = text.first, first != "<" else { return nil }
    let line = text.prefix { !$0.isNewline }.map { character in
      character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true ? "?" : character
    }
    return line.count > 60 ? String(line.prefix(60)) + "…" : String(line)
  }

  /// Whether the first character after a byte order mark and white space is `{` or `[` (RFC 8259: JSON text).
  static func startsAsJSON(_ data: Data) -> Bool {
    let text = data.prefix(1024).drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    return text.first == UInt8(ascii: "{") || text.first == UInt8(ascii: "[")
  }

  /// What an error about a web page says of one that has no feed link (``FeedDiscovery/announcesFeeds(_:)``):
  /// "an HTML page (text/html, 1,234 bytes) that announces no feed".
  package static let announcingNoFeed = "that announces no feed"

  /// The search text of a JSON Feed item's content, as the `jsonfeed` mapping read it into `record`: `content` is the
  /// item's `content_html` when it has one (the mapping's first choice), HTML by the JSON Feed 1.1 spec, so its text
  /// is what search indexes (``searchText(_:)``, as for RSS and Atom); `nil` when the content is the item's
  /// `content_text` (the mapping's `feedContentText`), which is searched as it is.
  package static func jsonFeedContentText(_ record: Record) -> String? {
    guard case .text(let content) = record.values["content"], record.values["feedContentText"] != .text(content)
    else { return nil }
    return searchText(FeedText(value: content, kind: .html))
  }

  /// What `data` is when it is no text at all — `empty (0 bytes)`, `gzip-compressed data (801 bytes)`, `binary data,
  /// not text (3,000 bytes)` — as `news import` says it (``ResponseBodySummary/nonText(_:)``); `nil` for text. One
  /// rule for every command that reads a file (`import`, `extract`).
  package static func nonTextSummary(_ data: Data) -> String? {
    ResponseBodySummary.nonText(data)
  }

  /// The search text of a JSON Feed item's `summary`, as the `jsonfeed` mapping read it into `record`: plain text by
  /// the JSON Feed spec, but often HTML in the wild (`<br/><b>…`), and `news show` renders it as HTML; so search
  /// indexes what a reader sees (``searchText(_:)``), never the markup: `nil` when it has no `<` or `&`, or is its
  /// own text.
  package static func jsonFeedSummaryText(_ record: Record) -> String? {
    guard case .text(let summary) = record.values["summary"] else { return nil }
    return searchText(FeedText(value: summary, kind: .html))
  }

  /// The hooks `news import FILE --mapping NAME` runs the importer with, so that a mapped JSON Feed is searched as
  /// the decoder's is (``jsonFeedContentText(_:)``): for a mapping whose `article` maps `feedContentText` (the
  /// shipped `jsonfeed` mapping's mark of an item's `content_text`), each article record gets its `contentText`
  /// (`NULL` when the content is text) and its `summaryText` (``jsonFeedSummaryText(_:)``); none for other mappings.
  package static func searchTextHooks(for mapping: ImportMapping) -> ImportHooks {
    let article = EntityDescription.article.name
    guard mapping.entities.contains(where: { $0.entity.name == article && $0.attributes["feedContentText"] != nil })
    else { return ImportHooks() }
    var hooks = ImportHooks()
    hooks[article] = EntityHooks(didImport: { record in
      record.values["contentText"] = jsonFeedContentText(record).map(DatabaseValue.text) ?? .null
      record.values["summaryText"] = jsonFeedSummaryText(record).map(DatabaseValue.text) ?? .null
      return []
    })
    return hooks
  }

  /// How the detail of an `.invalidResponse` for an OPML subscription list starts.
  package static let subscriptionListPrefix = "an OPML subscription list"
}

extension FileNewsNetwork {
  /// A network over files that reads every format ``ArticleDecoder`` reads (NewsAPI v2, RSS, RDF, Atom, JSON Feed),
  /// as `HTTPNewsNetwork` reads a `file:` URL.
  public init() { self.init(decoder: ArticleDecoder()) }
}
