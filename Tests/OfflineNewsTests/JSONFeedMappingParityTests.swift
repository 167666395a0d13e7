import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// The built-in JSON Feed reader (`FeedParser`, what `news import FILE` and every fetch use) and the shipped
/// `jsonfeed` mapping (`--mapping jsonfeed`), on the same real files: the same articles under the same keys with
/// the same titles, links and dates; attachments differ, as docs/MAPPING.md says — the reader keeps them as the
/// article's enclosures, the mapping as the JSON attribute `feedAttachments`, as the file has them, and no
/// enclosures (the mapping language cannot rename the keys of an array's objects: `mime_type` → `type`).
@Suite("the jsonfeed mapping and the built-in JSON Feed reader: same articles, attachments kept differently")
struct JSONFeedMappingParityTests {
  static let files = ["jsonfeed-1.1-extension-offsets.json", "feeds/inessential.json", "feeds/3960.json"]
  /// The columns both give from the item, compared as they are.
  static let compared = ["title", "link", "publishedAt", "author"]

  /// The article rows of a store, by key.
  static func rows(_ storage: StorageContext) async throws -> [String: [String: DatabaseValue]] {
    var rows: [String: [String: DatabaseValue]] = [:]
    for record in try await storage.fetch(FetchRequest(entity: "article")) {
      guard case .text(let key)? = record.values["url"] else { continue }
      rows[key] = record.values
    }
    return rows
  }

  @Test(
    "a real JSON Feed read both ways", .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"),
    arguments: files)
  func realFeed(_ name: String) async throws {
    let file = try Fixtures.sharedReal(name)
    let folder = TemporaryDirectory("jsonfeed-parity")
    let readerStore = try StorageContext(path: folder.path("reader.sqlite"))
    try await NewsRepository(storage: readerStore, network: FileNewsNetwork()).importArticles(from: file)
    let read = try await Self.rows(readerStore)
    let mapping = try #require(try ImportMapping.shipped("jsonfeed"))
    let mappedStore = try StorageContext(path: folder.path("mapped.sqlite"), entities: mapping.entityDescriptions)
    let report = try await Importer(mapping: mapping).run(
      try Data(contentsOf: file), into: mappedStore, source: file.path)
    #expect(report.failures == [])
    let mapped = try await Self.rows(mappedStore)
    await readerStore.close()
    await mappedStore.close()

    #expect(Set(read.keys) == Set(mapped.keys), "\(name): the same articles under the same keys")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    var attachments = 0
    for (key, row) in read {
      let other = try #require(mapped[key])
      for column in Self.compared {
        #expect(row[column] == other[column], "\(name) \(key).\(column)")
      }
      // Attachments: the reader's enclosures, one per attachment of the file with its URL; the mapping's none.
      let stored = ArticleJSONProbe.urls(row["enclosures"])
      let kept = ArticleJSONProbe.urls(other["feedAttachments"])
      #expect(stored == kept, "\(name) \(key): the reader's enclosures are the file's attachments")
      #expect(other["enclosures"] == nil || other["enclosures"] == .null, "\(name) \(key): the mapping's none")
      attachments += kept.count
    }
    let inFile = items.reduce(0) { $0 + (($1["attachments"] as? [Any])?.count ?? 0) }
    #expect(attachments == inFile, "\(name): every attachment of the file compared")
  }
}

/// The `url`s of a JSON column holding an array of objects (enclosures or JSON Feed attachments), in order.
enum ArticleJSONProbe {
  static func urls(_ value: DatabaseValue?) -> [String] {
    guard case .text(let text)? = value,
      let list = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
    else { return [] }
    return list.compactMap { $0["url"] as? String }
  }
}
