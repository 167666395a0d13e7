import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// The Parse Server (back4app) export in `../shared/fixtures/real/parse-back4app-*.json`, through the shipped
/// `parse-server` mapping: Article → ArticleCategory (Pointer), → _User (Pointer), → ArticleTag (Relation, members in
/// `_Join:tags:Article`).
@Suite(
  "Parse Server export: import order does not change the graph",
  .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
struct ParseExportTests {
  static let prescribed = ["_User", "ArticleCategory", "ArticleTag", "Article", "_Join_tags_Article"]
  static let user = "UZ76K07znv"

  /// The objects of one export file, read with JSONSerialization (not the decoder under test).
  static func objects(_ url: URL) throws -> [String: [String: Any]] {
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let results = document?["results"] as? [[String: Any]] ?? []
    var byID: [String: [String: Any]] = [:]
    for object in results { if let id = object["objectId"] as? String { byID[id] = object } }
    return byID
  }

  struct Graph: Equatable {
    var article: [TableRow]
    var category: [TableRow]
    var tag: [TableRow]
    var user: [TableRow]
    var articleTags: [[DatabaseValue]]

    /// The article columns the Parse mapping writes (the rest are the article's bookkeeping).
    static let articleColumns = [
      "parseObjectId", "title", "summary", "content", "imageURL", "publishedAt", "parseUpdatedAt", "category",
      "parseAuthor",
    ]

    init(_ store: TestStore) async throws {
      article = try await store.rows("article").map { row in row.filter { Self.articleColumns.contains($0.key) } }
      category = try await store.rows("parse_category")
      tag = try await store.rows("parse_tag")
      user = try await store.rows("parse_user")
      // Owners are article keys, the objectId scoped to parse:Article.
      articleTags = try await store.links("article", "parseTags").map { link in
        link.map { value in
          if case .text(let text) = value {
            return .text(text.replacingOccurrences(of: "news-item:parse:Article/", with: ""))
          }
          return value
        }
      }
    }

    var rowCounts: [Int] { [article.count, category.count, tag.count, user.count, articleTags.count] }
  }

  /// Imports the five files in `order`, checking each step's report and row counts.
  func importAll(
    _ order: [String], reports: [[String: Int]], rowCounts: [[Int]], sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Graph {
    let mapping = try shippedMapping("parse-server")
    let store = try TestStore(mapping)
    for (step, name) in order.enumerated() {
      let url = try Fixtures.sharedReal("parse-back4app-\(name).json")
      let root = mapping.root(matchingFileName: url.lastPathComponent)
      #expect(root == name.replacingOccurrences(of: "_Join_tags_Article", with: "_Join:tags:Article"))
      let selected = try mapping.selecting(root: root ?? "")
      let report = try await store.run(selected, file: url)
      #expect(counts(report) == reports[step], "step \(step + 1): \(name)", sourceLocation: sourceLocation)
      #expect(report.failures + report.warnings == [], "step \(step + 1): \(name)", sourceLocation: sourceLocation)
      let graph = try await Graph(store)
      #expect(graph.rowCounts == rowCounts[step], "step \(step + 1): \(name)", sourceLocation: sourceLocation)
    }
    return try await Graph(store)
  }

  @Test("prescribed order (_User, ArticleCategory, ArticleTag, Article, _Join) and reverse give one graph")
  func orderIndependence() async throws {
    // Row counts after each step: article, category, tag, user, article_tags.
    let forward = try await importAll(
      Self.prescribed,
      reports: [
        expectedCounts(inserted: 1), expectedCounts(inserted: 4), expectedCounts(inserted: 4),
        expectedCounts(inserted: 3), expectedCounts(inserted: 3),
      ],
      rowCounts: [[0, 0, 0, 1, 0], [0, 4, 0, 1, 0], [0, 4, 4, 1, 0], [3, 4, 4, 1, 0], [3, 4, 4, 1, 3]])
    // Reverse: the join writes its links and placeholder tags (an article is never a placeholder: it needs a title;
    // the links wait for it); Article inserts the three and creates category and user placeholders; the rest fill
    // those in.
    let reverse = try await importAll(
      Self.prescribed.reversed(),
      reports: [
        expectedCounts(inserted: 3), expectedCounts(inserted: 3), expectedCounts(inserted: 2, updated: 2),
        expectedCounts(inserted: 1, updated: 3), expectedCounts(updated: 1),
      ],
      rowCounts: [[0, 0, 2, 0, 3], [3, 3, 2, 1, 3], [3, 3, 4, 1, 3], [3, 4, 4, 1, 3], [3, 4, 4, 1, 3]])
    #expect(forward == reverse)
    #expect(forward.rowCounts == [3, 4, 4, 1, 3])

    // Concrete values, from the files (read with JSONSerialization) and hard-coded instants.
    let articleFile = try Fixtures.sharedReal("parse-back4app-Article.json")
    let articles = try Self.objects(articleFile)
    func article(_ id: String, category: String, created: Int64, updated: Int64, title: String) -> TableRow {
      [
        "parseObjectId": .text(id), "title": .text(title),
        "summary": .text(articles[id]?["description"] as? String ?? "?"),
        "content": .text(articles[id]?["content"] as? String ?? "?"), "imageURL": .null,
        "publishedAt": .integer(created), "parseUpdatedAt": .integer(updated),
        "category": .text(category), "parseAuthor": .text(Self.user),
      ]
    }
    #expect(
      forward.article == [
        article(
          "gJLB1GSQao", category: "Jp7ZoGMZCP", created: 1_670_922_597_934, updated: 1_670_922_605_537,
          title: "New world record in swimming!"),
        article(
          "oRwkdx7KgX", category: "FYxzrBlCBC", created: 1_670_922_544_845, updated: 1_670_922_553_297,
          title: "Voting 2022 has ended!"),
        article(
          "ySe4ox45zs", category: "i6WfyAwdTG", created: 1_670_922_645_349, updated: 1_670_922_645_349,
          title: "New song by the cool band"),
      ])
    func named(_ id: String, _ name: String, _ created: Int64) -> TableRow {
      [
        "objectId": .text(id), "name": .text(name), "createdAt": .integer(created), "updatedAt": .integer(created),
        "author": .text(Self.user),
      ]
    }
    #expect(
      forward.category == [
        named("BZ6v8G9LH0", "Business", 1_670_922_151_517), named("FYxzrBlCBC", "Voting", 1_670_922_179_465),
        named("Jp7ZoGMZCP", "Sports", 1_670_922_160_887), named("i6WfyAwdTG", "Arts", 1_670_922_197_232),
      ])
    #expect(
      forward.tag == [
        named("JT4cTmZIOW", "breakingnews", 1_670_922_228_307), named("WK4Kq7V9Gr", "beauty", 1_670_922_211_239),
        named("mrT5E2i4k2", "science", 1_670_922_219_268), named("tkaOKKvHZc", "worldrecord", 1_670_922_237_162),
      ])
    // The user's ACL is not an attribute: ignored.
    #expect(
      forward.user == [
        [
          "objectId": .text(Self.user), "username": .text("editor"), "createdAt": .integer(1_670_922_073_475),
          "updatedAt": .integer(1_670_922_073_475),
        ]
      ])
    #expect(
      forward.articleTags == [
        [.text("gJLB1GSQao"), .text("JT4cTmZIOW")], [.text("gJLB1GSQao"), .text("tkaOKKvHZc")],
        [.text("oRwkdx7KgX"), .text("JT4cTmZIOW")],
      ])
  }

  @Test("the graph read back through fetch: articles → category, author, tags")
  func fetchedGraph() async throws {
    let mapping = try shippedMapping("parse-server")
    let store = try TestStore(mapping)
    for name in Self.prescribed {
      let url = try Fixtures.sharedReal("parse-back4app-\(name).json")
      try await store.run(
        mapping.selecting(root: mapping.root(matchingFileName: url.lastPathComponent) ?? ""), file: url)
    }
    let records = try await store.storage.fetch(
      FetchRequest(entity: "article", sortDescriptors: [SortDescriptor("parseObjectId")]))
    #expect(
      records.map { $0.values["parseObjectId"] } == [.text("gJLB1GSQao"), .text("oRwkdx7KgX"), .text("ySe4ox45zs")])
    #expect(records.map { $0.values["category"] } == [.text("Jp7ZoGMZCP"), .text("FYxzrBlCBC"), .text("i6WfyAwdTG")])
    #expect(records.map { $0.values["parseAuthor"] } == Array(repeating: .text(Self.user), count: 3))
    #expect(
      records.map { $0.toMany["parseTags"] ?? [] } == [
        [.text("JT4cTmZIOW"), .text("tkaOKKvHZc")], [.text("JT4cTmZIOW")], [],
      ])
  }
}
