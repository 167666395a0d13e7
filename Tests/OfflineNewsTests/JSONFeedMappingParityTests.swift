import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// The built-in JSON Feed reader (`FeedParser`, what `news import FILE` and every fetch use) and the shipped
/// `jsonfeed` mapping (`--mapping jsonfeed`), on the same real files: the same articles under the same keys, with
/// the same dates, and with the differences docs/MAPPING.md lists, each asserted here as it is (a new difference
/// fails): attachments are the reader's enclosures and the mapping's `feedAttachments` (as in the file, no
/// enclosures); an item's `external_url` is the reader's link and only the mapping's `feedExternalURL`; an item
/// without an author has the feed's author by the reader, none by the mapping. The mapped side is imported as
/// `news import FILE --mapping jsonfeed` and apps import it (`NewsRepository.importRecords`, whose hooks give an item
/// the text of its HTML): an item without a title gets the same title, made of its content's text, both ways.
@Suite("the jsonfeed mapping and the JSON Feed reader: the same articles, the differences MAPPING.md lists")
struct JSONFeedMappingParityTests {
  static let files = ["jsonfeed-1.1-extension-offsets.json", "feeds/inessential.json", "feeds/3960.json"]

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
    let report = try await NewsRepository(storage: mappedStore, network: FileNewsNetwork()).importRecords(
      try Data(contentsOf: file), mapping: mapping, source: file.path, options: Importer.Options())
    #expect(report.failures == [])
    let mapped = try await Self.rows(mappedStore)
    await readerStore.close()
    await mappedStore.close()

    #expect(Set(read.keys) == Set(mapped.keys), "\(name): the same articles under the same keys")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    let feedAuthor =
      ((document["authors"] as? [[String: Any]])?.first?["name"] as? String)
      ?? ((document["author"] as? [String: Any])?["name"] as? String)
    var attachments = 0
    for item in items {
      let key = Self.key(item, feed: file.path)
      let row = try #require(read[key], "\(name) \(key)")
      let other = try #require(mapped[key], "\(name) \(key)")
      #expect(row["publishedAt"] == other["publishedAt"], "\(name) \(key).publishedAt")
      #expect(row["title"] == other["title"], "\(name) \(key).title")
      if item["title"] == nil, case .text(let derived)? = other["title"] {
        #expect(!derived.contains("<"), "\(name) \(key): a derived title without markup: \(derived)")
      }
      let external = item["external_url"] as? String
      #expect(row["link"] == external.map { .text($0) } ?? other["link"], "\(name) \(key).link")
      #expect(external == nil || other["link"] == nil || other["link"] == .null, "\(name) \(key).link")
      let author =
        ((item["authors"] as? [[String: Any]])?.first?["name"] as? String)
        ?? ((item["author"] as? [String: Any])?["name"] as? String)
      #expect(row["author"] == (author ?? feedAuthor).map { .text($0) } ?? .null, "\(name) \(key).author")
      #expect(other["author"] == author.map { .text($0) } ?? .null, "\(name) \(key).author")
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

  /// The key an item gets: its url's canonical form, else its id scoped to the feed (the forms these files use).
  static func key(_ item: [String: Any], feed: String) -> String {
    if let url = item["url"] as? String, url.hasPrefix("http") { return CanonicalURL.canonical(url) ?? url }
    return ArticleIdentity.scoped(feed, id: item["id"] as? String ?? "").absoluteString
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
