import Foundation
import OfflineNewsStorage
import Testing

/// ``EntityDescription/definitionText`` is the text `EntityMigrator` records (`JSONEncoder`, sorted keys), so that an
/// open that only reads compares texts instead of decoding them.
@Suite("EntityDescription.definitionText")
struct EntityDefinitionTextTests {
  private static func encoded(_ entity: EntityDescription) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(entity), as: UTF8.self)
  }

  /// Every attribute type, the defaults it can write, both relationship kinds, unique and plain indexes.
  private static let everything = EntityDescription(
    name: "post", identity: ["objectId", "shard"],
    attributes: AttributeType.allCases.map { Attribute("v_\($0.rawValue)", $0) } + [
      Attribute("objectId", .text), Attribute("shard", .integer),
      Attribute("stars", .integer, optional: false, default: .integer(-42)),
      Attribute("label", .text, localOnly: true, default: .text("plain text, (with) punctuation: 100% ok")),
      Attribute("cleared", .text, default: .null),
    ],
    relationships: [
      Relationship("author", to: "user", .toOne), Relationship("tags", to: "tag", .toMany),
      Relationship("chapters", to: "chapter", .toMany, ordered: true),
    ],
    indexes: [
      EntityIndex("post_by_stars", on: ["stars", "shard"]), EntityIndex("post_by_label", on: ["label"], unique: true),
    ])

  @Test("is JSONEncoder's text for the built-in article, a one-attribute entity and one with every member kind")
  func sameAsJSONEncoder() throws {
    let empty = EntityDescription(name: "bare", identity: ["id"], attributes: [Attribute("id", .text)])
    for entity in [EntityDescription.article, empty, Self.everything] {
      let text = try #require(entity.definitionText, "\(entity.name)")
      #expect(text == (try Self.encoded(entity)), "\(entity.name)")
      #expect(try JSONDecoder().decode(EntityDescription.self, from: Data(text.utf8)) == entity)
    }
  }

  @Test(
    "is nil for what it does not write as JSONEncoder does: real and blob defaults, text that needs an escape",
    arguments: [
      DatabaseValue.real(1.5), .blob([1, 2, 3]), .text("a/b"), .text("say \"hi\""), .text("back\\slash"),
      .text("line\nbreak"), .text("Müller"),
    ])
  func nilWhenUnsure(_ value: DatabaseValue) {
    let entity = EntityDescription(
      name: "thing", identity: ["id"], attributes: [Attribute("id", .text), Attribute("x", .text, default: value)])
    #expect(entity.definitionText == nil)
  }
}
