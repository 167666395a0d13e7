import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// The built-in NewsAPI decoder is the one NewsAPI path; the shipped `newsapi` mapping is an example of the mapping
/// language, and gives the same rows. Each file is imported twice, into two stores: through the built-in path
/// (`news import FILE`: `FileNewsNetwork` and `NewsRepository.save`) and through `--mapping newsapi` (`Importer`),
/// and every article row's columns are compared, but for when and as what fetch it was saved.
///
/// They differed: an offset-less `publishedAt` was skipped by the decoder and dated "now" by the mapping, and a
/// padded title was trimmed by the mapping only (issue 27).
@Suite("the newsapi mapping gives the built-in decoder's rows")
struct NewsAPIMappingParityTests {
  /// The columns that say when and as what fetch a row was saved, not what the response held.
  static let bookkeeping: Set<String> = ["fetchedAt", "fetchQuery", "firstSeenAt", "source"]

  /// The article rows of a store, by key, without the bookkeeping columns.
  static func rows(_ storage: StorageContext) async throws -> [String: [String: DatabaseValue]] {
    var rows: [String: [String: DatabaseValue]] = [:]
    for record in try await storage.fetch(FetchRequest(entity: "article")) {
      guard case .text(let key)? = record.values["url"] else {
        Issue.record("an article row without a key: \(record.values)")
        continue
      }
      rows[key] = record.values.filter { !bookkeeping.contains($0.key) }
    }
    return rows
  }

  /// The rows `news import FILE` saves: the built-in decoder, then the repository's save.
  static func builtIn(_ file: URL, into folder: TemporaryDirectory) async throws -> [String: [String: DatabaseValue]] {
    let storage = try StorageContext(path: folder.path("built-in.sqlite"))
    let query = NewsQuery(url: file)
    let page = try await FileNewsNetwork().fetch(query)
    try await NewsRepository(storage: storage, network: FileNewsNetwork()).save(page.articles, for: query)
    defer { Task { await storage.close() } }
    return try await rows(storage)
  }

  /// The rows `news import FILE --mapping newsapi` saves.
  static func mapped(_ file: URL, into folder: TemporaryDirectory) async throws -> (
    rows: [String: [String: DatabaseValue]], report: ImportReport
  ) {
    let mapping = try #require(try ImportMapping.shipped("newsapi"))
    let storage = try StorageContext(path: folder.path("mapped.sqlite"), entities: mapping.entityDescriptions)
    defer { Task { await storage.close() } }
    let report = try await Importer(mapping: mapping).run(
      try Data(contentsOf: file), into: storage, source: file.path)
    return (try await rows(storage), report)
  }

  /// Expects the two stores to hold the same rows, naming each column that differs.
  static func expectSameRows(_ file: URL) async throws {
    let folder = TemporaryDirectory("newsapi-parity")
    let decoded = try await builtIn(file, into: folder)
    let (mapped, report) = try await mapped(file, into: folder)
    #expect(report.failed == 0, "\(report.failures)")
    #expect(Set(decoded.keys) == Set(mapped.keys), "keys of \(file.lastPathComponent)")
    for (key, row) in decoded.sorted(by: { $0.key < $1.key }) {
      guard let other = mapped[key] else { continue }
      for column in Set(row.keys).union(other.keys).sorted() where row[column] != other[column] {
        Issue.record(
          "\(file.lastPathComponent) \(key) \(column): built-in \(String(describing: row[column])), mapped \(String(describing: other[column]))"
        )
      }
    }
  }

  /// The NewsAPI responses of `../shared/fixtures/real/` (SOURCES.md): every `newsapi-*.json`.
  static var realNewsAPIFiles: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path)) ?? []
    return names.filter { $0.hasPrefix("newsapi-") && $0.hasSuffix(".json") }.sorted()
  }

  @Test(
    "every real NewsAPI response gives the same rows both ways",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realFiles() async throws {
    let files = Self.realNewsAPIFiles
    #expect(files.count == 4, "\(files)")
    for name in files { try await Self.expectSameRows(try Fixtures.sharedReal(name)) }
  }

  /// The quirks, in a response of our own, so that the rule is tested on a fresh clone too.
  static let tricky = """
    {"status": "ok", "totalResults": 7, "articles": [
      {"source": {"id": null, "name": "Wire"}, "author": null, "title": "  A padded title\\n ",
       "description": "Kept as sent ", "url": "https://wire.example.com/padded", "urlToImage": null,
       "publishedAt": "2024-03-01T09:30:00", "content": null},
      {"source": {"id": "wire", "name": " Wire "}, "author": "  Desk  ", "title": "Offset-less, with a fraction",
       "description": null, "url": " https://wire.example.com/fraction ", "urlToImage": "",
       "publishedAt": "2024-03-01T09:30:00.1234567", "content": "Body [+12 chars]"},
      {"source": {"id": null, "name": "Wire"}, "author": "", "title": "Empty author, Z",
       "description": "", "url": "https://wire.example.com/z", "urlToImage": "https://img.example.com/z.jpg",
       "publishedAt": "2024-03-01T08:00:00Z", "content": "  "},
      {"source": {"id": null, "name": "[Removed]"}, "author": null, "title": "[Removed]",
       "description": "[Removed]", "url": "https://removed.com", "urlToImage": null,
       "publishedAt": "1970-01-01T00:00:00Z", "content": "[Removed]"},
      {"source": {"id": null, "name": "Wire"}, "author": null, "title": "[Removed]",
       "description": null, "url": "https://wire.example.com/removed", "urlToImage": null,
       "publishedAt": "2024-03-01T07:00:00Z", "content": null},
      {"source": {"id": null, "name": "Wire"}, "author": null, "title": "An offset, +02:00",
       "description": null, "url": "https://wire.example.com/offset", "urlToImage": null,
       "publishedAt": "2024-03-01T11:00:00+02:00", "content": null}
    ]}
    """

  @Test("our own quirks: an offset-less date, a padded title, null and empty authors, removed articles")
  func trickyCases() async throws {
    let folder = TemporaryDirectory("newsapi-parity")
    let file = folder.url.appendingPathComponent("tricky.json")
    try Data(Self.tricky.utf8).write(to: file)
    try await Self.expectSameRows(file)

    let rows = try await Self.builtIn(file, into: TemporaryDirectory("newsapi-parity"))
    #expect(
      Set(rows.keys) == [
        "https://wire.example.com/padded", "https://wire.example.com/fraction", "https://wire.example.com/z",
        "https://wire.example.com/offset",
      ])
    let padded = try #require(rows["https://wire.example.com/padded"])
    #expect(padded["title"] == .text("A padded title"))
    #expect(padded["author"] == .null)
    #expect(padded["summary"] == .text("Kept as sent "))
    // NewsAPI's dates are UTC (https://newsapi.org/docs/endpoints/everything: "in UTC (+000)").
    #expect(padded["publishedAt"] == .integer(Timestamp(rfc3339: "2024-03-01T09:30:00Z")?.millisecondsSince1970 ?? 0))
    let fraction = try #require(rows["https://wire.example.com/fraction"])
    #expect(
      fraction["publishedAt"] == .integer(Timestamp(rfc3339: "2024-03-01T09:30:00.123Z")?.millisecondsSince1970 ?? 0))
    #expect(fraction["author"] == .text("  Desk  "))  // text other than the title is kept as sent
    #expect(fraction["imageURL"] == .null)
    let z = try #require(rows["https://wire.example.com/z"])
    #expect(z["author"] == .null)
    #expect(z["summary"] == .null)
    #expect(z["content"] == .null)
    let offset = try #require(rows["https://wire.example.com/offset"])
    #expect(offset["publishedAt"] == .integer(Timestamp(rfc3339: "2024-03-01T09:00:00Z")?.millisecondsSince1970 ?? 0))
  }
}
