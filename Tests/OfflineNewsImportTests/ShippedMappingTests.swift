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
      for entity in mapping.entityDescriptions where !entities.contains(where: { $0.name == entity.name }) {
        entities.append(entity)
      }
    }
    #expect(
      entities.map(\.name).sorted() == [
        "article", "feed_item", "hn_item", "parse_article", "parse_category", "parse_tag", "parse_user",
      ])
    let directory = TemporaryDirectory("offlinenews-shipped")
    let storage = try StorageContext(path: directory.path("all.sqlite"), entities: entities)
    #expect(storage.entities.map(\.name).sorted() == entities.map(\.name).sorted())
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
    let rows = try await store.rows("feed_item")
    #expect(rows.map { $0["title"] } == [.text("A one"), .text("B one")])
    #expect(rows.map { $0["contentHtml"] } == [.text("<p>a</p>"), .null])
  }
}
