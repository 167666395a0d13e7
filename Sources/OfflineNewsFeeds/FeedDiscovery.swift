import Foundation
import OfflineNewsHTML
import OfflineNewsModel

/// A feed a web page announces.
public struct DiscoveredFeed: Sendable, Hashable {
  /// The feed's URL, absolute (resolved against the page's `<base>` and URL).
  public var url: URL
  /// The link's `title`, white space collapsed; `nil` when absent or empty.
  public var title: String?
  /// The announced media type, lowercased and without parameters, e.g. `application/atom+xml`.
  public var type: String

  package init(url: URL, title: String? = nil, type: String) {
    self.url = url
    self.title = title
    self.type = type
  }
}

/// What a web page says about itself and the feeds it announces: RSS autodiscovery
/// (<https://www.rssboard.org/rss-autodiscovery>), `<link rel="alternate" type="application/rss+xml" href="…">`.
///
/// For example:
/// ```swift
/// let page = FeedDiscovery.read(html, pageURL: URL(string: "https://daringfireball.net/")!)
/// page.feeds.first?.url   // https://daringfireball.net/feeds/main
/// ```
///
/// The page is read with libxml2's HTML parser (`htmlReadMemory`: recover, no network), never with patterns.
public enum FeedDiscovery {
  /// The media types of feed links: RSS 2.0 (`application/rss+xml`, RSS Advisory Board's autodiscovery), Atom
  /// (`application/atom+xml`, RFC 4287 §7), RSS 1.0 (`application/rdf+xml`), JSON Feed (`application/feed+json`, and
  /// `application/json`, which JSON Feed 1.0 also names), and the generic and legacy types pages announce feeds with
  /// (`text/xml`, `application/xml`, `application/x-rss+xml`, `application/x-atom+xml`, `text/rss+xml`).
  package static let feedTypes: Set<String> = [
    "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json",
    "application/json", "text/xml", "application/xml", "application/x-rss+xml", "application/x-atom+xml",
    "text/rss+xml",
  ]

  /// Generic types that announce other documents too: a link of one of them is a feed unless it is one of the
  /// non-feeds that pages announce with them — WordPress's REST API (`<link rel="alternate" type="application/json"
  /// href="…/wp-json/wp/v2/posts/123">`, on every WordPress page since 4.7) and oEmbed endpoints.
  static let genericTypes: Set<String> = ["application/json", "text/xml", "application/xml"]

  /// Whether a link of a generic type (``genericTypes``) is a known non-feed.
  static func isKnownNonFeed(_ href: String) -> Bool {
    let lowered = href.lowercased()
    return lowered.contains("/wp-json/") || lowered.contains("rest_route=") || lowered.contains("oembed")
  }

  /// What ``read(_:pageURL:charset:)`` finds in a page.
  public struct Page: Sendable, Hashable {
    /// The page's `<title>`, white space collapsed; `nil` when absent or empty.
    public var title: String?
    /// The announced feeds, in document order, each URL once.
    public var feeds: [DiscoveredFeed]
  }

  /// The feeds a page announces: every `<link>` whose `rel` has the token `alternate` (in any case) and whose `type`
  /// is one of `feedTypes`, with its `href` resolved (RFC 3986 §5) against the first `<base href>` (itself resolved
  /// against the page URL), else the page URL. Links to anything but `http(s)` (also `file:` links a saved page's
  /// relative hrefs become) are left out, as are repeats.
  ///
  /// - Parameters:
  ///   - pageURL: the URL the page came from (after redirects).
  ///   - charset: the HTTP `charset`, when there was one; else the page's `<meta charset>` decides.
  public static func read(_ html: Data, pageURL: URL, charset: String? = nil) -> Page {
    var page = Page(title: nil, feeds: [])
    guard let document = try? HTMLDocument(data: html, url: pageURL, charset: charset), let root = document.root
    else { return page }
    let title = document.title
    page.title = title.isEmpty ? nil : title
    let base = document.baseURL ?? pageURL
    for link in feedLinks(root) {
      guard let url = URLReference.resolve(link.href, against: base),
        url.isWebURL,
        !page.feeds.contains(where: { $0.url == url })
      else { continue }
      page.feeds.append(DiscoveredFeed(url: url, title: link.title, type: link.type))
    }
    return page
  }

  /// Whether a page has a feed link (`<link rel="alternate">` of a feed type, with an `href`), however its `href`
  /// resolves: a saved page's relative link (`href="/feeds/main"`) counts, though ``read(_:pageURL:charset:)`` can
  /// only resolve it against the page's web address. `false` for what is no HTML.
  public static func announcesFeeds(_ html: Data) -> Bool {
    guard let document = try? HTMLDocument(data: html, url: nil, charset: nil), let root = document.root else {
      return false
    }
    return !feedLinks(root).isEmpty
  }

  /// The feed links under `root`, in document order: `href` as written, `title` collapsed (`nil` when empty), and
  /// the media type.
  private static func feedLinks(_ root: HTMLNode) -> [(href: String, title: String?, type: String)] {
    var links: [(href: String, title: String?, type: String)] = []
    for element in root.descendants(named: "link") {
      let rel = (element["rel"] ?? "").lowercased().split(whereSeparator: { $0.isWhitespace })
      let type = (element["type"] ?? "").split(separator: ";").first.map {
        $0.trimmingWhiteSpace.lowercased()
      }
      guard rel.contains("alternate"), let type, feedTypes.contains(type), let href = element["href"],
        !(genericTypes.contains(type) && isKnownNonFeed(href))
      else { continue }
      let title = element["title"]?.collapsingWhiteSpace
      links.append((href, title?.isEmpty == false ? title : nil, type))
    }
    return links
  }
}
