import Foundation
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// A new store is created from one declaration, ``Schema/newStore``, instead of by replaying the migrations
/// (``Migrator/newStore``). Two paths to one schema: this suite keeps them one, by creating a store each way and
/// comparing everything a schema is, and by generating the declaration from the replayed store. When a migration is
/// appended, it fails and writes the declaration's new file to the path it prints.
@Suite("Migrations: a new store from the declared schema is the store the migrations make")
struct NewStoreSchemaTests {
  /// A store created by replaying every migration, and one created from the declaration (as `StorageContext` does).
  private static func bothStores(in folder: TemporaryDirectory) throws -> (replayed: Connection, declared: Connection) {
    let replayed = try Connection(path: folder.path("replayed.sqlite"))
    try replayed.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator(migrations: Schema.migrations).migrate(replayed)
    let declared = try Connection(path: folder.path("declared.sqlite"))
    try declared.execute(sql: "PRAGMA foreign_keys = ON")
    try Migrator.store.migrate(declared)
    return (replayed, declared)
  }

  /// Everything a schema is, one line each: `user_version`; every `sqlite_master` row (type, name, table, SQL text);
  /// each table's and view's columns (`table_xinfo`: name, type, not null, default, key position, hidden), indexes
  /// (`index_list`: unique, origin, partial) and their columns (`index_xinfo`), and foreign keys; and every row of
  /// every table but the virtual ones (FTS5's shadow tables hold the index's structure and configuration).
  private static func description(_ db: Connection) throws -> [String] {
    var lines = ["user_version \(try db.scalarInt("PRAGMA user_version") ?? -1)"]
    let objects = try db.makeStatement(
      "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).fetchAll { row in
      (type: row.string(0) ?? "", name: row.string(1) ?? "", table: row.string(2) ?? "", sql: row.string(3))
    }
    for object in objects {
      lines.append("\(object.type) \(object.name) on \(object.table): \(object.sql ?? "NULL")")
    }
    func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [String] {
      try db.makeStatement(sql).fetchAll(arguments) { row in
        (0..<row.count).map { "\(row.value($0))" }.joined(separator: " | ")
      }
    }
    for object in objects where object.type == "table" || object.type == "view" {
      let name = DatabaseValue.text(object.name)
      lines += try rows("SELECT * FROM pragma_table_xinfo(?1)", [name]).map { "\(object.name) column \($0)" }
      lines += try rows("SELECT * FROM pragma_foreign_key_list(?1)", [name]).map { "\(object.name) reference \($0)" }
      let indexes = try db.makeStatement(
        "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY name"
      )
      .fetchAll([name]) { row in (name: row.string(0) ?? "", rest: "\(row.value(1)) \(row.value(2)) \(row.value(3))") }
      for index in indexes {
        lines.append("\(object.name) index \(index.name) \(index.rest)")
        lines += try rows("SELECT * FROM pragma_index_xinfo(?1)", [.text(index.name)]).map {
          "\(object.name) index \(index.name) column \($0)"
        }
      }
      guard object.type == "table", object.sql?.hasPrefix("CREATE VIRTUAL TABLE") != true else { continue }
      lines += try rows("SELECT * FROM \(EntityDescription.quote(object.name)) ORDER BY 1").map {
        "\(object.name) row \($0)"
      }
    }
    return lines
  }

  @Test("a store from the declaration has the schema, sqlite_master text and rows of one the migrations made")
  func sameStore() throws {
    let folder = TemporaryDirectory()
    let (replayed, declared) = try Self.bothStores(in: folder)
    let expected = try Self.description(replayed)
    #expect(expected.count > 200)
    #expect(expected.first == "user_version \(Schema.migrations.map(\.version).max() ?? 0)")
    let found = try Self.description(declared)
    let differences = Set(found).symmetricDifference(expected).sorted()
    #expect(differences.isEmpty, "in one store, not in the other: \(differences)")
    #expect(found.count == expected.count)
  }

  @Test("the declaration is the replayed store's sqlite_master, in its order; else its new file is written")
  func declarationIsGenerated() throws {
    let folder = TemporaryDirectory()
    let (replayed, _) = try Self.bothStores(in: folder)
    let version = Int(try replayed.scalarInt("PRAGMA user_version") ?? 0)
    let statements = try Self.statements(replayed)
    guard Schema.newStore.version != version || Schema.newStore.statements != statements else { return }
    let path = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("NewStoreSchema.swift").path
    try Self.source(version: version, statements: statements).write(toFile: path, atomically: true, encoding: .utf8)
    Issue.record(
      """
      Schema.newStore is not what the migrations make (a migration was appended?): its new text is at \(path); \
      cp \(path) Sources/OfflineNewsStorage/Migration/NewStoreSchema.swift
      """)
  }

  @Test("a new store from the declaration, then the migrations' check: an old store still replays them")
  func onlyNewStoresUseTheDeclaration() throws {
    let folder = TemporaryDirectory()
    // A store at version 20, then migrated by the store's migrator: the declaration is not used (it would fail on
    // the existing tables), migration 21 runs.
    let old = try Connection(path: folder.path("old.sqlite"))
    try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 20 })).migrate(old)
    try Migrator.store.migrate(old)
    let (replayed, _) = try Self.bothStores(in: folder)
    #expect(try Self.description(old) == Self.description(replayed))
    // A declaration of another version than the latest migration's is not used either.
    let stale = try Connection(path: folder.path("stale.sqlite"))
    var migrator = Migrator.store
    migrator.newStore?.version -= 1
    migrator.newStore?.statements = ["CREATE TABLE not_the_schema (id INTEGER)"]
    try migrator.migrate(stale)
    #expect(try Self.description(stale) == Self.description(replayed))
  }

  /// The declaration of `db`'s schema: the SQL text of every `sqlite_master` row that has one, in rowid order,
  /// but for FTS5's shadow tables (the virtual table's `CREATE` makes them); then each FTS5 table's `'rebuild'`, as
  /// migrations 4 and 7 end (FTS5 then writes its averages record, six zero bytes where a table just created holds
  /// an empty one).
  static func statements(_ db: Connection) throws -> [String] {
    let objects = try db.makeStatement(
      """
      SELECT name, sql FROM sqlite_master
      WHERE sql IS NOT NULL AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow')
      ORDER BY rowid
      """
    ).fetchAll { (name: $0.string(0) ?? "", sql: $0.string(1) ?? "") }
    let searchIndexes = objects.filter { $0.sql.hasPrefix("CREATE VIRTUAL TABLE") && $0.sql.contains(" USING fts5(") }
    return objects.map(\.sql)
      + searchIndexes.map { "INSERT INTO \($0.name) (\($0.name)) VALUES ('rebuild')" }
  }

  /// `NewStoreSchema.swift` declaring `statements` at `version`: each statement a raw string literal, its lines
  /// longer than the format's 120 columns continued (`\#` at the end of a line) after a `,`.
  static func source(version: Int, statements: [String]) -> String {
    let indent = String(repeating: " ", count: 6)
    func wrapped(_ line: Substring) -> [String] {
      var line = line
      var lines: [String] = []
      while indent.count + line.count > 120,
        let cut = line.prefix(120 - indent.count - 2).range(of: ", ", options: .backwards)
      {
        lines.append(String(line[..<cut.lowerBound]) + ",\\#")
        line = line[line.index(after: cut.lowerBound)...]
      }
      return lines + [String(line)]
    }
    let literals = statements.map { statement in
      let lines = statement.split(separator: "\n", omittingEmptySubsequences: false).flatMap(wrapped)
      return ([indent + "#\"\"\""] + lines.map { $0.isEmpty ? "" : indent + $0 } + [indent + "\"\"\"#,"])
        .joined(separator: "\n")
    }
    return sourceHeader.replacingOccurrences(of: "VERSION", with: "\(version)")
      .replacingOccurrences(of: "COUNT", with: "\(Schema.migrations.count)") + literals.joined(separator: "\n")
      + "\n    ])\n}\n"
  }

  /// What `NewStoreSchema.swift` says before its statements.
  static let sourceHeader = """
    // Generated by `NewStoreSchemaTests` from a store the numbered migrations created: do not edit by hand. When a
    // migration is appended, that test fails and writes this file's new text to the path it prints.

    extension Schema {
      /// The schema the numbered migrations (``migrations``) leave in a new store, as one declaration: every object of
      /// its `sqlite_master` in their order (FTS5 makes the search index's shadow tables itself, and SQLite the indexes
      /// of `UNIQUE` and `PRIMARY KEY` constraints), each with the text `sqlite_master` holds; then the search index's
      /// `'rebuild'`, whose averages record the migrations leave. A new file is created from it in one transaction
      /// (``Migrator/newStore``) instead of replaying the COUNT migrations, whose `ALTER TABLE`s each make SQLite read
      /// the whole schema again: a new store took 18 ms of CPU, now 10 (docs/PERFORMANCE.md, "First refresh, branch
      /// `feedfirst`").
      ///
      /// Two paths to one schema, kept one: the migrations stay its declaration, the only one an existing store is
      /// migrated by, and this is their result, generated. `NewStoreSchemaTests` creates a store each way and compares
      /// their `user_version`, every `sqlite_master` row byte for byte, each table's columns, indexes, index columns
      /// and foreign keys, and every row (the search index's shadow tables included); it fails when a migration is
      /// appended until this file is generated again, and ``Migrator`` replays the migrations whenever the
      /// declaration's version is not the latest.
      static let newStore = SchemaDeclaration(
        version: VERSION,
        statements: [

    """
}
