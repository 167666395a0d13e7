import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("Shipped mappings")
struct ShippedMappingTests {
  static let names = ["newsapi", "parse-server", "jsonfeed", "hackernews"]

  @Test("every shipped mapping loads and declares valid entities", arguments: names)
  func loads(_ name: String) throws {
    let url = Fixtures.configDirectory.appendingPathComponent("mappings/\(name).json")
    let mapping = try ImportMapping.load(contentsOf: url)
    #expect(mapping.name == name)
    #expect(mapping.entity(mapping.rootEntity) != nil)
    for entity in mapping.entityDescriptions { #expect(entity.validationProblem() == nil, "\(entity.name)") }
  }

  @Test("the shipped mappings' entities live together in one store (one database for every import)")
  func oneStore() throws {
    var entities: [EntityDescription] = []
    for name in Self.names {
      let mapping = try ImportMapping.load(
        contentsOf: Fixtures.configDirectory.appendingPathComponent("mappings/\(name).json"))
      for entity in mapping.entityDescriptions {
        if let index = entities.firstIndex(where: { $0.name == entity.name }) {
          entities[index] = entities[index].extended(with: entity)  // each mapping's own article attributes
        } else {
          entities.append(entity)
        }
      }
    }
    // News items of every shipped mapping are articles; only Parse's other classes are entities of their own.
    #expect(entities.map(\.name).sorted() == ["article", "parse_category", "parse_tag", "parse_user"])
    let directory = TemporaryDirectory("offlinenews-shipped")
    let storage = try StorageContext(path: directory.path("all.sqlite"), entities: entities)
    #expect(storage.entities.map(\.name).sorted() == entities.map(\.name).sorted())
    let article = try #require(storage.entities.first { $0.name == "article" })
    for name in ["feedContentText", "hnScore", "parseObjectId", "category", "parseTags"] {
      #expect(article.isColumn(name) || article.relationship(name) != nil, "\(name)")
    }
  }

  @Test("JSON Feed ids are unique only within their feed: two feeds' item \"1\" are two rows, re-imports unchanged")
  func jsonFeedIdentityPerFeed() async throws {
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    let first =
      #"{"version":"https://jsonfeed.org/version/1.1","title":"A","items":[{"id":"1","title":"A one","content_html":"<p>a</p>"}]}"#
    let second =
      #"{"version":"https://jsonfeed.org/version/1.1","title":"B","items":[{"id":"1","title":"B one","content_text":"b"}]}"#
    #expect(try await store.run(mapping, first, source: "https://a.example/feed.json").inserted == 1)
    #expect(try await store.run(mapping, second, source: "https://b.example/feed.json").inserted == 1)
    #expect(try await store.run(mapping, second, source: "https://b.example/feed.json").unchanged == 1)
    let rows = try await store.rows("article")
    #expect(rows.map { $0["title"] } == [.text("A one"), .text("B one")])
    #expect(
      rows.map { $0["url"] } == [
        .text("news-item:https:%2F%2Fa.example%2Ffeed.json/1"), .text("news-item:https:%2F%2Fb.example%2Ffeed.json/1"),
      ])
    #expect(rows.map { $0["content"] } == [.text("<p>a</p>"), .text("b")])  // content_html, else content_text
    #expect(rows.map { $0["feedContentText"] } == [.null, .text("b")])
  }
}
