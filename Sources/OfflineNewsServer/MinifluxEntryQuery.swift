import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// The filter of `GET /v1/entries` (and of a feed's or category's entries), read from its query arguments as the
/// Miniflux API documents them (<https://miniflux.app/docs/api.html#endpoint-get-entries>); arguments it does not
/// know are ignored, an invalid value is an error naming its argument.
struct MinifluxEntryQuery: Sendable, Equatable {
  /// `status` (repeatable): `unread`, `read`, `removed`; empty for any.
  var statuses: Set<String> = []
  /// `starred`: `true` only bookmarked entries, `false` only the others; `nil` (absent, or no bool) no condition. Read
  /// as Miniflux reads it, with Go's `strconv.ParseBool`: `1`, `t`, `T`, `true`, `TRUE`, `True` and `0`, `f`, `F`,
  /// `false`, `FALSE`, `False`; any other value is ignored.
  var starred: Bool?
  /// `limit`: 1…1000, default 100 (`0` is the default).
  var limit = 100
  /// `offset`: ≥ 0.
  var offset = 0
  /// `order`: `id`, `status`, `published_at` (default), `category_title`, `category_id`.
  var order = "published_at"
  /// `direction`: `asc` (the default, Miniflux's `DefaultSortingDirection`) or `desc`.
  var ascending = true
  /// `after` / `published_after`: Unix seconds; only entries published strictly after.
  var after: Date?
  /// `before` / `published_before`: Unix seconds; only entries published strictly before.
  var before: Date?
  /// `after_entry_id`: only entries with a greater id.
  var afterEntryID: Int64?
  /// `before_entry_id`: only entries with a smaller id.
  var beforeEntryID: Int64?
  /// `category_id`.
  var categoryID: Int64?
  /// `feed_id`.
  var feedID: Int64?
  /// `search`: full-text search of the store (FTS5), best match first.
  var search: String?

  /// The largest `limit`.
  static let maximumLimit = 1000
  /// The orders Miniflux accepts.
  static let orders: Set<String> = ["id", "status", "published_at", "category_title", "category_id"]

  /// A parameter that is not valid, with the reason.
  struct Invalid: Error, Equatable {
    /// What the error answer says.
    var message: String
  }

  /// Reads the query arguments of `request`.
  ///
  /// - Throws: ``Invalid`` naming the first invalid argument.
  init(_ request: ServerRequest) throws(Invalid) {
    for status in request.queryValues("status") {
      guard ["unread", "read", "removed"].contains(status) else {
        throw Invalid(message: "Invalid entry status: status must be unread, read or removed, not \"\(status)\"")
      }
      statuses.insert(status)
    }
    switch request.queryValue("starred") {
    case "1", "t", "T", "true", "TRUE", "True": starred = true
    case "0", "f", "F", "false", "FALSE", "False": starred = false
    default: starred = nil
    }
    if let text = request.queryValue("limit") {
      guard let value = Int(text), (0...Self.maximumLimit).contains(value) else {
        throw Invalid(message: "Invalid limit: \"\(text)\" (an integer from 1 to \(Self.maximumLimit))")
      }
      limit = value == 0 ? 100 : value
    }
    if let text = request.queryValue("offset") {
      guard let value = Int(text), value >= 0 else {
        throw Invalid(message: "Invalid offset: \"\(text)\" (an integer ≥ 0)")
      }
      offset = value
    }
    if let text = request.queryValue("order") {
      guard Self.orders.contains(text) else {
        throw Invalid(
          message: "Invalid order: \"\(text)\" (one of \(Self.orders.sorted().joined(separator: ", ")))")
      }
      order = text
    }
    if let text = request.queryValue("direction") {
      guard text == "asc" || text == "desc" else {
        throw Invalid(message: "Invalid direction: \"\(text)\" (asc or desc)")
      }
      ascending = text == "asc"
    }
    after = try Self.seconds(request, "after")
    if after == nil { after = try Self.seconds(request, "published_after") }
    before = try Self.seconds(request, "before")
    if before == nil { before = try Self.seconds(request, "published_before") }
    afterEntryID = try Self.integer(request, "after_entry_id")
    beforeEntryID = try Self.integer(request, "before_entry_id")
    categoryID = try Self.integer(request, "category_id")
    feedID = try Self.integer(request, "feed_id")
    if let text = request.queryValue("search"), !text.trimmingWhiteSpace.isEmpty { search = text }
  }

  private static func integer(_ request: ServerRequest, _ name: String) throws(Invalid) -> Int64? {
    guard let text = request.queryValue(name) else { return nil }
    guard let value = Int64(text) else { throw Invalid(message: "Invalid \(name): \"\(text)\" (an integer)") }
    return value
  }

  private static func seconds(_ request: ServerRequest, _ name: String) throws(Invalid) -> Date? {
    guard let text = request.queryValue(name) else { return nil }
    guard let value = Int64(text), abs(value) < 1 << 40 else {
      throw Invalid(message: "Invalid \(name): \"\(text)\" (Unix time in seconds)")
    }
    return Date(timeIntervalSince1970: TimeInterval(value))
  }

  /// The store's selection of these entries among `feeds` (all of the catalog's when `nil`), or `nil` when it
  /// selects none (`status=removed` alone: nothing is ever removed here).
  func selection(of feeds: [ServedFeed]?, in catalog: ServedCatalog) -> ArticleSelection? {
    if !statuses.isEmpty, !statuses.contains("unread"), !statuses.contains("read") { return nil }
    var selection = feeds.map(catalog.selection(of:)) ?? catalog.everything
    selection.filter.unreadOnly = statuses.contains("unread") && !statuses.contains("read")
    selection.readOnly = statuses.contains("read") && !statuses.contains("unread")
    selection.filter.bookmarkedOnly = starred == true
    selection.unbookmarkedOnly = starred == false
    selection.filter.publishedBefore = before
    selection.publishedAfter = after
    if let afterEntryID {
      // Ids are the served ids' first 13 digits: a greater id is a greater prefix.
      selection.servedIDAbove =
        afterEntryID < 1 ? nil : ServedIdentifiers.servedIDPrefix(ofEntryID: afterEntryID).map { $0 + "fff" } ?? "g"
    }
    if let beforeEntryID {
      selection.servedIDBelow =
        beforeEntryID >= 1 << 52 ? nil : ServedIdentifiers.servedIDPrefix(ofEntryID: beforeEntryID) ?? ""
    }
    selection.ascending = ascending
    switch order {
    case "id": selection.order = .servedID
    case "status": selection.order = .readState
    case "category_title", "category_id":
      let key: (ServedCategory) -> String = order == "category_title" ? { $0.title } : { String($0.id) }
      let ranked = catalog.categories.map(key).sorted()
      var ranks: [String: Int] = [:]
      for feed in catalog.feeds { ranks[feed.source.name] = ranked.firstIndex(of: key(feed.category)) ?? 0 }
      selection.order = .sourceRank(ranks)
    default: selection.order = .published
    }
    selection.limit = limit
    selection.offset = offset
    return selection
  }
}
