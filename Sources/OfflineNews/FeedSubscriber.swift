import Foundation
import OfflineNewsFeeds
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork

/// Subscribing: tells what a URL the user gave is — a feed, a web page announcing feeds, or an OPML subscription
/// list — and makes the ``NewsSource`` candidates to subscribe to, each named after the feed's own title.
///
/// A subscriber reads; it keeps no list and touches no store: the app adds the candidates it accepts to its own
/// list of sources (the `news` command line writes them into its configuration file), checking "subscribed
/// already" with ``NewsSource/subscriptionKey``.
///
/// For example, subscribing as a feed reader's "Add" box does:
/// ```swift
/// let subscriber = FeedSubscriber(transport: CurlHTTPTransport(timeout: 5))
/// switch try await subscriber.inspect(URL(string: "https://daringfireball.net/")!) {
/// case .feed(let candidate):
///   sources.append(candidate.source)                        // the URL was a feed
/// case .page(let page):
///   // The page's feeds, each fetched and named after its own <title>.
///   for candidate in await subscriber.resolve(page.candidates) { sources.append(candidate.source) }
/// case .subscriptionList(let list):
///   sources += list.candidates.map(\.source)                 // an OPML file: every outline with an xmlUrl
/// }
/// ```
///
/// Formats, told apart by the document's first bytes, never by its name or `Content-Type` (``FeedDocumentKind``):
/// RSS 2.0 (<https://www.rssboard.org/rss-specification>), RSS 1.0 (RDF), Atom (RFC 4287), JSON Feed 1.1
/// (<https://www.jsonfeed.org/version/1.1/>), HTML pages and OPML 2.0 (<http://opml.org/spec2.opml>).
public struct FeedSubscriber: Sendable {
  /// The most a document may have by default: 64 MiB, what a refresh reads (`NewsRequest.maximumBodySize`, the
  /// feed parser's own limit), so that a feed that can be refreshed can be subscribed to (it was 16 MiB: a 19 MiB
  /// feed could not be added, yet refreshed fine once written in the list by hand).
  public static let defaultMaximumDocumentSize = NewsRequest.maximumBodySize

  /// The `Accept` header of every request: feeds first, then XML, then HTML (a page announcing feeds), then anything.
  public static let acceptHeader =
    "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/html;q=0.8, "
    + "*/*;q=0.5"

  /// Where http(s) requests go; `nil`: only `file:` URLs can be read (an http(s) URL throws
  /// ``SubscriptionError/noTransport(_:)``).
  public var transport: (any HTTPTransport)?
  /// The most bytes a feed, page or list may have (``defaultMaximumDocumentSize`` by default).
  public var maximumDocumentSize: Int

  /// A subscriber reading http(s) URLs through `transport` (one `GET` each; the transport's timeout and retries
  /// apply), and `file:` URLs from the file system.
  public init(transport: (any HTTPTransport)?, maximumDocumentSize: Int = FeedSubscriber.defaultMaximumDocumentSize) {
    self.transport = transport
    self.maximumDocumentSize = maximumDocumentSize
  }

  /// Reads `url` once and says what it is.
  ///
  /// - An http(s) URL is read with one `GET` (``acceptHeader``), redirects to any origin followed by the transport
  ///   (``HTTPRequest/Redirects/anyOrigin``). A permanent redirect (`301`, `308`, RFC 9110 §15.4.2) moves the
  ///   subscription to the new URL (``HTTPResponse/permanentURL``); a temporary one does not.
  /// - A `file:` URL is read from the file system; a feed file is subscribed to as that file.
  ///
  /// What the document is, by its content:
  /// - An RSS, RDF or Atom feed (read by ``FeedParser``), or a JSON Feed (its `title` and `home_page_url`):
  ///   ``Subscribable/feed(_:)``, named after the feed's title, else the host (a file: its name without extension).
  /// - An HTML page: ``Subscribable/page(_:)`` with the feeds it announces by `<link rel="alternate">` of an RSS,
  ///   Atom or JSON Feed type (RSS autodiscovery, <https://www.rssboard.org/rss-autodiscovery>; ``FeedDiscovery``),
  ///   each a candidate not yet read (``SubscriptionCandidate/isResolved`` is `false`): ``resolve(_:)-(SubscriptionCandidate)``
  ///   reads it and names it after its own title.
  /// - An OPML list: ``Subscribable/subscriptionList(_:)``, each outline with an `xmlUrl` a candidate.
  ///
  /// - Throws: ``SubscriptionError``: ``SubscriptionError/notAFeed(_:)`` (JSON that is no JSON Feed, or anything
  ///   else), ``SubscriptionError/notText(_:_:)`` (empty, compressed or binary bytes), ``SubscriptionError/unreadableFeed(_:_:)`` (a feed libxml2 cannot recover, or cut off),
  ///   ``SubscriptionError/noFeedAnnounced(_:)``, ``SubscriptionError/relativeFeedLinks(_:)`` (a saved page whose
  ///   feed links only its web address resolves), ``SubscriptionError/unreadableSubscriptionList(_:_:)``,
  ///   ``SubscriptionError/network(_:_:)`` (the ``HTTPError``), ``SubscriptionError/httpStatus(_:_:)`` (a status
  ///   outside `2xx`), ``SubscriptionError/tooLarge(_:bytes:limit:)``, ``SubscriptionError/unreadableFile(_:reason:tooLarge:)``,
  ///   ``SubscriptionError/unsupportedURL(_:)`` (neither http(s) nor `file:`), ``SubscriptionError/noTransport(_:)``.
  public func inspect(_ url: URL) async throws(SubscriptionError) -> Subscribable {
    let document = try await read(url)
    switch FeedFormatSniffer.kind(of: document.body) {
    case .xmlFeed, .jsonFeed:
      return .feed(try feedCandidate(document))
    case .html:
      let page = FeedDiscovery.read(document.body, pageURL: document.url, charset: document.charset)
      if page.feeds.isEmpty {
        // A saved page's relative feed link (`href="/feeds/main"`) resolves only against its web address, which a
        // file does not have: such a page announces a feed, though discovery can list none.
        if document.isFile, FeedDiscovery.announcesFeeds(document.body) { throw .relativeFeedLinks(document.url) }
        throw .noFeedAnnounced(document.url)
      }
      let home = document.isFile ? nil : document.url
      let candidates = page.feeds.map { feed in
        SubscriptionCandidate(
          source: NewsSource(
            name: Self.name(
              Self.isFormatLabel(feed.title) ? nil : feed.title, page.title, feed.title,
              fallback: feed.url.host ?? "feed"),
            url: feed.url, homePage: home),
          feedTitle: nil, announcement: feed)
      }
      return .page(
        AnnouncingPage(url: document.url, title: page.title, feeds: page.feeds, candidates: candidates))
    case .opml:
      let list: OPMLDocument
      do {
        list = try OPML.read(document.body, url: document.url)
      } catch {
        throw .unreadableSubscriptionList(document.url, error)
      }
      let candidates = list.subscriptions.map { outline in
        SubscriptionCandidate(
          source: NewsSource(
            name: outline.title, url: outline.feedURL, folder: outline.folder, homePage: outline.homePageURL),
          feedTitle: nil, announcement: nil)
      }
      return .subscriptionList(SubscriptionListDocument(url: document.url, document: list, candidates: candidates))
    case .json, .unknown:
      // Bytes that are no text at all are named as `news import` names them: a `.gz` saved without unpacking, an
      // empty download, a binary file.
      if let problem = ResponseBodySummary.nonTextProblem(document.body) { throw .notText(document.url, problem) }
      throw .notAFeed(document.url)
    }
  }

  /// Reads the feed of a candidate a page announced and names it after the feed's own title (RSS `<channel><title>`,
  /// Atom `<feed><title>`, JSON Feed `title`), falling back to the link's `title` (unless it only names the format,
  /// "RSS": then the page's first), then the page's `<title>`, then the feed's host. A permanent redirect moves it, as ``inspect(_:)`` does; its home page stays the page's.
  ///
  /// Never throws: a feed that cannot be read (the network, not a feed, …) keeps the name of the fallback, and
  /// ``SubscriptionCandidate/failure`` says why. A candidate resolved already is returned as it is.
  public func resolve(_ candidate: SubscriptionCandidate) async -> SubscriptionCandidate {
    guard !candidate.isResolved else { return candidate }
    var resolved = candidate
    resolved.isResolved = true
    do throws(SubscriptionError) {
      let document = try await read(candidate.source.url)
      guard case .feed(let feed) = try classifyFeed(document) else { throw .notAFeed(document.url) }
      resolved.source.kind = .articles(feed.source.url)
      resolved.feedTitle = feed.feedTitle
      if let title = feed.feedTitle {
        resolved.source.name = title
        resolved.source.title = nil
      }
      if resolved.source.homePage == nil { resolved.source.homePage = feed.source.homePage }
    } catch {
      resolved.failure = error
    }
    return resolved
  }

  /// ``resolve(_:)-(SubscriptionCandidate)`` for each candidate, one request at a time, in their order.
  public func resolve(_ candidates: [SubscriptionCandidate]) async -> [SubscriptionCandidate] {
    var resolved: [SubscriptionCandidate] = []
    for candidate in candidates { resolved.append(await resolve(candidate)) }
    return resolved
  }

  // MARK: - Reading

  /// A document read for subscribing: its bytes, where they came from, and the `charset` they were served with.
  struct Document {
    var body: Data
    /// The URL the document was read from at last (after redirects), or the file's URL.
    var url: URL
    /// The URL to subscribe to: the one given, or where it permanently moved (301/308).
    var sourceURL: URL
    var charset: String?
    var isFile: Bool
  }

  /// `.feed` when `document` is a feed; `nil` otherwise.
  private func classifyFeed(_ document: Document) throws(SubscriptionError) -> Subscribable? {
    switch FeedFormatSniffer.kind(of: document.body) {
    case .xmlFeed, .jsonFeed: .feed(try feedCandidate(document))
    default: nil
    }
  }

  /// The candidate of a document that is a feed: its title and home page read from it.
  private func feedCandidate(_ document: Document) throws(SubscriptionError) -> SubscriptionCandidate {
    // RSS `channel/title`, Atom `feed/title`, JSON Feed `title`, and the home page, as FeedParser reads them.
    let feed: ParsedFeed
    do {
      feed = try FeedParser.parse(document.body, feedURL: document.url, charset: document.charset)
    } catch {
      throw .unreadableFeed(document.url, error)
    }
    let title = feed.title
    let home = feed.homePageURL
    let feedTitle = title.flatMap { $0.isEmpty ? nil : $0 }
    let fallback =
      document.isFile ? document.url.deletingPathExtension().lastPathComponent : document.url.host ?? "feed"
    return SubscriptionCandidate(
      source: NewsSource(name: feedTitle ?? fallback, url: document.sourceURL, homePage: home),
      feedTitle: feedTitle, announcement: nil, isResolved: true)
  }

  /// Whether a link's `title` only names the format (`RSS`, `Atom Feed`, `Subscribe`…), as many sites label their
  /// `<link rel="alternate">`: the page's `<title>` names the feed better (Six Colors' link says "RSS").
  package static func isFormatLabel(_ title: String?) -> Bool {
    guard let title else { return false }
    let words = title.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    let format: Set<String> = ["rss", "atom", "json", "feed", "xml", "rdf", "subscribe", "syndication", "2", "0", "1"]
    return !words.isEmpty && words.allSatisfy(format.contains)
  }

  /// The first of `titles` that is not empty, else `fallback`.
  private static func name(_ titles: String?..., fallback: String) -> String {
    titles.lazy.compactMap { $0 }.first { !$0.isEmpty } ?? fallback
  }

  /// Reads `url`: an http(s) URL with one GET, a `file:` URL from the file system.
  private func read(_ url: URL) async throws(SubscriptionError) -> Document {
    if url.isFileURL {
      let body: Data
      do {
        body = try LocalFile.read(url.path, maxBytes: maximumDocumentSize)
      } catch {
        throw .unreadableFile(url, reason: error.reason, tooLarge: error.isTooLarge)
      }
      return Document(body: body, url: url, sourceURL: url, charset: nil, isFile: true)
    }
    guard url.isWebURL else {
      throw .unsupportedURL(url)
    }
    guard let transport else { throw .noTransport(url) }
    let request = HTTPRequest(
      url: url, headers: ["Accept": Self.acceptHeader], maxBodyBytes: maximumDocumentSize, redirects: .anyOrigin)
    let response: HTTPResponse
    do {
      response = try await transport.send(request)
    } catch {
      throw .network(url, error)
    }
    if let size = response.bodyLimitExceeded {
      throw .tooLarge(response.url, bytes: size, limit: maximumDocumentSize)
    }
    guard (200..<300).contains(response.status) else { throw .httpStatus(response.url, response.status) }
    return Document(
      body: response.body, url: response.url, sourceURL: response.permanentURL,
      charset: FeedParser.charset(fromContentType: response.header("Content-Type")), isFile: false)
  }
}

/// What a URL given to ``FeedSubscriber/inspect(_:)`` is.
public enum Subscribable: Sendable {
  /// A feed (RSS, RDF, Atom, JSON Feed): the one candidate, read and named after the feed's own title.
  case feed(SubscriptionCandidate)
  /// A web page and the feeds it announces (at least one).
  case page(AnnouncingPage)
  /// An OPML subscription list.
  case subscriptionList(SubscriptionListDocument)
}

/// A source one could subscribe to: the ``NewsSource`` to add (named, with its title and home page, at the top
/// level, no policy), and where its name came from.
public struct SubscriptionCandidate: Sendable {
  /// The source: a feed URL (``NewsSource/Kind/articles(_:)``, where a permanent redirect moved it) or a `file:` URL,
  /// named after ``feedTitle`` when known, else by the fallback ``FeedSubscriber`` documents. Its
  /// ``NewsSource/title`` is `nil` (the name is the title); an app that renames it sets ``NewsSource/title`` to
  /// ``feedTitle``.
  public var source: NewsSource
  /// The feed's own title, white space collapsed; `nil` when the feed has none or was not read (yet).
  public var feedTitle: String?
  /// The link of the page that announced the feed; `nil` for a feed given directly or an OPML outline.
  public var announcement: DiscoveredFeed?
  /// Whether the feed was read for its title: `true` for a feed given directly; `false` for a page's candidate
  /// until ``FeedSubscriber/resolve(_:)-(SubscriptionCandidate)`` reads it, and for an OPML outline.
  public var isResolved: Bool
  /// Why the feed could not be read when it was resolved (the candidate keeps its fallback name); `nil` otherwise.
  public var failure: SubscriptionError?

  /// A candidate; see the properties.
  public init(
    source: NewsSource, feedTitle: String?, announcement: DiscoveredFeed?, isResolved: Bool = false,
    failure: SubscriptionError? = nil
  ) {
    self.source = source
    self.feedTitle = feedTitle
    self.announcement = announcement
    self.isResolved = isResolved
    self.failure = failure
  }
}

/// A web page that announces feeds (``FeedDiscovery``).
public struct AnnouncingPage: Sendable {
  /// The page's URL after redirects, or the saved page's `file:` URL.
  public var url: URL
  /// The page's `<title>`, white space collapsed; `nil` when absent or empty.
  public var title: String?
  /// The feeds it announces, in document order, each URL once (never empty).
  public var feeds: [DiscoveredFeed]
  /// One candidate per feed, in the same order, not yet read: named by the link's `title`, else the page's, else the
  /// feed's host; the page (a web page's URL, not a file's) as home page.
  public var candidates: [SubscriptionCandidate]
}

/// An OPML subscription list read by ``FeedSubscriber/inspect(_:)``.
public struct SubscriptionListDocument: Sendable {
  /// Where it was read from (after redirects).
  public var url: URL
  /// The list as ``OPML/read(_:url:)`` reads it, with its issues.
  public var document: OPMLDocument
  /// One candidate per outline with an `xmlUrl`, in document order: named by its `title` (else `text`), its
  /// `htmlUrl` the home page, the outlines around it its folder; not read.
  public var candidates: [SubscriptionCandidate]
}

/// Why ``FeedSubscriber/inspect(_:)`` found nothing to subscribe to.
public enum SubscriptionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The document is none of a feed, a web page or an OPML list (e.g. JSON that is no JSON Feed, plain text).
  case notAFeed(URL)
  /// The document is no text at all: empty, gzip-compressed (RFC 1952 §2.3.1) or binary (``BodyProblem/Kind/empty``,
  /// ``BodyProblem/Kind/compressed``, ``BodyProblem/Kind/binary``, with its summary).
  case notText(URL, BodyProblem)
  /// It starts as an RSS, RDF or Atom feed, but libxml2 cannot recover it, or it is cut off (``FeedParseError``).
  case unreadableFeed(URL, FeedParseError)
  /// A web page that announces no feed.
  case noFeedAnnounced(URL)
  /// A saved page (a file) whose feed links are relative: only the page's web address resolves them.
  case relativeFeedLinks(URL)
  /// An OPML list that cannot be read (``OPMLError``).
  case unreadableSubscriptionList(URL, OPMLError)
  /// No response: the transport's error (refused, not found, timed out, TLS, too many redirects).
  case network(URL, HTTPError)
  /// A response whose status is not `2xx` (the URL that answered, after redirects).
  case httpStatus(URL, Int)
  /// More than `limit` bytes (`bytes`: what was read, or the `Content-Length` announced).
  case tooLarge(URL, bytes: Int, limit: Int)
  /// A file that cannot be read: the reason (`no such file`, `is a directory`, its size over the limit, …), and
  /// whether it was its size (over ``FeedSubscriber/maximumDocumentSize``).
  case unreadableFile(URL, reason: String, tooLarge: Bool)
  /// Neither an http(s) nor a `file:` URL.
  case unsupportedURL(URL)
  /// An http(s) URL, and the subscriber has no transport.
  case noTransport(URL)

  /// A one-line summary for people, naming the URL or file.
  public var description: String {
    switch self {
    case .notAFeed(let url):
      "\(Self.text(url)) is not a feed (RSS, Atom, RDF, JSON Feed) nor a web page that announces one"
    case .notText(let url, let problem): "\(Self.text(url)): \(problem.detail), not a feed"
    case .unreadableFeed(_, let error): "\(error)"
    case .noFeedAnnounced(let url): "\(Self.text(url)) is a web page that announces no feed"
    case .relativeFeedLinks(let url):
      "\(Self.text(url)) announces its feed by a link relative to the page's web address, which a saved file does "
        + "not have"
    case .unreadableSubscriptionList(_, let error): "\(error)"
    case .network(let url, let error): "GET \(Self.text(url)): \(error)"
    case .httpStatus(let url, let status): "GET \(Self.text(url)): HTTP \(status)"
    case .tooLarge(let url, let bytes, let limit):
      "\(Self.text(url)): \(LocalFile.byteCount(Int64(bytes))), more than the limit of "
        + "\(LocalFile.byteCount(Int64(limit))) a feed or page may have"
    case .unreadableFile(let url, let reason, _): "cannot read \(url.path): \(reason)"
    case .unsupportedURL(let url): "\(Self.text(url)): only http(s) URLs and files can be subscribed to"
    case .noTransport(let url): "\(Self.text(url)): no HTTP transport to read it with"
    }
  }

  /// A file by its path, a URL as people are shown it (``NewsQuery/shown(_:)-(URL)``: no password).
  private static func text(_ url: URL) -> String { url.isFileURL ? url.path : NewsQuery.shown(url) }
}

extension NewsSource {
  /// The key that makes equivalent spellings of one feed one subscription, for "subscribed already": the source's
  /// ``url`` by ``subscriptionKey(for:)``.
  public var subscriptionKey: String { Self.subscriptionKey(for: url) }

  /// The key of a subscription to `url`: for an http(s) URL its canonical form, the rule of article identity
  /// (``ArticleIdentity``): scheme and host in lower case, the default port dropped, an empty path written `/`
  /// (RFC 3986 §6.2.2–6.2.3), the `#fragment` and tracking parameters (`utm_*`, …) dropped; for a `file:` URL its
  /// standardized path; any other URL as written.
  ///
  /// `HTTPS://Example.org:443#top` and `https://example.org/` have one key.
  public static func subscriptionKey(for url: URL) -> String {
    if url.isFileURL { return url.standardizedFileURL.path }
    return CanonicalURL.canonical(url.absoluteString) ?? url.absoluteString
  }
}
