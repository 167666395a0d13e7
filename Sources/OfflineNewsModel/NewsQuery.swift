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
/// `?apiKey=`) never reaches the database; the remaining items keep their order.
public struct NewsQuery: Sendable, Hashable, CustomStringConvertible {
  /// The request URL: an `http`/`https` NewsAPI v2 endpoint with its query items, or a `file` URL of a saved
  /// NewsAPI-format response.
  public var url: URL

  /// Creates a query for a request URL.
  public init(url: URL) {
    self.url = url
  }

  /// The key this query's cached rows are stored under: ``url`` without secrets.
  public var cacheKey: String { NewsQuery.redacting(url).absoluteString }

  /// ``cacheKey``; safe to print.
  public var description: String { cacheKey }

  /// `url` with every `apiKey` query item (any letter case) removed.
  public static func redacting(_ url: URL) -> URL {
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
