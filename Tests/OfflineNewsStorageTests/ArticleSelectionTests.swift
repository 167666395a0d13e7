import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// `ArticleSelection`: the pages the sync APIs of `news serve` read, filtered, ordered and paged in one statement.
@Suite("Article selections: pages by source set, dates, handles, order")
struct ArticleSelectionTests {
  /// A store with sources A (slugs a1…a4), B (b1…b3) and C (c1, c2), article n of each published n hours after t0
  /// (plus 0, 1, 2 minutes); C's query also lists a1 (saved by A first, so recorded under A).
  static func store() async throws -> (TestDatabase, StorageContext) {
    let database = TestDatabase()
    let storage = try database.open()
    for (index, (source, count)) in [("A", 4), ("B", 3), ("C", 2)].enumerated() {
      let articles = (1...count).map { n in
        makeArticle(
          "\(source.lowercased())\(n)", title: "\(source)\(n)", publishedAt: t0 + Int64(n * 3_600_000 + index * 60_000))
      }
      try await storage.saveArticles(
        articles, forQuery: "query-\(source)", source: source, fetchedAt: Timestamp(millisecondsSince1970: t0))
    }
    let a1 = try #require(try await storage.article(url: articleURL("a1").absoluteString))
    try await storage.saveArticles(
      [a1] + (1...2).map { makeArticle("c\($0)", title: "C\($0)", publishedAt: t0 + Int64($0 * 3_600_000 + 120_000)) },
      forQuery: "query-C", source: "C", fetchedAt: Timestamp(millisecondsSince1970: t0))
    return (database, storage)
  }

  static let a = SourceMatch(source: "A", queries: ["query-A"])
  static let b = SourceMatch(source: "B", queries: ["query-B"])
  static let c = SourceMatch(source: "C", queries: ["query-C"])

  static func titles(_ storage: StorageContext, _ selection: ArticleSelection) async throws -> [String] {
    try await storage.articles(selecting: selection).map(\.title)
  }

  @Test("sources by name and by their queries' results, looked up by index or by scan alike")
  func sources() async throws {
    let (_, storage) = try await Self.store()
    for lookup in [ArticleSelection.SourceLookup.index, .scan] {
      #expect(
        try await Self.titles(storage, ArticleSelection(sources: [Self.c], sourceLookup: lookup)) == ["C2", "C1", "A1"])
      #expect(
        try await Self.titles(storage, ArticleSelection(sources: [Self.b, Self.c], sourceLookup: lookup, limit: 3)) == [
          "B3", "C2", "B2",
        ])
      #expect(try await Self.titles(storage, ArticleSelection(sources: [], sourceLookup: lookup)).isEmpty)
    }
    #expect(try await storage.articleCount(selecting: ArticleSelection(sources: [Self.a, Self.c])) == 6)
  }

  @Test("a count by source names and queries (a UNION of two index lookups) is the number of articles the page holds")
  func countsAgreeWithPages() async throws {
    let (_, storage) = try await Self.store()
    try await storage.setRead(true, urls: [articleURL("a1").absoluteString, articleURL("c2").absoluteString])
    let onlyQuery = SourceMatch(source: "", queries: ["query-C"])
    let onlyName = SourceMatch(source: "C")
    let selections = [
      ArticleSelection(sources: [Self.c]), ArticleSelection(sources: [Self.a, Self.b, Self.c]),
      ArticleSelection(readOnly: true, sources: [Self.c]),
      ArticleSelection(filter: ArticleFilter(unreadOnly: true), sources: [Self.a, Self.c]),
      ArticleSelection(sources: [Self.c], publishedAfter: Date(timeIntervalSince1970: Double(t0) / 1000 + 5400)),
      ArticleSelection(sources: [onlyQuery]), ArticleSelection(sources: [onlyName]),
      ArticleSelection(sources: [Self.b, Self.c], sourceLookup: .scan), ArticleSelection(sources: []),
      ArticleSelection(),
    ]
    for selection in selections {
      let page = try await storage.articles(selecting: selection)
      #expect(try await storage.articleCount(selecting: selection) == page.count, "\(selection)")
    }
    #expect(try await storage.articleCount(selecting: ArticleSelection(sources: [Self.c])) == 3, "C1, C2 and A1")
  }

  @Test("a count is remembered only while the store is unchanged: a write of this context, of another, or raw SQL")
  func countsFollowEveryWrite() async throws {
    let (database, storage) = try await Self.store()
    for lookup in [ArticleSelection.SourceLookup.scan, .index] {
      let unread = ArticleSelection(
        filter: ArticleFilter(unreadOnly: true), sources: [Self.a, Self.b, Self.c], sourceLookup: lookup)
      try await storage.setRead(false, selecting: ArticleSelection())
      #expect(try await storage.articleCount(selecting: unread) == 9)
      #expect(try await storage.articleCount(selecting: unread) == 9)
      try await storage.setRead(true, urls: [articleURL("a1").absoluteString])
      #expect(try await storage.articleCount(selecting: unread) == 8, "a write of this context")
      let other = try database.open()
      try await other.setRead(true, urls: [articleURL("b1").absoluteString])
      await other.close()
      #expect(try await storage.articleCount(selecting: unread) == 7, "a write of another context (another process)")
      let raw = try Connection(path: database.path)
      try raw.execute("UPDATE article SET isRead = 1 WHERE url = ?1", [.text(articleURL("c1").absoluteString)])
      #expect(try await storage.articleCount(selecting: unread) == 6, "a write of another connection")
      #expect(try await storage.articleCount(selecting: unread) == 6)
    }
  }

  @Test("the fetch records (remembered while the store is unchanged) follow every write: cached counts, new queries")
  func fetchRecordsFollowEveryWrite() async throws {
    let (database, storage) = try await Self.store()
    func cached(_ query: String) async throws -> Int? {
      try await storage.fetchRecords().first { $0.query == query }?.cachedCount
    }
    #expect(try await cached("query-A") == 4)
    #expect(try await cached("query-A") == 4)
    try await storage.deleteArticles(urls: [articleURL("a1").absoluteString])
    #expect(try await cached("query-A") == 3, "a write of this context")
    let other = try database.open()
    try await other.saveArticles(
      [makeArticle("d1", title: "D1", publishedAt: t0)], forQuery: "query-D", source: "D",
      fetchedAt: Timestamp(millisecondsSince1970: t0 + 1))
    await other.close()
    #expect(try await cached("query-D") == 1, "a write of another context (another process)")
    let raw = try Connection(path: database.path)
    try raw.execute(
      "DELETE FROM query_result WHERE query = 'query-B' AND url = ?1", [.text(articleURL("b1").absoluteString)])
    #expect(try await cached("query-B") == 2, "a write of another connection")
  }

  @Test("a value remembered while the database is unchanged is computed once, and again after any commit")
  func rememberedWhileUnchanged() throws {
    let database = TestDatabase()
    let db = try Connection(path: database.path)
    try db.execute(sql: "CREATE TABLE t (x INTEGER)")
    let other = try Connection(path: database.path)
    var computed = 0
    func count() throws -> Int64 {
      try db.execute(sql: "BEGIN DEFERRED")
      defer { try? db.execute(sql: "COMMIT") }
      return try db.rememberedWhileUnchanged("count") {
        computed += 1
        return try db.scalarInt("SELECT count(*) FROM t") ?? -1
      }
    }
    #expect(try count() == 0)
    #expect(try count() == 0)
    #expect(computed == 1, "remembered")
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(try count() == 1, "this connection's write")
    try other.execute(sql: "INSERT INTO t VALUES (2)")
    #expect(try count() == 2, "another connection's commit")
    #expect(try count() == 2)
    #expect(computed == 3)
    #expect(try db.rememberedWhileUnchanged("count") { Int64(-2) } == -2, "outside a transaction: computed each time")
  }

  @Test("dates, read state, handles, order and direction; ascending is the exact reverse of descending")
  func conditionsAndOrder() async throws {
    let (_, storage) = try await Self.store()
    try await storage.setRead(
      true, urls: [articleURL("b2").absoluteString, articleURL("a4").absoluteString, "https://example.com/none"])
    #expect(try await Self.titles(storage, ArticleSelection(readOnly: true)) == ["A4", "B2"])
    #expect(
      try await Self.titles(storage, ArticleSelection(filter: ArticleFilter(unreadOnly: true), limit: 2)) == [
        "B3", "A3",
      ])
    let two = Date(timeIntervalSince1970: TimeInterval(t0 + 2 * 3_600_000) / 1000)
    let three = two.addingTimeInterval(3600)
    #expect(
      try await Self.titles(
        storage, ArticleSelection(filter: ArticleFilter(publishedBefore: three), publishedAfter: two)) == ["C2", "B2"])
    let descending = try await Self.titles(storage, ArticleSelection())
    #expect(try await Self.titles(storage, ArticleSelection(ascending: true)) == descending.reversed())
    let byHandle = try await storage.articles(selecting: ArticleSelection(order: .servedID, ascending: true))
    let handles = byHandle.map { ArticleIdentity.handle(forKey: $0.url.absoluteString) }
    #expect(handles == handles.sorted() && handles.count == 9)
    let above = try await storage.articles(
      selecting: ArticleSelection(servedIDAbove: handles[4], order: .servedID, ascending: true))
    #expect(above.map(\.title) == Array(byHandle[5...]).map(\.title))
    let below = try await storage.articles(
      selecting: ArticleSelection(servedIDBelow: handles[4], order: .servedID, ascending: true))
    #expect(below.map(\.title) == Array(byHandle[..<4]).map(\.title))
    #expect(
      try await Self.titles(storage, ArticleSelection(order: .readState, ascending: false, limit: 2)) == ["A4", "B2"])
    #expect(
      try await Self.titles(storage, ArticleSelection(order: .sourceRank(["C": 0, "A": 1]), ascending: true)).map {
        String($0.prefix(1))
      }
        == ["C", "C", "A", "A", "A", "A", "B", "B", "B"])
    #expect(try await Self.titles(storage, ArticleSelection(limit: 2, offset: 7)) == ["B1", "A1"])
  }

  @Test("many handles at once; the low 32 bits of a 52-bit id; counts by source in one statement; marking read")
  func lookupsCountsAndMarks() async throws {
    let (_, storage) = try await Self.store()
    let keys = ["a2", "c1", "b3"].map { articleURL($0).absoluteString }
    let handles = keys.map(ArticleIdentity.handle(forKey:))
    let found = try await storage.articles(
      withServedIDPrefixes: handles.map { String($0.prefix(13)) } + ["zz", "0000"])
    #expect(found.map(\.title) == ["A2", "C1", "B3"])
    let low = handles.map { String($0.dropFirst(5).prefix(8)) }
    #expect(try await storage.articles(withServedIDDigits6to13: low).map(\.title).sorted() == ["A2", "B3", "C1"])
    let counts = try await storage.articleCounts(bySource: [Self.a, Self.b, Self.c, SourceMatch(source: "none")])
    #expect(counts.map(\.total) == [4, 3, 3, 0])
    #expect(counts.map(\.unread) == [4, 3, 3, 0])
    #expect(counts[1].newest == Date(timeIntervalSince1970: TimeInterval(t0 + 3 * 3_600_000 + 60_000) / 1000))
    #expect(try await storage.setRead(true, selecting: ArticleSelection(sources: [Self.c])) == 3)
    #expect(try await storage.setRead(true, selecting: ArticleSelection(sources: [Self.c])) == 0)
    #expect(try await storage.articleCounts(bySource: [Self.a, Self.c]).map(\.unread) == [3, 0])
    #expect(try await storage.setRead(false, urls: [articleURL("a1").absoluteString]) == 1)
  }

  @Test("counts of groups: a folder's sources count each article once, nil counts all, a write is seen at once")
  func groupCounts() async throws {
    let (_, storage) = try await Self.store()
    // a1 is A's and in C's last fetch: the folder {A, C} holds it once (4 + 2, not 4 + 3).
    let groups: [[SourceMatch]?] = [nil, [Self.a, Self.c], [Self.c], [Self.b], [], [SourceMatch(source: "none")]]
    var counts = try await storage.articleCounts(ofGroups: groups)
    #expect(counts.map(\.total) == [9, 6, 3, 3, 0, 0])
    #expect(counts.map(\.unread) == [9, 6, 3, 3, 0, 0])
    #expect(counts[2].newest == Date(timeIntervalSince1970: TimeInterval(t0 + 2 * 3_600_000 + 120_000) / 1000))
    // One source a group is what `articleCounts(bySource:)` counts.
    let bySource = try await storage.articleCounts(bySource: [Self.a, Self.c])
    #expect(bySource == (try await storage.articleCounts(ofGroups: [[Self.a], [Self.c]])))
    #expect(bySource.map(\.total) == [4, 3])
    _ = try await storage.setRead(true, urls: [articleURL("a1").absoluteString])
    counts = try await storage.articleCounts(ofGroups: groups)
    #expect(counts.map(\.unread) == [8, 5, 2, 3, 0, 0])
  }

  @Test("counts of a library of 1,000 sources never fetched and C: more than the 500 terms of one compound SELECT")
  func countsOfManySources() async throws {
    let (_, storage) = try await Self.store()
    // A library imported from OPML: 1,000 feeds with no fetch yet; each is looked up (a1, in C's list, is A's).
    let many = (1...1_000).map { SourceMatch(source: "feed-\($0)", queries: ["https://feeds.example/\($0).xml"]) }
    let library = Array(many.prefix(700)) + [Self.c] + Array(many.dropFirst(700))
    let groups: [[SourceMatch]?] = [nil, library, [many[0]], [many[999]], [Self.c], [Self.a, Self.c]]
    let counts = try await storage.articleCounts(ofGroups: groups)
    #expect(counts.map(\.total) == [9, 3, 0, 0, 3, 6])
    #expect(counts.map(\.unread) == [9, 3, 0, 0, 3, 6])
  }

  @Test("the fetch log records each save's name and how many of its list are another name's; renames move both")
  func fetchLogOthers() async throws {
    let (_, storage) = try await Self.store()
    func others(_ query: String) async throws -> String? {
      try await storage.text("SELECT source || ':' || othersCount FROM query_fetch WHERE query = '\(query)'")
    }
    // A first import (A's), later saves (B's, C's twice), and C's list holding a1, recorded under A.
    #expect(try await others("query-A") == "A:0")
    #expect(try await others("query-B") == "B:0")
    #expect(try await others("query-C") == "C:1")
    // C's next fetch no longer lists a1: counted again at the save.
    try await storage.saveArticles(
      (1...2).map { makeArticle("c\($0)", title: "C\($0)", publishedAt: t0 + Int64($0 * 3_600_000 + 120_000)) },
      forQuery: "query-C", source: "C", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1))
    #expect(try await others("query-C") == "C:0")
    // A rename moves the articles and the name their queries saved under: A's list is all Z's now.
    #expect(try await storage.renameArticleSource(from: "A", to: "Z") == 4)
    #expect(try await others("query-A") == "Z:0")
    let z = SourceMatch(source: "Z", queries: ["query-A"])
    #expect(try await storage.articleCounts(ofGroups: [[z], [SourceMatch(source: "A")]]).map(\.total) == [4, 0])
    // The name A with Z's query: Z's list, looked up (its count is of Z's name, not A's).
    #expect(try await storage.articleCounts(ofGroups: [[Self.a]]).map(\.total) == [4])
  }

  @Test("counts of groups are the same whether the fetch log knows the lists' other names or not (a store of 16)")
  func groupCountsWithoutFetchLogCounts() async throws {
    let (_, storage) = try await Self.store()
    _ = try await storage.setRead(true, urls: [articleURL("a1").absoluteString, articleURL("b2").absoluteString])
    let groups: [[SourceMatch]?] = [
      nil, [Self.a, Self.c], [Self.c], [Self.b], [Self.a], [SourceMatch(source: "none")],
    ]
    let known = try await storage.articleCounts(ofGroups: groups)
    #expect(known.map(\.total) == [9, 6, 3, 3, 4, 0])
    #expect(known.map(\.unread) == [7, 5, 2, 2, 3, 0])
    try await storage.write { db in try db.execute(sql: "UPDATE query_fetch SET othersCount = NULL") }
    #expect(try await storage.articleCounts(ofGroups: groups) == known)
    // A count above 0 (high after an eviction, say) only says to look the list up: the counts are the same.
    try await storage.write { db in try db.execute(sql: "UPDATE query_fetch SET othersCount = 5") }
    #expect(try await storage.articleCounts(ofGroups: groups) == known)
  }

  @Test("a source's counts read no row of the table: one walk of an index, its newest date one entry of another")
  func countPlans() async throws {
    let (_, storage) = try await Self.store()
    let plan = { (sql: String, names: [String]) in
      try await storage.read { db in
        try db.makeStatement("EXPLAIN QUERY PLAN " + sql).fetchAll(names.map { .text($0) }) { $0.string(3) ?? "" }
      }
    }
    let statements = StorageContext.nameCountStatements(2)
    let counts = try await plan(statements.counts, ["A", "B"])
    #expect(counts.contains { $0.contains("COVERING INDEX article_by_source_read") }, "\(counts)")
    #expect(!counts.contains { $0.contains("TEMP B-TREE") }, "\(counts)")
    let newest = try await plan(statements.newest, ["A"])
    #expect(newest.contains { $0.contains("COVERING INDEX article_by_source (") }, "\(newest)")
  }

  @Test("a page of the whole store walks the date index; a few sources use their indexes: no sort of the store")
  func plans() async throws {
    let (_, storage) = try await Self.store()
    let everything = try await storage.queryPlan(
      selecting: ArticleSelection(sources: [Self.a, Self.b, Self.c], sourceLookup: .scan, limit: 100))
    #expect(everything.contains { $0.contains("article_by_publishedAt") }, "\(everything)")
    #expect(!everything.contains { $0.contains("TEMP B-TREE") }, "\(everything)")
    let ascending = try await storage.queryPlan(
      selecting: ArticleSelection(sourceLookup: .scan, ascending: true, limit: 100))
    #expect(!ascending.contains { $0.contains("TEMP B-TREE") }, "\(ascending)")
    let one = try await storage.queryPlan(
      selecting: ArticleSelection(sources: [Self.b], sourceLookup: .index, limit: 100))
    #expect(one.contains { $0.contains("article_by_source") }, "\(one)")
    #expect(!one.contains { $0.contains("SCAN a") }, "\(one)")
  }
}
