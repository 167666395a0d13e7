import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// A stream of the Google Reader API, as FreshRSS names them
/// (<https://freshrss.github.io/FreshRSS/en/developers/06_GoogleReader_API.html>): what `stream/contents/…`,
/// `stream/items/ids`, `mark-all-as-read` and `edit-tag` name with a stream id.
enum ReaderStream: Sendable, Equatable {
  /// `user/-/state/com.google/reading-list`: every served article.
  case readingList
  /// `user/-/state/com.google/starred`: the bookmarked ones.
  case starred
  /// `user/-/state/com.google/read`: the read ones.
  case read
  /// `feed/` + a source's URL.
  case feed(Int64)
  /// `user/-/label/` + a folder's path joined with `/`.
  case label([String])

  /// The state ids, as clients send them (`user/-/…`; `user/<id>/…` is read the same).
  static let readingListID = "user/-/state/com.google/reading-list"
  /// The starred state.
  static let starredID = "user/-/state/com.google/starred"
  /// The read state.
  static let readID = "user/-/state/com.google/read"
  /// The kept-unread state (newsboat removes it when marking read, adds it when marking unread).
  static let keptUnreadID = "user/-/state/com.google/kept-unread"

  /// The state a tag or stream id names, whatever its user segment (`user/-/state/com.google/read`,
  /// `user/1234/state/com.google/read`): `read`, `starred`, `reading-list`, …; `nil` for another id.
  static func state(of id: String) -> String? {
    let parts = id.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "user", parts[2] == "state", parts[3].hasPrefix("com.google/") else {
      return nil
    }
    return String(parts[3].dropFirst("com.google/".count))
  }

  /// The label a tag or stream id names (`user/-/label/Tech/Swift` → `Tech/Swift`), or `nil`.
  static func label(of id: String) -> String? {
    let parts = id.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "user", parts[2] == "label", !parts[3].isEmpty else { return nil }
    return String(parts[3])
  }

  /// The stream `id` names among `catalog`'s, or `nil` for an unknown one.
  init?(_ id: String, catalog: ServedCatalog) {
    if let state = Self.state(of: id) {
      switch state {
      case "reading-list": self = .readingList
      case "starred": self = .starred
      case "read": self = .read
      default: return nil
      }
    } else if let label = Self.label(of: id) {
      guard let category = catalog.category(label: label) else { return nil }
      self = .label(category.path)
    } else if let feed = catalog.feed(streamID: id) {
      self = .feed(feed.id)
    } else {
      return nil
    }
  }

  /// The store's selection of the stream's articles.
  func selection(in catalog: ServedCatalog) -> ArticleSelection {
    switch self {
    case .readingList: return catalog.everything
    case .starred:
      var selection = catalog.everything
      selection.filter.bookmarkedOnly = true
      return selection
    case .read:
      var selection = catalog.everything
      selection.readOnly = true
      return selection
    case .feed(let id): return catalog.selection(of: catalog.feeds.filter { $0.id == id })
    case .label(let path): return catalog.selection(of: catalog.feeds.filter { $0.category.path == path })
    }
  }
}

/// The paging and filter arguments of a stream request (`stream/contents`, `stream/items/ids`, the Atom feeds):
/// `n` (count, 1…1000, default 20), `c` (continuation, as a previous page gave it: ``ReaderContinuation``), `xt` (exclude the read state:
/// unread only), `it` (include only a state: read or starred), `ot` (Unix seconds: only items that arrived at or
/// after), `nt` (Unix seconds: only items that arrived before), `r=o` (oldest first). An item's arrival is when the
/// store first saved it (`firstSeenAt`), as FreshRSS's `ot`/`nt` are about its crawl time (its entry id), not its
/// publication date: an item dated in the past that arrives after a client's last sync still reaches it.
struct ReaderStreamQuery: Sendable, Equatable {
  /// Items per page.
  var count = 20
  /// The last item of the previous page (`c`): this page starts after it in the stream's order.
  var after: ArticlePlace?
  /// Only unread items (`xt=user/-/state/com.google/read`).
  var unreadOnly = false
  /// Only read items (`it=user/-/state/com.google/read`).
  var readOnly = false
  /// Only starred items (`it=user/-/state/com.google/starred`).
  var starredOnly = false
  /// `ot`.
  var oldest: Date?
  /// `nt`.
  var newest: Date?
  /// `r=o`.
  var oldestFirst = false

  /// The largest `n`.
  static let maximumCount = 1000

  /// An invalid argument, named.
  struct Invalid: Error, Equatable {
    /// What the `400` answer says.
    var message: String
  }

  /// Reads the arguments of `request` (form fields or query).
  ///
  /// - Throws: ``Invalid`` naming the first invalid argument.
  init(_ request: ServerRequest, defaultCount: Int = 20) throws(Invalid) {
    count = defaultCount
    if let text = request.parameter("n") {
      guard let value = Int(text), value >= 1 else { throw Invalid(message: "n: \"\(text)\" is not a count ≥ 1") }
      count = min(value, Self.maximumCount)
    }
    if let text = request.parameter("c"), !text.isEmpty {
      guard let place = ReaderContinuation.place(text) else {
        throw Invalid(message: "c: \"\(text)\" is not a continuation this server gave")
      }
      after = place
    }
    for excluded in request.parameters("xt") where ReaderStream.state(of: excluded) == "read" { unreadOnly = true }
    for included in request.parameters("it") {
      switch ReaderStream.state(of: included) {
      case "read": readOnly = true
      case "starred": starredOnly = true
      default: break
      }
    }
    oldest = try Self.seconds(request, "ot")
    newest = try Self.seconds(request, "nt")
    oldestFirst = request.parameter("r") == "o"
  }

  private static func seconds(_ request: ServerRequest, _ name: String) throws(Invalid) -> Date? {
    guard let text = request.parameter(name), !text.isEmpty else { return nil }
    guard let value = Int64(text), abs(value) < 1 << 40 else {
      throw Invalid(message: "\(name): \"\(text)\" is not Unix time in seconds")
    }
    return Date(timeIntervalSince1970: TimeInterval(value))
  }

  /// `base` with these conditions, in arrival order (``ArticleOrder/firstSeen``, as FreshRSS orders by entry id),
  /// and one item more than a page (to tell whether another follows).
  func applied(to base: ArticleSelection) -> ArticleSelection {
    var selection = base
    if unreadOnly { selection.filter.unreadOnly = true }
    if readOnly { selection.readOnly = true }
    if starredOnly { selection.filter.bookmarkedOnly = true }
    if let oldest { selection.firstSeenFrom = oldest }
    if let newest { selection.firstSeenBefore = newest }
    selection.ascending = oldestFirst
    selection.order = .firstSeen
    selection.limit = count + 1
    selection.after = after
    return selection
  }
}

/// The continuation `c` of a Reader stream: the place of a page's last item in the stream's order
/// (``ArticleOrder/firstSeen``: when it arrived, its publication date, both in milliseconds, and its key), so that
/// the next page continues after it, as FreshRSS's `greader.php` does (its continuation is the last item's id, the
/// time it was added) — not a count of items to skip, which skips unread items once a page is marked read and
/// repeats items when new ones arrive between pages. Opaque to clients: base64url (RFC 4648 §5, no padding) of
/// `<arrival ms> <published ms> <key>`.
enum ReaderContinuation {
  /// The continuation after `article`, which arrived at `firstSeen`.
  static func after(_ article: Article, firstSeen: Date) -> String {
    let text =
      "\(Timestamp(firstSeen).millisecondsSince1970) \(Timestamp(article.publishedAt).millisecondsSince1970) "
      + article.url.absoluteString
    return Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// The place a continuation this server gave names, or `nil` for any other text.
  static func place(_ continuation: String) -> ArticlePlace? {
    guard continuation.count < 16_384, continuation.allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) })
    else { return nil }
    var base64 = continuation.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
    let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, let arrived = Int64(parts[0]), abs(arrived) < 1 << 50, let published = Int64(parts[1]),
      abs(published) < 1 << 50, !parts[2].isEmpty
    else { return nil }
    return ArticlePlace(
      firstSeenAt: Timestamp(millisecondsSince1970: arrived).date,
      publishedAt: Timestamp(millisecondsSince1970: published).date, key: String(parts[2]))
  }
}
