import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// An array of records is read one record at a time (`Importer.run(_ data:…)`): the same rows, report and errors as
/// mapping the whole parsed document (`JSONValue.parseDocument`, then `Importer.run(_ document:…)`).
@Suite("Records read one at a time: the same import as the whole document")
struct StreamedRecordsTests {
  /// What one import gave: its report or its error, and every row of the mapping's tables and link tables.
  struct Outcome: Equatable, CustomStringConvertible {
    var report: ImportReport?
    var error: String?
    var tables: [String: [TableRow]] = [:]
    var links: [String: [[DatabaseValue]]] = [:]

    var description: String {
      "\(report.map { "\(counts($0))" } ?? error ?? "nothing"), tables \(tables.keys.sorted())"
    }
  }

  /// Imports `data` through `mapping` into a fresh store, read one record at a time (`streamed`) or as a whole
  /// document, and reads back what the store holds.
  static func outcome(_ mapping: ImportMapping, _ data: Data, streamed: Bool, source: String = "test.json")
    async throws -> Outcome
  {
    let store = try TestStore(mapping)
    let importer = Importer(mapping: mapping)
    let options = Importer.Options(importTime: importTime)
    var outcome = Outcome()
    do throws(ImportFailure) {
      if streamed {
        outcome.report = try await importer.run(data, into: store.storage, source: source, options: options)
      } else {
        let document: JSONDocument
        do throws(ImportError) {
          document = try JSONValue.parseDocument(data)
        } catch {
          throw .input(error)
        }
        outcome.report = try await importer.run(document, into: store.storage, source: source, options: options)
      }
    } catch {
      outcome.error = "\(error)"
    }
    for entity in mapping.entityDescriptions {
      outcome.tables[entity.name] = try await store.rows(entity.name)
      for relationship in entity.relationships where relationship.kind == .toMany {
        outcome.links["\(entity.name).\(relationship.name)"] = try await store.links(entity.name, relationship.name)
      }
    }
    return outcome
  }

  /// Checks that both readings give the same outcome, and returns it.
  @discardableResult
  static func expectSame(_ mapping: ImportMapping, _ json: String, source: String = "test.json") async throws
    -> Outcome
  {
    #expect(Importer(mapping: mapping).streamsRecords, "the mapping must take the streamed path")
    let streamed = try await outcome(mapping, Data(json.utf8), streamed: true, source: source)
    let whole = try await outcome(mapping, Data(json.utf8), streamed: false, source: source)
    #expect(streamed == whole)
    return streamed
  }

  @Test(
    "every real fixture: the same rows, links and report as the whole document",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"),
    arguments: RealFixtureImportTests.expectations)
  func realFixtures(_ expectation: RealFixtureImportTests.Expectation) async throws {
    let url = try Fixtures.sharedReal(expectation.file)
    var mapping = try shippedMapping(expectation.mapping)
    if !mapping.roots.isEmpty {
      mapping = try mapping.selecting(root: mapping.root(matchingFileName: expectation.file) ?? "")
    }
    #expect(Importer(mapping: mapping).streamsRecords)
    let data = try Data(contentsOf: url)
    let streamed = try await Self.outcome(mapping, data, streamed: true, source: url.path)
    let whole = try await Self.outcome(mapping, data, streamed: false, source: url.path)
    #expect(streamed.error == nil)
    #expect(streamed.report.map(counts) == expectation.first)
    #expect(streamed == whole)
    // Not a comparison of two empty stores.
    let rows = expectation.rows.values.reduce(0, +)
    #expect(
      streamed.tables.values.reduce(0) { $0 + $1.count } + streamed.links.values.reduce(0) { $0 + $1.count } >= rows)
  }

  static let articles = try? mapping(
    #"""
    {"name": "t", "records": "data.items", "root": "item",
     "entities": [{"entity": "item", "identity": ["id"],
       "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}, "site": {"type": "text"},
                      "home": {"type": "url", "baseURL": "meta.home"}},
       "set": {"site": "$document.meta.site"}}]}
    """#)

  @Test("repairs inside and outside the records are reported with their places, in document order")
  func repairs() async throws {
    let mapping = try #require(Self.articles)
    let outcome = try await Self.expectSame(
      mapping,
      #"""
      {"meta": {"site": "S\ud800", "home": "https://example.org/"},
       "data": {"items": [{"id": 1, "title": "a\ud83d"}, {"id": 2, "title": "tab\u0009\x", "home": "x/y"},
                          {"id": 3, "title": "é\udc00"}]}}
      """#)
    let report = try #require(outcome.report)
    #expect(report.inserted == 3)
    #expect(
      report.warnings.map(\.keyPath) == [
        "meta.site", "data.items[0].title", "data.items[1].title", "data.items[2].title",
      ])
    #expect(report.warnings.map(\.identity) == [nil, "1", "2", "3"])
  }

  @Test("a document that breaks inside a record, or after the records, throws as before and writes nothing")
  func syntaxErrors() async throws {
    let mapping = try #require(Self.articles)
    for json in [
      #"{"data": {"items": [{"id": 1}, {"id": 2 "title": "x"}]}}"#,
      #"{"data": {"items": [{"id": 1}, {"id": 2}]}, "meta": {"site": tru}}"#,
      #"{"data": {"items": [{"id": 1}, {"id": "\u12"}]}}"#,
      #"{"data": {"items": [{"id": 1}, {"id": 2}"#,
      #"{"data": {"items": [{"id": 1}, {"id": 1e999}]}}"#,
      #"{"data": {"items": [{"id": 1}]}} x"#,
      String(repeating: "[", count: 600),
      #"{"data": {"items": [{"id": 1}, "# + String(repeating: "[", count: 520) + String(repeating: "]", count: 520)
        + "]}}",
    ] {
      let outcome = try await Self.expectSame(mapping, json)
      #expect(outcome.error?.contains("byte ") == true, "\(json.prefix(80))")
      #expect(outcome.tables["item"] == [])
    }
  }

  @Test("the records' shape: a repeated key, a missing or wrong records path, a top-level array, identifiers")
  func shapes() async throws {
    let items = try #require(Self.articles)
    // A repeated key keeps its last value, records included.
    var outcome = try await Self.expectSame(
      items, #"{"data": {"items": [{"id": 1}, {"id": 2}], "items": [{"id": 3}]}}"#)
    #expect(outcome.tables["item"]?.map { $0["id"] } == [.integer(3)])
    outcome = try await Self.expectSame(items, #"{"data": {"items": [{"id": 1}], "items": {"id": 3}}}"#)
    #expect(outcome.error?.contains("not an array of records") == true)
    outcome = try await Self.expectSame(items, #"{"data": {}}"#)
    #expect(outcome.error?.contains("no \"data.items\"") == true)
    outcome = try await Self.expectSame(items, #"{"data": {"items": [{"id": 1}, null, 7, {"id": 1, "title": "b"}]}}"#)
    #expect(outcome.report.map(counts) == expectedCounts(inserted: 1, skipped: 1, failed: 1, duplicates: 1))

    let topLevel = try mapping(
      #"{"name": "t", "records": "", "root": "item", "entities": [{"entity": "item", "identity": ["id"],"#
        + #" "attributes": {"id": {"type": "integer"}, "title": {"type": "text", "optional": true}}}]}"#)
    outcome = try await Self.expectSame(topLevel, #"[{"id": 1, "title": "a"}, {"id": 2, "title": "b\ud800"}]"#)
    #expect(outcome.report?.inserted == 2)
    #expect(outcome.report?.warnings.map(\.keyPath) == ["[1].title"])

    // Records reached through an array index: `pages.1`.
    let nested = try mapping(
      #"{"name": "t", "records": "pages.1", "root": "item", "entities": [{"entity": "item", "identity": ["id"],"#
        + #" "attributes": {"id": {"type": "integer"}}}]}"#)
    outcome = try await Self.expectSame(nested, #"{"pages": [[{"id": 1}], [{"id": 2}, {"id": 3}]]}"#)
    #expect(outcome.tables["item"]?.map { $0["id"] } == [.integer(2), .integer(3)])

    let identifiers = try mapping(
      #"{"name": "t", "records": "ids", "recordsAreIdentifiers": true, "root": "item", "entities": [{"entity": "item","#
        + #" "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}"#)
    outcome = try await Self.expectSame(identifiers, #"{"ids": [3, 1, "2", 3]}"#)
    #expect(outcome.tables["item"]?.count == 3)
  }

  @Test("a $document value inside the records, or one record: the whole document is read")
  func wholeDocument() throws {
    let inside = try mapping(
      #"{"name": "t", "records": "items", "root": "item", "entities": [{"entity": "item", "identity": ["id"],"#
        + #" "attributes": {"id": {"type": "integer"}, "first": {"type": "integer"}},"#
        + #" "set": {"first": "$document.items.0.id"}}]}"#)
    #expect(!Importer(mapping: inside).streamsRecords)
    let single = try mapping(
      #"{"name": "t", "record": "feed", "root": "item", "entities": [{"entity": "item", "identity": ["id"],"#
        + #" "attributes": {"id": {"type": "integer"}}}]}"#)
    #expect(!Importer(mapping: single).streamsRecords)
  }
}
