import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync
import TestSupport

/// The shipped Parse Server mapping, `Config/mappings/parse-server.json`.
func parseMapping() throws -> ImportMapping {
  try ImportMapping.load(contentsOf: Fixtures.configDirectory.appendingPathComponent("mappings/parse-server.json"))
}

/// A stub Parse Server, a store on disk opened with the Parse mapping's entities and the sync bookkeeping, and an
/// engine factory: each `engine()` is a fresh engine over a fresh storage context on the same file, as a new process
/// would have.
final class SyncFixture: Sendable {
  let stub: ParseServerStub
  let directory = TemporaryDirectory("offlinenews-sync")
  let mapping: ImportMapping

  init() throws {
    stub = try ParseServerStub()
    mapping = try parseMapping()
  }

  var databasePath: String { directory.path("news.sqlite") }

  func openStorage() throws -> StorageContext {
    try StorageContext(path: databasePath, entities: mapping.entityDescriptions + SyncBookkeeping.entities)
  }

  func classes(
    _ names: [String] = ["Article", "ArticleCategory", "_User"], pageSize: Int = 2, files: FileDownloads? = nil
  )
    throws -> [ParseClassSync]
  {
    try names.map { name in
      ParseClassSync(
        className: name, mapping: try mapping.selecting(root: name), pageSize: pageSize,
        files: name == "Article" ? files : nil)
    }
  }

  func engine(
    _ storage: StorageContext, classes: [ParseClassSync], retry: RetryPolicy = .none, timeout: TimeInterval = 5
  ) -> ParseSyncEngine {
    ParseSyncEngine(
      source: "stub", server: ParseServer(serverURL: stub.serverURL, applicationID: stub.applicationID),
      classes: classes, storage: storage, transport: CurlHTTPTransport(timeout: timeout, retry: retry),
      fileFolder: directory.url.appendingPathComponent("files"))
  }

  /// Every row of `entity` as `objectId → title/name/username`, from a fresh connection (an `article`'s objectId
  /// is its `parseObjectId`).
  func rows(_ entity: String, _ attribute: String) async throws -> [String: String] {
    let storage = try openStorage()
    var rows: [String: String] = [:]
    let idKey = entity == "article" ? "parseObjectId" : "objectId"
    for record in try await storage.fetch(FetchRequest(entity: entity)) {
      guard case .text(let id)? = record[idKey] else { continue }
      if case .text(let value)? = record[attribute] { rows[id] = value } else { rows[id] = "" }
    }
    return rows
  }

  func count(_ entity: String) async throws -> Int {
    try await openStorage().count(FetchRequest(entity: entity))
  }
}

/// `2024-01-01T00:00:SS.mmmZ` for second `s` and millisecond `ms`: Parse's `updatedAt` form.
func parseDate(second: Int, millisecond: Int = 0) -> String {
  let minutes = second / 60
  return String(format: "2024-01-01T00:%02d:%02d.%03dZ", minutes, second % 60, millisecond)
}

/// A stub article pointing at a category and an author.
func putArticle(
  _ stub: ParseServerStub, _ id: String, title: String, second: Int, category: String? = nil, author: String? = nil,
  image: URL? = nil
) {
  var fields: [String: Any] = ["title": title]
  if let category { fields["category"] = ["__type": "Pointer", "className": "ArticleCategory", "objectId": category] }
  if let author { fields["author"] = ["__type": "Pointer", "className": "_User", "objectId": author] }
  if let image { fields["image"] = ["__type": "File", "name": image.lastPathComponent, "url": image.absoluteString] }
  stub.put("Article", objectId: id, updatedAt: parseDate(second: second), fields: fields)
}
