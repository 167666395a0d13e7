import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// The article's columns are declared once (`ArticleColumn.all`); the schema, the writer's bind order and upsert,
/// the record writer's core set, the reader's `SELECT` list and row decoding and the `--json` fields derive from it.
@Suite("The article columns: one list")
struct ArticleColumnTests {
  /// An article with every field a source gives set to a value of its own.
  private func fullArticle() throws -> Article {
    let key = try #require(URL(string: "news-item:feed.example/item-7"))
    var article = Article(
      key: key, link: URL(string: "https://example.com/a/7"), title: "Seven", author: "Ann",
      summary: "<p>Short</p>", imageURL: URL(string: "https://example.com/7.png"),
      publishedAt: Timestamp(millisecondsSince1970: 1_700_000_123_456).date, content: "<p>Long</p>",
      sourceID: "example", sourceName: "Example News", source: "https://feed.example/rss",
      tags: ["a", "b \"quoted\""],
      enclosures: [Enclosure(url: URL(fileURLWithPath: "/e.mp3"), type: "audio/mpeg", length: 42)])
    article.summaryText = "Short"
    article.contentText = "Long"
    article.itemID = "news-item:feed.example/7"
    return article
  }

  @Test("every declared column is in the schema once; the writer and reader lists are the declaration's")
  func listsAgree() {
    let names = ArticleColumn.all.map(\.name)
    #expect(Set(names).count == names.count)
    #expect(EntityDescription.article.columns == names)
    #expect(ArticleColumn.all.first?.write == .key)
    // Every column but those nobody writes is bound, each once; the save's own come last (its time once more as the
    // first-seen time, written by the insert only).
    #expect(Set(ArticleWriter.boundColumns) == Set(ArticleColumn.all.filter { $0.write != .none }.map(\.name)))
    #expect(ArticleWriter.boundColumns.count == Set(ArticleWriter.boundColumns).count)
    #expect(ArticleWriter.boundColumns.suffix(3) == ["fetchedAt", "fetchQuery", "firstSeenAt"])
    #expect(ArticleColumn.boundValues.count == ArticleWriter.boundColumns.count - 3)
    var arguments: [DatabaseValue] = []
    ArticleWriter.appendContent(makeArticle("x"), url: "https://example.com/news/x", source: nil, to: &arguments)
    #expect(arguments.count == ArticleColumn.boundValues.count)
    // The read's SELECT list: the key, then every column with a reader, in declaration order.
    #expect(
      StorageContext.articleColumns
        == ArticleColumn.all.filter { $0.read != nil || $0.write == .key }.map { "a.\($0.name)" }.joined(
          separator: ", "))
    // The `--json` fields docs/CLI.md lists.
    #expect(
      Set(ArticleColumn.jsonFields.map(\.name)) == [
        "url", "id", "handle", "title", "author", "summary", "imageURL", "publishedAt", "sourceID", "sourceName",
        "content", "source", "tags", "enclosures", "isRead", "bookmarkedAt",
      ])
  }

  @Test("each bound column's stored value is the one its declaration computes, and a read gives the article back")
  func roundTrip() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let article = try fullArticle()
    let key = article.url.absoluteString
    let fetchedAt = Timestamp(millisecondsSince1970: 1_700_000_200_000)
    try await storage.saveArticles([article], forQuery: "q", fetchedAt: fetchedAt)
    let bound = ArticleColumn.all.filter { $0.value != nil }
    let stored = try await storage.read { db in
      try db.makeStatement("SELECT \(bound.map(\.name).joined(separator: ", ")) FROM article WHERE url = ?1")
        .fetchOne([.text(key)]) { $0.values(count: bound.count) }
    }
    let row = try #require(stored)
    for (column, value) in zip(bound, row) {
      let declared = try #require(column.value)
      let expected = declared(article, key, nil)
      #expect(value == expected, "\(column.name): stored \(value), declared \(expected)")
      #expect(value != .null, "\(column.name) was left NULL")
    }
    #expect(try await storage.int("SELECT fetchedAt FROM article") == fetchedAt.millisecondsSince1970)
    #expect(try await storage.text("SELECT fetchQuery FROM article") == "q")
    #expect(try await storage.int("SELECT firstSeenAt FROM article") == fetchedAt.millisecondsSince1970)

    try await storage.setBookmarked(true, url: key, at: Timestamp(millisecondsSince1970: 1_700_000_300_000).date)
    #expect(try await storage.setRead(true, url: key))
    let read = try #require(try await storage.article(url: key))
    var expected = article
    expected.isRead = true
    expected.bookmarkedAt = Timestamp(millisecondsSince1970: 1_700_000_300_000).date
    expected.itemID = nil  // no read returns it
    #expect(read == expected)
    #expect(read.summaryText == "Short" && read.contentText == "Long")
    // The hot row reader (places computed from the list) gives what each returned column's own `read` gives.
    let returned = ArticleColumn.returned
    let values = try await storage.read { db in
      try db.makeStatement("SELECT \(StorageContext.articleColumns) FROM article a WHERE a.url = ?1")
        .fetchOne([.text(key)]) { $0.values(count: returned.count) }
    }
    var declared = Article(key: article.url, link: nil, title: "", publishedAt: Date(timeIntervalSince1970: 0))
    for (column, value) in zip(returned, try #require(values)) { column.read?(&declared, value) }
    #expect(returned.filter { $0.read == nil }.map(\.name) == ["url"])
    #expect(declared == read)
  }

  @Test("a record's values decode by name as the stored row does")
  func recordValuesDecodeAsRows() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let article = try fullArticle()
    let key = article.url.absoluteString
    try await storage.saveArticles([article], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: 1))
    let names = EntityDescription.article.columns
    let values = try await storage.read { db in
      try db.makeStatement("SELECT \(names.joined(separator: ", ")) FROM article WHERE url = ?1").fetchOne(
        [.text(key)]
      ) { $0.values(count: names.count) }
    }
    let byName = Dictionary(uniqueKeysWithValues: zip(names, try #require(values)))
    let decoded = try #require(ArticleWriter.article(from: byName, firstSeen: Timestamp(millisecondsSince1970: 1)))
    var expected = article
    expected.itemID = nil
    #expect(decoded == expected)
    #expect(!decoded.isUndated)
  }
}
