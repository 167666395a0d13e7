import Foundation
import OfflineNewsModel

/// The NewsAPI key and the hosts it may be sent to. A key travels in the `X-Api-Key` header
/// (<https://newsapi.org/docs/authentication>) only to these hosts (each, or a subdomain of it), never to a feed,
/// a page or any other host a source names: a configuration that mixes NewsAPI with feeds must not hand the key to
/// every feed server.
///
/// For example:
/// ```swift
/// let key = NewsAPIKey("abc123")                       // sent to newsapi.org only
/// key.isSent(to: URL(string: "https://newsapi.org/v2/top-headlines?country=us")!)  // true
/// key.isSent(to: URL(string: "https://example.com/feed.xml")!)                      // false
/// ```
package struct NewsAPIKey: Sendable, Hashable {
  /// NewsAPI's own host.
  package static let newsAPIHost = "newsapi.org"

  /// The key.
  package var value: String
  /// The hosts the key is sent to, lower case (`newsapi.org` by default; a NewsAPI-compatible proxy's host too).
  package var hosts: Set<String>

  /// - Parameters:
  ///   - value: the key (`NEWSAPI_KEY`).
  ///   - hosts: where it may go, besides nowhere else; `["newsapi.org"]` by default. Compared without letter case.
  package init(_ value: String, hosts: Set<String> = [NewsAPIKey.newsAPIHost]) {
    self.value = value
    self.hosts = Set(hosts.map { $0.lowercased() })
  }

  /// Whether a request for `url` carries the key: `http`/`https` to one of ``hosts`` or a subdomain of one.
  package func isSent(to url: URL) -> Bool {
    guard url.isWebURL,
      let host = url.host?.lowercased(), !host.isEmpty
    else { return false }
    return hosts.contains { host == $0 || host.hasSuffix("." + $0) }
  }
}
