import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

@Suite("StorageContext: full-text search")
struct SearchTests {
  private static let fetched = Timestamp(millisecondsSince1970: t0)

  /// A database holding `articles`, saved as one response.
  private func store(_ articles: [Article], _ database: TestDatabase) async throws -> StorageContext {
    let storage = try database.open()
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Self.fetched)
    return storage
  }

  /// The slugs found for `text`, best first.
  private func found(_ storage: StorageContext, _ text: String, _ filter: ArticleFilter = .all) async throws
    -> [String]
  {
    slugs(try await storage.search(text, filter: filter).map(\.article))
  }

  /// FTS5's own check of the external-content index against the `article` table (`rank` 1 compares the content
  /// too): it fails with SQLITE_CORRUPT_VTAB when a row is missing, stale or extra.
  private func checkIndex(_ storage: StorageContext) async throws {
    try await storage.write { db in
      try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
  }

  private static let corpus = [
    makeArticle(
      "storm", title: "Storm Isolde brings gales to the west coast", publishedAt: t0,
      summary: "Ferry operators cancelled sailings as the storm approached.", sourceName: "BBC News"),
    makeArticle(
      "climate", title: "Summit ends without a deal", publishedAt: t0 + 1000,
      summary: "Delegates argued over climate change funding until dawn.", sourceName: "The Guardian"),
    makeArticle(
      "change-climate", title: "Parliament debates pensions", publishedAt: t0 + 2000,
      summary: "A change to the climate of the debate was noted.", sourceName: "BBC News"),
    makeArticle(
      "election", title: "Election results due tonight", publishedAt: t0 + 3000, summary: "Counting continues.",
      sourceName: "Reuters"),
    makeArticle(
      "electric", title: "Electric cars outsell diesel", publishedAt: t0 + 4000, summary: "A first for Norway.",
      sourceName: "Reuters"),
    makeArticle(
      "phone", title: "This e-ink phone wants to be your second screen", publishedAt: t0 + 5000,
      author: "Priya Raman", summary: "A slower, quieter phone for weekends.", sourceName: "The Verge"),
  ]

  // MARK: - Query syntax

  @Test("words: all must appear, in any indexed column, in any case")
  func words() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    #expect(try await found(storage, "storm") == ["storm"])
    #expect(try await found(storage, "STORM ferry") == ["storm"])
    #expect(try await found(storage, "storm pensions") == [])
    #expect(try await found(storage, "priya") == ["phone"])  // author
    #expect(try await found(storage, "verge") == ["phone"])  // source name
    #expect(try await found(storage, "e-ink") == ["phone"])  // inner punctuation: the tokens "e" "ink" in a row
    #expect(try await found(storage, "nothing-like-this") == [])
  }

  @Test("a quoted phrase needs its words next to each other, in order")
  func phrases() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    #expect(try await found(storage, "\"climate change\"") == ["climate"])
    #expect(Set(try await found(storage, "climate change")) == ["climate", "change-climate"])
    #expect(try await found(storage, "\u{201C}climate change\u{201D}") == ["climate"])  // typographic quotes
    #expect(try await found(storage, "\"change climate\"") == [])
  }

  @Test("a trailing * makes a prefix, of a word or of a phrase's last word")
  func prefixes() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    #expect(Set(try await found(storage, "elect*")) == ["election", "electric"])
    #expect(try await found(storage, "elect") == [])
    #expect(try await found(storage, "\"second scr\"*") == ["phone"])
    #expect(try await found(storage, "elect* diesel") == ["electric"])
  }

  @Test("AND, OR and NOT work between terms; NOT binds tightest, then AND, then OR")
  func operators() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    #expect(Set(try await found(storage, "storm OR pensions")) == ["storm", "change-climate"])
    #expect(try await found(storage, "storm AND gales") == ["storm"])
    #expect(try await found(storage, "climate NOT pensions") == ["climate"])
    #expect(try await found(storage, "climate NOT \"climate change\"") == ["change-climate"])
    #expect(try await found(storage, "elect* NOT cars") == ["election"])
    // pensions OR (elect* AND NOT diesel)
    #expect(Set(try await found(storage, "pensions OR elect* NOT diesel")) == ["change-climate", "election"])
    // Lowercase operators are words, which nothing here holds.
    #expect(try await found(storage, "storm or pensions") == [])
  }

  @Test("the translator quotes every word and keeps operators only between terms")
  func translator() throws {
    func match(_ text: String) throws -> String { try SearchQuery(text).matchExpression }
    #expect(try match("storm") == #"(("storm"))"#)
    #expect(try match("storm gales") == #"(("storm" AND "gales"))"#)
    #expect(try match("\"climate change\" elect*") == #"(("climate change" AND "elect"*))"#)
    #expect(try match("\"climate chan\"*") == #"(("climate chan"*))"#)
    #expect(try match("a OR b NOT c d") == #"(("a")) OR (("b" AND "d") NOT ("c"))"#)
    #expect(try match("a NOT b NOT c") == #"(("a") NOT ("b" OR "c"))"#)
    #expect(try match("NOT storm") == #"(("NOT" AND "storm"))"#)
    #expect(try match("storm OR") == #"(("storm" AND "OR"))"#)
    #expect(try match("a AND AND b") == #"(("a" AND "AND" AND "b"))"#)
    #expect(try match("a OR NOT b") == #"(("a" AND "OR") NOT ("b"))"#)
    #expect(try match("storm\u{0}gales\u{7}") == #"(("storm" AND "gales"))"#)
    #expect(try match("title:storm") == #"(("title" AND "storm"))"#)
    #expect(try match("NEAR(a b)") == #"(("NEAR" AND "a" AND "b"))"#)
    #expect(try match("say \"hi") == #"(("say" AND "hi"))"#)
    #expect(try match("'); DROP TABLE article;--") == #"(("DROP" AND "TABLE" AND "article"))"#)
    #expect(try match("* storm ** -") == #"(("storm"))"#)
    #expect(SearchQuery.Term(text: "a\"b").ftsString == #""a""b""#)
    #expect(try SearchQuery("東京 storm").needsSubstringSearch)
    #expect(try !SearchQuery("Müller москва القاهرة").needsSubstringSearch)
  }

  @Test("text with no word is an error that says so; so is a query past the term limit")
  func emptyQuery() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    for text in ["", "   ", "*", "\"\"", "\"", "-", ":", "() : ^", "'); --"] {
      #expect(throws: SearchQueryError.noTerms(text)) { try SearchQuery(text) }
      let error = await #expect(throws: StorageError.self) { try await storage.search(text) }
      guard case .invalidRequest(let problem) = error?.kind else {
        Issue.record("\(String(describing: error)) for \(text)")
        continue
      }
      #expect(problem.contains(text.allSatisfy(\.isWhitespace) ? "empty" : "no word to look for"), "\(problem)")
    }
    let many = (0...SearchQuery.maximumTerms).map { "w\($0)" }
    #expect(throws: SearchQueryError.tooManyTerms(count: many.count, maximum: SearchQuery.maximumTerms)) {
      try SearchQuery(many.joined(separator: " "))
    }
    // At the limit, in both ways of searching: no SQL or FTS5 limit is hit.
    let most = many.dropLast(2).joined(separator: " OR ")
    #expect(try await storage.search(most + " OR w").isEmpty)
    #expect(try await storage.search(most + " OR 東京").isEmpty)
  }

  // MARK: - Ranking and snippets

  @Test("a title match ranks above a body-only match, even a newer one")
  func ranking() async throws {
    let database = TestDatabase()
    let storage = try await store(
      [
        makeArticle(
          "in-title", title: "Volcano erupts in Iceland", publishedAt: t0, summary: "Flights were diverted."),
        makeArticle(
          "in-body", title: "Morning briefing", publishedAt: t0 + 60_000,
          summary: "Markets, weather, and a volcano in the north.",
          content: "The volcano was quiet by noon, officials said."),
      ], database)
    let hits = try await storage.search("volcano")
    #expect(slugs(hits.map(\.article)) == ["in-title", "in-body"])
    #expect(hits[0].rank < hits[1].rank)
  }

  @Test("snippets mark every match and cut long text with an ellipsis")
  func snippets() async throws {
    let database = TestDatabase()
    let filler = (1...60).map { "word\($0)" }
    let content = (filler[..<30] + ["glacier"] + filler[30...]).joined(separator: " ")
    let storage = try await store(
      Self.corpus + [makeArticle("long", title: "Ice", publishedAt: t0, content: content)], database)
    let (open, close) = (SearchHit.highlightStart, SearchHit.highlightEnd)

    // The title and the summary match: the snippet is the summary's, which says more than the title.
    let storm = try #require(try await storage.search("storm").first)
    #expect(storm.snippet == "Ferry operators cancelled sailings as the \(open)storm\(close) approached.")
    // Only the title matches: its snippet.

    let elect = try await storage.search("elect*")
    #expect(
      Set(elect.map(\.snippet)) == [
        "\(open)Election\(close) results due tonight", "\(open)Electric\(close) cars outsell diesel",
      ])

    let long = try #require(try await storage.search("glacier").first)
    #expect(long.snippet.contains("\(open)glacier\(close)"))
    #expect(long.snippet.hasPrefix(SearchHit.ellipsis) && long.snippet.hasSuffix(SearchHit.ellipsis), "\(long.snippet)")
    #expect(long.snippet.split(separator: " ").count <= 16)
  }

  // MARK: - Filters

  @Test("filters: source (whole name, any case), since/until, unread, bookmarked")
  func filters() async throws {
    let database = TestDatabase()
    let storage = try await store(
      Self.corpus + [
        makeArticle(
          "sz", title: "Sturm über Bayern: storm warning", publishedAt: t0 + 6000, sourceName: "Süddeutsche Zeitung")
      ], database)
    let query = "storm OR climate OR elect*"
    #expect(
      Set(try await found(storage, query)) == ["storm", "climate", "change-climate", "election", "electric", "sz"])

    #expect(Set(try await found(storage, query, ArticleFilter(sourceName: "bbc NEWS"))) == ["storm", "change-climate"])
    #expect(try await found(storage, query, ArticleFilter(sourceName: "SÜDDEUTSCHE ZEITUNG")) == ["sz"])
    #expect(try await found(storage, query, ArticleFilter(sourceName: "BBC")) == [])
    #expect(try await found(storage, query, ArticleFilter(sourceName: "Nowhere")) == [])

    let at = { (ms: Int64) in Timestamp(millisecondsSince1970: ms).date }
    #expect(
      Set(try await found(storage, query, ArticleFilter(publishedSince: at(t0 + 3000)))) == [
        "election", "electric", "sz",
      ])
    #expect(
      Set(try await found(storage, query, ArticleFilter(publishedBefore: at(t0 + 2000)))) == ["storm", "climate"])
    #expect(
      try await found(storage, query, ArticleFilter(publishedSince: at(t0 + 1000), publishedBefore: at(t0 + 2000))) == [
        "climate"
      ])

    try await storage.setRead(true, url: articleURL("storm").absoluteString)
    try await storage.setRead(true, url: articleURL("sz").absoluteString)
    try await storage.setBookmarked(true, url: articleURL("election").absoluteString)
    #expect(
      Set(try await found(storage, query, ArticleFilter(unreadOnly: true)))
        == ["climate", "change-climate", "election", "electric"])
    #expect(try await found(storage, query, ArticleFilter(bookmarkedOnly: true)) == ["election"])
    #expect(
      try await found(storage, query, ArticleFilter(unreadOnly: true, bookmarkedOnly: true, sourceName: "reuters")) == [
        "election"
      ])
    // The same filters apply to a substring (CJK) search.
    #expect(try await found(storage, "storm OR 東京", ArticleFilter(unreadOnly: true)) == [])
    #expect(try await found(storage, "storm OR 東京", ArticleFilter(sourceName: "bbc news")) == ["storm"])
    try await checkIndex(storage)
  }

  @Test("limit and offset page through the ranked hits")
  func paging() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    let all = try await found(storage, "storm OR climate OR elect*")
    #expect(all.count == 5)
    #expect(slugs(try await storage.search("storm OR climate OR elect*", limit: 2).map(\.article)) == Array(all[..<2]))
    #expect(
      slugs(try await storage.search("storm OR climate OR elect*", limit: 2, offset: 2).map(\.article))
        == Array(all[2..<4]))
    #expect(try await storage.search("storm OR climate OR elect*", offset: 10).isEmpty)
    #expect(try await storage.search("storm OR climate OR elect*", limit: .max, offset: .max).isEmpty)
    #expect(try await storage.search("storm OR climate OR elect*", limit: .max).count == 5)
    #expect(try await storage.search("storm OR 東京", limit: .max).count == 1)
    #expect(try await storage.search("storm OR 東京", limit: .max, offset: .max).isEmpty)
  }

  // MARK: - Keeping the index in step

  @Test("upserts re-index changed rows (single and multi-row, new and updated), and only those")
  func upsertKeepsIndex() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    try await checkIndex(storage)

    // One save that updates two rows (INSERT … ON CONFLICT DO UPDATE) and inserts one, in one statement.
    let changes = [
      makeArticle("storm", title: "Glacier retreat measured", publishedAt: t0, summary: "Scientists report."),
      makeArticle("election", title: "Turnout was high", publishedAt: t0 + 3000, author: "Ann Lee"),
      makeArticle("fresh", title: "Fresh volcano news", publishedAt: t0 + 9000),
    ]
    let saved = try await storage.saveArticles(changes, forQuery: "q2", fetchedAt: Self.fetched)
    #expect(saved.inserted == 1 && saved.updated == 2)
    #expect(try await found(storage, "glacier") == ["storm"])
    #expect(try await found(storage, "storm") == [])  // old title and summary are gone from the index
    #expect(try await found(storage, "isolde OR ferry") == [])
    #expect(try await found(storage, "turnout lee") == ["election"])
    #expect(try await found(storage, "election") == [])
    #expect(try await found(storage, "volcano") == ["fresh"])
    try await checkIndex(storage)

    // Local state is not indexed: marking read or bookmarking leaves the index as it is.
    try await storage.setRead(true, url: articleURL("fresh").absoluteString)
    try await storage.setBookmarked(true, url: articleURL("fresh").absoluteString)
    #expect(try await found(storage, "volcano") == ["fresh"])
    try await checkIndex(storage)
  }

  @Test("a bulk save, then a re-import with changed, unchanged, moved and departed rows, keeps the index exact")
  func bulkSaveAndReimportKeepIndex() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let articles = (0..<1200).map {
      makeArticle(
        "bulk\($0)", title: "Bulk story \($0)", publishedAt: t0 + Int64($0), summary: "plain words",
        content: $0 % 3 == 0 ? nil : "body text \($0)")
    }
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Self.fetched)
    try await checkIndex(storage)
    #expect(try await storage.search("plain", limit: 2000).count == 1200)

    // Re-import: every tenth changed (one word replaced), the rest unchanged, two left, order reversed, one new.
    var next: [Article] = articles.dropLast(2).reversed()
    for index in stride(from: 0, to: next.count, by: 10) { next[index].summary = "zebra words" }
    next.append(makeArticle("fresh", title: "Fresh zebra", publishedAt: t0))
    let batches = Batches(
      stride(from: 0, to: next.count, by: 1000).map { Array(next[$0..<min($0 + 1000, next.count)]) })
    let result = try await storage.saveArticles(
      forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1), batches: { batches.next() })
    #expect(result.inserted == 1 && result.updated == 120 && result.unchanged == 1078)
    try await checkIndex(storage)
    #expect(try await storage.search("zebra", limit: 2000).count == 121)
    #expect(try await storage.search("plain", limit: 2000).count == 1080)  // the two departed rows stay cached

    // A bulk save of new rows in batches, one of them repeated in a later batch with another title: the later
    // record updates a row its own save inserted and indexed one batch earlier.
    var more = (0..<1500).map { makeArticle("more\($0)", title: "Another story \($0)", publishedAt: t0) }
    more.append(makeArticle("more3", title: "Replaced quokka", publishedAt: t0))
    let moreBatches = Batches([Array(more[..<1000]), Array(more[1000...])])
    let added = try await storage.saveArticles(
      forQuery: "q2", fetchedAt: Timestamp(millisecondsSince1970: t0 + 2), batches: { moreBatches.next() })
    #expect(added.inserted == 1500 && added.saved == 1500)
    try await checkIndex(storage)
    #expect(try await found(storage, "quokka") == ["more3"])
    #expect(try await storage.search("another", limit: 3000).count == 1499)
    // The insert trigger is back: a single save indexes its row as before.
    try await storage.saveArticles(
      [makeArticle("single", title: "Lone wombat")], forQuery: "q3", fetchedAt: Self.fetched)
    try await checkIndex(storage)
    #expect(try await found(storage, "wombat") == ["single"])
  }

  @Test("a bulk save into a filled table pauses FTS5's merging only once it writes, and gives the settings back")
  func bulkSaveIntoFilledTablePausesMerging() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let articles = (0..<1500).map {
      makeArticle("row\($0)", title: "Stored story \($0)", publishedAt: t0 + Int64($0), summary: "plain words")
    }
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Self.fetched)
    // The settings in effect: FTS5's default where none is stored (the first save, built beside the writer, stores
    // none; the pause gives back the defaults it applied, stored).
    func settings() async throws -> [String] {
      try await storage.read { db in
        let defaults: [(String, Int64)] = [
          ("automerge", 4), ("crisismerge", 16), ("hashsize", 1_048_576), ("usermerge", 4),
        ]
        return try defaults.map { key, fallback in
          "\(key)=\(try db.scalarInt("SELECT v FROM article_fts_config WHERE k = '\(key)'") ?? fallback)"
        }
      }
    }
    let before = try await settings()
    let traced = Mutex<[String]>([])
    try await storage.traceWrites { sql in traced.withLock { $0.append(sql) } }

    // Unchanged: FTS5's settings are not even written, and nothing is merged.
    let unchanged = try await storage.saveArticles(
      articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: Self.fetched.millisecondsSince1970 + 1))
    #expect(unchanged.unchanged == 1500)
    #expect(!traced.withLock { $0 }.contains { $0.contains("article_fts (article_fts, rank)") })

    // Every 50th row changed, in three statements' worth of rows: paused from the first write, merged at the end,
    // the settings given back as they were.
    var changed = articles
    for index in stride(from: 0, to: changed.count, by: 50) { changed[index].summary = "zebra words" }
    let result = try await storage.saveArticles(
      changed, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: Self.fetched.millisecondsSince1970 + 2))
    try await storage.traceWrites(nil)
    #expect(result.updated == 30)
    let statements = traced.withLock { $0 }
    #expect(statements.contains { $0.contains("('merge', ?1)") })
    #expect(try await settings() == before)
    try await checkIndex(storage)
    #expect(try await storage.search("zebra", limit: 2000).count == 30)
    #expect(try await storage.search("plain", limit: 2000).count == 1470)
  }

  @Test("a bulk re-save that changes every row of a 2,500-row batch stays within FTS5's 2,000 segments")
  func bulkResaveOfChangedRowsMergesBetweenStatements() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let articles = (0..<2500).map {
      makeArticle("row\($0)", title: "Stored story \($0)", publishedAt: t0 + Int64($0), summary: "plain words")
    }
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Self.fetched)
    // Every row changed, in reverse order: FTS5 writes a segment at each changed row (a 'delete' and an insert of
    // the same rowid), so one batch makes about 2,500 of them unless they are merged between statements.
    let changed = articles.reversed().map { article in
      var article = article
      article.summary = "zebra words"
      return article
    }
    let result = try await storage.saveArticles(
      changed, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: Self.fetched.millisecondsSince1970 + 1))
    #expect(result.updated == 2500)
    try await checkIndex(storage)
    #expect(try await storage.search("zebra", limit: 3000).count == 2500)
    #expect(try await storage.search("plain", limit: 3000).isEmpty)
    #expect(try await storage.int("SELECT count(DISTINCT segid) FROM article_fts_idx") ?? 0 < 250)
  }

  @Test("a first bulk import ends with one merged index, with a repeated URL's last text; triggers come back")
  func firstImportIndexesAtTheEnd() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let triggersBefore = try await storage.read { db in
      try db.makeStatement("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").fetchAll {
        "\($0.string(0) ?? ""): \($0.string(1) ?? "")"
      }
    }
    let traced = Mutex<[String]>([])
    try await storage.traceWrites { sql in traced.withLock { $0.append(sql) } }
    var first = (0..<1500).map {
      makeArticle("first\($0)", title: "Opening story \($0)", publishedAt: t0 + Int64($0), summary: "common words")
    }
    // The same URL again two batches later, with new text: the row this save inserted and indexed is updated.
    first.append(makeArticle("first7", title: "Renamed platypus", publishedAt: t0, summary: "other words"))
    first += (1500..<2600).map { makeArticle("first\($0)", title: "Opening story \($0)", publishedAt: t0) }
    let batches = Batches([Array(first[..<1000]), Array(first[1000..<2000]), Array(first[2000...])])
    // The index built at the end (the default builds it beside the writer: SideSearchIndexRealTests,
    // BulkIndexEquivalenceTests).
    let saved = try await storage.saveArticles(
      forQuery: "q", fetchedAt: Self.fetched, searchIndexBuild: SearchIndexBuild(beside: false),
      batches: { batches.next() })
    #expect(saved.inserted == 2600 && saved.saved == 2600)
    let statements = traced.withLock { $0 }
    // Indexed once, after the last upsert: one statement for the 2,600 rows (10,000 per statement).
    let indexing = statements.indices.filter { statements[$0].hasPrefix("INSERT INTO article_fts (rowid") }
    #expect(indexing.count == 1)
    let lastUpsert = statements.lastIndex { $0.hasPrefix("INSERT INTO article (") } ?? statements.endIndex
    #expect(indexing.allSatisfy { $0 > lastUpsert })
    // The update triggers were set aside too (the repeated URL's update fired no 'delete' into the index).
    #expect(statements.contains("DROP TRIGGER article_fts_before_update"))
    #expect(!statements.contains { $0.hasPrefix("--") && $0.contains("TRIGGER article_fts_") })
    // Merging paused during the import, one segment at the end (no 'optimize' statement: 'merge' in steps), FTS5's
    // defaults given back after it.
    #expect(statements.contains { $0.contains("('merge', ?1)") })
    #expect(!statements.contains { $0.contains("('optimize')") })
    #expect(try await storage.int("SELECT count(DISTINCT segid) FROM article_fts_idx") == 1)
    #expect(try await storage.int("SELECT v FROM article_fts_config WHERE k = 'automerge'") == 4)
    #expect(try await storage.int("SELECT v FROM article_fts_config WHERE k = 'crisismerge'") == 16)
    #expect(try await storage.int("SELECT v FROM article_fts_config WHERE k = 'hashsize'") == 1_048_576)
    try await checkIndex(storage)
    #expect(try await found(storage, "platypus") == ["first7"])
    #expect(try await storage.search("opening", limit: 3000).count == 2599)
    #expect(try await storage.search("common", limit: 3000).count == 1499)
    let triggersAfter = try await storage.read { db in
      try db.makeStatement("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").fetchAll {
        "\($0.string(0) ?? ""): \($0.string(1) ?? "")"
      }
    }
    #expect(triggersAfter == triggersBefore)
    // And the next save, into a filled table, indexes through the triggers as before.
    try await storage.saveArticles(
      [makeArticle("first9", title: "Changed echidna", publishedAt: t0)], forQuery: "q2", fetchedAt: Self.fetched)
    try await checkIndex(storage)
    #expect(try await found(storage, "echidna") == ["first9"])
  }

  @Test("batch deletes and eviction remove rows from the index")
  func deletesKeepIndex() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    #expect(try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0 + 3000).date) == 3)
    #expect(try await found(storage, "storm OR climate") == [])
    #expect(Set(try await found(storage, "elect*")) == ["election", "electric"])
    try await checkIndex(storage)

    #expect(try await storage.deleteAllArticles() == 3)
    #expect(try await found(storage, "elect* OR phone") == [])
    try await checkIndex(storage)

    try await storage.saveArticles(Self.corpus, forQuery: "q", fetchedAt: Self.fetched)
    #expect(try await found(storage, "storm") == ["storm"])

    // Eviction deletes inside the save's transaction; the triggers follow.
    let evicting = try StorageContext(path: database.path, eviction: EvictionPolicy(maxArticles: 2))
    try await evicting.saveArticles(
      [makeArticle("new", title: "Newest storm", publishedAt: t0 + 99_000)], forQuery: "q3", fetchedAt: Self.fetched)
    #expect(try await evicting.articleCount() == 2)
    #expect(try await found(evicting, "storm") == ["new"])
    #expect(try await found(evicting, "phone") == ["phone"])
    try await checkIndex(evicting)
  }

  @Test("a database at schema 3 gets its cached articles indexed on upgrade")
  func upgradeBackfills() async throws {
    let database = TestDatabase()
    do {
      let storage = try await store(Self.corpus, database)
      // Back to the schema before search: no index, no triggers, version 3.
      try await storage.write { db in
        try db.execute(
          sql: """
            DROP TRIGGER article_fts_after_insert; DROP TRIGGER article_fts_before_delete;
            DROP TRIGGER article_fts_before_update; DROP TRIGGER article_fts_after_update; DROP TABLE article_fts;
            DROP VIEW article_search_text; DROP TABLE query_failure;
            DROP INDEX article_by_handle; ALTER TABLE article DROP COLUMN handle;
            ALTER TABLE article DROP COLUMN fullTextHTML; ALTER TABLE article DROP COLUMN fullText;
            ALTER TABLE article DROP COLUMN fullTextAt; ALTER TABLE article DROP COLUMN fullTextError;
            DROP INDEX article_by_source; DROP INDEX article_by_source_read; ALTER TABLE article DROP COLUMN link;
            ALTER TABLE article DROP COLUMN source; ALTER TABLE article DROP COLUMN tags;
            ALTER TABLE article DROP COLUMN enclosures; DELETE FROM schema_entity WHERE name = 'article';
            DROP TABLE article_image;
            ALTER TABLE article DROP COLUMN summaryText; ALTER TABLE article DROP COLUMN contentText;
            PRAGMA user_version = 3;
            """)
      }
      #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name LIKE 'article_fts%'") == 0)
    }
    let storage = try database.open()
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    #expect(try await found(storage, "storm") == ["storm"])
    #expect(Set(try await found(storage, "elect*")) == ["election", "electric"])
    try await checkIndex(storage)
  }

  @Test("VACUUM keeps rowids, so the external-content index stays right")
  func vacuum() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0 + 2000).date)
    let connection = try Connection(path: database.path)
    try connection.execute(sql: "VACUUM")
    #expect(try await found(storage, "pensions") == ["change-climate"])
    #expect(try await found(storage, "priya") == ["phone"])
    try await checkIndex(storage)
  }

  // MARK: - Scripts

  @Test("Latin diacritics fold both ways, precomposed or combining; Cyrillic folds case")
  func latinAndCyrillic() async throws {
    let database = TestDatabase()
    let storage = try await store(
      [
        makeArticle("koeln", title: "Müller gewinnt in Köln", publishedAt: t0),
        makeArticle("nfd", title: "Mu\u{0308}ller trifft in Du\u{0308}sseldorf", publishedAt: t0 + 1),
        makeArticle("cafe", title: "Le café de la gare rouvre", publishedAt: t0 + 2),
        makeArticle("moscow", title: "Москва: выборы мэра", publishedAt: t0 + 3),
      ], database)
    for text in ["muller", "Müller", "MÜLLER", "Mu\u{0308}ller"] {
      #expect(Set(try await found(storage, text)) == ["koeln", "nfd"], "\(text)")
    }
    #expect(try await found(storage, "koln") == ["koeln"])
    #expect(try await found(storage, "düsseldorf") == ["nfd"])
    #expect(try await found(storage, "cafe gare") == ["cafe"])
    #expect(try await found(storage, "CAFÉ") == ["cafe"])
    #expect(try await found(storage, "МОСКВА") == ["moscow"])
    #expect(try await found(storage, "выбор*") == ["moscow"])
    // "ue" is not "ü": German transliteration is not folded.
    #expect(try await found(storage, "mueller") == [])
  }

  @Test("Arabic, Hebrew and Devanagari words are indexed whole; Arabic vowel marks must match as written")
  func rightToLeftAndIndic() async throws {
    let database = TestDatabase()
    let storage = try await store(
      [
        makeArticle("cairo", title: "الرئيس يزور القاهرة اليوم", publishedAt: t0),
        makeArticle("harakat", title: "مُحَمَّد يفوز بالجائزة", publishedAt: t0 + 1),
        makeArticle("hebrew", title: "ראש הממשלה ביקר בירושלים", publishedAt: t0 + 2),
        makeArticle("hindi", title: "हिन्दी समाचार आज", publishedAt: t0 + 3),
      ], database)
    #expect(try await found(storage, "القاهرة") == ["cairo"])
    #expect(try await found(storage, "القاه*") == ["cairo"])
    #expect(try await found(storage, "الرئيس NOT القاهرة") == [])
    #expect(try await found(storage, "مُحَمَّد") == ["harakat"])
    #expect(try await found(storage, "محمد") == [], "harakat are not removed by unicode61 (documented)")
    #expect(try await found(storage, "בירושלים") == ["hebrew"])
    #expect(try await found(storage, "हिन्दी") == ["hindi"])
    #expect(try await found(storage, "समा*") == ["hindi"])
    let hit = try #require(try await storage.search("القاهرة").first)
    #expect(hit.snippet.contains("\(SearchHit.highlightStart)القاهرة\(SearchHit.highlightEnd)"))
  }

  @Test("Chinese, Japanese, Korean and Thai terms are found inside runs of text, however short")
  func unspacedScripts() async throws {
    let database = TestDatabase()
    let storage = try await store(
      [
        makeArticle("quake", title: "東京都で大きな地震が発生", publishedAt: t0, summary: "気象庁によると津波の心配はない。"),
        makeArticle("economy", title: "中国经济增长放缓", publishedAt: t0 + 1, sourceName: "新华社"),
        makeArticle("seoul", title: "서울에서 회의가 열렸다", publishedAt: t0 + 2),
        makeArticle("thai", title: "ข่าวภาษาไทยวันนี้", publishedAt: t0 + 3),
        makeArticle("iphone", title: "Apple、新型iPhoneを発売", publishedAt: t0 + 4),
        makeArticle("typhoon", title: "台風10号が接近 Typhoon warning", publishedAt: t0 + 5),
      ], database)
    #expect(try await found(storage, "地震") == ["quake"])
    #expect(try await found(storage, "東京") == ["quake"])
    #expect(try await found(storage, "東") == ["quake"])
    #expect(try await found(storage, "大きな地震") == ["quake"])
    #expect(try await found(storage, "津波") == ["quake"])  // in the summary
    #expect(try await found(storage, "东京") == [])  // simplified 东 is another character
    #expect(try await found(storage, "经济") == ["economy"])
    #expect(try await found(storage, "新华社") == ["economy"])  // source name
    #expect(try await found(storage, "서울") == ["seoul"])
    #expect(try await found(storage, "ภาษาไทย") == ["thai"])
    // Operators, phrases and prefixes, and Latin words beside them.
    #expect(try await found(storage, "地震 NOT 東京") == [])
    #expect(Set(try await found(storage, "地震 OR 经济")) == ["quake", "economy"])
    #expect(try await found(storage, "\"地震が発生\"") == ["quake"])
    #expect(try await found(storage, "東京*") == ["quake"])
    #expect(try await found(storage, "iphone 発売") == ["iphone"])  // "iPhone" is glued to 新型 and を
    #expect(try await found(storage, "typhoon 台風") == ["typhoon"])
    #expect(try await found(storage, "warn* 台風") == ["typhoon"])
    #expect(try await found(storage, "台風 NOT warning") == [])

    let hit = try #require(try await storage.search("地震").first)
    #expect(hit.snippet.contains("\(SearchHit.highlightStart)地震\(SearchHit.highlightEnd)"), "\(hit.snippet)")
    #expect(hit.rank < 0)
    let summary = try #require(try await storage.search("津波 OR 東京").first)
    #expect(summary.snippet == "気象庁によると\(SearchHit.highlightStart)津波\(SearchHit.highlightEnd)の心配はない。")
  }

  @Test("a CJK term in the title ranks above one in the summary")
  func unspacedRanking() async throws {
    let database = TestDatabase()
    let storage = try await store(
      [
        makeArticle("title", title: "地震の速報", publishedAt: t0),
        makeArticle("summary", title: "今日のニュース", publishedAt: t0 + 60_000, summary: "午前に地震があった"),
      ], database)
    #expect(try await found(storage, "地震") == ["title", "summary"])
  }

  // MARK: - Hostile text

  @Test("hostile text is searched as words: no error, no injection, the table and index intact")
  func hostileText() async throws {
    let database = TestDatabase()
    let storage = try await store(Self.corpus, database)
    let expected: [String: [String]] = [
      "storm\"": ["storm"], "\"storm": ["storm"], "(storm": ["storm"], "storm)": ["storm"], "((storm": ["storm"],
      "^storm": ["storm"], "-storm": ["storm"], "storm -": ["storm"], "storm *": ["storm"], "{storm}": ["storm"],
      "storm:": ["storm"], "[storm]": ["storm"], "storm AND": [], "OR storm": [], "NOT storm": [], "storm OR": [],
      "title:storm": [], "summary:storm": [], "NEAR(storm gales)": [], "NEAR(storm, gales, 3)": [],
      "storm AND AND gales": [], "storm NOT NOT gales": [], "NOT": [], "AND": [], "OR": [],
      "'); DROP TABLE article;--": [], "storm'; DELETE FROM article; --": [], "\"storm\" \"": ["storm"],
      "\\\"storm\\\"": ["storm"], "storm\u{0}gales": ["storm"], "sto*rm": [], "storm + gales": ["storm"],
      "storm \u{201E}gales\u{201C}": ["storm"], "col1 : storm": [], "- title : storm": [],
      "storm ** gales": ["storm"], "\"\" storm": ["storm"], "\"storm gales\"*": [], "%_storm%": ["storm"],
    ]
    for (text, slugs) in expected {
      #expect(try await found(storage, text) == slugs, "\(text)")
    }
    let noise = String((0..<5000).map { index in Character(Unicode.Scalar(UInt8(32 + (index * 7919) % 95))) })
    do {
      _ = try await storage.search(noise)
    } catch {
      // `search` throws only StorageError (typed throws): `error` is one.
      guard case .invalidRequest(let problem) = error.kind else { throw error }
      #expect(problem.contains("at most \(SearchQuery.maximumTerms)"), "\(problem)")
    }
    #expect(try await storage.articleCount() == Self.corpus.count)
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name IN ('article', 'article_fts')") == 2)
    try await checkIndex(storage)
  }
}

/// Hands out prepared batches one by one, then `nil`.
private final class Batches: Sendable {
  private let remaining: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { remaining = Mutex(batches) }
  func next() -> [Article]? { remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}
