import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// The batches of one streamed save, handed out in order.
private final class RealBatches: Sendable {
  private let rest: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { rest = Mutex(batches.reversed()) }
  func next() -> [Article]? { rest.withLock { $0.popLast() } }
}

/// A first import's search index built beside the writer, on a second thread, and copied in at the end
/// (`SideSearchIndex`), against the one built at the end of the save from `article_search_text`, on real payloads:
/// every NewsAPI response and every feed of `../shared/fixtures/real` (Arabic, German, Chinese, HTML summaries
/// with their search texts, authors that are URLs, `\r\n` in contents), as `news import` and `news fetch` decode
/// them.
@Suite("a first import's index built beside the writer equals the one built at its end, on real payloads")
struct SideSearchIndexRealTests {
  /// The real articles, each also under three more keys (a fragment added), so that the first batch is a bulk
  /// one; then a hundred of them again under their own keys with another article's texts (rows updated after
  /// they were indexed).
  static func batches() async throws -> [[Article]] {
    var articles: [Article] = []
    let directory = Fixtures.sharedRealDirectory
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    where name.hasPrefix("newsapi-") && name.hasSuffix(".json") {
      articles += try await FileNewsNetwork().fetch(NewsQuery(url: try Fixtures.sharedReal(name))).articles
    }
    let feeds = directory.appendingPathComponent("feeds")
    for name in try FileManager.default.contentsOfDirectory(atPath: feeds.path).sorted()
    where !name.hasSuffix(".html") && !name.hasSuffix(".opml") {
      let data = try Data(contentsOf: try Fixtures.sharedReal("feeds/\(name)"))
      let origin = try #require(URL(string: "https://feeds.example/\(name)"))
      articles += try ArticleDecoder().decodePage(
        data, origin: origin, contentType: nil, httpStatus: nil, redacting: []
      ).articles
    }
    #expect(articles.count > 300, "\(articles.count) real articles")
    var all: [Article] = []
    for copy in 0..<4 {
      for var article in articles {
        if copy > 0 {
          article.url = try #require(URL(string: article.url.absoluteString + "#copy\(copy)"))
          article.formerKey = nil
          article.itemID = nil
        }
        all.append(article)
      }
    }
    for index in 0..<100 {
      var again = articles[(index * 7) % articles.count]
      let other = articles[(index * 13 + 5) % articles.count]
      again.title = other.title
      again.summary = other.summary
      again.summaryText = other.summaryText
      again.content = other.content
      again.contentText = other.contentText
      all.append(again)
    }
    return stride(from: 0, to: all.count, by: 1000).map { Array(all[$0..<min($0 + 1000, all.count)]) }
  }

  /// Every (term, article key, column, offset) of the index: FTS5's own view of what it holds.
  static func instances(_ storage: StorageContext) async throws -> [String] {
    try await storage.write { db in
      try db.execute(
        sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, article_fts, instance)")
      defer { try? db.execute(sql: "DROP TABLE temp.fts_terms") }
      return try db.makeStatement(
        """
        SELECT v.term, a.url, v.col, v.offset FROM temp.fts_terms v JOIN article a ON a.rowid = v.doc
        ORDER BY v.term, a.url, v.col, v.offset
        """
      ).fetchAll { "\($0.string(0) ?? "")|\($0.string(1) ?? "")|\($0.string(2) ?? "")|\($0.int64(3) ?? -1)" }
    }
  }

  @Test(
    "the same terms, sizes, totals and answers, and FTS5's integrity-check passes",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realPayload() async throws {
    let batches = try await Self.batches()
    #expect(batches[0].count == 1000)
    let fetched = Timestamp(millisecondsSince1970: 1_700_000_000_000)
    let folder = TemporaryDirectory("side-index")
    var stores: [StorageContext] = []
    for build in [SearchIndexBuild.standard, SearchIndexBuild(beside: false)] {
      let storage = try StorageContext(path: folder.path("\(build.beside ? "beside" : "end").sqlite"))
      let queue = RealBatches(batches)
      let traced = Mutex<[String]>([])
      try await storage.traceWrites { sql in traced.withLock { $0.append(sql) } }
      let result = try await storage.saveArticles(
        forQuery: "real", fetchedAt: fetched, searchIndexBuild: build, batches: { queue.next() })
      try await storage.traceWrites(nil)
      #expect(result.inserted > 1000)
      let indexedOnMain = traced.withLock { $0 }.filter { $0.hasPrefix("INSERT INTO article_fts (rowid") }.count
      #expect((indexedOnMain == 0) == build.beside, "indexed on the main connection: \(indexedOnMain) statements")
      try await storage.write { db in
        try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
      }
      stores.append(storage)
    }
    let beside = stores[0]
    let end = stores[1]
    defer {
      Task {
        await beside.close()
        await end.close()
      }
    }
    let terms = try await Self.instances(beside)
    #expect(terms.count > 100_000)
    #expect(terms == (try await Self.instances(end)))
    for sql in [
      "SELECT hex(block) FROM article_fts_data WHERE id = 1",
      """
      SELECT group_concat(size, ',') FROM (
        SELECT a.url || ' ' || hex(d.sz) AS size FROM article_fts_docsize d JOIN article a ON a.rowid = d.id
        ORDER BY a.url)
      """,
      "SELECT count(DISTINCT segid) FROM article_fts_idx",
    ] {
      let value = try await beside.read { try $0.scalarString(sql) }
      #expect(value == (try await end.read { try $0.scalarString(sql) }), "\(sql)")
    }
    // The commonest words of the payload and some rarer ones, each searched in both stores.
    let words = try await beside.write { db in
      try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_rows USING fts5vocab(main, article_fts, row)")
      defer { try? db.execute(sql: "DROP TABLE temp.fts_rows") }
      return try db.makeStatement(
        "SELECT term FROM temp.fts_rows WHERE length(term) > 3 ORDER BY doc DESC, term LIMIT 40"
      ).fetchAll { $0.string(0) ?? "" }
        + db.makeStatement(
          "SELECT term FROM temp.fts_rows WHERE doc BETWEEN 4 AND 8 AND length(term) > 4 ORDER BY term LIMIT 40"
        ).fetchAll { $0.string(0) ?? "" }
    }
    try #require(words.count == 80)
    for word in words + ["\(words[0]) \(words[1])", "\(words[2]) OR \(words[50])"] {
      let expected = try await end.search(word, limit: 200).map { "\($0.article.url) \($0.rank) \($0.snippet)" }
      #expect(!expected.isEmpty, "\(word)")
      #expect(
        try await beside.search(word, limit: 200).map { "\($0.article.url) \($0.rank) \($0.snippet)" } == expected,
        "\(word)")
    }
  }
}
