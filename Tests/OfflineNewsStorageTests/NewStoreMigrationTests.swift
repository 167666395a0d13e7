import Foundation
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// A new store runs every migration in one transaction, with foreign keys off (``Migrator``); an existing one runs
/// them in their runs, as before. The schema must not depend on the way: a new store's `sqlite_master` is the one a
/// store migrated step by step ends with, and the one a version-0 file that already held a table of its own gets.
@Suite("Migrations: a new store made at once is the store migrated step by step")
struct NewStoreMigrationTests {
  /// Every schema object as `sqlite_master` holds it (type, name, table, SQL text), by type and name; `skipping`
  /// tables (and their indexes) left out.
  private static func schema(_ db: Connection, skipping: Set<String> = []) throws -> [String] {
    try db.makeStatement("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchAll {
      row -> String? in
      let table = row.string(2) ?? ""
      guard !skipping.contains(table) else { return nil }
      return [row.string(0) ?? "", row.string(1) ?? "", table, row.string(3) ?? "NULL"].joined(separator: " | ")
    }.compactMap { $0 }
  }

  private static var latest: Int64 { Int64(Migrator(migrations: Schema.migrations).latestVersion) }

  @Test("a new file: every migration at once, the latest version, foreign keys on again and every reference kept")
  func newFileAtOnce() throws {
    let folder = TemporaryDirectory()
    let db = try Connection(path: folder.path("new.sqlite"))
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    let migrator = Migrator(migrations: Schema.migrations)
    #expect(try migrator.isEmpty(db))
    try migrator.migrate(db)
    #expect(try db.scalarInt("PRAGMA user_version") == Self.latest)
    #expect(try db.scalarInt("PRAGMA foreign_keys") == 1)
    #expect(try db.scalarString("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1") == nil)
    #expect(try !migrator.isEmpty(db))
    // Migration 12's rebuild ran: the key is a unique index, not the table's primary key.
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_table_info('article') WHERE pk = 1") == 0)
    let keyIndex = try db.scalarString("SELECT sql FROM sqlite_master WHERE name = 'article_by_url'")
    #expect(keyIndex == Migration.articleKeyIndex)
  }

  @Test("sqlite_master of a new store equals that of a store migrated version by version, in four steps")
  func sameAsStepByStep() throws {
    let folder = TemporaryDirectory()
    let atOnce = try Connection(path: folder.path("at-once.sqlite"))
    try atOnce.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Schema.migrations).migrate(atOnce)

    let inSteps = try Connection(path: folder.path("in-steps.sqlite"))
    try inSteps.execute(sql: "PRAGMA foreign_keys = ON")
    for last in [1, 5, 11, 12, 15] {
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= last })).migrate(inSteps)
      #expect(try inSteps.scalarInt("PRAGMA user_version") == Int64(last))
    }
    try Migrator(migrations: Schema.migrations).migrate(inSteps)
    #expect(try inSteps.scalarInt("PRAGMA user_version") == Self.latest)

    let expected = try Self.schema(inSteps)
    #expect(expected.count > 20)
    let found = try Self.schema(atOnce)
    #expect(found == expected, "\(Set(found).symmetricDifference(expected).sorted())")
  }

  @Test("a version-0 file holding a table of its own is migrated in runs, to the same schema beside its table")
  func versionZeroWithATable() throws {
    let folder = TemporaryDirectory()
    let reference = try Connection(path: folder.path("reference.sqlite"))
    try Migrator(migrations: Schema.migrations).migrate(reference)

    let db = try Connection(path: folder.path("with-table.sqlite"))
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    try db.execute(sql: "CREATE TABLE own_note (id INTEGER PRIMARY KEY, text TEXT)")
    try db.execute(sql: "INSERT INTO own_note (text) VALUES ('kept')")
    let migrator = Migrator(migrations: Schema.migrations)
    #expect(try !migrator.isEmpty(db))
    try migrator.migrate(db)
    #expect(try db.scalarInt("PRAGMA user_version") == Self.latest)
    #expect(try db.scalarString("SELECT text FROM own_note") == "kept")
    #expect(try db.scalarInt("PRAGMA foreign_keys") == 1)
    #expect(try Self.schema(db, skipping: ["own_note"]) == Self.schema(reference))
  }
}
