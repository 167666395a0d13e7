import Foundation

/// What to fetch: one request to a news source, and the key its cached rows are stored under.
///
/// For example:
/// ```swift
/// let query = NewsQuery(url: URL(string: "https://newsapi.org/v2/top-headlines?country=us")!)
/// query.cacheKey  // "https://newsapi.org/v2/top-headlines?country=us"
/// ```
///
/// The cache key is the URL with any `apiKey` query item removed, so that a key passed in the URL (NewsAPI accepts
/// `?apiKey=`) never reaches the database; the remaining items are sorted by name. A subscription's query is
/// `NewsSource.query` (`OfflineNews`).
public struct NewsQuery: Sendable, Hashable, CustomStringConvertible {
  /// The request URL: an `http`/`https` feed (RSS 2.0, RSS 1.0, Atom, JSON Feed) or NewsAPI v2 endpoint with its
  /// query items, or a `file` URL of a saved feed or NewsAPI response. What the body is, is told by its content
  /// (the `OfflineNews` module's `ArticleDecoder`), never by the URL.
  public var url: URL

  /// Whether ``url`` is a NewsAPI v2 endpoint: its host `newsapi.org` or below it (RFC 3986 §3.2.2: compared without
  /// regard to case).
  public var asksNewsAPI: Bool {
    guard let host = url.host?.lowercased() else { return false }
    return host == "newsapi.org" || host.hasSuffix(".newsapi.org")
  }
  /// The name written on the articles it brings (``Article/source``): the configured source's name; `nil` for the
  /// `cacheKey`.
  public var source: String?

  /// Creates a query for a request URL, from the configured source `source` (if any).
  public init(url: URL, source: String? = nil) {
    self.url = url
    self.source = source
  }

  /// The key this query's cached rows are stored under: ``url`` without secrets, its query items sorted by name
  /// (stably, so repeated names keep their order): `?b=2&a=1` and `?a=1&b=2` are one query. See
  /// `cacheKey(_:)`.
  package var cacheKey: String { NewsQuery.cacheKey(url.absoluteString) }

  /// The cache key of a request URL's text: `apiKey` items removed, the other items sorted by name (a stable sort
  /// of their percent-encoded names, their exact encoding kept). Text that is not a URL is returned as it is.
  package static func cacheKey(_ text: String) -> String {
    guard let url = URL(string: text) else { return text }
    let redacted = redacting(url)
    guard var components = URLComponents(url: redacted, resolvingAgainstBaseURL: false),
      let items = components.percentEncodedQueryItems, items.count > 1
    else { return redacted.absoluteString }
    let sorted = items.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(
      \.element)
    guard sorted != items else { return redacted.absoluteString }
    components.percentEncodedQueryItems = sorted
    return components.url?.absoluteString ?? redacted.absoluteString
  }

  /// ``cacheKey``; safe to print.
  public var description: String { cacheKey }

  /// `url` with every `apiKey` query item (any letter case) removed.
  package static func redacting(_ url: URL) -> URL {
    // Work on the percent-encoded items, so the other items keep their exact encoding (`q=a%2Bb` stays as sent).
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      let items = components.percentEncodedQueryItems
    else { return url }
    let kept = items.filter { ($0.name.removingPercentEncoding ?? $0.name).lowercased() != "apikey" }
    guard kept.count != items.count else { return url }
    components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
    return components.url ?? url
  }
}
