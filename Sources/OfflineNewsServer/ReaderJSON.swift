import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The JSON documents of the Google Reader API as FreshRSS writes them
/// (<https://freshrss.github.io/FreshRSS/en/developers/06_GoogleReader_API.html>, FreshRSS's `greader.php`):
/// camelCase keys, times as strings of milliseconds (`crawlTimeMsec`) or microseconds (`timestampUsec`) and as
/// numbers of seconds (`published`, `updated`); each written by ``JSONWriter`` in its fields' order.
enum ReaderJSON {
  /// `user-info`: the one user, `userName`.
  static func userInfo(userName: String) -> JSONObject {
    JSONObject { json in
      json.constantMembers(#""userId":"1""#)
      json.member("userName", userName)
      json.constantMembers(#""userProfileId":"1","userEmail":"""#)
    }
  }

  /// `tag/list`: the starred state, then each label of `labels` (its stream id) as a tag of type `folder`
  /// (FreshRSS; a state has no type).
  static func tagList(labels: [String]) -> JSONObject {
    let tags: [(id: String, type: String?)] = [(ReaderStream.starredID, nil)] + labels.map { ($0, "folder") }
    return JSONObject { json in
      json.member("tags", objects: tags) { json, tag in
        json.member("id", tag.id)
        json.member("type", tag.type)
      }
    }
  }

  /// `subscription/list`: each feed with its label (none at the top level) and its ``ServedFeed/id`` in hex as
  /// `sortid`.
  static func subscriptionList(_ feeds: [ServedFeed]) -> JSONObject {
    JSONObject { json in
      json.member("subscriptions", objects: feeds) { json, feed in
        json.member("id", feed.streamID)
        json.member("title", feed.title)
        json.member("categories", objects: feed.category.path.isEmpty ? [] : [feed.category]) { json, category in
          json.member("id", category.streamID)
          json.member("label", category.label)
        }
        json.member("sortid", String(feed.id, radix: 16))
        json.constantMembers(#""firstitemmsec":"0""#)
        json.member("url", feed.feedURL)
        json.member("htmlUrl", feed.siteURL)
        json.constantMembers(#""iconUrl":"""#)
      }
    }
  }

  /// `unread-count`: `max` (the unread articles of the reading list), and the unread articles of each stream with
  /// the publication date of its newest article (``microseconds(_:)``; `0` when it has none).
  static func unreadCounts(max: Int, _ counts: [(id: String, count: Int, newest: Date?)]) -> JSONObject {
    JSONObject { json in
      json.member("max", max)
      json.member("unreadcounts", objects: counts) { json, count in
        json.member("id", count.id)
        json.member("count", count.count)
        json.member("newestItemTimestampUsec", microseconds(count.newest ?? Date(timeIntervalSince1970: 0)))
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
        json.member("canonical", objects: CollectionOfOne(link)) { json, link in json.member("href", link) }
        json.member("alternate", objects: CollectionOfOne(link)) { json, link in
          json.member("href", link)
          json.constantMembers(#""type":"text/html""#)
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
          json.member("enclosure", objects: article.enclosures) { json, enclosure in
            json.member("href", enclosure.url.absoluteString)
            json.member("type", enclosure.type)
            json.member("length", enclosure.length.map(String.init))
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

  /// `stream/contents` and `stream/items/contents`: the stream `id` and `title`, `updated` (seconds since 1970), its
  /// `items` and the continuation of the next page.
  static func stream(id: String, title: String? = nil, updated: Int64, items: [Item], continuation: String? = nil)
    -> JSONObject
  {
    JSONObject { json in
      json.member("id", id)
      json.member("title", title)
      json.constantMembers(#""direction":"ltr""#)
      json.member("updated", updated)
      json.member("items", items)
      json.member("continuation", continuation)
    }
  }

  /// `stream/items/ids`: each item's short (signed decimal) id and when it arrived (``microseconds(_:)``), and the
  /// continuation of the next page.
  static func itemRefs(_ refs: [(id: String, timestampUsec: String)], continuation: String?) -> JSONObject {
    JSONObject { json in
      json.member("itemRefs", objects: refs) { json, ref in
        json.member("id", ref.id)
        json.constantMembers(#""directStreamIds":[]"#)
        json.member("timestampUsec", ref.timestampUsec)
      }
      json.member("continuation", continuation)
    }
  }

  /// `subscription/quickadd`: the one feed subscribed (or subscribed already) for the `query`, at `feedURL`, named
  /// `name`.
  static func quickAdd(query: String, feedURL: URL, name: String) -> JSONObject {
    JSONObject { json in
      json.constantMembers(#""numResults":1"#)
      json.member("query", query)
      json.member("streamId", "feed/" + NewsQuery.shown(feedURL))
      json.member("streamName", name)
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
