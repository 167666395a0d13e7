/// A numbered schema change.
package struct Migration: Sendable {
  /// The schema version this migration produces: 1, 2, 3… with no gaps.
  package var version: Int
  /// What it does, for humans.
  package var name: String
  /// The SQL script (several statements allowed).
  package var sql: String
  /// Work that SQL alone cannot express, run after ``sql`` in the same transaction (re-keying rows by a rule
  /// written in Swift, say); `nil` for none.
  var transform: (@Sendable (Connection) throws -> Void)?

  package init(version: Int, name: String, sql: String) {
    self.version = version
    self.name = name
    self.sql = sql
  }

  init(version: Int, name: String, sql: String, transform: @escaping @Sendable (Connection) throws -> Void) {
    self.init(version: version, name: name, sql: sql)
    self.transform = transform
  }
}

/// Brings a database's schema up to date, in one transaction.
///
/// The schema version lives in the database header (`PRAGMA user_version`,
/// <https://www.sqlite.org/pragma.html#pragma_user_version>). Migrations newer than the stored version run in order,
/// with the version bump, inside a single `BEGIN IMMEDIATE` transaction: a failure leaves the old schema and data.
/// An existing cache is migrated, never dropped.
struct Migrator {
  var migrations: [Migration]

  var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

  func currentVersion(_ db: Connection) throws -> Int {
    Int(try db.scalarInt("PRAGMA user_version") ?? 0)
  }

  func migrate(_ db: Connection) throws {
    try db.inTransaction {
      // Read again inside the lock: another process may have migrated meanwhile.
      let current = try currentVersion(db)
      for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > current {
        try db.execute(sql: migration.sql)
        try migration.transform?(db)
        try db.execute(sql: "PRAGMA user_version = \(migration.version)")
      }
    }
  }
}
