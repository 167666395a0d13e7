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

  /// The key this query's cached rows are stored under: ``url`` without its `apiKey` items, its query items sorted
  /// by name (stably, so repeated names keep their order): `?b=2&a=1` and `?a=1&b=2` are one query. See
  /// `cacheKey(_:)`. A password in the userinfo stays in it (the stores written before keep their keys): a key is
  /// shown to people only through ``shown(_:)-(String)``.
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

  /// ``cacheKey`` as people are shown it (``shown(_:)-(String)``): no `apiKey` item, no password.
  public var description: String { Self.shown(cacheKey) }

  /// The text of `url` shown to people — in output, `--json`, error messages, logs and served pages: ``redacting(_:)``
  /// (no `apiKey` item) and ``shown(_:)-(String)`` (no password). The URL itself, stored and requested, keeps both.
  ///
  /// ```swift
  /// NewsQuery.shown(URL(string: "http://ann:pa%40ss@example.org/feed?apiKey=k")!)  // "http://ann:***@example.org/feed"
  /// ```
  package static func shown(_ url: URL) -> String { shown(url.absoluteString) }

  /// `text` as shown to people: when it is a URL, without its `apiKey` items (``redacting(_:)``); and when it starts
  /// with a scheme and `//` whose authority has a userinfo with a password (`user:password@host`), that password
  /// replaced by `***`, the user name kept. The rule is RFC 3986 §3.2.1's: an application should not render as clear
  /// text any data after the first `:` of a userinfo, unless it is empty; `***` as pip writes it (Go's
  /// `URL.Redacted` writes `xxxxx`). The userinfo ends at the last `@` of the authority (before the first `/`, `?`
  /// or `#` after `//`), as the WHATWG URL Standard reads it. Any other text (a name, a path) is returned as it
  /// is. Every URL a person is shown goes through it: source and feed URLs, cache keys and names that are
  /// URLs.
  package static func shown(_ text: String) -> String {
    guard URLReference.hasScheme(text), let colon = text.firstIndex(of: ":") else { return text }
    // A URL inside another scheme's (`feed:http://…`, RFC-less but what feed readers take) is shown as itself.
    let inner = String(text[text.index(after: colon)...])
    if !inner.hasPrefix("//"), URLReference.hasScheme(inner) { return text[...colon] + shown(inner) }
    // Parsed only when there is an item to remove: any other text stays exactly as it is.
    if text.range(of: "apikey", options: .caseInsensitive) != nil, let url = URL(string: text) {
      let redacted = redacting(url).absoluteString
      if redacted != text { return shown(redacted) }
    }
    let afterScheme = text.index(after: colon)
    guard text[afterScheme...].hasPrefix("//") else { return text }
    let authorityStart = text.index(afterScheme, offsetBy: 2)
    let authority = text[authorityStart...].prefix { !"/?#".contains($0) }
    return String(text[..<authorityStart] + passwordShown(authority) + text[authority.endIndex...])
  }

  /// An authority (`user:password@host:port`) with the password after the userinfo's first `:` written `***`: the
  /// userinfo ends at the authority's last `@`; an empty password, or none, leaves it as it is.
  private static func passwordShown(_ authority: Substring) -> Substring {
    guard let at = authority.lastIndex(of: "@"), let separator = authority[..<at].firstIndex(of: ":"),
      authority.index(after: separator) < at
    else { return authority }
    return authority[...separator] + "***" + authority[at...]
  }

  /// `text` with the password of every URL in it shown as ``shown(_:)-(String)`` shows a URL's (`user:***@`): for a
  /// line quoted from a file (a newsboat `urls` line, an OPML attribute) in a message. Each `scheme://` in the text
  /// starts a URL whose authority ends at `/`, `?`, `#`, white space or a quote; nothing else changes.
  package static func passwordsShown(in text: String) -> String {
    guard text.contains("://"), text.contains("@") else { return text }
    var result = ""
    var rest = text[...]
    while let marker = rest.range(of: "://") {
      result += rest[..<marker.upperBound]
      let authority = rest[marker.upperBound...].prefix { !"/?#\"' \t\n<>".contains($0) }
      result += passwordShown(authority)
      rest = rest[authority.endIndex...]
    }
    return result + rest
  }

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
