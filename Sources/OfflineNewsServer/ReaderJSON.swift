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
  struct UserInfo: JSONWritable {
    var userId = "1"
    var userName: String
    var userProfileId = "1"
    var userEmail = ""

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("userId", userId)
        json.member("userName", userName)
        json.member("userProfileId", userProfileId)
        json.member("userEmail", userEmail)
      }
    }
  }

  /// A label or state of `tag/list`.
  struct Tag: JSONWritable {
    var id: String
    /// `folder` for a label (FreshRSS), absent for a state.
    var type: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("type", type)
      }
    }
  }

  /// `tag/list`.
  struct Tags: JSONWritable {
    var tags: [Tag]

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("tags", tags)
      }
    }
  }

  /// A category of a subscription.
  struct Category: JSONWritable {
    var id: String
    var label: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("label", label)
      }
    }
  }

  /// One subscription of `subscription/list`.
  struct Subscription: JSONWritable {
    var id: String
    var title: String
    var categories: [Category]
    var sortid: String
    var firstitemmsec = "0"
    var url: String
    var htmlUrl: String
    var iconUrl = ""

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("title", title)
        json.member("categories", categories)
        json.member("sortid", sortid)
        json.member("firstitemmsec", firstitemmsec)
        json.member("url", url)
        json.member("htmlUrl", htmlUrl)
        json.member("iconUrl", iconUrl)
      }
    }
  }

  /// `subscription/list`.
  struct Subscriptions: JSONWritable {
    var subscriptions: [Subscription]

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("subscriptions", subscriptions)
      }
    }
  }

  /// One count of `unread-count`.
  struct UnreadCount: JSONWritable {
    var id: String
    var count: Int
    var newestItemTimestampUsec: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("count", count)
        json.member("newestItemTimestampUsec", newestItemTimestampUsec)
      }
    }
  }

  /// `unread-count`.
  struct UnreadCounts: JSONWritable {
    var max: Int
    var unreadcounts: [UnreadCount]

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("max", max)
        json.member("unreadcounts", unreadcounts)
      }
    }
  }

  /// A link of an item.
  struct Link: JSONWritable {
    var href: String
    var type: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("href", href)
        json.member("type", type)
      }
    }
  }

  /// An item's content.
  struct Content: JSONWritable {
    var direction = "ltr"
    var content: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("direction", direction)
        json.member("content", content)
      }
    }
  }

  /// An item's feed.
  struct Origin: JSONWritable {
    var streamId: String
    var title: String
    var htmlUrl: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("streamId", streamId)
        json.member("title", title)
        json.member("htmlUrl", htmlUrl)
      }
    }
  }

  /// An enclosure of an item.
  struct Enclosure: JSONWritable {
    var href: String
    var type: String?
    var length: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("href", href)
        json.member("type", type)
        json.member("length", length)
      }
    }
  }

  /// An item (an article).
  struct Item: JSONWritable {
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

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("crawlTimeMsec", crawlTimeMsec)
        json.member("timestampUsec", timestampUsec)
        json.member("published", published)
        json.member("updated", updated)
        json.member("title", title)
        json.member("canonical", canonical)
        json.member("alternate", alternate)
        json.member("summary", summary)
        json.member("author", author)
        json.member("categories", categories)
        json.member("origin", origin)
        json.member("enclosure", enclosure)
      }
    }
  }

  /// `stream/contents` and `stream/items/contents`.
  struct Stream: JSONWritable {
    var id: String
    var title: String?
    var direction = "ltr"
    var updated: Int64
    var items: [Item]
    var continuation: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("title", title)
        json.member("direction", direction)
        json.member("updated", updated)
        json.member("items", items)
        json.member("continuation", continuation)
      }
    }
  }

  /// One reference of `stream/items/ids`: the short (signed decimal) id.
  struct ItemRef: JSONWritable {
    var id: String
    var directStreamIds: [String] = []
    var timestampUsec: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("directStreamIds", directStreamIds)
        json.member("timestampUsec", timestampUsec)
      }
    }
  }

  /// `stream/items/ids`.
  struct ItemRefs: JSONWritable {
    var itemRefs: [ItemRef]
    var continuation: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("itemRefs", itemRefs)
        json.member("continuation", continuation)
      }
    }
  }

  /// `subscription/quickadd`.
  struct QuickAdd: JSONWritable {
    var numResults: Int
    var query: String
    var streamId: String?
    var streamName: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("numResults", numResults)
        json.member("query", query)
        json.member("streamId", streamId)
        json.member("streamName", streamName)
      }
    }
  }

  /// `value` as a JSON answer.
  static func response(_ value: some JSONWritable, status: Int = 200) -> ServerResponse {
    ServerResponse(status: status, type: "application/json; charset=utf-8", data: JSONWriter.data(value))
  }

  /// The plain `OK` the state changes answer.
  static let ok = ServerResponse.text("OK")

  /// Microseconds since 1970 as a string.
  static func microseconds(_ date: Date) -> String { String(Timestamp(date).millisecondsSince1970 * 1000) }

  /// The item document of `article` in `feed`. `crawlTimeMsec` and `timestampUsec` are when it arrived, `firstSeen`
  /// (FreshRSS: the time the entry was added; else its publication date), `published` and `updated` its
  /// publication date.
  static func item(_ article: Article, feed: ServedFeed, firstSeen: Date?) -> Item {
    let key = article.url.absoluteString
    let link = (article.displayURL ?? article.url).absoluteString
    let milliseconds = Timestamp(article.publishedAt).millisecondsSince1970
    let crawled = Timestamp(firstSeen ?? article.publishedAt).millisecondsSince1970
    var categories = [ReaderStream.readingListID]
    if !feed.category.path.isEmpty { categories.append(feed.category.streamID) }
    if article.isRead { categories.append(ReaderStream.readID) }
    if article.isBookmarked { categories.append(ReaderStream.starredID) }
    return Item(
      id: ServedIdentifiers.readerItemID(forKey: key), crawlTimeMsec: String(crawled),
      timestampUsec: String(crawled * 1000), published: milliseconds / 1000, updated: milliseconds / 1000,
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
