import Foundation
import OfflineNews
import OfflineNewsModel
import Testing

@testable import OfflineNewsServer

/// The sync APIs' documents as ``JSONWriter`` writes them: members in the APIs' order, Miniflux's snake_case, absent
/// optionals left out, counters sorted by name, and what `JSONSerialization` reads back. (A streaming `Encoder` over
/// plain `Encodable` structs gave these bytes too, but cost about 1 ms more server CPU a request in `news-bench
/// --serve`, so the documents keep their hand-written `write(to:)`.)
@Suite struct JSONWriterTests {
  static func text(_ value: some JSONWritable) -> String {
    String(decoding: JSONWriter.data(value), as: UTF8.self)
  }

  /// A feed filed in `Tech "news"`, with its home page, fetching whole texts, and its one article.
  static func servedFeedAndArticle() throws -> (ServedFeed, Article) {
    let source = NewsSource(
      name: "Example", url: try #require(URL(string: "https://example.com/feed")), folder: [#"Tech "news""#],
      homePage: URL(string: "https://example.com/"), fullText: true)
    let feed = try #require(ServedCatalog(sources: [source]).feeds.first)
    let article = Article(
      url: try #require(URL(string: "https://example.com/a")), title: "Tab\there", summary: "Two words",
      publishedAt: Date(timeIntervalSince1970: 1_714_521_600), content: "<p>é</p>", tags: ["x", "y"],
      enclosures: [Enclosure(url: try #require(URL(string: "https://example.com/a.mp3")), length: 3)])
    return (feed, article)
  }

  @Test("a Miniflux entry: snake_case keys in Miniflux's order, nested documents and arrays, nil members left out")
  func minifluxEntry() throws {
    let (served, article) = try Self.servedFeedAndArticle()
    let feed = MinifluxJSON.feed(served, health: SourceHealth(lastFetched: Date(timeIntervalSince1970: 1_714_521_600)))
    let text = Self.text(MinifluxJSON.entry(article, feed: feed, firstSeen: nil, servedID: article.handle))
    let id = ServedIdentifiers.entryID(forKey: "https://example.com/a")
    let hash = ArticleIdentity.handle(forKey: "https://example.com/a")
    #expect(
      text
        == #"{"id":\#(id),"user_id":1,"feed_id":\#(served.id),"status":"unread","hash":"\#(hash)","title":"Tab\there","#
        + #""url":"https://example.com/a","comments_url":"","published_at":"2024-05-01T00:00:00Z","#
        + #""created_at":"2024-05-01T00:00:00Z","changed_at":"2024-05-01T00:00:00Z","content":"<p>é</p>","#
        + #""author":"","share_code":"","starred":false,"reading_time":1,"#
        + #""enclosures":[{"id":1,"user_id":1,"entry_id":\#(id),"url":"https://example.com/a.mp3","mime_type":"","#
        + #""size":3,"media_progression":0}],"tags":["x","y"],"#
        + #""feed":{"id":\#(served.id),"user_id":1,"feed_url":"https://example.com/feed","#
        + #""site_url":"https://example.com/","title":"Example","checked_at":"2024-05-01T00:00:00Z","#
        + #""next_check_at":"0001-01-01T00:00:00Z","etag_header":"","last_modified_header":"","#
        + #""parsing_error_message":"","parsing_error_count":0,"scraper_rules":"","rewrite_rules":"","crawler":true,"#
        + #""blocklist_rules":"","keeplist_rules":"","urlrewrite_rules":"","user_agent":"","cookie":"","username":"","#
        + #""password":"","disabled":false,"no_media_player":false,"ignore_http_cache":false,"#
        + #""allow_self_signed_certificates":false,"fetch_via_proxy":false,"hide_globally":false,"#
        + #""disable_http2":false,"category":{"id":\#(served.category.id),"title":"Tech \"news\"","user_id":1,"#
        + #""hide_globally":false}}}"#)
    // `feed_count`, `total_unread` and `icon` are nil: left out, as Miniflux leaves them out.
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["reading_time"] as? Int == 1)
    #expect((object["feed"] as? [String: Any])?.count == 29)
  }

  @Test("the documents with constant members read back as JSON with every member: Miniflux's user, Reader's user")
  func constantMembers() throws {
    let user = Self.text(MinifluxJSON.user(username: "me", lastLoginAt: "2024-05-01T00:00:00Z"))
    #expect(user.hasPrefix(#"{"id":1,"username":"me","is_admin":false,"theme":"system_serif","#))
    #expect(user.hasSuffix(#""entry_swipe":true,"last_login_at":"2024-05-01T00:00:00Z"}"#))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(user.utf8)) as? [String: Any])
    #expect(object.count == 16 && object["entries_per_page"] as? Int == 100)
    #expect(
      Self.text(ReaderJSON.userInfo(userName: "me"))
        == #"{"userId":"1","userName":"me","userProfileId":"1","userEmail":""}"#)
  }

  @Test("a Reader item: FreshRSS's members in its order, its streams, the enclosure only when there is one")
  func readerItem() throws {
    let (feed, read) = try Self.servedFeedAndArticle()
    var article = read
    article.isRead = true
    let text = Self.text(ReaderJSON.item(article, feed: feed, firstSeen: nil, servedID: article.handle))
    let id = ServedIdentifiers.readerItemID(forKey: "https://example.com/a")
    #expect(
      text
        == #"{"id":"\#(id)","crawlTimeMsec":"1714521600000","timestampUsec":"1714521600000000","#
        + #""published":1714521600,"updated":1714521600,"title":"Tab\there","#
        + #""canonical":[{"href":"https://example.com/a"}],"#
        + #""alternate":[{"href":"https://example.com/a","type":"text/html"}],"#
        + #""summary":{"direction":"ltr","content":"<p>é</p>"},"author":"","#
        + #""categories":["user/-/state/com.google/reading-list","user/-/label/Tech \"news\"","#
        + #""user/-/state/com.google/read"],"#
        + #""origin":{"streamId":"feed/https://example.com/feed","title":"Example","htmlUrl":"https://example.com/"},"#
        + #""enclosure":[{"href":"https://example.com/a.mp3","length":"3"}]}"#)
    article.enclosures = []
    #expect(
      !Self.text(ReaderJSON.item(article, feed: feed, firstSeen: nil, servedID: article.handle)).contains("enclosure"))
  }

  @Test("an array of documents, counters sorted by name, and Reader's camelCase as declared")
  func arraysCountersAndReaderKeys() {
    let (a, b) = (ServedCategory(path: ["A"]), ServedCategory(path: ["B"]))
    let categories = [MinifluxJSON.category(a), MinifluxJSON.category(b, counts: (feeds: 2, unread: 0))]
    #expect(
      Self.text(JSONArray(categories))
        == #"[{"id":\#(a.id),"title":"A","user_id":1,"hide_globally":false},{"id":\#(b.id),"title":"B","user_id":1,"#
        + #""hide_globally":false,"feed_count":2,"total_unread":0}]"#)
    let counters = MinifluxJSON.counters(reads: ["10": 1, "2": 0, "1": 5], unreads: [:])
    #expect(Self.text(counters) == #"{"reads":{"1":5,"10":1,"2":0},"unreads":{}}"#)
    let refs = ReaderJSON.itemRefs([(id: "-5", timestampUsec: "1000")], continuation: nil)
    #expect(Self.text(refs) == #"{"itemRefs":[{"id":"-5","directStreamIds":[],"timestampUsec":"1000"}]}"#)
    #expect(
      Self.text(ReaderJSON.tagList(labels: ["user/-/label/Tech"]))
        == #"{"tags":[{"id":"user/-/state/com.google/starred"},{"id":"user/-/label/Tech","type":"folder"}]}"#)
  }

  @Test("integers and dates written straight into the text: as String(_:) and ServedDates.rfc3339 write them")
  func numbersAndDates() {
    struct Numbers: JSONWritable {
      var values: [Int64]
      func write(to json: inout JSONWriter) { json.member("n", each: values) { json, value in json.number(value) } }
    }
    let values: [Int64] = [0, 7, -7, 9, 10, 99, 100, 1_000_000, -1_000_000_007, .max, .min, .max - 1, .min + 1]
    var json = JSONWriter()
    json.object { json in Numbers(values: values).write(to: &json) }
    #expect(
      String(decoding: json.bytes, as: UTF8.self) == #"{"n":["# + values.map(String.init).joined(separator: ",") + "]}")

    struct Dated: JSONWritable {
      var date: Date
      func write(to json: inout JSONWriter) { json.object { json in json.member("at", date: date) } }
    }
    for (seconds, text) in [
      (0.0, "1970-01-01T00:00:00Z"), (1_714_521_600.999, "2024-05-01T00:00:00Z"), (-0.5, "1969-12-31T23:59:59Z"),
      (-62_167_219_200, "0000-01-01T00:00:00Z"), (253_402_300_799.999, "9999-12-31T23:59:59Z"),
      (-62_198_755_200, "-0001-01-01T00:00:00Z"), (253_402_300_800, "10000-01-01T00:00:00Z"),
    ] {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(Self.text(Dated(date: date)) == #"{"at":"\#(text)"}"#, "\(seconds)")
      #expect(ServedDates.rfc3339(date) == text)
      // The same instant with its milliseconds, as the model prints it.
      #expect(Timestamp(date).rfc3339String.hasPrefix(String(text.dropLast())))
    }
  }

  @Test("a feed whose URL has a password is served without it (feed_url, streamId, title), and found by its id")
  func passwordNotServed() throws {
    let url = try #require(URL(string: "https://ann:s3cret@example.com/feed"))
    let source = NewsSource(name: url.absoluteString, url: url)
    let catalog = ServedCatalog(sources: [source])
    let feed = try #require(catalog.feeds.first)
    let miniflux = Self.text(MinifluxJSON.feed(feed, health: SourceHealth()))
    let reader = Self.text(ReaderJSON.subscriptionList(catalog.feeds))
    for text in [miniflux, reader, feed.streamID, feed.title] {
      #expect(!text.contains("s3cret"), "\(text)")
    }
    #expect(feed.streamID == "feed/https://ann:***@example.com/feed")
    #expect(catalog.feed(streamID: feed.streamID)?.id == feed.id)
    #expect(catalog.feed(streamID: "feed/" + url.absoluteString)?.id == feed.id, "and by the URL itself")
  }
}
