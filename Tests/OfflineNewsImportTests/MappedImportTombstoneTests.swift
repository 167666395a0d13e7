import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// An article deleted with `news delete --before` stays deleted when a mapping whose root is the built-in `article`
/// brings it again (its key is remembered in `article_tombstone`; the article writer skips it on every path).
@Suite("mapped imports skip deleted articles")
struct MappedImportTombstoneTests {
  static func feed(_ ids: ClosedRange<Int>) -> String {
    let items = ids.map { id in
      let year = id <= 2 ? 2017 : 2025
      return
        #"{"id": "\#(id)", "url": "https://blog.example.org/\#(id)", "title": "Post \#(id)", "date_published": "\#(year)-01-0\#(id)T10:00:00Z"}"#
    }
    return
      #"{"version": "https://jsonfeed.org/version/1.1", "title": "Blog", "home_page_url": "https://blog.example.org/", "items": [\#(items.joined(separator: ","))]}"#
  }

  static let hn = """
    [{"id": 1, "type": "story", "by": "a", "time": 1500000000, "score": 5, "title": "Old",
      "url": "https://old.example.org/1"},
     {"id": 2, "type": "story", "by": "b", "time": 1760000000, "score": 7, "title": "New",
      "url": "https://new.example.org/2"}]
    """

  @Test("jsonfeed: the deleted items are not brought back; forgetting lets them return")
  func jsonFeedSkipsDeleted() async throws {
    let mapping = try #require(try ImportMapping.shipped("jsonfeed"))
    let store = try TestStore(mapping)
    #expect(try await store.run(mapping, Self.feed(1...4)).inserted == 4)
    #expect(try await store.storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: 1_600_000_000)) == 2)

    // Left out, and counted as remembered, not skipped: the report accounts for every record (it said 0 of
    // everything) and says why (a tester read "2 skipped" as records the mapping could not read).
    let again = try await store.run(mapping, Self.feed(1...4))
    #expect(counts(again) == expectedCounts(unchanged: 2, remembered: 2))
    #expect(try await store.storage.articleCount() == 2)
    #expect(try await store.storage.article(url: "https://blog.example.org/1") == nil)

    #expect(try await store.storage.forgetDeletedArticles() == 2)
    #expect(try await store.run(mapping, Self.feed(1...4)).inserted == 2)
    #expect(try await store.storage.articleCount() == 4)
  }

  @Test("hackernews (article extended with hnID, …): a deleted story gets no row, nor its extension columns")
  func extendedArticleSkipsDeleted() async throws {
    let mapping = try #require(try ImportMapping.shipped("hackernews"))
    let store = try TestStore(mapping)
    #expect(try await store.run(mapping, Self.hn).inserted == 2)
    #expect(try await store.storage.deleteArticles(publishedBefore: Date(timeIntervalSince1970: 1_600_000_000)) == 1)
    let again = try await store.run(mapping, Self.hn)
    #expect(counts(again) == expectedCounts(unchanged: 1, remembered: 1))
    #expect(try await store.count("article") == 1)
    #expect(try await store.rows("article").map { $0["hnID"] } == [.integer(2)])
  }
}
