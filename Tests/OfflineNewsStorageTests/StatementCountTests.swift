import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

@Suite("StorageContext: statements per save")
struct StatementCountTests {
  final class Counter: Sendable {
    let statements = Mutex<[String]>([])
  }

  @Test("saving 100 articles runs a bounded number of statements, not one per row")
  func boundedStatements() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let counter = Counter()
    try await storage.traceWrites { sql in counter.statements.withLock { $0.append(sql) } }
    let articles = (0..<100).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }

    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let first = counter.statements.withLock { $0 }
    // BEGIN, the schema read after it (`Connection.inTransaction`), any deleted keys remembered?, largest rowid,
    // empty table?, upsert, result-list upsert, its departures, fetch record, COMMIT; and the two statements FTS5
    // runs on its first use in a connection (`PRAGMA data_version`, its config table).
    #expect(first.count <= 12, "\(first.count) statements:\n\(first.joined(separator: "\n"))")
    #expect(!first.contains { $0.contains("INSERT OR REPLACE") })

    // 1,200 articles: still a handful (one upsert per 500 rows, one result-list upsert per 500 rows; a bulk save
    // also sets the search index's insert trigger aside and indexes its new rows in one statement, and pauses
    // FTS5's merging: four settings written and given back, each with FTS5's own write of its config table, the
    // segments counted, the merge at the end).
    counter.statements.withLock { $0.removeAll() }
    let many = (0..<1200).map { makeArticle("b\($0)", publishedAt: t0 + Int64($0)) }
    try await storage.saveArticles(many, forQuery: "q2", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let second = counter.statements.withLock { $0.count }
    #expect(second <= 40, "\(second) statements for 1,200 articles")

    // Re-saving unchanged articles writes no article row and no result-list row: only the fetch record.
    try await storage.traceWrites(nil)
    try await recordRowWrites(storage)
    let again = try await storage.saveArticles(
      articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1000))
    #expect(again.unchanged == 100 && again.inserted == 0 && again.updated == 0 && again.saved == 100)
    #expect(try await rowWrites(storage) == [])
  }

  @Test("a re-save writes only the rows that changed, moved or left")
  func reSaveWritesOnlyDifferences() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let articles = (0..<600).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    try await recordRowWrites(storage)

    // One title changed, two articles swapped places, the last one left, one is new.
    var next = Array(articles.dropLast())
    next[10] = makeArticle("a10", title: "A new title", publishedAt: t0 + 10_000)
    next.swapAt(20, 21)
    next.append(makeArticle("new", publishedAt: t0))
    let result = try await storage.saveArticles(
      next, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1))
    #expect(result.inserted == 1 && result.updated == 1 && result.unchanged == 598 && result.saved == 600)
    #expect(
      try await rowWrites(storage).sorted() == [
        "article insert \(articleURL("new"))", "article update \(articleURL("a10"))",
        "query_result delete \(articleURL("a599"))", "query_result insert \(articleURL("new"))",
        "query_result update \(articleURL("a20"))", "query_result update \(articleURL("a21"))",
      ])
    #expect(try await storage.articles(forQuery: "q").count == 600)
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("a20"))'") == 21)
    #expect(try await storage.int("SELECT position FROM query_result WHERE url = '\(articleURL("new"))'") == 599)
  }

  @Test("a second save of records of the same shape prepares no statement: every statement comes from the cache")
  func recordSavesReuseStatements() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: People.all)
    func page(_ prefix: String) -> ChangeSet {
      ChangeSet(
        upserts: (0..<120).map { index in
          People.person(
            "\(prefix)\(index)", ["name": .text("Name \(index)"), "age": .integer(Int64(index))],
            friends: ["\(prefix)\((index + 1) % 120)"], tags: ["t\(index % 5)"])
        } + (0..<5).map { People.tag("t\($0)") },
        deletes: [("person", Identity(.text("\(prefix)-none")))])
    }
    func changed(_ page: ChangeSet) -> ChangeSet {
      var page = page
      for index in page.upserts.indices where page.upserts[index].entity == "person" {
        page.upserts[index].values["age"] = .integer(1000)
      }
      return page
    }
    let prepared = { try await storage.write { db in db.preparedStatementCount } }
    // New records (inserts), then the same records changed (updates).
    try await storage.save(page("a"))
    try await storage.save(changed(page("a")))
    let afterFirst = try await prepared()
    try await storage.save(page("b"))
    try await storage.save(changed(page("b")))
    #expect(try await prepared() == afterFirst, "statements prepared again")
    #expect(try await storage.count(FetchRequest(entity: "person")) == 240)
  }

  @Test("saves of lists of any length prepare no statement once each padded length has been prepared")
  func savesOfAnyLengthReuseStatements() async throws {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, eviction: EvictionPolicy(maxAge: 90 * 86_400))
    let prepared = { try await storage.write { db in db.preparedStatementCount } }
    // Feed-like saves: items with identifiers (looked up for a re-key), a list that loses members (departures) and
    // is evicted by age; each save a length of its own. A save prepared its upsert for its own length before.
    func items(_ feed: Int, _ count: Int, from first: Int = 0) -> [Article] {
      (first..<first + count).map { index in
        var article = makeArticle("f\(feed)-\(index)", publishedAt: t0 + Int64(index) * 1000)
        article.itemID = "guid-\(feed)-\(index)"
        return article
      }
    }
    func save(_ feed: Int, _ count: Int, from first: Int = 0, at time: Int64) async throws {
      try await storage.saveArticles(
        items(feed, count, from: first), forQuery: "feed-\(feed)", source: "feed-\(feed)",
        fetchedAt: Timestamp(millisecondsSince1970: time), maxAge: nil, etag: nil, lastModified: nil)
    }
    // Every length of a run once (1, 2, 4 … 256), then saved again one shorter (a departure each).
    for (feed, count) in [1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 511].enumerated() {
      try await save(feed, count, at: t0)
      try await save(feed, count - 1, from: 1, at: t0 + 1000)
    }
    let warm = try await prepared()
    for (feed, count) in [47, 10, 25, 48, 4, 20, 30, 12, 50, 333, 2, 99].enumerated() {
      try await save(100 + feed, count, at: t0)
      try await save(100 + feed, count - 1, from: 1, at: t0 + 1000)
    }
    #expect(try await prepared() == warm, "statements prepared again for new lengths")
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query LIKE 'feed-1__'") == 668)
  }

  /// Logs every row written to `article` and `query_result` from now on, on the writer connection (temporary
  /// triggers: they see every write the save makes, whatever statement makes it).
  private func recordRowWrites(_ storage: StorageContext) async throws {
    try await storage.write { db in
      try db.execute(sql: "CREATE TEMP TABLE row_write (what TEXT NOT NULL)")
      for table in ["article", "query_result"] {
        for (event, row) in [("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old")] {
          try db.execute(
            sql: """
              CREATE TEMP TRIGGER \(table)_\(event.lowercased())_log AFTER \(event) ON main.\(table) BEGIN
                INSERT INTO row_write VALUES ('\(table) \(event.lowercased()) ' || \(row).url);
              END
              """)
        }
      }
    }
  }

  private func rowWrites(_ storage: StorageContext) async throws -> [String] {
    try await storage.write { db in try db.makeStatement("SELECT what FROM row_write").fetchAll { $0.string(0) ?? "" } }
  }
}

@Suite("StatementSizes: the few lengths statements are prepared for")
struct StatementSizesTests {
  @Test("padded lengths: powers of two up to the limit, the limit itself above its half, any count over it as it is")
  func paddedCounts() {
    #expect(
      [0, 1, 2, 3, 5, 47, 64, 65, 257, 300, 500, 501].map { StatementSizes.paddedCount($0, limit: 500) } == [
        0, 1, 2, 4, 8, 64, 64, 128, 500, 500, 500, 501,
      ])
    let lengths = Set((1...500).map { StatementSizes.paddedCount($0, limit: 500) })
    #expect(lengths.count == 10)
  }

  @Test("a list statement pads its list by repeating the last value: the same rows, one text per padded length")
  func listStatement() throws {
    let connection = try Connection(path: ":memory:")
    try connection.execute(sql: "CREATE TABLE t (k TEXT, v INTEGER)")
    for index in 0..<20 { try connection.execute("INSERT INTO t VALUES (?1, ?2)", [.text("k\(index)"), .integer(1)]) }
    var texts: Set<Int> = []
    for count in 0...20 {
      let keys = (0..<count).map { DatabaseValue.text("k\($0 * 2)") }
      let (statement, arguments) = try connection.listStatement(
        "SELECT k FROM t WHERE v = ?1 AND k IN (?LIST) ORDER BY k", leading: [.integer(1)], list: keys)
      #expect(arguments.count == 1 + StatementSizes.paddedCount(count, limit: 100))
      texts.insert(arguments.count)
      let found = try statement.fetchAll(arguments) { $0.string(0) ?? "" }
      #expect(found == (0..<count).map { "k\($0 * 2)" }.filter { Int($0.dropFirst()) ?? 99 < 20 }.sorted())
    }
    // 0, 1, 2, 4, 8, 16, 32 values: seven texts for 21 lengths.
    #expect(texts.count == 7)
  }
}
