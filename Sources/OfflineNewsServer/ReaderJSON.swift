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
    var userName: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.constantMembers(#""userId":"1""#)
        json.member("userName", userName)
        json.constantMembers(#""userProfileId":"1","userEmail":"""#)
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
    var url: String
    var htmlUrl: String

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("title", title)
        json.member("categories", categories)
        json.member("sortid", sortid)
        json.constantMembers(#""firstitemmsec":"0""#)
        json.member("url", url)
        json.member("htmlUrl", htmlUrl)
        json.constantMembers(#""iconUrl":"""#)
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

  /// An item (an article) of its feed.
  struct Item: JSONWritable {
    var article: Article
    var feed: ServedFeed
    /// When the store first saved the article (`crawlTimeMsec`, `timestampUsec`); `nil`: its publication date.
    var firstSeen: Date?
    /// The article's served id (16 hex digits: ``ServedIdentifiers``): its item id's.
    var servedID: String

    func write(to json: inout JSONWriter) {
      let link = (article.displayURL ?? article.url).absoluteString
      let milliseconds = Timestamp(article.publishedAt).millisecondsSince1970
      let crawled = Timestamp(firstSeen ?? article.publishedAt).millisecondsSince1970
      json.object { json in
        json.member("id", ServedIdentifiers.readerItemID(ofServedID: servedID))
        json.member("crawlTimeMsec", String(crawled))
        json.member("timestampUsec", String(crawled * 1000))
        json.member("published", milliseconds / 1000)
        json.member("updated", milliseconds / 1000)
        json.member("title", article.title)
        json.member("canonical", each: CollectionOfOne(link)) { json, link in
          json.object { json in json.member("href", link) }
        }
        json.member("alternate", each: CollectionOfOne(link)) { json, link in
          json.object { json in
            json.member("href", link)
            json.constantMembers(#""type":"text/html""#)
          }
        }
        json.member("summary") { json in
          json.constantMembers(#""direction":"ltr""#)
          json.member("content", servedContent(of: article))
        }
        json.member("author", article.author ?? "")
        json.member("categories", categories)
        json.member("origin") { json in
          json.member("streamId", feed.streamID)
          json.member("title", feed.title)
          json.member("htmlUrl", feed.siteURL)
        }
        if !article.enclosures.isEmpty {
          json.member("enclosure", each: article.enclosures) { json, enclosure in
            json.object { json in
              json.member("href", enclosure.url.absoluteString)
              json.member("type", enclosure.type)
              json.member("length", enclosure.length.map(String.init))
            }
          }
        }
      }
    }

    /// Its streams: the reading list, its label, and the read and starred states it is in.
    var categories: [String] {
      var categories = [ReaderStream.readingListID]
      if !feed.category.path.isEmpty { categories.append(feed.category.streamID) }
      if article.isRead { categories.append(ReaderStream.readID) }
      if article.isBookmarked { categories.append(ReaderStream.starredID) }
      return categories
    }
  }

  /// `stream/contents` and `stream/items/contents`.
  struct Stream: JSONWritable {
    var id: String
    var title: String?
    var updated: Int64
    var items: [Item]
    var continuation: String?

    func write(to json: inout JSONWriter) {
      json.object { json in
        json.member("id", id)
        json.member("title", title)
        json.constantMembers(#""direction":"ltr""#)
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
  static func item(_ article: Article, feed: ServedFeed, firstSeen: Date?, servedID: String) -> Item {
    Item(article: article, feed: feed, firstSeen: firstSeen, servedID: servedID)
  }
}
