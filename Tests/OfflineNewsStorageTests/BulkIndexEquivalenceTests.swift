import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

/// The batches of one streamed save, handed out in order.
private final class Batches: Sendable {
  private let rest: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { rest = Mutex(batches.reversed()) }
  func next() -> [Article]? { rest.withLock { $0.popLast() } }
}

/// The bulk save of a first import (the index's insert and update triggers set aside, every row indexed after the
/// last upsert by statements of many rows, from `article` itself when no text needs folding, FTS5's merging paused
/// until the segments are merged into one) must leave a search index that answers exactly as the plain path's
/// does: small saves whose rows the insert trigger indexes one by one through the view `article_search_text`.
@Suite("StorageContext: a bulk import's search index equals the plain path's")
struct BulkIndexEquivalenceTests {
  /// 3,000 articles in three batches: the first without any folded character, the second with one in every tenth
  /// article (each column in turn), the third with accented words; a URL of the first batch comes again in the
  /// third with other text. Every sixth article's summary and content are HTML with their search texts
  /// (``Article/summaryText``, ``Article/contentText``, as the feed decoder gives them: migration 11), the search
  /// text holding a folded character in some articles of the second batch.
  private static func batches() -> [[Article]] {
    let folded = ["\u{AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}"]
    let words = ["storm", "harbour", "election", "climate", "market", "festival", "railway", "vaccine"]
    func article(_ index: Int) -> Article {
      let word = words[index % words.count]
      let other = words[(index / 3) % words.count]
      var title = "The \(word) story number \(index)"
      var summary = "Reporters followed the \(other) all week."
      var content: String? = index % 4 == 0 ? nil : "Bundesverfassungsgericht ruled on the \(word) case \(index)."
      var author: String? = index % 5 == 0 ? nil : "Author \(index % 17)"
      var sourceName: String? = "Source \(index % 7)"
      if (1000..<2000).contains(index), index % 10 == 0 {
        let mark = folded[(index / 10) % folded.count]
        switch (index / 10) % 5 {
        case 0: title = "The \(word)\(mark)wide story number \(index)"
        case 1: summary = "Reporters followed the \(other)\(mark)line all week."
        case 2: content = "Bundes\(mark)verfassungs\(mark)gericht ruled on the \(word) case \(index)."
        case 3: author = "Au\(mark)thor \(index % 17)"
        default: sourceName = "Sour\(mark)ce \(index % 7)"
        }
      }
      if index >= 2000 { title = "Café \(word) in Zürich, number \(index)" }
      var result = Article(
        url: articleURL("bulk\(index)"), title: title, author: author, summary: summary,
        publishedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index % 500) * 60), content: content,
        sourceName: sourceName)
      if index % 6 == 1 {
        let mark = (1000..<2000).contains(index) && index % 50 == 1 ? "\u{AD}text" : ""
        result.summary =
          "<p class=\"teaser\">Reporters followed the <a href=\"https://x.example/\">\(other)</a> all week.</p>"
        result.summaryText = "Reporters followed the \(other)\(mark) all week."
        if let content {
          result.content = "<div class=\"body\"><p>\(content)</p></div>"
          result.contentText = content
        }
      }
      return result
    }
    var all = (0..<3000).map(article)
    // A URL of the first batch again in the third, with a new title: the update trigger replaces its terms.
    all[2500] = Article(
      url: articleURL("bulk7"), title: "Replaced quokka\u{AD}story",
      publishedAt: Date(timeIntervalSince1970: 1_700_000_000))
    return [Array(all[0..<1000]), Array(all[1000..<2000]), Array(all[2000...])]
  }

  /// Every (term, article URL, column, offset) of the index, in order: FTS5's own view of what it holds.
  private func instances(_ storage: StorageContext) async throws -> [String] {
    try await storage.write { db in
      try db.execute(
        sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, article_fts, instance)")
      let rows = try db.makeStatement(
        """
        SELECT v.term, a.url, v.col, v.offset FROM temp.fts_terms v JOIN article a ON a.rowid = v.doc
        ORDER BY v.term, a.url, v.col, v.offset
        """
      ).fetchAll { row in
        "\(row.string(0) ?? "")|\(row.string(1) ?? "")|\(row.string(2) ?? "")|\(row.int64(3) ?? -1)"
      }
      try db.execute(sql: "DROP TABLE temp.fts_terms")
      return rows
    }
  }

  /// What a search answers: each hit's URL, rank and snippet, best first.
  private func answers(_ storage: StorageContext, _ text: String) async throws -> [String] {
    try await storage.search(text, limit: 5000).map { "\($0.article.url.absoluteString) \($0.rank) \($0.snippet)" }
  }

  /// With the defaults (the index built beside the writer, on a second thread, and copied in at the end:
  /// ``SideSearchIndex``), built at the end instead (one statement for all 3,000 rows, one segment merged at the
  /// end), and at the end with 250 rows per statement and a limit of 3 segments (twelve statements, a folded row in
  /// some and not others, the segments merged a level at a time between statements as an import of millions does,
  /// then into one).
  @Test(
    "the same index terms, and the same result lists, ranks and snippets, as row-by-row indexing",
    arguments: [
      SearchIndexBuild.standard, SearchIndexBuild(beside: false),
      SearchIndexBuild(rowsPerStatement: 250, segmentLimit: 3, beside: false),
    ])
  func sameAnswers(build: SearchIndexBuild) async throws {
    let batches = Self.batches()
    let fetched = Timestamp(millisecondsSince1970: 1_700_000_000_000)

    let bulkDatabase = TestDatabase()
    let bulk = try bulkDatabase.open()
    let queue = Batches(batches)
    // FTS5 of the writer's connection reads (and caches) the empty index's structure before the save: the copy of
    // an index built beside must not be overwritten from that cache by a later write (below).
    try await bulk.write { db in
      try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
    let traced = Mutex<[String]>([])
    try await bulk.traceWrites { sql in traced.withLock { $0.append(sql) } }
    let result = try await bulk.saveArticles(
      forQuery: "bulk", fetchedAt: fetched, searchIndexBuild: build, batches: { queue.next() })
    #expect(result.inserted == 2999 && result.updated == 0)
    // FTS5's own settings are given back (its defaults, none having been stored before), or never changed by an
    // index built beside; the index is one segment.
    if build.beside {
      #expect(try await bulk.int("SELECT count(*) FROM article_fts_config WHERE k <> 'version'") == 0)
    } else {
      #expect(try await bulk.int("SELECT v FROM article_fts_config WHERE k = 'automerge'") == 4)
      #expect(try await bulk.int("SELECT v FROM article_fts_config WHERE k = 'crisismerge'") == 16)
      #expect(try await bulk.int("SELECT v FROM article_fts_config WHERE k = 'hashsize'") == 1_048_576)
    }
    #expect(try await bulk.int("SELECT count(DISTINCT segid) FROM article_fts_idx") == 1)
    try await bulk.traceWrites(nil)
    let statements = traced.withLock { $0 }
    let indexing = statements.filter { $0.hasPrefix("INSERT INTO article_fts (rowid") }.count
    let merges = statements.filter { $0.contains("('merge', ?1)") }.count
    if build.beside {
      #expect(indexing == 0, "indexed on the side")
      #expect(merges == 0)
    } else if build.rowsPerStatement < 3000 {
      #expect(indexing == 12)
      #expect(merges >= 4, "merged between statements, then at the end")
    } else {
      #expect(indexing == 1)
      #expect(merges <= 2, "merged at the end only")
    }

    // The plain path: saves of 100 articles (below the bulk threshold), each row indexed by the insert trigger.
    let plainDatabase = TestDatabase()
    let plain = try plainDatabase.open()
    let all = batches.flatMap { $0 }
    for start in stride(from: 0, to: all.count, by: 100) {
      try await plain.saveArticles(
        Array(all[start..<min(start + 100, all.count)]), forQuery: "plain\(start)", fetchedAt: fetched)
    }

    for storage in [bulk, plain] {
      try await storage.write { db in
        try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
      }
    }
    let bulkTerms = try await instances(bulk)
    #expect(bulkTerms.count > 50_000)
    #expect(bulkTerms == (try await instances(plain)))

    let queries = [
      "storm", "cafe", "café", "zurich", "bundesverfassungsgericht", "bund*", "stormwide", "climateline", "author",
      "source", "\"story number\"", "quokkastory", "harbour OR railway", "market NOT festival", "number 1500",
    ]
    for query in queries + [
      "harbourtext OR stormtext OR electiontext OR climatetext OR markettext "
        + "OR festivaltext OR railwaytext OR vaccinetext"
    ] {
      let expected = try await answers(plain, query)
      #expect(try await answers(bulk, query) == expected, "\(query)")
      #expect(!expected.isEmpty, "\(query)")
    }
    // The markup of the HTML summaries and contents is in neither index.
    for markup in ["href", "class", "teaser", "div"] {
      #expect(try await answers(bulk, markup).isEmpty, "\(markup)")
      #expect(try await answers(plain, markup).isEmpty, "\(markup)")
    }
    // Folding, as the reader sees the words: 'cafe' finds 'Café', the soft-hyphenated word is one word.
    // Expected counts from the articles themselves (the last record of a URL wins), folded by hand.
    var latest: [URL: Article] = [:]
    for article in all { latest[article.url] = article }
    func holding(_ word: String, _ text: (Article) -> String?) -> Int {
      latest.values.filter { article in
        let scalars = (text(article) ?? "").unicodeScalars.filter { !SearchQuery.foldedScalars.contains($0) }
        return String(String.UnicodeScalarView(scalars)).lowercased().contains(word)
      }.count
    }
    #expect(try await bulk.search("cafe", limit: 5000).count == holding("café", \.title))
    #expect(
      try await bulk.search("bundesverfassungsgericht", limit: 5000).count
        == holding("bundesverfassungsgericht", \.content))

    // A later save into both stores changes 40 indexed rows and adds 40 through the triggers: FTS5 of the writer's
    // connection must write on the index as it now is, not on a structure it cached before the first save.
    let later = (0..<80).map { index in
      Article(
        url: articleURL("bulk\(index < 40 ? index * 61 : 5000 + index)"), title: "Later wombat report \(index)",
        summary: "Changed \(index % 3 == 0 ? "harbour" : "railway") text",
        publishedAt: Date(timeIntervalSince1970: 1_700_100_000 + Double(index) * 60), sourceName: "Later")
    }
    for storage in [bulk, plain] {
      try await storage.saveArticles(later, forQuery: "later", fetchedAt: fetched)
      try await storage.write { db in
        try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
      }
    }
    #expect(try await instances(bulk) == (try await instances(plain)))
    for query in ["wombat", "harbour", "railway", "later", "storm"] {
      #expect(try await answers(bulk, query) == (try await answers(plain, query)), "\(query)")
    }
  }

  @Test("containsFoldedScalar agrees with foldedScalars on every scalar near them, alone and inside text")
  func foldedScalarCheck() {
    let ranges: [ClosedRange<UInt32>] = [0x00...0x2FF, 0x2000...0x20FF, 0xFE00...0xFFFD, 0x1_F600...0x1_F64F]
    // One expectation over the list of disagreements: an #expect per case (8,070 of them) made this test hold a
    // thread of the shared pool for 14 s in a debug build, starving the suite's timing tests.
    var disagreements: [String] = []
    var checked = 0
    for range in ranges {
      for value in range {
        guard let scalar = Unicode.Scalar(value) else { continue }
        let expected = SearchQuery.foldedScalars.contains(scalar)
        for text in [String(scalar), "ab\(scalar)cd", "é\(scalar)", "日本\(scalar)語", "\(scalar)\u{E2}"] {
          checked += 1
          if SearchQuery.containsFoldedScalar(text) != expected {
            disagreements.append("U+\(String(value, radix: 16)) in \(text.debugDescription)")
          }
        }
      }
    }
    #expect(checked > 8_000)  // 1,614 scalars in five texts each
    #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
    #expect(!SearchQuery.containsFoldedScalar(""))
    #expect(SearchQuery.containsFoldedScalar("Bundes\u{AD}verfassungs\u{AD}gericht"))
  }
}
