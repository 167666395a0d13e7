import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("Where values are read: from lists, and the default snake_case form of a name")
struct KeyLookupTests {
  /// The key Swift's JSONEncoder writes for `name` with `.convertToSnakeCase` (the oracle).
  static func swiftSnakeCase(_ name: String) throws -> String {
    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }
    struct One: Encodable {
      var name: String
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: Key(stringValue: name))
      }
    }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let object = try JSONSerialization.jsonObject(with: encoder.encode(One(name: name))) as? [String: Any]
    return try #require(object?.keys.first)
  }

  static let names = [
    "contractID", "imageURL", "myURLProperty", "userId", "publishedAt", "bannerImage", "HTTPStatus", "URL", "ABCd",
    "x1Y2", "a", "aB", "already_snake", "_private", "dateModified",
  ]

  @Test("without from, an attribute is read from its name, PascalCase, or snake_case as JSONEncoder writes it")
  func snakeCaseAsSwift() async throws {
    var attributes: [String] = []
    var record: [String] = []
    for (index, name) in Self.names.enumerated() {
      attributes.append(#""\#(name)": {"type": "integer"}"#)
      record.append(#""\#(try Self.swiftSnakeCase(name))": \#(index)"#)
    }
    let mapping = try mapping(
      """
      {"name": "names", "records": "", "root": "row", "entities": [
        {"entity": "row", "identity": ["key"],
         "attributes": {"key": {"type": "text"}, \(attributes.joined(separator: ", "))}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, "[{\"key\": \"k\", \(record.joined(separator: ", "))}]")
    #expect(report.warnings == [] && report.failures == [])
    let row = try #require(try await store.rows("row").first)
    for (index, name) in Self.names.enumerated() {
      let key = try Self.swiftSnakeCase(name)
      #expect(row[name] == .integer(Int64(index)), "\(name) ← \(key)")
    }
    // The forms the issue names.
    #expect(try Self.swiftSnakeCase("contractID") == "contract_id")
    #expect(try Self.swiftSnakeCase("imageURL") == "image_url")
  }

  @Test("from takes a list of key paths, the first present one winning (null is present)")
  func fromList() async throws {
    let mapping = try mapping(
      """
      {"name": "m", "records": "", "root": "post", "entities": [
        {"entity": "post", "identity": ["id"],
         "attributes": {"id": {"type": "integer", "from": ["Id", "id"]},
                        "title": {"type": "text", "from": ["meta.title", "Title", "headline"]}},
         "relationships": {"user": {"to": "user", "kind": "toOne", "from": ["UserId", "User"]}}},
        {"entity": "user", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(
      mapping,
      #"""
      [{"Id": 1, "meta": {"title": "from meta"}, "Title": "not this", "UserId": 7},
       {"id": 2, "headline": "third choice", "User": 8},
       {"Id": 3, "Title": null, "headline": "not this either", "UserId": null, "User": 9}]
      """#)
    #expect(counts(report) == expectedCounts(inserted: 3))
    #expect(
      try await store.rows("post") == [
        ["id": .integer(1), "title": .text("from meta"), "user": .integer(7)],
        ["id": .integer(2), "title": .text("third choice"), "user": .integer(8)],
        ["id": .integer(3), "title": .null, "user": .null],
      ])
  }
}
