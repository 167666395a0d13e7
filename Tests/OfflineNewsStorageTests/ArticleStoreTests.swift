import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

@Suite("StorageContext: saving and reading articles")
struct ArticleStoreTests {
  private func at(_ ms: Int64) -> Timestamp { Timestamp(millisecondsSince1970: ms) }

  @Test("a saved article reads back equal, every field included")
  func roundTrip() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let article = Article(
      url: articleURL("full"), title: "Full article", author: "Jane Doe", summary: "A summary",
      imageURL: URL(string: "https://example.com/img/full.jpg"), publishedAt: at(t0).date,
      content: "The start of the body… [+1234 chars]", sourceID: "bbc-news", sourceName: "BBC News")
    let saved = try await storage.saveArticles([article], forQuery: "q", fetchedAt: at(t0 + 60_000)).saved
    #expect(saved == 1)
    #expect(try await storage.articleCount() == 1)
    #expect(try await storage.articles() == [article])
    #expect(try await storage.articles(forQuery: "q") == [article])
    #expect(try await storage.articles(forQuery: "other") == [])
  }

  @Test("saving the same url again updates the row in place")
  func upsertByURL() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let old = makeArticle("same", title: "Old title", publishedAt: t0, author: "Ann", summary: "old")
    try await storage.saveArticles([old], forQuery: "q1", fetchedAt: at(t0))
    let rowid = try await storage.int("SELECT rowid FROM article")

    let new = makeArticle("same", title: "New title", publishedAt: t0 + 1000, author: nil, summary: "new")
    #expect(try await storage.saveArticles([new], forQuery: "q2", fetchedAt: at(t0 + 5000)).saved == 1)

    #expect(try await storage.articleCount() == 1)
    #expect(try await storage.articles() == [new])
    #expect(try await storage.text("SELECT fetchQuery FROM article") == "q2")
    #expect(try await storage.int("SELECT fetchedAt FROM article") == t0 + 5000)
    // An upsert, not INSERT OR REPLACE: the row is the same one, and q1's result list (which a delete would have
    // emptied through the foreign key cascade) still holds it.
    #expect(try await storage.int("SELECT rowid FROM article") == rowid)
    #expect(try await storage.articles(forQuery: "q1") == [new])
    #expect(try await storage.articles(forQuery: "q2") == [new])
  }

  @Test("duplicates inside one save count once and the last one wins")
  func duplicatesInOneSave() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let first = makeArticle("dup", title: "First", publishedAt: t0)
    let other = makeArticle("other", publishedAt: t0 + 1000)
    let last = makeArticle("dup", title: "Last", publishedAt: t0 + 2000)
    let saved = try await storage.saveArticles([first, other, last], forQuery: "q", fetchedAt: at(t0)).saved
    #expect(saved == 2)
    #expect(try await storage.articleCount() == 2)
    #expect(try await storage.articles(forQuery: "q") == [last, other])
    #expect(try await storage.fetchRecord(forQuery: "q")?.articleCount == 2)
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query = 'q'") == 2)
    // The later record wins at the earlier one's place, as NewsAPIDecoder orders them.
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("dup"))'") == 0)
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("other"))'") == 1)
  }

  @Test("each save replaces the query's result list, and only that query's")
  func resultListReplaced() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let a = makeArticle("a", publishedAt: t0)
    let b = makeArticle("b", publishedAt: t0 + 1000)
    let c = makeArticle("c", publishedAt: t0 + 2000)
    try await storage.saveArticles([a, b], forQuery: "q1", fetchedAt: at(t0))
    try await storage.saveArticles([a], forQuery: "q2", fetchedAt: at(t0))
    try await storage.saveArticles([b, c], forQuery: "q1", fetchedAt: at(t0 + 1000))

    #expect(slugs(try await storage.articles(forQuery: "q1")) == ["c", "b"])
    #expect(slugs(try await storage.articles(forQuery: "q2")) == ["a"])
    #expect(try await storage.articleCount() == 3, "an article dropped from a result list stays cached")

    #expect(try await storage.saveArticles([], forQuery: "q1", fetchedAt: at(t0 + 2000)).saved == 0)
    #expect(try await storage.articles(forQuery: "q1") == [])
    #expect(try await storage.fetchRecord(forQuery: "q1")?.articleCount == 0)
    #expect(slugs(try await storage.articles(forQuery: "q2")) == ["a"])
    #expect(try await storage.articleCount() == 3)
  }

  @Test("lastFetch records the fetch time and count of the latest save")
  func lastFetch() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    #expect(try await storage.fetchRecord(forQuery: "q") == nil)
    try await storage.saveArticles(
      [makeArticle("a"), makeArticle("b"), makeArticle("c")], forQuery: "q", fetchedAt: at(1_630_219_944_291))
    var fetch = try #require(try await storage.fetchRecord(forQuery: "q"))
    #expect(fetch.query == "q")
    #expect(fetch.fetchedAt == at(1_630_219_944_291))
    #expect(fetch.articleCount == 3)

    try await storage.saveArticles([makeArticle("d")], forQuery: "q", fetchedAt: at(1_630_219_999_007))
    fetch = try #require(try await storage.fetchRecord(forQuery: "q"))
    #expect(fetch.fetchedAt == at(1_630_219_999_007))
    #expect(fetch.articleCount == 1)
    #expect(try await storage.fetchRecord(forQuery: "other") == nil)
    #expect(try await storage.int("SELECT count(*) FROM query_fetch") == 1)
  }

  @Test("articles are newest first by publishedAt, then by url")
  func ordering() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let a = makeArticle("a", publishedAt: t0)
    let b = makeArticle("b", publishedAt: t0 + 60_000)
    let c = makeArticle("c", publishedAt: t0 + 60_000)
    let d = makeArticle("d", publishedAt: t0 - 86_400_000)
    let e = makeArticle("e", publishedAt: t0 + 1000)
    let old = makeArticle("old", publishedAt: -14_182_940_000)  // 1969
    // Saved in no particular order; the response order is not the read order.
    try await storage.saveArticles([d, c, old, a, b], forQuery: "q1", fetchedAt: at(t0))
    try await storage.saveArticles([e], forQuery: "q2", fetchedAt: at(t0))

    #expect(slugs(try await storage.articles(forQuery: "q1")) == ["b", "c", "a", "d", "old"])
    #expect(slugs(try await storage.articles()) == ["b", "c", "e", "a", "d", "old"])
    #expect(slugs(try await storage.articles(forQuery: "q2")) == ["e"])
  }

  @Test("limit and offset page through the newest-first list")
  func limitAndOffset() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    // n0 … n9, n9 the newest.
    let articles = (0..<10).map { makeArticle("n\($0)", publishedAt: t0 + Int64($0) * 1000) }
    try await storage.saveArticles(articles.shuffled(), forQuery: "q", fetchedAt: at(t0))
    let newestFirst = (0..<10).reversed().map { "n\($0)" }

    #expect(slugs(try await storage.articles()) == newestFirst)
    #expect(slugs(try await storage.articles(limit: 3)) == ["n9", "n8", "n7"])
    #expect(slugs(try await storage.articles(limit: 3, offset: 3)) == ["n6", "n5", "n4"])
    #expect(slugs(try await storage.articles(limit: 3, offset: 9)) == ["n0"])
    #expect(slugs(try await storage.articles(limit: 3, offset: 10)) == [])
    #expect(slugs(try await storage.articles(limit: 0)) == [])
    #expect(slugs(try await storage.articles(limit: nil, offset: 8)) == ["n1", "n0"])
    #expect(slugs(try await storage.articles(limit: 2, offset: -5)) == ["n9", "n8"])

    #expect(slugs(try await storage.articles(forQuery: "q")) == newestFirst)
    #expect(slugs(try await storage.articles(forQuery: "q", limit: 4)) == ["n9", "n8", "n7", "n6"])
    #expect(slugs(try await storage.articles(forQuery: "q", limit: 4, offset: 8)) == ["n1", "n0"])
    #expect(slugs(try await storage.articles(forQuery: "q", offset: 7)) == ["n2", "n1", "n0"])
  }

  @Test("publishedAt keeps its milliseconds exactly, in the row and read back")
  func publishedAtMilliseconds() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let values: [Int64] = [
      1_630_219_944_291, 1_630_219_944_999, 1_700_000_000_001, 414_093_621_550, 8_409_073_798, 0, 999, -1,
      -14_182_939_999, 4_133_980_799_999,
    ]
    let articles = values.enumerated().map { makeArticle("m\($0.offset)", publishedAt: $0.element) }
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: at(t0))

    let stored = try await storage.read { db in
      try db.makeStatement("SELECT url, publishedAt FROM article").fetchAll { ($0.string(0) ?? "", $0.int64(1) ?? 0) }
    }
    let byURL = Dictionary(uniqueKeysWithValues: stored)
    let read = try await storage.articles()
    for (index, value) in values.enumerated() {
      #expect(byURL[articleURL("m\(index)").absoluteString] == value, "stored publishedAt of \(value)")
      let back = read.first { $0.url == articleURL("m\(index)") }
      #expect(
        back.map { Timestamp($0.publishedAt).millisecondsSince1970 } == value, "read back publishedAt of \(value)")
    }
  }

  @Test("nil optionals are stored as NULL and read back as nil; empty strings stay empty")
  func nilOptionals() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let bare = Article(url: articleURL("bare"), title: "Bare", publishedAt: Timestamp(millisecondsSince1970: t0).date)
    let empty = makeArticle("empty", author: "", summary: "")
    try await storage.saveArticles([bare, empty], forQuery: "q", fetchedAt: at(t0))

    let back = try #require(try await storage.articles().first { $0.url == bare.url })
    #expect(back == bare)
    #expect(back.author == nil && back.summary == nil && back.imageURL == nil && back.content == nil)
    #expect(back.sourceID == nil && back.sourceName == nil)
    let nulls = try await storage.int(
      """
      SELECT count(*) FROM article WHERE url = '\(bare.url.absoluteString)' AND author IS NULL AND summary IS NULL
        AND imageURL IS NULL AND content IS NULL AND sourceID IS NULL AND sourceName IS NULL
      """)
    #expect(nulls == 1)
    let emptyBack = try #require(try await storage.articles().first { $0.url == empty.url })
    #expect(emptyBack.author == "")
    #expect(emptyBack.summary == "")
  }

  @Test("unicode text round-trips byte for byte")
  func unicode() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let arabic = makeArticle(
      "ar", title: "عاجل: انخفاض أسعار النفط في الأسواق العالمية", author: "مراسل الجزيرة",
      summary: "الأسعار ١٢٣ — تفاصيل", sourceName: "الجزيرة")
    let german = makeArticle(
      "de", title: "Größere Straßenbahnen für Köln: Übersicht über Änderungen", author: "Jürgen Weiß",
      content: "„Zitat“ – äöüß ÄÖÜ")
    let emoji = makeArticle(
      "emoji", title: "🚀 Launch day 📰 👩‍👩‍👧‍👦 🇩🇪 ❤️", summary: "e\u{301} vs é, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢")
    let query = "https://newsapi.org/v2/everything?q=Köln%20Straße"
    try await storage.saveArticles([arabic, german, emoji], forQuery: query, fetchedAt: at(t0))

    let back = try await storage.articles(forQuery: query)
    #expect(back.count == 3)
    for original in [arabic, german, emoji] {
      let found = try #require(back.first { $0.url == original.url })
      #expect(found == original)
      for (a, b) in [
        (found.title, original.title), (found.author ?? "", original.author ?? ""),
        (found.summary ?? "", original.summary ?? ""), (found.content ?? "", original.content ?? ""),
        (found.sourceName ?? "", original.sourceName ?? ""),
      ] {
        #expect(Array(a.utf8) == Array(b.utf8), "\(a) is not byte-identical to \(b)")
      }
    }
    #expect(try await storage.fetchRecord(forQuery: query)?.articleCount == 3)
  }

  @Test("text with an embedded NUL character is kept whole")
  func embeddedNUL() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let article = makeArticle("nul", title: "before\u{0}after", summary: "x\u{0}y")
    try await storage.saveArticles([article], forQuery: "q", fetchedAt: at(t0))
    let back = try #require(try await storage.articles().first)
    // Compared as bytes, so that a failure report does not print a raw NUL.
    #expect(Array(back.title.utf8) == Array("before\u{0}after".utf8))
    #expect(Array((back.summary ?? "").utf8) == Array("x\u{0}y".utf8))
  }

  // MARK: - Saving in batches

  @Test("a save fed in batches equals the same save in one array, duplicates across batches included")
  func batchesEqualOneArray() async throws {
    let articles =
      (0..<1300).map { makeArticle("b\($0)", publishedAt: t0 + Int64($0)) }
      + [makeArticle("b5", title: "Later wins", publishedAt: t0 + 5), makeArticle("tail", publishedAt: t0)]
    let whole = TestDatabase()
    let one = try whole.open()
    let expected = try await one.saveArticles(articles, forQuery: "q", fetchedAt: at(t0))

    let batched = TestDatabase()
    let storage = try batched.open()
    let batches = Batches(
      stride(from: 0, to: articles.count, by: 700).map { Array(articles[$0..<min($0 + 700, articles.count)]) })
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at(t0), batches: { batches.next() })
    #expect(result == expected)
    #expect(result.saved == 1301 && result.inserted == 1301)
    #expect(try await storage.articles(forQuery: "q") == (try await one.articles(forQuery: "q")))
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("b5"))'") == 5)
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("tail"))'") == 1300)
    #expect(try await storage.text("SELECT title FROM article WHERE url = '\(articleURL("b5"))'") == "Later wins")
  }

  @Test("batches that hold no article write nothing; a batch that throws rolls the whole save back")
  func batchesEmptyOrFailing() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let first = [makeArticle("a"), makeArticle("b")]
    try await storage.saveArticles(first, forQuery: "q", fetchedAt: at(t0))

    let empty = try await storage.saveArticles(forQuery: "q", fetchedAt: at(t0 + 1), batches: { nil })
    #expect(empty.saved == 0)
    #expect(slugs(try await storage.articles(forQuery: "q")) == ["a", "b"])
    #expect(try await storage.fetchRecord(forQuery: "q")?.fetchedAt == at(t0))

    struct Truncated: Error {}
    let batches = Batches([[makeArticle("c"), makeArticle("a", title: "Changed")]])
    await #expect(throws: Truncated.self) {
      try await storage.saveArticles(forQuery: "q", fetchedAt: at(t0 + 2)) {
        if let batch = batches.next() { return batch }
        throw Truncated()
      }
    }
    #expect(try await storage.articleCount() == 2)
    #expect(try await storage.text("SELECT title FROM article WHERE url = '\(articleURL("a"))'") == "Title a")
    #expect(try await storage.fetchRecord(forQuery: "q")?.fetchedAt == at(t0))
  }
}

/// Hands out prepared batches one by one, then `nil`.
private final class Batches: Sendable {
  private let remaining: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { remaining = Mutex(batches) }
  func next() -> [Article]? { remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}
