import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// Every file in `../shared/fixtures/real/` through its shipped mapping. The expected numbers were computed from
/// the files with Python's `json` module, independently of this importer, and are hard-coded.
@Suite(
  "Real fixtures through the shipped mappings", .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
struct RealFixtureImportTests {
  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var mapping: String
    /// Report counts of the first import into an empty store.
    var first: [String: Int]
    /// Rows per table after it.
    var rows: [String: Int]
    /// Report counts when the same file is imported again.
    var again: [String: Int]

    var testDescription: String { file }
  }

  static let expectations: [Expectation] = [
    Expectation(
      file: "newsapi-top-headlines-2020-empty-author-malformed-url.json", mapping: "newsapi",
      first: expectedCounts(inserted: 20), rows: ["article": 20], again: expectedCounts(unchanged: 20)),
    Expectation(
      file: "newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json", mapping: "newsapi",
      first: expectedCounts(inserted: 20), rows: ["article": 20], again: expectedCounts(unchanged: 20)),
    Expectation(
      file: "newsapi-top-headlines-2023-arabic-google-news.json", mapping: "newsapi",
      first: expectedCounts(inserted: 20), rows: ["article": 20], again: expectedCounts(unchanged: 20)),
    // One `[Removed]` placeholder (index 12), skipped by the mapping's rule.
    Expectation(
      file: "newsapi-top-headlines-2023-removed-article.json", mapping: "newsapi",
      first: expectedCounts(inserted: 19, skipped: 1), rows: ["article": 19],
      again: expectedCounts(unchanged: 19, skipped: 1)),
    // 500 stories, 479 with a URL of which 473 are distinct (counted with Python): 6 stories repeat a URL under
    // another id and are one article each (the later record wins): 494 articles.
    Expectation(
      file: "hn-topstories-500-items.json", mapping: "hackernews", first: expectedCounts(inserted: 494, duplicates: 6),
      rows: ["article": 494], again: expectedCounts(unchanged: 494, duplicates: 6)),
    Expectation(
      file: "jsonfeed-1.1-extension-offsets.json", mapping: "jsonfeed", first: expectedCounts(inserted: 3),
      rows: ["article": 3], again: expectedCounts(unchanged: 3)),
    // Each Parse file alone, into an empty store: pointers make placeholder rows.
    Expectation(
      file: "parse-back4app-Article.json", mapping: "parse-server", first: expectedCounts(inserted: 3),
      rows: ["article": 3, "parse_category": 3, "parse_user": 1, "parse_tag": 0, "article_parseTags": 0],
      again: expectedCounts(unchanged: 3)),
    Expectation(
      file: "parse-back4app-ArticleCategory.json", mapping: "parse-server", first: expectedCounts(inserted: 4),
      rows: ["article": 0, "parse_category": 4, "parse_user": 1, "parse_tag": 0],
      again: expectedCounts(unchanged: 4)),
    Expectation(
      file: "parse-back4app-ArticleTag.json", mapping: "parse-server", first: expectedCounts(inserted: 4),
      rows: ["article": 0, "parse_category": 0, "parse_user": 1, "parse_tag": 4],
      again: expectedCounts(unchanged: 4)),
    Expectation(
      file: "parse-back4app-_User.json", mapping: "parse-server", first: expectedCounts(inserted: 1),
      rows: ["parse_user": 1, "article": 0], again: expectedCounts(unchanged: 1)),
    // The join: three links and placeholder tags (2); an article is never a placeholder row (it needs a title):
    // the links wait in the join table for their articles. Again: the three links exist already.
    Expectation(
      file: "parse-back4app-_Join_tags_Article.json", mapping: "parse-server", first: expectedCounts(inserted: 3),
      rows: ["article": 0, "parse_tag": 2, "article_parseTags": 3, "parse_user": 0, "parse_category": 0],
      again: expectedCounts(unchanged: 3)),
  ]

  @Test("every file in ../shared/fixtures/real has an expectation here")
  func everyFileCovered() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path)
      .filter { $0.hasSuffix(".json") }.sorted()
    #expect(files == Self.expectations.map(\.file).sorted())
  }

  @Test("imports with exact counts, and again with everything unchanged", arguments: expectations)
  func importsExactly(_ expectation: Expectation) async throws {
    let url = try Fixtures.sharedReal(expectation.file)
    var mapping = try shippedMapping(expectation.mapping)
    if !mapping.roots.isEmpty {
      mapping = try mapping.selecting(root: mapping.root(matchingFileName: expectation.file) ?? "")
    }
    let store = try TestStore(mapping)
    let first = try await store.run(mapping, file: url)
    #expect(counts(first) == expectation.first)
    // Repeated records are counted (duplicates) and noted as warnings; nothing else may be reported.
    let notDuplicates = { (report: ImportReport) in
      report.warnings.filter { !$0.reason.hasPrefix("duplicate of an earlier record") }
    }
    #expect(first.failures == [])
    #expect(notDuplicates(first) == [])
    for (table, count) in expectation.rows { #expect(try await store.count(table) == count, "\(table)") }
    let again = try await store.run(mapping, file: url)
    #expect(counts(again) == expectation.again)
    #expect(again.failures == [])
    #expect(notDuplicates(again) == [])
    for (table, count) in expectation.rows { #expect(try await store.count(table) == count, "\(table) again") }
  }

  // MARK: - Values

  /// Non-null counts per article column, computed with Python.
  static let newsAPIColumns: [(String, [String: Int])] = [
    (
      "newsapi-top-headlines-2020-empty-author-malformed-url.json",
      ["author": 19, "summary": 20, "imageURL": 20, "content": 20, "sourceID": 4, "sourceName": 20]
    ),
    (
      "newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json",
      ["author": 17, "summary": 20, "imageURL": 20, "content": 20, "sourceID": 20, "sourceName": 20]
    ),
    (
      "newsapi-top-headlines-2023-arabic-google-news.json",
      ["author": 20, "summary": 0, "imageURL": 0, "content": 0, "sourceID": 20, "sourceName": 20]
    ),
    (
      "newsapi-top-headlines-2023-removed-article.json",
      ["author": 15, "summary": 19, "imageURL": 18, "content": 16, "sourceID": 13, "sourceName": 19]
    ),
  ]

  @Test("NewsAPI: empty strings become NULL, constants set, local state untouched, per-column counts")
  func newsAPIValues() async throws {
    let mapping = try shippedMapping("newsapi")
    for (file, expected) in Self.newsAPIColumns {
      let url = try Fixtures.sharedReal(file)
      let store = try TestStore(mapping)
      try await store.run(mapping, file: url)
      let rows = try await store.rows("article")
      for (column, count) in expected {
        #expect(rows.filter { ($0[column] ?? .null) != .null }.count == count, "\(file): \(column)")
      }
      #expect(rows.allSatisfy { $0["fetchedAt"] == .integer(importTime.millisecondsSince1970) })
      #expect(rows.allSatisfy { $0["fetchQuery"] == .text(url.path) })
      #expect(rows.allSatisfy { $0["isRead"] == .integer(0) && $0["bookmarkedAt"] == .null })
      #expect(!rows.contains { $0["url"] == .text("https://removed.com") })
    }
  }

  @Test("NewsAPI 2021: three date shapes as exact instants")
  func newsAPIDates() async throws {
    let url = try Fixtures.sharedReal("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    let mapping = try shippedMapping("newsapi")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    let rows = try await store.rows("article")
    func published(_ url: String) -> DatabaseValue? { rows.first { $0["url"] == .text(url) }?["publishedAt"] }
    // `…24.2917287Z`: 7 fraction digits, truncated to 291 ms.
    #expect(
      published("https://www.ft.com/content/c89594c1-1d85-4dda-9e67-55c775bd6c9a")
        == .integer(utcMilliseconds(2021, 8, 29, 6, 52, 24, ms: 291)))
    // `+00:00`.
    #expect(
      published(
        "https://www.wiwo.de/my/unternehmen/industrie/siemens-gamesa-chef-die-zweite-gewinnwarnung-finde-ich-persoenlich-enttaeuschend/27549800.html"
      ) == .integer(1_630_167_133_000))
    // Plain `Z`.
    #expect(
      published(
        "https://www.wsj.com/articles/apple-class-action-app-store-lawsuit-settlement-11630156268?mod=hp_lead_pos5")
        == .integer(utcMilliseconds(2021, 8, 28, 15, 41, 0)))
    let authorless = rows.filter { $0["author"] == .null }.count
    #expect(authorless == 3)
  }

  @Test("NewsAPI 2020: author \"\" is NULL; a malformed article URL is kept as the identity")
  func newsAPIMalformed() async throws {
    let url = try Fixtures.sharedReal("newsapi-top-headlines-2020-empty-author-malformed-url.json")
    let mapping = try shippedMapping("newsapi")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    let rows = try await store.rows("article")
    let northwest = rows.first { row in
      if case .text(let text)? = row["url"] { return text.hasPrefix("https://mynorthwest.com/2311307/") }
      return false
    }
    #expect(northwest?["author"] == .null)
    #expect(northwest?["title"] != nil)
    #expect(
      rows.contains { row in
        if case .text(let text)? = row["url"] { return text.hasPrefix("https://amp.theguardian.comworld/2020/nov/15/") }
        return false
      })
    #expect(rows.contains { $0["publishedAt"] == .integer(1_605_423_900_000) })
  }

  @Test("Hacker News: 494 articles (6 repeated URLs), stories without a URL keyed by id, time in ms, HTML decoded once")
  func hackerNews() async throws {
    let url = try Fixtures.sharedReal("hn-topstories-500-items.json")
    let mapping = try shippedMapping("hackernews")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    let rows = try await store.rows("article")
    #expect(rows.count == 494)
    // Those without a url are keyed by id and linked to their discussion (the mapping's key.page).
    let discussions = rows.filter { ($0["url"]?.text ?? "").hasPrefix("news-item:hackernews/") }
    #expect(discussions.count == 21)
    #expect(
      discussions.allSatisfy { row in
        row["link"] == .text("https://news.ycombinator.com/item?id=" + (row["url"]?.text ?? "").dropFirst(21))
      })
    // Counted with Python: a repeated record is merged into the earlier one (keys it lacks keep their values).
    #expect(rows.filter { $0["hnKids"] == .null }.count == 95)
    #expect(rows.filter { $0["hnType"] == .text("job") }.count == 1)
    #expect(rows.allSatisfy { $0["sourceName"] == .text("Hacker News") })
    let byID = Dictionary(rows.map { ($0["hnID"] ?? .null, $0) }, uniquingKeysWith: { first, _ in first })
    #expect(byID[.integer(21_508_542)]?["publishedAt"] == .integer(1_573_504_106_000))
    #expect(
      byID[.integer(21_508_542)]?["title"] == .text("When your data doesn\u{2019}t fit in memory: the basic techniques")
    )
    let ask = try #require(byID[.integer(21_505_827)])
    #expect(ask["url"] == .text("news-item:hackernews/21505827"))
    #expect(ask["link"] == .text("https://news.ycombinator.com/item?id=21505827"))
    #expect(ask["title"] == .text("Ask HN: Are we really getting into the \u{201C}GitFluencers\u{201D} era?"))
    #expect(ask["author"] == .text("eff_it"))
    #expect(ask["hnScore"] == .integer(17) && ask["hnComments"] == .integer(8))
    #expect(ask["hnKids"] == .text("[21510490,21506860,21505921,21505840]"))
    // The text stays HTML as Hacker News sends it (a reader renders it), entities and all.
    let content: String = ask["content"].flatMap { $0.text } ?? ""
    #expect(content.contains("People are getting paid to open a PR"))
    // The one job: no descendants, no kids, no text.
    let job = try #require(byID[.integer(21_510_359)])
    #expect(job["link"] == .null)  // its URL is its key
    #expect(job["url"] == .text("https://taplytics.com/careers/"))
    #expect(job["hnComments"] == .null && job["hnKids"] == .null && job["content"] == .null)
  }

  @Test("JSON Feed 1.1: 3 items keyed by id within the feed, +02:00 dates as instants, attachments kept")
  func jsonFeed() async throws {
    let url = try Fixtures.sharedReal("jsonfeed-1.1-extension-offsets.json")
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    let rows = try await store.rows("article")
    let scope = url.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    #expect(rows.count == 3)
    func row(_ id: String) -> TableRow? {
      rows.first { ($0["url"]?.text ?? "").hasSuffix("/\(id)") && ($0["url"]?.text ?? "").contains("news-item:") }
    }
    // 2021-02-25T15:04:04+02:00 = 13:04:04Z.
    #expect(row("0")?["publishedAt"] == .integer(utcMilliseconds(2021, 2, 25, 13, 4, 4)))
    #expect(row("1")?["publishedAt"] == .integer(utcMilliseconds(2021, 2, 26, 13, 4, 4)))
    #expect(row("2")?["publishedAt"] == .integer(utcMilliseconds(2021, 3, 5, 11, 4, 4)))
    #expect(row("1")?["content"] == .text("<p>First item.</p>"))
    #expect(
      row("1")?["feedAttachments"]
        == .text(#"[{"mime_type":"application/zip","url":"https://example.com/SomeFile1.app.zip"}]"#))
    #expect(row("0")?["feedAttachments"] == .null)
    #expect(rows.allSatisfy { ($0["url"]?.text ?? "").contains(scope.isEmpty ? "" : "news-item:") })
    // No title in the feed: one derived from the text.
    #expect(rows.allSatisfy { ($0["title"]?.text ?? "").isEmpty == false })
  }
}
