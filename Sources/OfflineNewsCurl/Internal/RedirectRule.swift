import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// Which redirects one request follows (``HTTPRequest/Redirects``), and what it did: the transport follows the chain
/// hop by hop within the request's one deadline.
struct RedirectRule: Sendable {
  /// The URL first asked for: its origin is the request's.
  var original: URL
  /// Whether another origin may be followed.
  var anyOrigin: Bool
  /// Texts whose headers do not leave the origin.
  var secrets: [String]
  /// The most redirects followed in a row.
  var limit: Int
  /// Targets refused whatever else allows them (``RedirectTargetRule``); `nil`: none.
  var refuses: RedirectTargetRule? = nil

  /// The statuses followed (RFC 9110 §15.4); `300`, `304`, `305` and `306` are answers.
  static let followed: Set<Int> = [301, 302, 303, 307, 308]

  /// Whether `url` is a web address (``Foundation/URL/isWebURL``): a redirect elsewhere is an answer.
  static func isHTTP(_ url: URL) -> Bool { url.isWebURL }

  /// The origin of a URL (RFC 6454 §4): scheme, host and port, the port defaulted by the scheme.
  static func origin(of url: URL) -> [String] {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    return [scheme, url.host?.lowercased() ?? "", String(port)]
  }
}

/// Where a chain of redirects got to.
struct RedirectChain: Sendable {
  /// The URL of the latest request.
  var url: URL
  /// The end of the unbroken run of permanent redirects from the start.
  var permanentURL: URL
  /// Redirects followed.
  var count = 0
  /// Whether a run of permanent redirects is still unbroken.
  var permanent = true
  /// Whether a redirect was refused because the limit was reached.
  var overLimit = false
  /// Why the rule's ``RedirectRule/refuses`` refused a redirect, or `nil`.
  var refused: String?

  init(_ url: URL) {
    self.url = url
    permanentURL = url
  }

  /// The header fields to follow a `status` redirect to `target` with, by `rule` (`headers` less those that carry a
  /// secret, past the origin), or `nil` when the redirect's response is the answer.
  mutating func follow(_ status: Int, to target: URL, headers: [String: String], by rule: RedirectRule) -> [String:
    String]?
  {
    guard RedirectRule.followed.contains(status), RedirectRule.isHTTP(target) else { return nil }
    let sameOrigin = RedirectRule.origin(of: target) == RedirectRule.origin(of: rule.original)
    guard sameOrigin || rule.anyOrigin else { return nil }
    guard count < rule.limit else {
      overLimit = true
      return nil
    }
    if let reason = rule.refuses?(rule.original, target) {
      refused = reason
      return nil
    }
    count += 1
    permanent = permanent && (status == 301 || status == 308)
    if permanent { permanentURL = target }
    url = target
    guard !sameOrigin else { return headers }
    // Credentials stay with their origin (as browsers and curl drop Authorization on another host).
    return headers.filter { _, value in !rule.secrets.contains(where: value.contains) }
  }
}
