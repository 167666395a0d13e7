import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The JSON documents of the Miniflux API v1 (<https://miniflux.app/docs/api.html>), as Miniflux writes them:
/// snake_case keys, dates in RFC 3339, ids as JSON numbers; each written by ``JSONWriter`` in its fields' order.
enum MinifluxJSON {
  /// The user of `GET /v1/me`.
  struct User: JSONWritable {
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

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("username", username)
        json.member("is_admin", isAdmin)
        json.member("theme", theme)
        json.member("language", language)
        json.member("timezone", timezone)
        json.member("entry_sorting_direction", entrySortingDirection)
        json.member("entry_sorting_order", entrySortingOrder)
        json.member("stylesheet", stylesheet)
        json.member("google_id", googleId)
        json.member("openid_connect_id", openidConnectId)
        json.member("entries_per_page", entriesPerPage)
        json.member("keyboard_shortcuts", keyboardShortcuts)
        json.member("show_reading_time", showReadingTime)
        json.member("entry_swipe", entrySwipe)
        json.member("last_login_at", lastLoginAt)
      }
    }
  }

  /// A category (a folder).
  struct Category: JSONWritable {
    var id: Int64
    var title: String
    var userId = 1
    var hideGlobally = false
    /// With `?counts=true`: the feeds filed in it.
    var feedCount: Int?
    /// With `?counts=true`: their unread entries.
    var totalUnread: Int?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("title", title)
        json.member("user_id", userId)
        json.member("hide_globally", hideGlobally)
        json.member("feed_count", feedCount)
        json.member("total_unread", totalUnread)
      }
    }
  }

  /// The icon reference of a feed (always absent here: icons answer 404).
  struct Icon: JSONWritable {
    var feedId: Int64
    var iconId: Int64

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("feed_id", feedId)
        json.member("icon_id", iconId)
      }
    }
  }

  /// A feed (a source).
  struct Feed: JSONWritable {
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

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("user_id", userId)
        json.member("feed_url", feedUrl)
        json.member("site_url", siteUrl)
        json.member("title", title)
        json.member("checked_at", checkedAt)
        json.member("next_check_at", nextCheckAt)
        json.member("etag_header", etagHeader)
        json.member("last_modified_header", lastModifiedHeader)
        json.member("parsing_error_message", parsingErrorMessage)
        json.member("parsing_error_count", parsingErrorCount)
        json.member("scraper_rules", scraperRules)
        json.member("rewrite_rules", rewriteRules)
        json.member("crawler", crawler)
        json.member("blocklist_rules", blocklistRules)
        json.member("keeplist_rules", keeplistRules)
        json.member("urlrewrite_rules", urlrewriteRules)
        json.member("user_agent", userAgent)
        json.member("cookie", cookie)
        json.member("username", username)
        json.member("password", password)
        json.member("disabled", disabled)
        json.member("no_media_player", noMediaPlayer)
        json.member("ignore_http_cache", ignoreHttpCache)
        json.member("allow_self_signed_certificates", allowSelfSignedCertificates)
        json.member("fetch_via_proxy", fetchViaProxy)
        json.member("hide_globally", hideGlobally)
        json.member("disable_http2", disableHttp2)
        json.member("category", category)
        json.member("icon", icon)
      }
    }
  }

  /// An enclosure of an entry.
  struct Enclosure: JSONWritable {
    var id: Int64
    var userId = 1
    var entryId: Int64
    var url: String
    var mimeType: String
    var size: Int64
    var mediaProgression = 0

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("user_id", userId)
        json.member("entry_id", entryId)
        json.member("url", url)
        json.member("mime_type", mimeType)
        json.member("size", size)
        json.member("media_progression", mediaProgression)
      }
    }
  }

  /// An entry (an article).
  struct Entry: JSONWritable {
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

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("user_id", userId)
        json.member("feed_id", feedId)
        json.member("status", status)
        json.member("hash", hash)
        json.member("title", title)
        json.member("url", url)
        json.member("comments_url", commentsUrl)
        json.member("published_at", publishedAt)
        json.member("created_at", createdAt)
        json.member("changed_at", changedAt)
        json.member("content", content)
        json.member("author", author)
        json.member("share_code", shareCode)
        json.member("starred", starred)
        json.member("reading_time", readingTime)
        json.member("enclosures", enclosures)
        json.member("tags", tags)
        json.member("feed", feed)
      }
    }
  }

  /// A page of entries: `total` is how many the filter selects, `entries` the page.
  struct Entries: JSONWritable {
    var total: Int
    var entries: [Entry]

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("total", total)
        json.member("entries", entries)
      }
    }
  }

  /// `GET /v1/feeds/counters`: feed id (as a string) → entries read, and → entries unread.
  struct Counters: JSONWritable {
    var reads: [String: Int]
    var unreads: [String: Int]

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("reads", reads)
        json.member("unreads", unreads)
      }
    }
  }

  /// The answer to `POST /v1/feeds`.
  struct Created: JSONWritable {
    var feedId: Int64

    func write(to json: inout JSONWriter) {
      json.object { json in json.member("feed_id", feedId) }
    }
  }

  /// An error, as Miniflux writes them.
  struct Failure: JSONWritable {
    var errorMessage: String

    func write(to json: inout JSONWriter) {
      json.object { json in json.member("error_message", errorMessage) }
    }
  }

  /// A date as Miniflux writes it (RFC 3339, UTC, seconds).
  static func date(_ date: Date) -> String { ServedDates.rfc3339(date) }

  /// `value` as a JSON response of `status`.
  static func response(_ value: some JSONWritable, status: Int = 200) -> ServerResponse {
    ServerResponse(status: status, type: "application/json", data: JSONWriter.data(value))
  }

  /// `values` as a JSON array response.
  static func response(_ values: [some JSONWritable]) -> ServerResponse {
    ServerResponse(status: 200, type: "application/json", data: JSONWriter.data(JSONArray(values)))
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

  /// The entry document of `article`, served under `feed`; `created_at` is when the store first saved it,
  /// `firstSeen` (Miniflux: when the entry was created; else its publication date).
  static func entry(_ article: Article, feed: Feed, firstSeen: Date?) -> Entry {
    let key = article.url.absoluteString
    let id = ServedIdentifiers.entryID(forKey: key)
    let published = date(article.publishedAt)
    return Entry(
      id: id, feedId: feed.id, status: article.isRead ? "read" : "unread", hash: ArticleIdentity.handle(forKey: key),
      title: article.title, url: (article.displayURL ?? article.url).absoluteString, publishedAt: published,
      createdAt: date(firstSeen ?? article.publishedAt), changedAt: date(article.bookmarkedAt ?? article.publishedAt),
      content: servedContent(of: article), author: article.author ?? "", starred: article.isBookmarked,
      readingTime: readingMinutes(of: article),
      enclosures: article.enclosures.enumerated().map { index, enclosure in
        Enclosure(
          id: Int64(index + 1), entryId: id, url: enclosure.url.absoluteString,
          mimeType: enclosure.type ?? "", size: enclosure.length ?? 0)
      }, tags: article.tags, feed: feed)
  }
}
