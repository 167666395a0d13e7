import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The JSON documents of the Google Reader API as FreshRSS writes them
/// (<https://freshrss.github.io/FreshRSS/en/developers/06_GoogleReader_API.html>, FreshRSS's `greader.php`):
/// camelCase keys, times as strings of milliseconds (`crawlTimeMsec`) or microseconds (`timestampUsec`) and as
/// numbers of seconds (`published`, `updated`); each written by ``JSONWriter`` in its fields' order.
enum ReaderJSON {
  /// `user-info`.
  struct UserInfo: Encodable {
    var userId = "1"
    var userName: String
    var userProfileId = "1"
    var userEmail = ""
  }

  /// A label or state of `tag/list`.
  struct Tag: Encodable {
    var id: String
    /// `folder` for a label (FreshRSS), absent for a state.
    var type: String?
  }

  /// `tag/list`.
  struct Tags: Encodable {
    var tags: [Tag]
  }

  /// A category of a subscription.
  struct Category: Encodable {
    var id: String
    var label: String
  }

  /// One subscription of `subscription/list`.
  struct Subscription: Encodable {
    var id: String
    var title: String
    var categories: [Category]
    var sortid: String
    var firstitemmsec = "0"
    var url: String
    var htmlUrl: String
    var iconUrl = ""
  }

  /// `subscription/list`.
  struct Subscriptions: Encodable {
    var subscriptions: [Subscription]
  }

  /// One count of `unread-count`.
  struct UnreadCount: Encodable {
    var id: String
    var count: Int
    var newestItemTimestampUsec: String
  }

  /// `unread-count`.
  struct UnreadCounts: Encodable {
    var max: Int
    var unreadcounts: [UnreadCount]
  }

  /// A link of an item.
  struct Link: Encodable {
    var href: String
    var type: String?
  }

  /// An item's content.
  struct Content: Encodable {
    var direction = "ltr"
    var content: String
  }

  /// An item's feed.
  struct Origin: Encodable {
    var streamId: String
    var title: String
    var htmlUrl: String
  }

  /// An enclosure of an item.
  struct Enclosure: Encodable {
    var href: String
    var type: String?
    var length: String?
  }

  /// An item (an article).
  struct Item: Encodable {
    var id: String
    var crawlTimeMsec: String
    var timestampUsec: String
    var published: Int64
    var updated: Int64
    var title: String
    var canonical: [Link]
    var alternate: [Link]
    var summary: Content
    var author: String
    var categories: [String]
    var origin: Origin
    var enclosure: [Enclosure]?
  }

  /// `stream/contents` and `stream/items/contents`.
  struct Stream: Encodable {
    var id: String
    var title: String?
    var direction = "ltr"
    var updated: Int64
    var items: [Item]
    var continuation: String?
  }

  /// One reference of `stream/items/ids`: the short (signed decimal) id.
  struct ItemRef: Encodable {
    var id: String
    var directStreamIds: [String] = []
    var timestampUsec: String
  }

  /// `stream/items/ids`.
  struct ItemRefs: Encodable {
    var itemRefs: [ItemRef]
    var continuation: String?
  }

  /// `subscription/quickadd`.
  struct QuickAdd: Encodable {
    var numResults: Int
    var query: String
    var streamId: String?
    var streamName: String?
  }

  /// `value` as a JSON answer.
  static func response(_ value: some Encodable, status: Int = 200) -> ServerResponse {
    ServerResponse(status: status, type: "application/json; charset=utf-8", data: JSONWriter.data(value))
  }

  /// The plain `OK` the state changes answer.
  static let ok = ServerResponse.text("OK")

  /// Microseconds since 1970 as a string.
  static func microseconds(_ date: Date) -> String { String(Timestamp(date).millisecondsSince1970 * 1000) }

  /// The item document of `article` in `feed`.
  static func item(_ article: Article, feed: ServedFeed) -> Item {
    let key = article.url.absoluteString
    let link = (article.displayURL ?? article.url).absoluteString
    let milliseconds = Timestamp(article.publishedAt).millisecondsSince1970
    var categories = [ReaderStream.readingListID]
    if !feed.category.path.isEmpty { categories.append(feed.category.streamID) }
    if article.isRead { categories.append(ReaderStream.readID) }
    if article.isBookmarked { categories.append(ReaderStream.starredID) }
    return Item(
      id: ServedIdentifiers.readerItemID(forKey: key), crawlTimeMsec: String(milliseconds),
      timestampUsec: String(milliseconds * 1000), published: milliseconds / 1000, updated: milliseconds / 1000,
      title: article.title, canonical: [Link(href: link)], alternate: [Link(href: link, type: "text/html")],
      summary: Content(content: servedContent(of: article)), author: article.author ?? "", categories: categories,
      origin: Origin(streamId: feed.streamID, title: feed.title, htmlUrl: feed.siteURL),
      enclosure: article.enclosures.isEmpty
        ? nil
        : article.enclosures.map {
          Enclosure(href: $0.url.absoluteString, type: $0.type, length: $0.length.map(String.init))
        })
  }
}
