import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The JSON documents of the Miniflux API v1 (<https://miniflux.app/docs/api.html>), as Miniflux writes them:
/// snake_case keys, dates in RFC 3339, ids as JSON numbers; each written by ``JSONWriter`` in its fields' order.
enum MinifluxJSON {
  /// The user of `GET /v1/me`: the one user, `username`, with Miniflux's default settings, last logged in at
  /// `lastLoginAt` (``date(_:)``).
  static func user(username: String, lastLoginAt: String) -> JSONObject {
    JSONObject { json in
      json.constantMembers(#""id":1"#)
      json.member("username", username)
      json.constantMembers(userSettings)
      json.member("last_login_at", lastLoginAt)
    }
  }

  /// The members of the user between `username` and `last_login_at`.
  static let userSettings =
    #""is_admin":false,"theme":"system_serif","language":"en_US","timezone":"UTC","entry_sorting_direction":"desc","#
    + #""entry_sorting_order":"published_at","stylesheet":"","google_id":"","openid_connect_id":"","#
    + #""entries_per_page":100,"keyboard_shortcuts":true,"show_reading_time":true,"entry_swipe":true"#

  /// A feed (a source), written once (``JSONDocument``) and copied into each of its entries.
  struct Feed: JSONWritable {
    /// The feed id.
    var id: Int64
    /// The document.
    var document: JSONDocument

    func write(to json: inout JSONWriter) { json.value(document) }
  }

  /// The document of a feed: `served` with its health (`nil`: never refreshed, or not asked for). Its icon is left
  /// out (icons answer 404).
  private struct FeedDocument: JSONWritable {
    /// The feed's ``ServedFeed/id``, ``ServedFeed/feedURL``, ``ServedFeed/siteURL``, ``ServedFeed/title``, its
    /// source's ``NewsSource/fullText`` and ``ServedFeed/category``.
    var id: Int64
    var feedURL: String
    var siteURL: String
    var title: String
    var crawler: Bool
    var category: ServedCategory
    var health: SourceHealth?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.constantMembers(#""user_id":1"#)
        json.member("feed_url", feedURL)
        json.member("site_url", siteURL)
        json.member("title", title)
        json.member("checked_at", date: health?.lastErrorAt ?? health?.lastFetched ?? Date(timeIntervalSince1970: 0))
        json.constantMembers(#""next_check_at":"0001-01-01T00:00:00Z","etag_header":"","last_modified_header":"""#)
        json.member("parsing_error_message", health?.lastError ?? "")
        json.member("parsing_error_count", health?.lastError == nil ? 0 : 1)
        json.constantMembers(#""scraper_rules":"","rewrite_rules":"""#)
        json.member("crawler", crawler)
        json.constantMembers(Self.settings)
        json.member("category", MinifluxJSON.category(category))
      }
    }

    /// The members between `crawler` and `category`.
    static let settings =
      #""blocklist_rules":"","keeplist_rules":"","urlrewrite_rules":"","user_agent":"","cookie":"","username":"","#
      + #""password":"","disabled":false,"no_media_player":false,"ignore_http_cache":false,"#
      + #""allow_self_signed_certificates":false,"fetch_via_proxy":false,"hide_globally":false,"disable_http2":false"#
  }

  /// An entry (an article) under its feed.
  struct Entry: JSONWritable {
    var article: Article
    var feed: Feed
    /// When the store first saved the article (`created_at`); `nil`: its publication date.
    var firstSeen: Date?
    /// The article's served id (16 hex digits: ``ServedIdentifiers``), whose first 13 digits are the entry's id.
    var servedID: String

    /// The feed's id.
    var feedId: Int64 { feed.id }

    func write(to json: inout JSONWriter) {
      let key = article.url.absoluteString
      let id = ServedIdentifiers.entryID(ofServedID: servedID)
      json.object { json in
        json.member("id", id)
        json.constantMembers(#""user_id":1"#)
        json.member("feed_id", feed.id)
        json.member("status", article.isRead ? "read" : "unread")
        json.member("hash", ArticleIdentity.handle(forKey: key))
        json.member("title", article.title)
        json.member("url", (article.displayURL ?? article.url).absoluteString)
        json.constantMembers(#""comments_url":"""#)
        json.member("published_at", date: article.publishedAt)
        json.member("created_at", date: firstSeen ?? article.publishedAt)
        json.member("changed_at", date: article.bookmarkedAt ?? article.publishedAt)
        json.member("content", servedContent(of: article))
        json.member("author", article.author ?? "")
        json.constantMembers(#""share_code":"""#)
        json.member("starred", article.isBookmarked)
        json.member("reading_time", readingMinutes(of: article))
        json.member("enclosures", objects: article.enclosures.enumerated()) { json, numbered in
          json.member("id", Int64(numbered.offset + 1))
          json.constantMembers(#""user_id":1"#)
          json.member("entry_id", id)
          json.member("url", numbered.element.url.absoluteString)
          json.member("mime_type", numbered.element.type ?? "")
          json.member("size", numbered.element.length ?? 0)
          json.constantMembers(#""media_progression":0"#)
        }
        json.member("tags", article.tags)
        json.member("feed", feed)
      }
    }
  }

  /// A page of entries: `total` is how many the filter selects, `entries` the page.
  static func entries(total: Int, _ entries: [Entry]) -> JSONObject {
    JSONObject { json in
      json.member("total", total)
      json.member("entries", entries)
    }
  }

  /// `GET /v1/feeds/counters`: feed id (as a string) → entries read, and → entries unread.
  static func counters(reads: [String: Int], unreads: [String: Int]) -> JSONObject {
    JSONObject { json in
      json.member("reads", reads)
      json.member("unreads", unreads)
    }
  }

  /// The answer to `POST /v1/feeds`: the new feed's id.
  static func created(feedID: Int64) -> JSONObject {
    JSONObject { json in json.member("feed_id", feedID) }
  }

  /// A `{"message": …}` answer (`POST /v1/import`'s).
  static func message(_ message: String) -> JSONObject {
    JSONObject { json in json.member("message", message) }
  }

  /// `GET /v1/version`, in Miniflux's shape: this program's `version` and `commit`; `build_date` and `go_version`
  /// are not known (`unknown`, empty: no Go here), `compiler` is `swiftc`, `arch` and `os` are Go's names for the
  /// platform.
  static func version(_ version: String, commit: String) -> JSONObject {
    JSONObject { json in
      json.member("version", version)
      json.member("commit", commit)
      json.constantMembers(#""build_date":"unknown","go_version":"","compiler":"swiftc""#)
      json.member("arch", goPlatform.arch)
      json.member("os", goPlatform.os)
    }
  }

  /// Go's names of this platform (`GOARCH`, `GOOS`), `unknown` for one this server does not name.
  static let goPlatform: (arch: String, os: String) = {
    var platform = (arch: "unknown", os: "unknown")
    #if arch(x86_64)
      platform.arch = "amd64"
    #elseif arch(arm64)
      platform.arch = "arm64"
    #endif
    #if os(Linux)
      platform.os = "linux"
    #elseif os(macOS)
      platform.os = "darwin"
    #endif
    return platform
  }()

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
    response(JSONObject { json in json.member("error_message", message) }, status: status)
  }

  /// A `204 No Content`.
  static let noContent = ServerResponse(status: 204)

  /// The feed document of `feed`, with its health; without (`nil`), the one the catalog wrote
  /// (``ServedFeed/minifluxFeed``).
  static func feed(_ feed: ServedFeed, health: SourceHealth?) -> Feed {
    guard let health else { return feed.minifluxFeed }
    return self.feed(
      id: feed.id, feedURL: feed.feedURL, siteURL: feed.siteURL, title: feed.title, crawler: feed.source.fullText,
      category: feed.category, health: health)
  }

  /// The feed document of these fields of a ``ServedFeed``, with its health.
  static func feed(
    id: Int64, feedURL: String, siteURL: String, title: String, crawler: Bool, category: ServedCategory,
    health: SourceHealth?
  ) -> Feed {
    Feed(
      id: id,
      document: JSONDocument(
        FeedDocument(
          id: id, feedURL: feedURL, siteURL: siteURL, title: title, crawler: crawler, category: category,
          health: health)))
  }

  /// The category document of `category` (a folder); with `counts` (`?counts=true`), the feeds filed in it
  /// (`feed_count`) and their unread entries (`total_unread`).
  static func category(_ category: ServedCategory, counts: (feeds: Int, unread: Int)? = nil) -> JSONObject {
    JSONObject { json in
      json.member("id", category.id)
      json.member("title", category.title)
      json.constantMembers(#""user_id":1,"hide_globally":false"#)
      json.member("feed_count", counts?.feeds)
      json.member("total_unread", counts?.unread)
    }
  }

  /// The entry document of `article`, served under `feed`; `created_at` is when the store first saved it,
  /// `firstSeen` (Miniflux: when the entry was created; else its publication date).
  static func entry(_ article: Article, feed: Feed, firstSeen: Date?, servedID: String) -> Entry {
    Entry(article: article, feed: feed, firstSeen: firstSeen, servedID: servedID)
  }
}
