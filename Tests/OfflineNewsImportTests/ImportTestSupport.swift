import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport

/// The import time every test passes, so that `$importTime` constants are known values.
let importTime = Timestamp(millisecondsSince1970: 1_700_000_000_000)

/// A row as attribute (and to-one) values keyed by column name.
typealias TableRow = [String: DatabaseValue]

/// A mapping parsed from JSON text (the same reader as mapping files).
func mapping(_ text: String) throws -> ImportMapping {
  try ImportMapping.parse(JSONValue.parse(Data(text.utf8)))
}

/// A shipped mapping, `Config/mappings/NAME.json`.
func shippedMapping(_ name: String) throws -> ImportMapping {
  try ImportMapping.load(contentsOf: Fixtures.configDirectory.appendingPathComponent("mappings/\(name).json"))
}

/// The message of the `invalidMapping` error that parsing `text` throws, or `nil` when it parses (or fails in
/// another way).
func mappingProblem(_ text: String) -> String? {
  do {
    _ = try mapping(text)
    return nil
  } catch let error as ImportError {
    if case .invalidMapping(let message) = error { return message }
    return nil
  } catch {
    return nil
  }
}

/// A store in a temporary folder, opened with a mapping's entities.
final class TestStore: Sendable {
  let directory: TemporaryDirectory
  let storage: StorageContext

  init(_ mapping: ImportMapping) throws {
    directory = TemporaryDirectory("offlinenews-import")
    storage = try StorageContext(path: directory.path("store.sqlite"), entities: mapping.entityDescriptions)
  }

  /// Imports JSON text through `mapping`.
  @discardableResult
  func run(
    _ mapping: ImportMapping, _ json: String, hooks: ImportHooks = ImportHooks(), source: String = "test.json",
    options: Importer.Options = Importer.Options(importTime: importTime)
  ) async throws -> ImportReport {
    try await Self.unwrapped { () async throws(ImportFailure) -> ImportReport in
      try await Importer(mapping: mapping, hooks: hooks).run(
        Data(json.utf8), into: storage, source: source, options: options)
    }
  }

  /// What `body` returns; its input error as the ``ImportError`` it holds, so that tests name the kind they expect.
  private static func unwrapped(_ body: () async throws(ImportFailure) -> ImportReport) async throws -> ImportReport {
    do throws(ImportFailure) {
      return try await body()
    } catch {
      switch error {
      case .input(let error): throw error
      case .storage(let error): throw error
      case .cancelled: throw CancellationError()
      }
    }
  }

  /// Imports a file through `mapping`.
  @discardableResult
  func run(_ mapping: ImportMapping, file url: URL) async throws -> ImportReport {
    let data = try Data(contentsOf: url)
    return try await Self.unwrapped { () async throws(ImportFailure) -> ImportReport in
      try await Importer(mapping: mapping).run(
        data, into: storage, source: url.path, options: Importer.Options(importTime: importTime))
    }
  }

  /// Every row of `entity`, in identity order, read with plain SQL.
  func rows(_ entity: String) async throws -> [TableRow] {
    let description = try storage.entity(entity)
    let columns = description.columns
    let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
    let order = description.identity.map { "\"\($0)\"" }.joined(separator: ", ")
    let sql = "SELECT \(list) FROM \"\(entity)\" ORDER BY \(order)"
    return try await storage.read { db in
      try db.makeStatement(sql).fetchAll { row in
        Dictionary(uniqueKeysWithValues: zip(columns, row.values(count: columns.count)))
      }
    }
  }

  /// The (owner, target) pairs of a to-many relationship's join table, sorted.
  func links(_ entity: String, _ relationship: String) async throws -> [[DatabaseValue]] {
    let sql = "SELECT owner, target FROM \"\(entity)_\(relationship)\" ORDER BY owner, target"
    return try await storage.read { db in
      try db.makeStatement(sql).fetchAll { row in row.values(count: 2) }
    }
  }

  /// The ordered targets of a to-many relationship's join table, by owner (ordered relationships: by position).
  func orderedLinks(_ entity: String, _ relationship: String) async throws -> [[DatabaseValue]] {
    let sql = "SELECT owner, target, position FROM \"\(entity)_\(relationship)\" ORDER BY owner, position"
    return try await storage.read { db in
      try db.makeStatement(sql).fetchAll { row in row.values(count: 3) }
    }
  }

  /// The number of rows of a table.
  func count(_ table: String) async throws -> Int {
    try await storage.read { db in Int(try db.scalarInt("SELECT count(*) FROM \"\(table)\"") ?? -1) }
  }
}

/// A copy of `report` without its errors, to compare counts alone.
func counts(_ report: ImportReport) -> [String: Int] {
  [
    "inserted": report.inserted, "updated": report.updated, "unchanged": report.unchanged,
    "skipped": report.skipped, "failed": report.failed, "deleted": report.deleted, "duplicates": report.duplicates,
    "remembered": report.remembered,
  ]
}

/// Expected report counts; unspecified ones are 0.
func expectedCounts(
  inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0, failed: Int = 0, deleted: Int = 0,
  duplicates: Int = 0, remembered: Int = 0
) -> [String: Int] {
  [
    "inserted": inserted, "updated": updated, "unchanged": unchanged, "skipped": skipped, "failed": failed,
    "deleted": deleted, "duplicates": duplicates, "remembered": remembered,
  ]
}

/// The milliseconds of a UTC date-time given by its fields (an oracle independent of the parser under test).
func utcMilliseconds(
  _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0, ms: Int64 = 0
) -> Int64 {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
  let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
  let seconds = calendar.date(from: components).map { Int64($0.timeIntervalSince1970.rounded()) } ?? Int64.min / 2
  return seconds * 1000 + ms
}

extension DatabaseValue {
  /// The text, when this is `.text`.
  var text: String? {
    if case .text(let text) = self { return text }
    return nil
  }
}
