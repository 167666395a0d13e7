import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// The search ranks with its own FTS5 function (`offlinenews_rank`), which gives `bm25()`'s values for every row
/// that can be on the page and skips the rest. These tests hold it to `bm25()` itself: value for value on every
/// match, and page for page against the query the search used to run (ranked by `bm25()`, ties newest first, then
/// by `url`).
@Suite("StorageContext: search ranking is bm25's, page for page")
struct SearchRankingTests {
  private static let weights = "10, 2, 1, 3, 3"

  /// A corpus with many exact ties: titles and bodies drawn from a few words (so that many articles have the same
  /// words, the same counts and the same lengths), dates from a few instants, URLs that share long prefixes.
  static func corpus(_ count: Int, seed: UInt64) -> [Article] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    let words = ["storm", "forecast", "ferry", "wind", "rain", "coast", "warning", "harbour"]
    func text(_ length: Int) -> String { (0..<length).map { _ in words[next(words.count)] }.joined(separator: " ") }
    let hosts = ["example.com", "example.org/%C3%A4", "example.net", "example.com/%C3%ABx", "example.com/Z"]
    return (0..<count).map { index in
      let url = URL(string: "https://\(hosts[next(hosts.count)])/\(next(5))/\(index)")
      return Article(
        url: url ?? URL(fileURLWithPath: "/\(index)"), title: text(1 + next(3)),
        author: next(4) == 0 ? text(1) : nil, summary: next(3) == 0 ? nil : text(2 + next(6)),
        publishedAt: Timestamp(millisecondsSince1970: t0 + Int64(next(4)) * 1000).date,
        content: next(2) == 0 ? nil : text(3 + next(20)), sourceName: ["BBC News", "Reuters", nil][next(3)])
    }
  }

  static let queries = [
    "storm", "storm forecast", "\"storm forecast\"", "storm OR ferry", "warn*", "storm NOT rain", "coast harbour wind",
    "forecast forecast",
  ]

  /// The folder of the database: removed when the suite's instance goes.
  private let database = TestDatabase()

  private func open(_ count: Int, seed: UInt64) async throws -> StorageContext {
    let storage = try database.open()
    try await storage.saveArticles(
      Self.corpus(count, seed: seed), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    return storage
  }

  @Test("with k = 0 (no page), the function gives bm25's value to every match, bit for bit", arguments: [1, 2, 3])
  func sameValues(seed: UInt64) async throws {
    let storage = try await open(400, seed: seed)
    for text in Self.queries {
      let expression = try SearchQuery(text).matchExpression
      let pairs = try await storage.read { db in
        try StorageContext.installSearchRanking(on: db)
        return try db.makeStatement(
          """
          SELECT bm25(article_fts, \(Self.weights)), offlinenews_rank(article_fts, 0, \(Self.weights))
          FROM article_fts WHERE article_fts MATCH ?1
          """
        ).fetchAll([.text(expression)]) { row in (row.double(0) ?? .nan, row.double(1) ?? .nan) }
      }
      #expect(!pairs.isEmpty, "\(text)")
      for (bm25, ours) in pairs { #expect(bm25.bitPattern == ours.bitPattern, "\(text): \(bm25) vs \(ours)") }
    }
  }

  /// The rows holding each phrase are counted only up to half the table, where the IDF reaches FTS5's floor: words
  /// in a quarter of the rows, in one row fewer than half, in exactly half, in one more, and in most, on an odd and an
  /// even number of rows, must keep `bm25()`'s values (a count stopped too early, or too late by one, changes them).
  @Test("words in about half of the rows (where the IDF reaches its floor) keep bm25's values", arguments: [401, 400])
  func wordsInHalfTheRows(count: Int) async throws {
    let spans = [
      "quarter": count / 4, "below": count / 2 - 1, "half": count / 2, "above": count / 2 + 1, "most": count * 3 / 4,
    ]
    let articles = (0..<count).map { index in
      let words = spans.filter { index < $0.value }.map(\.key).sorted()
      let filler = Array(repeating: "filler", count: index % 7)
      return Article(
        url: URL(string: "https://example.com/\(index)") ?? URL(fileURLWithPath: "/\(index)"),
        title: (words + filler + ["end"]).joined(separator: " "),
        summary: index % 3 == 0 ? nil : "summary \(index % 5)",
        publishedAt: Timestamp(millisecondsSince1970: t0 + Int64(index % 9) * 1000).date,
        content: words.reversed().joined(separator: " "))
    }
    let storage = try database.open()
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    for text in ["quarter", "below", "half", "above", "most", "below half", "quarter most", "above OR quarter"] {
      let expression = try SearchQuery(text).matchExpression
      let pairs = try await storage.read { db in
        try StorageContext.installSearchRanking(on: db)
        return try db.makeStatement(
          """
          SELECT bm25(article_fts, \(Self.weights)), offlinenews_rank(article_fts, 0, \(Self.weights))
          FROM article_fts WHERE article_fts MATCH ?1
          """
        ).fetchAll([.text(expression)]) { row in (row.double(0) ?? .nan, row.double(1) ?? .nan) }
      }
      #expect(!pairs.isEmpty, "\(text)")
      for (bm25, ours) in pairs { #expect(bm25.bitPattern == ours.bitPattern, "\(text): \(bm25) vs \(ours)") }
    }
  }

  @Test("with k > 0, the rows that cannot be among the k best are skipped, and the k best keep bm25's values")
  func skipsRows() async throws {
    let storage = try await open(1500, seed: 3)
    let expression = try SearchQuery("storm forecast").matchExpression
    let rows = try await storage.read { db in
      try StorageContext.installSearchRanking(on: db)
      return try db.makeStatement(
        """
        SELECT bm25(article_fts, \(Self.weights)), offlinenews_rank(article_fts, 5, \(Self.weights))
        FROM article_fts WHERE article_fts MATCH ?1
        """
      ).fetchAll([.text(expression)]) { row in (row.double(0) ?? .nan, row.double(1) ?? .nan) }
    }
    let skipped = rows.filter { $0.1 == 1 }
    #expect(skipped.count > rows.count / 2, "\(skipped.count) of \(rows.count) skipped")
    for (bm25, ours) in rows where ours != 1 { #expect(bm25.bitPattern == ours.bitPattern) }
    let best = rows.map(\.0).sorted().prefix(5)
    #expect(best.allSatisfy { value in rows.contains { $0.0 == value && $0.1 == value } })
  }

  /// The page the search ran before `offlinenews_rank`: every match joined to its article, ranked by `bm25()`.
  private func reference(
    _ storage: StorageContext, _ text: String, limit: Int, offset: Int, condition: String = ""
  ) async throws -> [(url: String, rank: Double)] {
    let expression = try SearchQuery(text).matchExpression
    return try await storage.read { db in
      try db.makeStatement(
        """
        SELECT a.url, bm25(article_fts, \(Self.weights)) AS score
        FROM article_fts JOIN article a ON a.rowid = article_fts.rowid
        WHERE article_fts MATCH ?1\(condition)
        ORDER BY score, a.publishedAt DESC, a.url LIMIT ?2 OFFSET ?3
        """
      ).fetchAll([.text(expression), .integer(Int64(limit)), .integer(Int64(offset))]) { row in
        (url: row.string(0) ?? "", rank: row.double(1) ?? .nan)
      }
    }
  }

  @Test("every page (limits 1 to 40, offsets to 60) is the page bm25 gives, ranks and tie order included")
  func samePages() async throws {
    let storage = try await open(1500, seed: 7)
    for text in Self.queries {
      for limit in [1, 2, 3, 5, 8, 13, 20, 21, 40] {
        for offset in [0, 1, 7, 20, 60] {
          let hits = try await storage.search(text, limit: limit, offset: offset)
          let expected = try await reference(storage, text, limit: limit, offset: offset)
          #expect(hits.map(\.article.url.absoluteString) == expected.map(\.url), "\(text) \(limit)+\(offset)")
          #expect(hits.map(\.rank) == expected.map(\.rank), "\(text) \(limit)+\(offset)")
        }
      }
    }
  }

  @Test("with a filter the pages are bm25's too: the rows left out by the filter do not raise the bar")
  func filteredPages() async throws {
    let storage = try await open(1500, seed: 11)
    let since = Timestamp(millisecondsSince1970: t0 + 2000)
    for text in Self.queries {
      for limit in [1, 5, 21] {
        let hits = try await storage.search(text, filter: ArticleFilter(publishedSince: since.date), limit: limit)
        let expected = try await reference(
          storage, text, limit: limit, offset: 0, condition: " AND a.publishedAt >= \(since.millisecondsSince1970)")
        #expect(hits.map(\.article.url.absoluteString) == expected.map(\.url), "\(text) \(limit)")
        #expect(hits.map(\.rank) == expected.map(\.rank), "\(text) \(limit)")
        let named = try await storage.search(text, filter: ArticleFilter(sourceName: "reuters"), limit: limit)
        let expectedNamed = try await reference(
          storage, text, limit: limit, offset: 0, condition: " AND a.sourceName = 'Reuters'")
        #expect(named.map(\.article.url.absoluteString) == expectedNamed.map(\.url), "\(text) \(limit)")
      }
    }
  }

  @Test("all hits (no limit, or the largest) come in bm25's order")
  func everyHit() async throws {
    let storage = try await open(600, seed: 5)
    for text in Self.queries {
      let hits = try await storage.search(text)
      let expected = try await reference(storage, text, limit: -1, offset: 0)
      #expect(hits.map(\.article.url.absoluteString) == expected.map(\.url), "\(text)")
      // A limit as large as Int allows (news search --limit with the largest number) is every hit.
      let most = try await storage.search(text, limit: Int.max, offset: 3)
      #expect(most.map(\.article.url.absoluteString) == Array(expected.map(\.url).dropFirst(3)), "\(text)")
    }
  }
  /// A store shaped like the benchmark's payload, small: titles, summaries and contents drawn from a vocabulary
  /// where a few words are very common (as "chars" and "news" are in NewsAPI data) and most are rare, so queries
  /// match from a handful of rows to most of them; lengths vary widely, and many rows tie.
  static func zipfCorpus(_ count: Int, seed: UInt64) -> (articles: [Article], vocabulary: [String]) {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    let vocabulary = (0..<300).map { "w\($0)" } + ["news", "chars", "market", "election", "storm", "forecast"]
    // Index i drawn with weight about 1 / (i + 1): the first words are in most rows, the last in a few.
    func word() -> String {
      let rank = Int(Double(vocabulary.count) * pow(Double(next(10_000)) / 10_000, 3))
      return vocabulary[(vocabulary.count - 1 - rank + 6) % vocabulary.count]
    }
    func text(_ length: Int) -> String { (0..<length).map { _ in word() }.joined(separator: " ") }
    let articles = (0..<count).map { index in
      Article(
        url: URL(string: "https://example.com/\(next(7))/\(index)") ?? URL(fileURLWithPath: "/\(index)"),
        title: text(1 + next(8)) + (next(2) == 0 ? " - news" : ""), author: next(5) == 0 ? text(1) : nil,
        summary: next(4) == 0 ? nil : text(next(30)),
        publishedAt: Timestamp(millisecondsSince1970: t0 + Int64(next(50)) * 1000).date,
        content: next(5) == 0 ? nil : text(next(next(2) == 0 ? 20 : 200)) + " [+\(next(3000)) chars]",
        sourceName: ["BBC News", "Reuters", "CNN", nil][next(4)])
    }
    return (articles, vocabulary)
  }

  @Test("on 240 random queries over a generated store, the page of 20 (and 21) is the full bm25 ranking's")
  func randomQueries() async throws {
    let (articles, vocabulary) = Self.zipfCorpus(4000, seed: 20_240_517)
    let storage = try database.open()
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    var state: UInt64 = 32
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    // Common words (the vocabulary's start and its last six) more often than rare ones.
    func word() -> String {
      next(2) == 0 ? vocabulary[vocabulary.count - 1 - next(6)] : vocabulary[next(next(3) == 0 ? 300 : 20)]
    }
    var compared = 0
    var matched = 0
    for _ in 0..<240 {
      var text = (0..<(1 + next(3))).map { _ in word() }.joined(separator: " ")
      switch next(8) {
      case 0: text += " OR " + word()
      case 1: text += " NOT " + word()
      case 2: text = "\"" + word() + " " + word() + "\""
      case 3: text = String(word().prefix(2)) + "*"
      default: break
      }
      for limit in [20, 21] {
        let hits = try await storage.search(text, limit: limit)
        let expected = try await reference(storage, text, limit: limit, offset: 0)
        #expect(hits.map(\.article.url.absoluteString) == expected.map(\.url), "\(text) \(limit)")
        #expect(hits.map(\.rank) == expected.map(\.rank), "\(text) \(limit)")
        compared += 1
        if !expected.isEmpty { matched += 1 }
      }
    }
    #expect(compared == 480)
    // The comparison means something only if most queries find rows, many of them more than a page.
    #expect(matched > 400, "\(matched) of \(compared) pages non-empty")
  }
}
