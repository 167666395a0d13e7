import Foundation

/// The storage context: the one owner of a SQLite database that the repository reads and writes through.
///
/// It plays the part of Core Data's `viewContext` in the classic iOS design: an object created once by the
/// composition root and injected wherever data is saved or read. It is an actor, so every use of its connection is
/// serialized, and its API is `Sendable` and `async`.
///
/// For example:
/// ```swift
/// let storage = try StorageContext(path: "/tmp/news.sqlite")
/// let saved = try await storage.saveArticles(articles, forQuery: query.cacheKey, fetchedAt: .now())
/// let newest = try await storage.articles(limit: 20)
/// ```
///
/// Opening sets WAL journal mode (readers in other processes are not blocked by a write), a busy timeout,
/// `foreign_keys=ON` and `synchronous=NORMAL`, then runs pending migrations in one transaction. A database whose
/// schema is newer than this build's is refused before anything is written to it.
///
/// Related SQLite documentation: <https://www.sqlite.org/wal.html>, <https://www.sqlite.org/pragma.html>
public actor StorageContext {
  /// The database file's path.
  public nonisolated let path: String
  let connection: Connection

  /// The schema version this build creates and understands.
  public static var schemaVersion: Int { Migrator(migrations: Schema.migrations).latestVersion }

  /// Opens or creates the database at `path`, creating its parent folder if needed, and migrates it.
  ///
  /// - Parameters:
  ///   - path: the database file (`:memory:` for a private in-memory database).
  ///   - busyTimeout: seconds to wait for another process's lock before failing.
  /// - Throws: ``StorageError`` naming `path`: `.newerSchema` (file untouched), `.notADatabase`, `.cannotOpen`,
  ///   `.readOnly`, `.diskFull`, `.busy`.
  public init(path: String, busyTimeout: Double = 5) throws(StorageError) {
    self.path = path
    if path != ":memory:" {
      let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
      if !FileManager.default.fileExists(atPath: folder) {
        do {
          try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
          throw StorageError(kind: .cannotOpen, path: path)
        }
      }
    }
    let migrator = Migrator(migrations: Schema.migrations)
    do {
      let connection = try Connection(path: path, busyTimeout: busyTimeout)
      // Refuse a newer schema before any write, WAL switch included: the file stays byte-identical.
      let found = try migrator.currentVersion(connection)
      guard found <= migrator.latestVersion else {
        throw StorageError(kind: .newerSchema(found: found, supported: migrator.latestVersion), path: path)
      }
      try connection.execute(sql: "PRAGMA foreign_keys = ON")
      if path != ":memory:" {
        let mode = try connection.scalarString("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
          throw StorageError(
            kind: .other, path: path,
            underlying: SQLiteError(
              extendedCode: 1, message: "journal_mode=WAL was refused (got \(mode ?? "nothing"))"))
        }
      }
      try connection.execute(sql: "PRAGMA synchronous = NORMAL")
      if found < migrator.latestVersion { try migrator.migrate(connection) }
      self.connection = connection
    } catch let error as StorageError {
      throw error
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    } catch {
      throw StorageError(kind: .other, path: path)
    }
  }

  /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` … `COMMIT`); if it throws, everything it did is rolled
  /// back and the error rethrown, SQLite errors as ``StorageError``.
  public func write<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
    try mapErrors { try connection.inTransaction { try body(connection) } }
  }

  /// Runs `body` for reading. Under WAL, a read sees the last committed state, never a write in progress.
  public func read<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
    try mapErrors { try body(connection) }
  }

  /// The schema version stored in the database.
  public func storedSchemaVersion() throws -> Int {
    try read { Int(try $0.scalarInt("PRAGMA user_version") ?? 0) }
  }

  private func mapErrors<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    }
  }
}
