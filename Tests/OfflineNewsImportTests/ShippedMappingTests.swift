import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing
import TestSupport

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
}
