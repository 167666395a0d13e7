import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// Every file in `../shared/fixtures/real/` through its shipped mapping. The expected numbers were computed from
/// the files with Python's `json` module, independently of this importer, and are hard-coded.
@Suite("Real fixtures through the shipped mappings")
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
    Expectation(
      file: "hn-topstories-500-items.json", mapping: "hackernews", first: expectedCounts(inserted: 500),
      rows: ["hn_item": 500], again: expectedCounts(unchanged: 500)),
    Expectation(
      file: "jsonfeed-1.1-extension-offsets.json", mapping: "jsonfeed", first: expectedCounts(inserted: 3),
      rows: ["feed_item": 3], again: expectedCounts(unchanged: 3)),
    // Each Parse file alone, into an empty store: pointers make placeholder rows.
    Expectation(
      file: "parse-back4app-Article.json", mapping: "parse-server", first: expectedCounts(inserted: 3),
      rows: ["parse_article": 3, "parse_category": 3, "parse_user": 1, "parse_tag": 0, "parse_article_tags": 0],
      again: expectedCounts(unchanged: 3)),
    Expectation(
      file: "parse-back4app-ArticleCategory.json", mapping: "parse-server", first: expectedCounts(inserted: 4),
      rows: ["parse_article": 0, "parse_category": 4, "parse_user": 1, "parse_tag": 0],
      again: expectedCounts(unchanged: 4)),
    Expectation(
      file: "parse-back4app-ArticleTag.json", mapping: "parse-server", first: expectedCounts(inserted: 4),
      rows: ["parse_article": 0, "parse_category": 0, "parse_user": 1, "parse_tag": 4],
      again: expectedCounts(unchanged: 4)),
    Expectation(
      file: "parse-back4app-_User.json", mapping: "parse-server", first: expectedCounts(inserted: 1),
      rows: ["parse_user": 1, "parse_article": 0], again: expectedCounts(unchanged: 1)),
    // The join: three links; placeholder articles (2) and tags (2). Again: the three links exist already.
    Expectation(
      file: "parse-back4app-_Join_tags_Article.json", mapping: "parse-server", first: expectedCounts(inserted: 3),
      rows: ["parse_article": 2, "parse_tag": 2, "parse_article_tags": 3, "parse_user": 0, "parse_category": 0],
      again: expectedCounts(unchanged: 3)),
  ]

  @Test("every file in ../shared/fixtures/real has an expectation here")
  func everyFileCovered() throws {
    guard Fixtures.sharedReal("SOURCES.md") != nil else { return }
    let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path)
      .filter { $0.hasSuffix(".json") }.sorted()
    #expect(files == Self.expectations.map(\.file).sorted())
  }

  @Test("imports with exact counts, and again with everything unchanged", arguments: expectations)
  func importsExactly(_ expectation: Expectation) async throws {
    guard let url = Fixtures.sharedReal(expectation.file) else { return }
    var mapping = try shippedMapping(expectation.mapping)
    if !mapping.roots.isEmpty {
      mapping = try mapping.selecting(root: mapping.root(matchingFileName: expectation.file) ?? "")
    }
    let store = try TestStore(mapping)
    let first = try await store.run(mapping, file: url)
    #expect(counts(first) == expectation.first)
    #expect(first.failures == [])
    #expect(first.warnings == [])
    for (table, count) in expectation.rows { #expect(try await store.count(table) == count, "\(table)") }
    let again = try await store.run(mapping, file: url)
    #expect(counts(again) == expectation.again)
    #expect(again.failures == [])
    #expect(again.warnings == [])
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
      guard let url = Fixtures.sharedReal(file) else { return }
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
    guard let url = Fixtures.sharedReal("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    else { return }
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
    guard let url = Fixtures.sharedReal("newsapi-top-headlines-2020-empty-author-malformed-url.json") else { return }
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

  @Test("Hacker News: 500 rows, 479 URLs, time in ms, HTML text decoded once, kids as JSON")
  func hackerNews() async throws {
    guard let url = Fixtures.sharedReal("hn-topstories-500-items.json") else { return }
    let mapping = try shippedMapping("hackernews")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    let rows = try await store.rows("hn_item")
    #expect(rows.count == 500)
    #expect(rows.filter { $0["url"] != .null }.count == 479)
    #expect(rows.filter { $0["kids"] == .null }.count == 99)
    #expect(rows.filter { $0["text"] != .null }.count == 19)
    #expect(rows.filter { $0["type"] == .text("job") }.count == 1)
    let byID = Dictionary(rows.map { ($0["id"] ?? .null, $0) }, uniquingKeysWith: { first, _ in first })
    #expect(byID[.integer(21_508_542)]?["time"] == .integer(1_573_504_106_000))
    #expect(
      byID[.integer(21_508_542)]?["title"] == .text("When your data doesn\u{2019}t fit in memory: the basic techniques")
    )
    #expect(
      byID[.integer(21_505_827)] == [
        "id": .integer(21_505_827), "type": .text("story"), "by": .text("eff_it"), "time": .integer(1_573_487_871_000),
        "title": .text("Ask HN: Are we really getting into the \u{201C}GitFluencers\u{201D} era?"), "url": .null,
        "text": .text(
          "People are getting paid to open a PR on open source repositories to generate traction, I think this is "
            + "genius but I can understand why it might feel odd for some. See Sophie Albert's tweet :\n"
            + "https://twitter.com/sophiebits/status/1193686558206877696"),
        "score": .integer(17), "descendants": .integer(8), "kids": .text("[21510490,21506860,21505921,21505840]"),
        "parent": .null, "dead": .null, "deleted": .null,
      ])
    // The one job: no descendants, no kids, no text.
    #expect(
      byID[.integer(21_510_359)] == [
        "id": .integer(21_510_359), "type": .text("job"), "by": .text("aboris26"), "time": .integer(1_573_518_346_000),
        "title": .text("Taplytics (YC W14) Is Expanding Our Experience Platform. Hiring Node Engineers"),
        "url": .text("https://taplytics.com/careers/"), "text": .null, "score": .integer(1), "descendants": .null,
        "kids": .null, "parent": .null, "dead": .null, "deleted": .null,
      ])
  }

  @Test("JSON Feed 1.1: 3 items, +02:00 dates as instants, attachments as JSON, extensions ignored")
  func jsonFeed() async throws {
    guard let url = Fixtures.sharedReal("jsonfeed-1.1-extension-offsets.json") else { return }
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    try await store.run(mapping, file: url)
    func item(_ id: String, _ html: String, _ published: Int64, attachment: String?) -> TableRow {
      [
        "feed": .text(url.path), "id": .text(id), "url": .null, "externalUrl": .null, "title": .null,
        "contentHtml": .text(html),
        "contentText": .null, "summary": .null, "image": .null, "bannerImage": .null,
        "datePublished": .integer(published), "dateModified": .null, "authors": .null, "author": .null,
        "tags": .null, "language": .null,
        "attachments": attachment.map {
          .text(#"[{"mime_type":"application/zip","url":"https://example.com/\#($0)"}]"#)
        } ?? .null,
      ]
    }
    #expect(
      try await store.rows("feed_item") == [
        // 2021-02-25T15:04:04+02:00 = 13:04:04Z.
        item(
          "0", "<p>Third item. Without an extension.</p>", utcMilliseconds(2021, 2, 25, 13, 4, 4), attachment: nil),
        item("1", "<p>First item.</p>", utcMilliseconds(2021, 2, 26, 13, 4, 4), attachment: "SomeFile1.app.zip"),
        item("2", "<p>Second item.</p>", utcMilliseconds(2021, 3, 5, 11, 4, 4), attachment: "SomeFile2.app.zip"),
      ])
  }
}
