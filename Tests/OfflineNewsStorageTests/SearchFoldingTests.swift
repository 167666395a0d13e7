import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// Migration 6: soft hyphens, zero-width spaces, joiners and word joiners are folded out before tokenizing, in the
/// index and in the query; existing indexes are migrated; any writer of `article` (the sqlite3 tool too) gets it.
@Suite("StorageContext: search folding (migration 7)")
struct SearchFoldingTests {
  private static let fetched = Timestamp(millisecondsSince1970: t0)

  /// Articles whose words carry the folded characters, each with the word a reader sees.
  static let folded: [(article: Article, word: String)] = [
    (
      makeArticle("soft-hyphen", title: "Bundes\u{AD}verfassungs\u{AD}gericht kippt Gesetz"), "Bundesverfassungsgericht"
    ),
    (makeArticle("zwsp", title: "The Data\u{200B}Base of everything", summary: "x"), "DataBase"),
    (makeArticle("zwj", title: "Ein Auto\u{200D}bahn Unfall", content: "y"), "Autobahn"),
    (makeArticle("zwnj", title: "می\u{200C}خواهم بروم"), "میخواهم"),
    (makeArticle("word-joiner", title: "Grand\u{2060}stand opens", author: "Anne\u{FEFF}Marie"), "Grandstand"),
    (makeArticle("bom", title: "A title", sourceName: "\u{FEFF}Wire\u{AD}service"), "Wireservice"),
    (makeArticle("thai", title: "ภาษา\u{200B}ไทย วันนี้"), "ภาษาไทย"),
  ]

  static let plain = [
    makeArticle("plain", title: "Bundes Gericht prüft Datenbank", summary: "A grand stand of data base records."),
    makeArticle("storm", title: "Storm Isolde brings gales", summary: "Ferry operators cancelled sailings."),
  ]

  private func found(_ storage: StorageContext, _ text: String) async throws -> [String] {
    slugs(try await storage.search(text).map(\.article))
  }

  /// FTS5's own check of the index against its content (`rank` 1 compares the content too).
  private func checkIndex(_ storage: StorageContext) async throws {
    try await storage.write { db in
      try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
  }

  @Test("a word written with soft hyphens, ZWSP, ZWJ, ZWNJ, word joiners or U+FEFF is found as the reader sees it")
  func foldedWords() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(Self.folded.map(\.article) + Self.plain, forQuery: "q", fetchedAt: Self.fetched)
    for (article, word) in Self.folded {
      let slug = article.url.lastPathComponent
      #expect(try await found(storage, word) == [slug], "\(word)")
      #expect(try await found(storage, word.lowercased()) == [slug], "\(word)")
    }
    // Typed (pasted) with the invisible characters, the query is folded too.
    #expect(try await found(storage, "Bundes\u{AD}verfassungs\u{AD}gericht") == ["soft-hyphen"])
    #expect(try await found(storage, "\"Bundes\u{AD}verfassungs\u{AD}gericht kippt\"") == ["soft-hyphen"])
    #expect(try await found(storage, "bundesverf*") == ["soft-hyphen"])
    // The pieces are no longer words of their own there: "Bundes" finds only the article that has it.
    #expect(try await found(storage, "bundes") == ["plain"])
    #expect(try await found(storage, "gericht") == ["plain"])
    #expect(try await found(storage, "anne*") == ["word-joiner"])
    let hit = try #require(try await storage.search("Bundesverfassungsgericht").first)
    #expect(hit.snippet.contains("⟨Bundesverfassungsgericht⟩"), "\(hit.snippet)")
    try await checkIndex(storage)
  }

  @Test("updates and deletes remove exactly the folded terms that were indexed")
  func updateAndDelete() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(Self.folded.map(\.article), forQuery: "q", fetchedAt: Self.fetched)
    var changed = Self.folded[0].article
    changed.title = "Verwaltungs\u{AD}gericht entscheidet"
    try await storage.saveArticles([changed], forQuery: "q2", fetchedAt: Self.fetched)
    #expect(try await found(storage, "Bundesverfassungsgericht").isEmpty)
    #expect(try await found(storage, "Verwaltungsgericht") == ["soft-hyphen"])
    try await checkIndex(storage)
    #expect(try await storage.deleteAllArticles() == Self.folded.count)
    #expect(try await found(storage, "Verwaltungsgericht").isEmpty)
    try await checkIndex(storage)
    #expect(try await storage.int("SELECT count(*) FROM article_fts_docsize") == 0, "no row left in the index")
  }

  @Test("a bulk save (1,000+ articles) indexes the folded text through the view, its insert trigger set aside")
  func bulkSave() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let statements = Mutex<[String]>([])
    try await storage.traceWrites { sql in statements.withLock { $0.append(sql) } }
    let many = (0..<1200).map { makeArticle("bulk\($0)", title: "Story \($0)", publishedAt: t0 + Int64($0)) }
    try await storage.saveArticles(many + Self.folded.map(\.article), forQuery: "q", fetchedAt: Self.fetched)
    #expect(
      statements.withLock { $0.contains { $0.contains("DROP TRIGGER article_fts_after_insert") } },
      "the bulk path was taken")
    for (article, word) in Self.folded {
      #expect(try await found(storage, word) == [article.url.lastPathComponent], "\(word)")
    }
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_fts_after_insert'") == 1)
    try await checkIndex(storage)
  }

  /// The SQL of migration 4's search schema, as it shipped, to build a database as version 6 left it (the search
  /// index as versions 4 to 6 had it, before folding).
  static let version5Search = """
    DROP TRIGGER article_fts_after_insert; DROP TRIGGER article_fts_before_delete;
    DROP TRIGGER article_fts_before_update; DROP TRIGGER article_fts_after_update;
    DROP TABLE article_fts; DROP VIEW article_search_text;
    CREATE VIRTUAL TABLE article_fts USING fts5(
      title, summary, content, author, sourceName, content = 'article', content_rowid = 'rowid',
      tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'");
    CREATE TRIGGER article_fts_after_insert AFTER INSERT ON article BEGIN
      INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
      VALUES (new.rowid, new.title, new.summary, new.content, new.author, new.sourceName);
    END;
    CREATE TRIGGER article_fts_after_delete AFTER DELETE ON article BEGIN
      INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
      VALUES ('delete', old.rowid, old.title, old.summary, old.content, old.author, old.sourceName);
    END;
    CREATE TRIGGER article_fts_after_update AFTER UPDATE OF title, summary, content, author, sourceName ON article
    WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
      OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName
    BEGIN
      INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
      VALUES ('delete', old.rowid, old.title, old.summary, old.content, old.author, old.sourceName);
      INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
      VALUES (new.rowid, new.title, new.summary, new.content, new.author, new.sourceName);
    END;
    INSERT INTO article_fts (article_fts) VALUES ('rebuild');
    """

  /// What the migrations after 7 added (handles, full text, images, search texts), removed, and the version set to 6: run after the
  /// search of the version-5 index (the store reads those columns), before the file is opened again.
  static let laterColumns = """
    DROP INDEX article_by_handle; ALTER TABLE article DROP COLUMN handle;
    ALTER TABLE article DROP COLUMN fullTextHTML; ALTER TABLE article DROP COLUMN fullText;
    ALTER TABLE article DROP COLUMN fullTextAt; ALTER TABLE article DROP COLUMN fullTextError;
    DROP TABLE article_image;
    ALTER TABLE article DROP COLUMN summaryText; ALTER TABLE article DROP COLUMN contentText;
    PRAGMA user_version = 6;
    """

  /// A database holding `articles` whose search schema is version 5's, and the store that made it (still open, so
  /// it can be searched before anything migrates it; opening the file again migrates it).
  private func version5(
    _ articles: [Article], _ database: TestDatabase,
    searchBefore: (StorageContext) async throws -> Void = { _ in }
  ) async throws {
    let storage = try database.open()
    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Self.fetched)
    try await storage.write { db in try db.execute(sql: Self.version5Search) }
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_search_text'") == 0)
    try await searchBefore(storage)
    try await storage.write { db in try db.execute(sql: Self.laterColumns) }
    #expect(try await storage.int("PRAGMA user_version") == 6)
  }

  /// The words of the articles' titles and summaries (letters and digits, three or more), each once, sorted:
  /// the queries, derived from the corpus itself.
  static func words(_ articles: [Article]) -> [String] {
    let text = articles.flatMap { [$0.title, $0.summary ?? ""] }.joined(separator: " ")
    let words = text.split { !$0.isLetter && !$0.isNumber }.map { $0.lowercased() }.filter { $0.count >= 3 }
    return Array(Set(words)).sorted()
  }

  /// The corpus: the bundled sample, and the real NewsAPI captures where they are (read with JSONSerialization).
  static func corpus() throws -> [Article] {
    var files = [Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")]
    if Fixtures.hasSharedReal {
      files += [
        "newsapi-top-headlines-2020-empty-author-malformed-url.json",
        "newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json",
        "newsapi-top-headlines-2023-arabic-google-news.json", "newsapi-top-headlines-2023-removed-article.json",
      ].map { Fixtures.sharedRealDirectory.appendingPathComponent($0) }
    }
    var articles: [String: Article] = [:]
    for file in files {
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
      for (index, record) in (object?["articles"] as? [[String: Any]] ?? []).enumerated() {
        guard let title = record["title"] as? String, title != "[Removed]" else { continue }
        let source = (record["source"] as? [String: Any])?["name"] as? String
        let slug = "\(file.deletingPathExtension().lastPathComponent)-\(index)"
        articles[slug] = makeArticle(
          slug, title: title, publishedAt: t0 - Int64(index) * 60_000, author: record["author"] as? String,
          summary: record["description"] as? String, content: record["content"] as? String, sourceName: source)
      }
    }
    return articles.values.sorted { $0.url.absoluteString < $1.url.absoluteString }
  }

  @Test("migrating a version 5 index: the same results, in the same order, for every word of the corpus")
  func migrationKeepsResults() async throws {
    let articles = try Self.corpus()
    #expect(articles.count >= 15)
    let database = TestDatabase()
    // Words of scripts written without spaces are searched as substrings of the folded view, which version 5
    // does not have: those are compared by the index search only.
    let queries = Self.words(articles).filter { (try? SearchQuery($0))?.needsSubstringSearch == false }
    #expect(queries.count >= 100)

    nonisolated(unsafe) var before: [String: [String]] = [:]
    try await version5(articles, database) { old in
      for query in queries { before[query] = try await found(old, query) }
    }
    let storage = try database.open()
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    #expect(try await storage.int("SELECT count(*) FROM sqlite_master WHERE name = 'article_search_text'") == 1)
    var differences: [String] = []
    for query in queries where try await found(storage, query) != before[query] { differences.append(query) }
    #expect(differences.isEmpty, "results changed for \(differences.prefix(10))")
    #expect(before.values.filter { !$0.isEmpty }.count == queries.count, "every word finds its article")
    try await checkIndex(storage)
  }

  @Test("migrating a version 5 index that holds soft hyphens: the folded words are found afterwards")
  func migrationFolds() async throws {
    let articles = Self.folded.map(\.article) + Self.plain
    let database = TestDatabase()
    try await version5(articles, database)
    let storage = try database.open()
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    for (article, word) in Self.folded {
      #expect(try await found(storage, word) == [article.url.lastPathComponent], "\(word)")
    }
    // The other articles' words are found as before.
    for word in Self.words(Self.plain) {
      #expect(try await found(storage, word).contains(where: { ["plain", "storm"].contains($0) }), "\(word)")
    }
    try await checkIndex(storage)
  }

  @Test(
    "rows written by the sqlite3 tool are indexed folded too, and deleted cleanly",
    .enabled(if: SQLiteLockHolder.tool != nil, "needs the sqlite3 command line tool"))
  func sqlite3Writer() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(Self.plain, forQuery: "q", fetchedAt: Self.fetched)
    let tool = try #require(SQLiteLockHolder.tool)
    // char(173) is U+00AD: the row holds "Bundes­verfassungs­gericht" with soft hyphens.
    let insert = """
      INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery)
      VALUES ('https://example.com/cli', 'Bundes' || char(173) || 'verfassungs' || char(173) || 'gericht urteilt',
              \(t0), \(t0), 'cli');
      """
    try await runTool(tool, [database.path, insert])
    #expect(try await found(storage, "Bundesverfassungsgericht") == ["cli"])
    try await checkIndex(storage)
    try await runTool(
      tool,
      [
        database.path,
        "UPDATE article SET title = 'Land' || char(8203) || 'gericht' WHERE url = 'https://example.com/cli';",
      ])
    #expect(try await found(storage, "Landgericht") == ["cli"])
    #expect(try await found(storage, "Bundesverfassungsgericht").isEmpty)
    try await runTool(tool, [database.path, "DELETE FROM article WHERE url = 'https://example.com/cli';"])
    #expect(try await found(storage, "Landgericht").isEmpty)
    try await checkIndex(storage)
  }

  private func runTool(_ tool: String, _ arguments: [String]) async throws {
    let run = try await ProgramRun.run(tool, ["-bail"] + arguments)
    #expect(run.status == 0, "sqlite3 \(arguments): \(run.err)")
  }
}
