import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The JSON documents of the Miniflux API v1 (<https://miniflux.app/docs/api.html>), as Miniflux writes them:
/// snake_case keys, dates in RFC 3339, ids as JSON numbers; each written by ``JSONWriter`` in its fields' order,
/// the fields' camelCase names converted to Miniflux's snake_case.
enum MinifluxJSON {
  /// The user of `GET /v1/me`.
  struct User: Encodable {
    var id = 1
    var username: String
    var isAdmin = false
    var theme = "system_serif"
    var language = "en_US"
    var timezone = "UTC"
    var entrySortingDirection = "desc"
    var entrySortingOrder = "published_at"
    var stylesheet = ""
    var googleId = ""
    var openidConnectId = ""
    var entriesPerPage = 100
    var keyboardShortcuts = true
    var showReadingTime = true
    var entrySwipe = true
    var lastLoginAt: String
  }

  /// A category (a folder).
  struct Category: Encodable {
    var id: Int64
    var title: String
    var userId = 1
    var hideGlobally = false
    /// With `?counts=true`: the feeds filed in it.
    var feedCount: Int?
    /// With `?counts=true`: their unread entries.
    var totalUnread: Int?
  }

  /// The icon reference of a feed (always absent here: icons answer 404).
  struct Icon: Encodable {
    var feedId: Int64
    var iconId: Int64
  }

  /// A feed (a source).
  struct Feed: Encodable {
    var id: Int64
    var userId = 1
    var feedUrl: String
    var siteUrl: String
    var title: String
    var checkedAt: String
    var nextCheckAt = "0001-01-01T00:00:00Z"
    var etagHeader = ""
    var lastModifiedHeader = ""
    var parsingErrorMessage: String
    var parsingErrorCount: Int
    var scraperRules = ""
    var rewriteRules = ""
    var crawler: Bool
    var blocklistRules = ""
    var keeplistRules = ""
    var urlrewriteRules = ""
    var userAgent = ""
    var cookie = ""
    var username = ""
    var password = ""
    var disabled = false
    var noMediaPlayer = false
    var ignoreHttpCache = false
    var allowSelfSignedCertificates = false
    var fetchViaProxy = false
    var hideGlobally = false
    var disableHttp2 = false
    var category: Category
    var icon: Icon?
  }

  /// An enclosure of an entry.
  struct Enclosure: Encodable {
    var id: Int64
    var userId = 1
    var entryId: Int64
    var url: String
    var mimeType: String
    var size: Int64
    var mediaProgression = 0
  }

  /// An entry (an article).
  struct Entry: Encodable {
    var id: Int64
    var userId = 1
    var feedId: Int64
    var status: String
    var hash: String
    var title: String
    var url: String
    var commentsUrl = ""
    var publishedAt: String
    var createdAt: String
    var changedAt: String
    var content: String
    var author: String
    var shareCode = ""
    var starred: Bool
    var readingTime: Int
    var enclosures: [Enclosure]
    var tags: [String]
    var feed: Feed
  }

  /// A page of entries: `total` is how many the filter selects, `entries` the page.
  struct Entries: Encodable {
    var total: Int
    var entries: [Entry]
  }

  /// `GET /v1/feeds/counters`: feed id (as a string) → entries read, and → entries unread.
  struct Counters: Encodable {
    var reads: [String: Int]
    var unreads: [String: Int]
  }

  /// The answer to `POST /v1/feeds`.
  struct Created: Encodable {
    var feedId: Int64
  }

  /// An error, as Miniflux writes them.
  struct Failure: Encodable {
    var errorMessage: String
  }

  /// A date as Miniflux writes it (RFC 3339, UTC, seconds).
  static func date(_ date: Date) -> String { ServedDates.rfc3339(date) }

  /// `value` (a document, or an array of them) as a JSON response of `status`.
  static func response(_ value: some Encodable, status: Int = 200) -> ServerResponse {
    ServerResponse(status: status, type: "application/json", data: JSONWriter.data(value, keys: .snakeCase))
  }

  /// A Miniflux error answer: `{"error_message": …}` with `status` (400, 404).
  static func error(_ message: String, status: Int) -> ServerResponse {
    response(Failure(errorMessage: message), status: status)
  }

  /// A `204 No Content`.
  static let noContent = ServerResponse(status: 204)

  /// The feed document of `feed`, with its health.
  static func feed(_ feed: ServedFeed, health: SourceHealth?) -> Feed {
    Feed(
      id: feed.id, feedUrl: feed.feedURL, siteUrl: feed.siteURL, title: feed.title,
      checkedAt: date(health?.lastErrorAt ?? health?.lastFetched ?? Date(timeIntervalSince1970: 0)),
      parsingErrorMessage: health?.lastError ?? "", parsingErrorCount: health?.lastError == nil ? 0 : 1,
      crawler: feed.source.fullText, category: category(feed.category))
  }

  /// The category document of `category`.
  static func category(_ category: ServedCategory, counts: (feeds: Int, unread: Int)? = nil) -> Category {
    Category(id: category.id, title: category.title, feedCount: counts?.feeds, totalUnread: counts?.unread)
  }

  /// The entry document of `article`, served under `feed`.
  static func entry(_ article: Article, feed: Feed) -> Entry {
    let key = article.url.absoluteString
    let id = ServedIdentifiers.entryID(forKey: key)
    let published = date(article.publishedAt)
    return Entry(
      id: id, feedId: feed.id, status: article.isRead ? "read" : "unread", hash: ArticleIdentity.handle(forKey: key),
      title: article.title, url: (article.displayURL ?? article.url).absoluteString, publishedAt: published,
      createdAt: published, changedAt: date(article.bookmarkedAt ?? article.publishedAt),
      content: servedContent(of: article), author: article.author ?? "", starred: article.isBookmarked,
      readingTime: readingMinutes(of: article),
      enclosures: article.enclosures.enumerated().map { index, enclosure in
        Enclosure(
          id: Int64(index + 1), entryId: id, url: enclosure.url.absoluteString,
          mimeType: enclosure.type ?? "", size: enclosure.length ?? 0)
      }, tags: article.tags, feed: feed)
  }
}
