/// A numbered schema change: a SQL script, then its steps (``Step``), in one transaction.
package struct Migration: Sendable {
  /// The schema version this migration produces: 1, 2, 3… with no gaps.
  package var version: Int
  /// What it does, for humans.
  package var name: String
  /// The SQL script (several statements allowed).
  package var sql = ""
  /// Runs with `PRAGMA foreign_keys = OFF`, in a transaction of its own (with the migrations next to it that need
  /// the same), checked by `PRAGMA foreign_key_check` before the commit: a migration that rebuilds a table other
  /// tables reference, whose `DROP TABLE` would otherwise delete their rows (`ON DELETE CASCADE`). SQLite ignores
  /// the pragma inside a transaction, hence the transaction of its own.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/lang_altertable.html#otheralter>,
  /// <https://www.sqlite.org/pragma.html#pragma_foreign_key_check>
  package var needsForeignKeysOff = false
  /// The schema before this migration answers every read of this build as the schema after it does (the same
  /// tables, columns, views and search index: only how a key is held changes, say), so that a store not yet
  /// migrated can be read as it is when it cannot be written (a full disk, a read-only medium: see
  /// ``Migrator/readsAsLatest(_:)``).
  package var keepsReads = false
  /// What runs after ``sql``, in order, in the same transaction: columns and indexes added only when the store
  /// lacks them, statements, and work that SQL alone cannot express. Empty for none.
  package var steps: [Step] = []

  /// One step of a migration after its script, as data.
  package enum Step: Sendable {
    /// `ALTER TABLE <table> ADD COLUMN <column> <definition>`, only when `table` has no column named `column` (a
    /// store whose schema a test or an older build's entity reconciling already extended).
    case addColumn(table: String, column: String, definition: String)
    /// A `CREATE INDEX <name> ON …` statement, run only when the store has no index named `name`.
    case createIndex(String)
    /// Statements run as they are.
    case sql(String)
    /// Work that SQL alone cannot express (re-keying rows by a rule written in Swift, say).
    case transform(@Sendable (Connection) throws -> Void)

    /// Runs the step on `db`, inside the migration's transaction.
    func run(_ db: Connection) throws {
      switch self {
      case .addColumn(let table, let column, let definition):
        if try db.scalarInt("SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = '\(column)'") == 0 {
          try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) \(definition)")
        }
      case .createIndex(let statement):
        let name = Self.indexName(statement)
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '\(name)'") == 0 {
          try db.execute(sql: statement)
        }
      case .sql(let sql): try db.execute(sql: sql)
      case .transform(let transform): try transform(db)
      }
    }

    /// The name a `CREATE INDEX <name> ON …` statement gives its index (its third word).
    static func indexName(_ statement: String) -> String {
      let words = statement.split(separator: " ", maxSplits: 3)
      return words.count > 2 ? String(words[2]) : ""
    }
  }

  /// The SQL texts the migration declares, in order: ``sql``, then its steps' statements (``Step/sql(_:)``,
  /// ``Step/createIndex(_:)``); not the `ALTER TABLE` of ``Step/addColumn(table:column:definition:)``.
  var scripts: [String] {
    [sql]
      + steps.compactMap { step in
        switch step {
        case .sql(let sql), .createIndex(let sql): sql
        case .addColumn, .transform: nil
        }
      }
  }

  /// Runs ``sql``, then each of ``steps``, on `db` (inside the migration's transaction).
  func run(_ db: Connection) throws {
    try db.execute(sql: sql)
    for step in steps { try step.run(db) }
  }
}

/// A schema written out whole, at a version: its statements, executed in order into a new store, give what replaying
/// the migrations up to `version` gives (``Schema/newStore``).
struct SchemaDeclaration: Sendable {
  /// The schema version (`PRAGMA user_version`) the statements give.
  var version: Int
  /// The statements, one each, in order: `CREATE`s, and whatever rows the migrations leave (FTS5's records).
  var statements: [String]
}

/// Brings a database's schema up to date.
///
/// The schema version lives in the database header (`PRAGMA user_version`,
/// <https://www.sqlite.org/pragma.html#pragma_user_version>). Migrations newer than the stored version run in order
/// inside a `BEGIN IMMEDIATE` transaction, which sets the version it reached once, before its commit: one for all of
/// them, or one for each run of them that needs foreign keys off (``Migration/needsForeignKeysOff``) and one for
/// each run between. A new store (version 0, no table, index, view or trigger) runs every migration in one
/// transaction with foreign keys off: it has no row a rebuilt table's `DROP TABLE` could cascade to, and the
/// run is checked by `PRAGMA foreign_key_check` as any run with keys off is (three transactions before: a first
/// `news fetch` paid for each commit). In that transaction a new store is given ``newStore`` instead, when it is
/// the schema of the latest migration: its statements, not the migrations' (whose `ALTER TABLE`s each make SQLite
/// read the whole schema again). A failure leaves the schema and data of the last committed version. An existing
/// cache is migrated, never dropped.
struct Migrator {
  var migrations: [Migration]
  /// What a new store is created from when its version is ``latestVersion`` (the store's ``Schema/newStore``);
  /// `nil`, or another version: the migrations are replayed.
  var newStore: SchemaDeclaration? = nil

  /// The store's schema: ``Schema/migrations``, a new store created from ``Schema/newStore``.
  static let store = Migrator(migrations: Schema.migrations, newStore: Schema.newStore)

  var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

  func currentVersion(_ db: Connection) throws -> Int {
    Int(try db.scalarInt("PRAGMA user_version") ?? 0)
  }

  /// Whether the database holds no schema object at all (a new file: no table, index, view or trigger).
  func isEmpty(_ db: Connection) throws -> Bool {
    try db.scalarInt("SELECT count(*) FROM sqlite_master") == 0
  }

  /// Whether a store at schema `version` can be read by this build without being migrated: it is the latest, or
  /// every newer migration keeps reads (``Migration/keepsReads``).
  func readsAsLatest(_ version: Int) -> Bool {
    version <= latestVersion && migrations.allSatisfy { $0.version <= version || $0.keepsReads }
  }

  /// - Throws: ``SQLiteError``; ``StorageError`` (``StorageError/Kind/incompatibleSchema(_:)``) when a run of
  ///   migrations with foreign keys off would leave a row whose reference has no parent row (it is rolled back).
  func migrate(_ db: Connection) throws {
    let ordered = migrations.sorted(by: { $0.version < $1.version })
    var current = try currentVersion(db)
    while let next = ordered.first(where: { $0.version > current }) {
      let new = try current == 0 && isEmpty(db)
      let keysOff = new || next.needsForeignKeysOff
      let keysWereOn = try keysOff && db.scalarInt("PRAGMA foreign_keys") == 1
      if keysWereOn { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
      defer { if keysWereOn { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
      current = try db.inTransaction {
        // Read again inside the lock: another process may have migrated meanwhile.
        let found = try currentVersion(db)
        let allAtOnce = new && found == 0
        var version = found
        if allAtOnce, let declaration = newStore, declaration.version == latestVersion {
          for statement in declaration.statements { try db.execute(sql: statement) }
          version = declaration.version
        }
        for migration in ordered where migration.version > version {
          guard allAtOnce || migration.needsForeignKeysOff == keysOff else { break }
          try migration.run(db)
          version = migration.version
        }
        if version != found { try db.execute(sql: "PRAGMA user_version = \(version)") }
        if keysOff, let table = try db.scalarString("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1") {
          throw StorageError(
            kind: .incompatibleSchema("migration to version \(version): a row of \(table) would reference no row"),
            path: db.path)
        }
        return version
      }
    }
  }
}
