import Foundation
import OfflineNewsHTTP

/// One page of the web reader: the shell every page shares (head, bar with the search field, the shortcuts' line)
/// around its main part, sent with the reader's security headers.
///
/// Every text put in a page goes through ``text(_:)`` or ``attribute(_:)``: nothing of an article, a source or a
/// request reaches the page unescaped, except article HTML that ``ArticleHTMLSanitizer`` wrote.
struct WebPage {
  /// The `<title>`.
  var title: String
  /// The `<main>` element's HTML.
  var main: String
  /// The body's class (`home`, `list`, `article`, `search`), which the script reads.
  var kind: String
  /// The session's CSRF token, put in a `<meta>` for the script.
  var csrfToken: String
  /// The search field's text.
  var search: String = ""

  /// The Content-Security-Policy of every page: nothing but this server's own style, script and images (and
  /// `data:` images), no inline script or style, no framing, no `<base>`, forms posting only here, and `fetch`
  /// only to here (`connect-src 'self'`: without it `default-src 'none'` blocks the script's read and star
  /// requests).
  static let contentSecurityPolicy =
    "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

  /// The headers of every HTML response. `Referrer-Policy: same-origin`, not `no-referrer`: under `no-referrer` a
  /// browser sends `Origin: null` with the page's own `POST`s (Fetch standard, "serializing a request origin"),
  /// which the front door's same-origin check rightly refuses; `same-origin` still sends nothing to other sites
  /// (and every link to one also has `rel="noreferrer"`).
  static let securityHeaders: [(name: String, value: String)] = [
    (name: "Content-Security-Policy", value: contentSecurityPolicy),
    (name: "X-Content-Type-Options", value: "nosniff"),
    (name: "Referrer-Policy", value: "same-origin"),
    (name: "X-Frame-Options", value: "DENY"),
    (name: "Cache-Control", value: "no-store"),
  ]

  /// The whole document.
  var html: String {
    """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta name="csrf-token" content="\(Self.attribute(csrfToken))">
    <title>\(Self.text(title))</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="\(Self.attribute(WebAssets.url("/assets/reader.css")))">
    <script src="\(Self.attribute(WebAssets.url("/assets/reader.js")))" defer></script>
    </head>
    <body class="\(Self.attribute(kind))">
    <header class="bar"><a class="home" href="/">News</a>
    <nav><a href="/articles?unread=1">Unread</a> <a href="/articles">All</a> <a href="/articles?starred=1">Starred</a></nav>
    <form class="search" action="/search" method="get" role="search">\
    <input type="search" name="q" id="search" value="\(Self.attribute(search))" placeholder="Search (/)" \
    aria-label="Search"></form></header>
    <main>
    \(main)
    </main>
    <footer class="keys"><kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>o</kbd> open · <kbd>m</kbd> read/unread · \
    <kbd>s</kbd> star · <kbd>/</kbd> search</footer>
    </body></html>

    """
  }

  /// The page as a response.
  func response(status: Int = 200) -> ServerResponse {
    ServerResponse(
      status: status, type: "text/html; charset=utf-8", data: Data(html.utf8), headers: Self.securityHeaders)
  }

  /// `value` escaped for a text node.
  static func text(_ value: String) -> String { ArticleHTMLSanitizer.escapeText(value) }

  /// `value` escaped for a double-quoted attribute.
  static func attribute(_ value: String) -> String { ArticleHTMLSanitizer.escapeAttribute(value) }

  /// `value` percent-encoded for a query argument.
  static func query(_ value: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
  }

  /// How long ago `date` was at `now`, for a person: `just now`, `5 min ago`, `3 h ago`, `2 d ago`, else the date.
  static func age(of date: Date, now: Date) -> String {
    let seconds = now.timeIntervalSince(date)
    switch seconds {
    case ..<60: return "just now"
    case ..<3600: return "\(Int(seconds / 60)) min ago"
    case ..<86400: return "\(Int(seconds / 3600)) h ago"
    case ..<(86400 * 30): return "\(Int(seconds / 86400)) d ago"
    default: return day(date)
    }
  }

  /// `2026-12-04`, in UTC.
  static func day(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
  }

  /// RFC 3339 in UTC, for `<time datetime>`.
  static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }
}
