import Foundation

/// The decoder of every format a news source sends, told apart by the body's content (never by a file name or a
/// `Content-Type`), each handed to its one decoder:
///
/// | the body | decoded by |
/// |---|---|
/// | a JSON object with `"version": "https://jsonfeed.org/version/1…"` (JSON Feed 1.0, 1.1) | the `jsonfeed` mapping, through ``Importer`` |
/// | XML: RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3/1.0 | ``FeedParser`` (`decodeFeed`) |
/// | any other JSON | ``NewsAPIDecoder`` (NewsAPI v2) |
///
/// Articles are returned with their keys derived as every writer of `article` expects (``ArticleIdentity``), and
/// with the text of HTML summaries and contents for search (`summaryText`, `contentText`), as `news` stores them.
/// ``init()`` reads JSON Feed with the shipped `jsonfeed` mapping (``ImportMapping/shipped(_:)``); give it to a
/// network (`URLSessionNewsNetwork(…, decoder: ArticleDecoder())`, `FileNewsNetwork`) so that an app reads every
/// format `news` reads.
public struct ArticleDecoder: NewsPageDecoder {
  /// The mapping JSON Feed bodies are read with.
  package let jsonFeedMapping: ImportMapping?
  private let newsAPI = NewsAPIDecoder()

  /// A decoder reading JSON Feed with the given mapping; without one, a JSON Feed body is an `.invalidResponse`
  /// naming the missing mapping.
  package init(jsonFeedMapping: ImportMapping?) {
    self.jsonFeedMapping = jsonFeedMapping
  }

  /// The decoder of every format, JSON Feed read with the shipped `jsonfeed` mapping.
  public init() {
    self.init(jsonFeedMapping: try? ImportMapping.shipped("jsonfeed"))
  }

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
      return try decodeJSONFeed(data, origin: origin)
    case .xmlFeed where httpStatus.map { (200..<300).contains($0) } ?? true:
      return try decodeFeed(data, origin: origin, contentType: contentType)
    case .opml where httpStatus.map { (200..<300).contains($0) } ?? true:
      // Named as what it is (not "an XML document"): its feeds are added by `news import`, never fetched as one.
      throw .invalidResponse(detail: "\(Self.subscriptionListPrefix) (\(data.count) bytes), not a feed")
    default:
      do {
        return try newsAPI.decode(data, httpStatus: httpStatus, redacting: secrets, contentType: contentType)
      } catch {
        // A web page where a feed or NewsAPI was expected says whether it announces a feed, which is what the
        // person can do next (`news add` finds an announced feed; an article page's text is `news extract`'s): here,
        // where the body is at hand, for a file and a URL alike.
        if case .invalidResponse(let detail) = error,
          let markup = ResponseBodySummary.markup(data, contentType: contentType),
          markup.hasPrefix("an HTML page"), detail == "\(markup), not JSON", !FeedDiscovery.announcesFeeds(data)
        {
          throw .invalidResponse(detail: "\(markup) \(Self.announcingNoFeed), not JSON")
        }
        throw error
      }
    }
  }

  /// What an error about a web page says of one that has no feed link (``FeedDiscovery/announcesFeeds(_:)``):
  /// "an HTML page (text/html, 1,234 bytes) that announces no feed, not JSON".
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

  /// A JSON Feed body through the `jsonfeed` mapping: the feed's items as articles, its problems as issues.
  private func decodeJSONFeed(_ data: Data, origin: URL) throws(NewsNetworkError) -> NewsPage {
    guard let mapping = jsonFeedMapping else {
      throw .invalidResponse(detail: "a JSON Feed, and no jsonfeed mapping was given to read it with")
    }
    let source = origin.isFileURL ? origin.path : NewsQuery.redacting(origin).absoluteString
    let changes: ChangeSet
    let report: ImportReport
    do {
      (changes, report) = try Importer(mapping: mapping).makeChanges(JSONValue.parseDocument(data), source: source)
    } catch {
      throw .invalidResponse(detail: "not a readable JSON Feed: \(error)")
    }
    let now = Timestamp.now()
    var articles: [Article] = []
    var issues: [RecordIssue] =
      report.failures.enumerated().map { offset, error in
        RecordIssue(index: offset, url: error.identity, keyPath: error.keyPath, reason: error.reason, skipped: true)
      }
      + report.warnings.enumerated().map { offset, warning in
        RecordIssue(
          index: offset, url: warning.identity, keyPath: warning.keyPath, reason: warning.reason, skipped: false)
      }
    for var record in changes.upserts where record.entity == EntityDescription.article.name {
      // The text of content_html first, so that a derived title is made from it, as for RSS and Atom.
      let contentText = Self.jsonFeedContentText(record)
      record.values["contentText"] = contentText.map(DatabaseValue.text) ?? .null
      let summaryText = Self.jsonFeedSummaryText(record)
      record.values["summaryText"] = summaryText.map(DatabaseValue.text) ?? .null
      if var article = record.article(firstSeen: now) {
        article.contentText = contentText
        article.summaryText = summaryText
        // The linkblog rule: keyed by its `url` (the post), linking to its `external_url` (the article it is about),
        // as the same post read from RSS or Atom is; a store keyed by the linked page keeps its row.
        if case .text(let text)? = record.values["feedExternalURL"], let external = URL(string: text),
          let scheme = external.scheme?.lowercased(), scheme == "http" || scheme == "https",
          !ArticleIdentity.isScoped(article.url)
        {
          let linked = ArticleIdentity.linked(external)
          if linked != article.url {
            article.link = external
            article.formerKey = linked
          }
        }
        articles.append(article)
      } else {
        issues.append(
          RecordIssue(
            index: articles.count, url: record.values["url"].flatMap { if case .text(let t) = $0 { t } else { nil } },
            keyPath: "items", reason: "an item needs a title, or a summary or content to derive one from",
            skipped: true))
      }
    }
    return NewsPage(articles: articles, issues: issues)
  }
}
