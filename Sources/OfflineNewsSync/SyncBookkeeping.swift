import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The sync engine's own state, stored as two entities beside the synced ones, so that it is saved in the same
/// transactions as the data it describes:
///
/// - `sync_page(source, className, sequence)`: a downloaded page (`body`, the raw JSON) staged durably before it is
///   imported, with the cursor it advances to (`endUpdatedAt`, `endUpdatedAtMs`, `endObjectId`) and when it was
///   downloaded (`stagedAt`). A page is deleted in the transaction that imports it.
/// - `sync_file(source, url)`: an eager file download that failed, retried by the next sync.
/// - `sync_cursor(source, className)`: the last object imported (`updatedAt`, `updatedAtMs`, `objectId`) from which
///   server (`server`), when the class was last brought up to date (`syncedAt`), and the last error since
///   (`lastError`, `lastErrorAt`).
package enum SyncBookkeeping {
  package static let page = EntityDescription(
    name: "sync_page", identity: ["source", "className", "sequence"],
    attributes: [
      Attribute("source", .text), Attribute("className", .text), Attribute("sequence", .integer),
      Attribute("body", .data, optional: false), Attribute("endUpdatedAt", .text, optional: false),
      Attribute("endUpdatedAtMs", .integer, optional: false), Attribute("endObjectId", .text, optional: false),
      Attribute("stagedAt", .date, optional: false),
    ])

  package static let cursor = EntityDescription(
    name: "sync_cursor", identity: ["source", "className"],
    attributes: [
      Attribute("source", .text), Attribute("className", .text), Attribute("updatedAt", .text),
      Attribute("updatedAtMs", .integer), Attribute("objectId", .text), Attribute("syncedAt", .date),
      Attribute("lastError", .text), Attribute("lastErrorAt", .date), Attribute("server", .text),
    ])

  /// Eager file downloads that failed (`sync_file(source, url)`: the class, the error, when), for the next sync to
  /// retry; a row is deleted once its download succeeds.
  package static let file = EntityDescription(
    name: "sync_file", identity: ["source", "url"],
    attributes: [
      Attribute("source", .text), Attribute("url", .text), Attribute("className", .text, optional: false),
      Attribute("lastError", .text), Attribute("failedAt", .date),
    ],
    indexes: [EntityIndex("sync_file_by_class", on: ["source", "className"])])

  /// The bookkeeping entities: pass them to `StorageContext(path:entities:)` with the mapping's.
  package static let entities = [page, cursor, file]

  /// Up to `limit` file URLs of one class whose download failed, oldest failure first.
  static func failedFiles(source: String, className: String, limit: Int, in storage: StorageContext) async throws
    -> [URL]
  {
    let rows = try await storage.fetch(
      FetchRequest(
        entity: file.name, predicate: scope(source, className), sortDescriptors: [.init("failedAt")], limit: limit))
    return rows.compactMap { row in
      guard case .text(let text)? = row["url"] else { return nil }
      return URL(string: text)
    }
  }

  /// The failures to record and the successes to forget after a round of downloads.
  static func fileChanges(
    source: String, className: String, _ outcomes: [(url: URL, error: String?)], at time: Timestamp
  ) -> ChangeSet {
    var changes = ChangeSet()
    for (url, error) in outcomes {
      if let error {
        changes.upserts.append(
          Record(
            entity: file.name,
            values: [
              "source": .text(source), "url": .text(url.absoluteString), "className": .text(className),
              "lastError": .text(error), "failedAt": .integer(time.millisecondsSince1970),
            ]))
      } else {
        changes.deletes.append((entity: file.name, identity: Identity([.text(source), .text(url.absoluteString)])))
      }
    }
    return changes
  }

  /// A page waiting to be imported.
  package struct StagedPage: Sendable, Hashable {
    package var source: String
    package var className: String
    package var sequence: Int64
    package var body: Data
    package var end: SyncCursor

    var identity: Identity { Identity([.text(source), .text(className), .integer(sequence)]) }

    var record: Record {
      Record(
        entity: SyncBookkeeping.page.name,
        values: [
          "source": .text(source), "className": .text(className), "sequence": .integer(sequence),
          "body": .blob([UInt8](body)), "endUpdatedAt": .text(end.updatedAt),
          "endUpdatedAtMs": .integer(end.updatedAtMilliseconds), "endObjectId": .text(end.objectId),
          "stagedAt": .integer(Timestamp.now().millisecondsSince1970),
        ])
    }
  }

  static func scope(_ source: String, _ className: String) -> FetchPredicate {
    .attribute("source") == source && .attribute("className") == className
  }

  /// The staged pages of one class, oldest first.
  static func stagedPages(_ source: String, _ className: String, in storage: StorageContext) async throws
    -> [StagedPage]
  {
    let records = try await storage.fetch(
      FetchRequest(entity: page.name, predicate: scope(source, className), sortDescriptors: [.init("sequence")]))
    return records.compactMap { record in
      guard case .integer(let sequence)? = record["sequence"], case .blob(let bytes)? = record["body"],
        case .text(let iso)? = record["endUpdatedAt"], case .integer(let ms)? = record["endUpdatedAtMs"],
        case .text(let objectId)? = record["endObjectId"]
      else { return nil }
      return StagedPage(
        source: source, className: className, sequence: sequence, body: Data(bytes),
        end: SyncCursor(updatedAt: iso, updatedAtMilliseconds: ms, objectId: objectId))
    }
  }

  /// The next free page sequence number of one class.
  static func nextSequence(_ source: String, _ className: String, in storage: StorageContext) async throws -> Int64 {
    let last = try await storage.fetch(
      FetchRequest(
        entity: page.name, predicate: scope(source, className), sortDescriptors: [.init("sequence", ascending: false)],
        limit: 1))
    if case .integer(let sequence)? = last.first?["sequence"] { return sequence + 1 }
    return 1
  }

  /// The stored cursor of one class, `nil` before its first page, or when `server` is given and the cursor was
  /// taken on another server (the source's `serverURL` changed: its objects are not those the cursor counted).
  package static func cursor(
    source: String, className: String, server: String? = nil, in storage: StorageContext
  ) async throws -> SyncCursor? {
    let rows = try await storage.fetch(FetchRequest(entity: cursor.name, predicate: scope(source, className)))
    guard let row = rows.first, case .text(let iso)? = row["updatedAt"], case .integer(let ms)? = row["updatedAtMs"],
      case .text(let objectId)? = row["objectId"]
    else { return nil }
    if let server, case .text(let stored)? = row["server"], stored != server { return nil }
    return SyncCursor(updatedAt: iso, updatedAtMilliseconds: ms, objectId: objectId)
  }

  /// Where one class of a source stands, for status displays.
  package struct ClassStatus: Sendable, Hashable {
    package var className: String
    /// When the class was last brought up to date; `nil` if never.
    package var syncedAt: Timestamp?
    /// The last error since, and when.
    package var lastError: String?
    package var lastErrorAt: Timestamp?
  }

  /// The status of every class of `source` that was ever synced.
  ///
  /// - Throws: ``StorageError``.
  package static func status(source: String, in storage: StorageContext) async throws -> [ClassStatus] {
    func time(_ value: DatabaseValue?) -> Timestamp? {
      if case .integer(let ms)? = value { return Timestamp(millisecondsSince1970: ms) }
      return nil
    }
    let rows = try await storage.fetch(FetchRequest(entity: cursor.name, predicate: .attribute("source") == source))
    return rows.compactMap { row in
      guard case .text(let name)? = row["className"] else { return nil }
      var error: String?
      if case .text(let text)? = row["lastError"] { error = text }
      return ClassStatus(
        className: name, syncedAt: time(row["syncedAt"]), lastError: error, lastErrorAt: time(row["lastErrorAt"]))
    }
  }

  static func cursorRecord(
    _ source: String, _ className: String, _ end: SyncCursor, server: String, syncedAt: Timestamp
  ) -> Record {
    Record(
      entity: cursor.name,
      values: [
        "source": .text(source), "className": .text(className), "server": .text(server),
        "updatedAt": .text(end.updatedAt),
        "updatedAtMs": .integer(end.updatedAtMilliseconds), "objectId": .text(end.objectId),
        "syncedAt": .integer(syncedAt.millisecondsSince1970), "lastError": .null, "lastErrorAt": .null,
      ])
  }

  /// A successful sync without a cursor (a feed): `syncedAt` set, the last error cleared.
  static func syncedRecord(_ source: String, _ className: String, at time: Timestamp) -> Record {
    Record(
      entity: cursor.name,
      values: [
        "source": .text(source), "className": .text(className), "syncedAt": .integer(time.millisecondsSince1970),
        "lastError": .null, "lastErrorAt": .null,
      ])
  }

  static func errorRecord(_ source: String, _ className: String, _ error: String, at time: Timestamp) -> Record {
    Record(
      entity: cursor.name,
      values: [
        "source": .text(source), "className": .text(className), "lastError": .text(error),
        "lastErrorAt": .integer(time.millisecondsSince1970),
      ])
  }
}
