import Foundation
import OfflineNewsModel
import Testing

@testable import OfflineNewsStorage

/// Migration 24: `article.searchFolds` marks the rows whose texts hold a character the search index folds out, and
/// `article_search_text` skips the folding for the others. The view must give, for every row, what migration 11's
/// view gave, or the index's `'delete'`s would not remove what its inserts wrote.
@Suite("StorageContext: the search text is folded only where the writer found something to fold (migration 24)")
struct SearchFoldsMarkTests {
  private static let fetched = Timestamp(millisecondsSince1970: t0)

  /// Rows with nothing to fold, and rows with a folded character in each searched column.
  static let articles: [Article] = {
    var html = makeArticle("html", title: "Plain title", summary: "<p>Bold <b>type</b></p>", content: "<p>Body</p>")
    html.summaryText = "Bold type"
    html.contentText = "Body"
    var htmlFolded = makeArticle("html-folded", title: "Another", content: "<p>Auto&#8205;bahn</p>")
    htmlFolded.contentText = "Auto\u{200D}bahn"
    return [
      makeArticle("plain", title: "Storm Isolde brings gales", author: "Anne", summary: "Ferries cancelled."),
      html, htmlFolded,
      makeArticle("title", title: "The Data\u{200B}Base of everything"),
      makeArticle("summary", title: "Summary", summary: "Bundes\u{AD}gericht"),
      makeArticle("content", title: "Content", content: "Grand\u{2060}stand"),
      makeArticle("author", title: "Author", author: "Anne\u{FEFF}Marie"),
      makeArticle("source", title: "Source", sourceName: "Wire\u{200C}service"),
    ]
  }()

  /// Every row of `article_search_text`, and of migration 11's view over the same rows, in rowid order.
  private func bothViews(_ storage: StorageContext) async throws -> (now: [String], v11: [String]) {
    try await storage.write { db in
      let old = Migration.v11SearchTextView.replacingOccurrences(
        of: "CREATE VIEW article_search_text", with: "CREATE TEMP VIEW v11_search_text")
      try db.execute(sql: "DROP VIEW IF EXISTS temp.v11_search_text")
      try db.execute(sql: old)
      func rows(_ view: String) throws -> [String] {
        try db.makeStatement("SELECT * FROM \(view) ORDER BY docid").fetchAll { row in
          (0..<row.count).map { row.string($0) ?? "NULL" }.joined(separator: " | ")
        }
      }
      return (try rows("article_search_text"), try rows("v11_search_text"))
    }
  }

  /// The `searchFolds` mark of each row, by its URL's last path component.
  private func marks(_ storage: StorageContext) async throws -> [String: Int64] {
    try await storage.read { db in
      var marks: [String: Int64] = [:]
      let rows = try db.makeStatement("SELECT url, searchFolds FROM article").fetchAll { row in
        (row.string(0) ?? "", row.int64(1) ?? -1)
      }
      for (url, mark) in rows {
        marks[URL(string: url)?.lastPathComponent ?? url] = mark
      }
      return marks
    }
  }

  /// FTS5's own check of the index against its content (`rank` 1 compares the content too).
  private func checkIndex(_ storage: StorageContext) async throws {
    try await storage.write { db in
      try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
  }

  private func found(_ storage: StorageContext, _ text: String) async throws -> [String] {
    slugs(try await storage.search(text).map(\.article))
  }

  @Test("a row is marked to fold only when a searched text holds a folded character; the view reads as before")
  func marksAndView() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(Self.articles, forQuery: "q", fetchedAt: Self.fetched)
    #expect(
      try await marks(storage) == [
        "plain": 0, "html": 0, "html-folded": 1, "title": 1, "summary": 1, "content": 1, "author": 1, "source": 1,
      ])
    let (now, v11) = try await bothViews(storage)
    #expect(now.count == Self.articles.count)
    #expect(now == v11)
    #expect(try await found(storage, "DataBase") == ["title"])
    #expect(try await found(storage, "Autobahn") == ["html-folded"])
    #expect(try await found(storage, "Grandstand") == ["content"])
    #expect(try await found(storage, "AnneMarie") == ["author"])
    #expect(try await found(storage, "gales") == ["plain"])
    try await checkIndex(storage)
  }

  @Test("an update that adds or removes a folded character moves the mark; a whole text is always folded")
  func updatesMoveTheMark() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(Self.articles, forQuery: "q", fetchedAt: Self.fetched)
    var plain = Self.articles[0]
    plain.title = "Storm Is\u{AD}olde brings gales"
    var folded = Self.articles[3]
    folded.title = "The DataBase of nothing"
    try await storage.saveArticles([plain, folded], forQuery: "q", fetchedAt: Self.fetched)
    let after = try await marks(storage)
    #expect(after["plain"] == 1 && after["title"] == 0, "\(after)")
    #expect(try await found(storage, "Isolde") == ["plain"])
    #expect(try await found(storage, "nothing") == ["title"])
    try await checkIndex(storage)

    // The whole text of a row marked 0, with a folded character: read folded, found as the reader sees it.
    try await storage.saveFullText(
      FullText(html: "<p>Wind\u{200B}farm</p>", text: "Wind\u{200B}farm"), forKey: articleURL("html").absoluteString,
      at: Self.fetched)
    #expect(try await marks(storage)["html"] == 0)
    #expect(try await found(storage, "Windfarm") == ["html"])
    let (now, v11) = try await bothViews(storage)
    #expect(now == v11)
    try await checkIndex(storage)
    #expect(try await storage.deleteAllArticles() == Self.articles.count)
    try await checkIndex(storage)
    #expect(try await storage.int("SELECT count(*) FROM article_fts_docsize") == 0, "no row left in the index")
  }

  @Test("a store at 23: its rows read folded, their index exact through updates; a row saved unchanged keeps its mark")
  func migratedStore() async throws {
    let database = TestDatabase()
    do {
      // Rows written under migration 23's view (every text folded), by SQL that does not know the mark.
      let old = try Connection(path: database.path)
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 23 })).migrate(old)
      #expect(try old.scalarInt("PRAGMA user_version") == 23)
      let insert = try old.makeStatement(
        """
        INSERT INTO article (url, title, author, publishedAt, fetchedAt, fetchQuery, handle)
        VALUES (?1, ?2, ?3, 1700000000000, 1700000000000, 'q', ?4)
        """)
      for (slug, title, author) in [
        ("old-plain", "Harbour closed by gales", "Anne"), ("old-folded", "The Data\u{200B}Base", "Anne\u{FEFF}Marie"),
      ] {
        try insert.execute([.text(articleURL(slug).absoluteString), .text(title), .text(author), .text(slug)])
      }
      try old.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
    }
    let storage = try database.open()
    // The first write migrates the store.
    try await storage.saveArticles([Self.articles[0]], forQuery: "q2", fetchedAt: Self.fetched)
    #expect(try await storage.int("PRAGMA user_version") == Int64(Schema.migrations.last?.version ?? 0))
    #expect(try await marks(storage) == ["old-plain": 1, "old-folded": 1, "plain": 0])
    try await checkIndex(storage)
    #expect(try await found(storage, "DataBase") == ["old-folded"])
    #expect(try await found(storage, "AnneMarie") == ["old-folded"])
    var (now, v11) = try await bothViews(storage)
    #expect(now == v11)

    // Rewritten by the writer: the old text leaves the index as it was indexed, the new one comes with its mark.
    let changed = makeArticle(
      "old-folded", title: "The DataBase renamed", publishedAt: 1_700_000_000_000, author: "Anne")
    try await storage.saveArticles([changed], forQuery: "q", fetchedAt: Self.fetched)
    #expect(try await marks(storage)["old-folded"] == 0)
    #expect(try await found(storage, "renamed") == ["old-folded"])
    #expect(try await found(storage, "AnneMarie").isEmpty)
    try await checkIndex(storage)
    (now, v11) = try await bothViews(storage)
    #expect(now == v11)

    // A row saved again as it is keeps its mark: nothing is rewritten, nothing re-indexed.
    try await storage.saveArticles([Self.articles[0]], forQuery: "q2", fetchedAt: Self.fetched)
    #expect(try await marks(storage)["plain"] == 0)
    try await checkIndex(storage)
  }
}
