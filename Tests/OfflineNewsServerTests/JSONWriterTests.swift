import Foundation
import Testing

@testable import OfflineNewsServer

/// The sync APIs' documents as ``JSONWriter`` writes them: members in declared order, Miniflux's snake_case, absent
/// optionals left out, counters sorted by name, and what `JSONSerialization` reads back. (A streaming `Encoder` over
/// plain `Encodable` structs gave these bytes too, but cost about 1 ms more server CPU a request in `news-bench
/// --serve`, so the documents keep their hand-written `write(to:)`.)
@Suite struct JSONWriterTests {
  static func text(_ value: some JSONWritable) -> String {
    String(decoding: JSONWriter.data(value), as: UTF8.self)
  }

  @Test("a Miniflux entry: snake_case keys in declared order, nested documents and arrays, nil members left out")
  func minifluxEntry() throws {
    let category = MinifluxJSON.Category(id: 2, title: "Tech \"news\"")
    let feed = MinifluxJSON.Feed(
      id: 7, feedUrl: "https://example.com/feed", siteUrl: "https://example.com/", title: "Example",
      checkedAt: "2024-05-01T00:00:00Z", parsingErrorMessage: "", parsingErrorCount: 0, crawler: true,
      category: category)
    let entry = MinifluxJSON.Entry(
      id: 9, feedId: 7, status: "unread", hash: "abc", title: "Tab\there", url: "https://example.com/a",
      publishedAt: "2024-05-01T00:00:00Z", createdAt: "2024-05-01T00:00:00Z", changedAt: "2024-05-01T00:00:00Z",
      content: "<p>é</p>", author: "", starred: false, readingTime: 1,
      enclosures: [MinifluxJSON.Enclosure(id: 1, entryId: 9, url: "https://example.com/a.mp3", mimeType: "", size: 3)],
      tags: ["x", "y"], feed: feed)
    let text = Self.text(entry)
    #expect(
      text.hasPrefix(
        #"{"id":9,"user_id":1,"feed_id":7,"status":"unread","hash":"abc","title":"Tab\there","url":"https://example.com/a","#
          + #""comments_url":"","published_at":"2024-05-01T00:00:00Z","#))
    #expect(
      text.contains(
        #""enclosures":[{"id":1,"user_id":1,"entry_id":9,"url":"https://example.com/a.mp3","mime_type":"","size":3,"#
          + #""media_progression":0}],"tags":["x","y"],"feed":{"id":7,"#))
    #expect(text.contains(#""ignore_http_cache":false,"allow_self_signed_certificates":false,"#))
    #expect(text.contains(#""disable_http2":false,"category":{"id":2,"title":"Tech \"news\"","user_id":1,"#))
    // `feed_count`, `total_unread` and `icon` are nil: left out, as Miniflux leaves them out.
    #expect(text.hasSuffix(#""user_id":1,"hide_globally":false}}}"#), "\(text)")
    #expect(!text.contains("feed_count") && !text.contains("icon"))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["reading_time"] as? Int == 1)
  }

  @Test("an array of documents, counters sorted by name, and Reader's camelCase as declared")
  func arraysCountersAndReaderKeys() {
    let categories = [MinifluxJSON.Category(id: 1, title: "A"), MinifluxJSON.Category(id: 2, title: "B")]
    #expect(
      Self.text(JSONArray(categories))
        == #"[{"id":1,"title":"A","user_id":1,"hide_globally":false},{"id":2,"title":"B","user_id":1,"#
        + #""hide_globally":false}]"#)
    let counters = MinifluxJSON.Counters(reads: ["10": 1, "2": 0, "1": 5], unreads: [:])
    #expect(Self.text(counters) == #"{"reads":{"1":5,"10":1,"2":0},"unreads":{}}"#)
    let refs = ReaderJSON.ItemRefs(
      itemRefs: [ReaderJSON.ItemRef(id: "-5", timestampUsec: "1000")], continuation: nil)
    #expect(Self.text(refs) == #"{"itemRefs":[{"id":"-5","directStreamIds":[],"timestampUsec":"1000"}]}"#)
    let tag = ReaderJSON.Tag(id: "user/-/state/com.google/starred", type: nil)
    #expect(Self.text(ReaderJSON.Tags(tags: [tag])) == #"{"tags":[{"id":"user/-/state/com.google/starred"}]}"#)
  }
}
