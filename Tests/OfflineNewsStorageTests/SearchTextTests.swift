import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// Migration 11: the index reads an article's search texts (``Article/summaryText``, ``Article/contentText``: the
/// text of an HTML summary and content, which the feed decoder derives) in place of the fields, so markup is never
/// found and snippets are cut from the text; the fields stay as the source gave them.
@Suite("StorageContext: search reads the text of HTML summaries and contents (migration 11)")
struct SearchTextTests {
  private static let fetched = Timestamp(millisecondsSince1970: t0)

  /// An article whose summary and content are HTML, with their texts as the feed decoder gives them (written here
  /// by hand: this module knows no HTML).
  static func htmlArticle(_ slug: String, word: String = "lighthouse") -> Article {
    var article = makeArticle(
      slug, title: "Keeper's log",
      summary: "<p>The <a href=\"https://pelican.example/\" class=\"marmot\">\(word)</a> keeper counted gulls.</p>",
      content: "<div class=\"walrus\"><p>Fog over the break<em>water</em>.</p></div>")
    article.summaryText = "The \(word) keeper counted gulls."
    article.contentText = "Fog over the breakwater."
    return article
  }

  private func found(_ storage: StorageContext, _ text: String) async throws -> [String] {
    slugs(try await storage.search(text).map(\.article))
  }

  /// FTS5's own check of the index against its content (`rank` 1 compares the content too).
  private func checkIndex(_ storage: StorageContext) async throws {
    try await storage.write { db in
      try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
  }

  @Test("markup is not found, the text is, snippets have no tags; a changed text re-indexes; deletes are clean")
  func searchText() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let plain = makeArticle("plain", title: "Tide table", summary: "High tide at noon <no markup here>.")
    try await storage.saveArticles([Self.htmlArticle("log"), plain], forQuery: "q", fetchedAt: Self.fetched)
    for word in ["href", "class", "marmot", "pelican", "walrus", "em", "div"] {
      #expect(try await found(storage, word).isEmpty, "\(word)")
    }
    #expect(try await found(storage, "lighthouse") == ["log"])
    #expect(try await found(storage, "breakwater") == ["log"])
    // A plain-text summary (no search text) is searched as it is, whatever it holds.
    #expect(try await found(storage, "markup") == ["plain"])
    for query in ["lighthouse", "breakwater", "gulls OR fog"] {
      let hit = try #require(try await storage.search(query).first)
      #expect(!hit.snippet.contains("<") && hit.snippet.contains("\u{27E8}"), "\(query): \(hit.snippet)")
    }
    // Read back with the fields as stored (HTML) and their search texts.
    let stored = try #require(try await storage.article(url: articleURL("log").absoluteString))
    #expect(stored == Self.htmlArticle("log"))
    try await checkIndex(storage)

    // Fetched again with other HTML: the update trigger replaces the terms.
    try await storage.saveArticles([Self.htmlArticle("log", word: "windmill")], forQuery: "q", fetchedAt: Self.fetched)
    #expect(try await found(storage, "lighthouse").isEmpty)
    #expect(try await found(storage, "windmill") == ["log"])
    #expect(try await found(storage, "href").isEmpty)
    try await checkIndex(storage)

    #expect(try await storage.deleteAllArticles() == 2)
    try await checkIndex(storage)
    #expect(try await storage.int("SELECT count(*) FROM article_fts_docsize") == 0, "no row left in the index")
  }

  /// Migration 11 undone on a current store: its columns gone, the view and update triggers as migration 9 made
  /// them, the index rebuilt from that view (as version 10 indexed: the HTML as it is), version 10.
  static let version10Search = """
    DROP TRIGGER article_fts_before_update; DROP TRIGGER article_fts_after_update; DROP VIEW article_search_text;
    CREATE VIEW article_search_text (docid, title, summary, content, author, sourceName) AS
    SELECT rowid,
      replace(replace(replace(replace(replace(replace(title,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(summary,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(coalesce(fullText, content),
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(author,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(sourceName,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), '')
    FROM article;
    ALTER TABLE article DROP COLUMN summaryText; ALTER TABLE article DROP COLUMN contentText;
    CREATE TRIGGER article_fts_before_update
    BEFORE UPDATE OF title, summary, content, author, sourceName, fullText ON article
    WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
      OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName OR old.fullText IS NOT new.fullText
    BEGIN
      INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
      SELECT 'delete', docid, title, summary, content, author, sourceName
      FROM article_search_text WHERE docid = old.rowid;
    END;
    CREATE TRIGGER article_fts_after_update
    AFTER UPDATE OF title, summary, content, author, sourceName, fullText ON article
    WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
      OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName OR old.fullText IS NOT new.fullText
    BEGIN
      INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
      SELECT docid, title, summary, content, author, sourceName FROM article_search_text WHERE docid = new.rowid;
    END;
    INSERT INTO article_fts (article_fts) VALUES ('rebuild');
    PRAGMA user_version = 10;
    """

  @Test("a version 10 store migrates: its index stays right; a row keeps its markup until its next fetch re-indexes it")
  func migrationFromVersion10() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      try await storage.saveArticles([Self.htmlArticle("log")], forQuery: "q", fetchedAt: Self.fetched)
      try await storage.write { db in try db.execute(sql: Self.version10Search) }
      #expect(try await storage.int("PRAGMA user_version") == 10)
      // Raw SQL: the store's own reads name the new columns.
      #expect(
        try await storage.int("SELECT count(*) FROM article_fts WHERE article_fts MATCH 'href'") == 1,
        "version 10 indexed the markup")
    }
    let storage = try database.open()
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    #expect(try await storage.int("SELECT count(*) FROM pragma_table_info('article') WHERE name = 'summaryText'") == 1)
    #expect(try await storage.int("SELECT count(*) FROM pragma_table_info('article') WHERE name = 'contentText'") == 1)
    try await checkIndex(storage)
    // Stored before: no search text yet, so the markup is still indexed (documented), and the text's words too.
    #expect(try await found(storage, "href") == ["log"])
    #expect(try await found(storage, "lighthouse") == ["log"])
    // Its next fetch, the same HTML: the row is written again with its search texts and re-indexed.
    let saved = try await storage.saveArticles([Self.htmlArticle("log")], forQuery: "q", fetchedAt: Self.fetched)
    #expect(saved.updated == 1)
    #expect(try await found(storage, "href").isEmpty)
    #expect(try await found(storage, "marmot").isEmpty)
    #expect(try await found(storage, "lighthouse") == ["log"])
    try await checkIndex(storage)
    // And a fetch after that changes nothing.
    let again = try await storage.saveArticles([Self.htmlArticle("log")], forQuery: "q", fetchedAt: Self.fetched)
    #expect(again.updated == 0 && again.inserted == 0)
  }
}
