import CSQLite
import Foundation

/// What ``StorageContext/compact(path:busyTimeout:)`` did to a store's file.
public struct StoreCompaction: Sendable, Hashable {
  /// The database file before, in bytes, once its write-ahead log was checkpointed into it (when the compaction had
  /// the store to itself).
  public var bytesBefore: Int64
  /// The database file after (the `-wal` is gone), in bytes.
  public var bytesAfter: Int64
  /// The page size before, in bytes: 4,096 for a store made before 16 KiB pages (SQLite's default).
  public var pageSizeBefore: Int
  /// The page size after, in bytes: ``StorageContext`` new databases' (16,384).
  public var pageSizeAfter: Int
  /// Whether the search index was built again because `VACUUM` gave articles new rowids (SQLite may do so for a
  /// table without an `INTEGER PRIMARY KEY`; 3.40 keeps them, so this is `false` there).
  public var rebuiltSearchIndex: Bool
  /// The schema version the store had when the compaction brought it up to date first (its numbered migrations, as
  /// its next write would have run them), `nil` when it was this build's (``StorageContext/schemaVersion``).
  public var migratedFrom: Int? = nil
}

extension StorageContext {
  /// Rewrites the store at `path` into as few pages as its rows need, with the page size new stores get (16 KiB):
  /// the space of deleted and evicted articles goes back to the file system, and a store made with 4 KiB pages
  /// gets the larger pages' faster imports (docs/PERFORMANCE.md, "Page size"). Every row and index stays as it was;
  /// the search index is merged into one segment without the entries of deleted articles (FTS5 `'optimize'`), and
  /// answers as before.
  ///
  /// The store must be closed everywhere (no ``StorageContext`` on it, in this process or another): SQLite changes
  /// a WAL database's page size only out of WAL mode, which needs the only connection. The steps are
  /// `PRAGMA journal_mode = DELETE`, the numbered migrations of a store of an older schema (each run in its own
  /// transaction, as at an open), FTS5 `'optimize'`, `PRAGMA page_size`, `VACUUM`, `PRAGMA journal_mode = WAL`.
  /// The merge and `VACUUM` are each one transaction through a rollback journal: a failure or a crash leaves the
  /// file as it was before that step (a crash may leave it in journal mode `DELETE`; the next open sets WAL again).
  /// Every row is then as it was; when `VACUUM` is the step that failed (a full disk), the search index stays merged
  /// (it answers as before) and the file may have grown by about the index's size.
  /// `VACUUM` needs free space of up to twice the store's size: a copy in the temporary folder (`SQLITE_TMPDIR`,
  /// `TMPDIR`, else `/var/tmp` or `/tmp`), and the journal beside the store. The call blocks the calling thread for
  /// about as long as an import of the store's articles.
  ///
  /// - Parameters:
  ///   - path: the database file; it must exist.
  ///   - busyTimeout: how long, in seconds, to wait for another connection to let go before failing.
  /// - Returns: the sizes and page sizes before and after.
  /// - Throws: ``StorageError``: `.cannotOpen` when there is no such file; `.busy` when another connection has the
  ///   store open; `.newerSchema` for a store of a newer version (untouched); `.invalidRequest` for a SQLite file
  ///   that is no OfflineNews store (untouched); `.readOnly` for a file that cannot be written (untouched);
  ///   `.diskFull` when the copy or the journal does not fit (the store is left as it was).
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/lang_vacuum.html>,
  /// <https://www.sqlite.org/pragma.html#pragma_page_size>, <https://www.sqlite.org/wal.html> (leaving WAL mode)
  public static func compact(path: String, busyTimeout: Double = 5) throws(StorageError) -> StoreCompaction {
    if let error = notARegularFile(path) { throw error }
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw StorageError(
        kind: .cannotOpen, path: path, underlying: SQLiteError(extendedCode: 14, message: "no database file at \(path)")
      )
    }
    do {
      let connection = try Connection(path: path, busyTimeout: busyTimeout)
      // SQLite opens a file it may not write (permissions, `chattr +i`, a read-only mount) read-only without an
      // error; the first write would then fail as a bare I/O error.
      guard sqlite3_db_readonly(connection.handle, "main") == 0 else {
        throw StorageError(kind: .readOnly, path: path)
      }
      let latest = Migrator(migrations: Schema.migrations).latestVersion
      let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
      guard version <= latest else {
        throw StorageError(kind: .newerSchema(found: version, supported: latest), path: path)
      }
      guard version > 0, try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'article'") == 1
      else {
        throw StorageError(
          kind: .invalidRequest("not an OfflineNews store (no article table); left untouched"), path: path)
      }
      // Refused with SQLITE_BUSY while another connection has the database open (after the busy timeout).
      try switchJournalMode(connection, to: "DELETE", path: path, refused: .busy)
      // Measured now that this is the store's only connection (the switch checkpointed the -wal into the file):
      // another compaction the switch waited for has changed the file, its page size and maybe its rowids.
      var bytesBefore: Int64 = 0
      var pageSizeBefore = 0
      var rebuilt = false
      var migratedFrom: Int?
      do {
        bytesBefore = bytesOnDisk(path)
        pageSizeBefore = Int(try connection.scalarInt("PRAGMA page_size") ?? 0)
        // A store of an older schema is migrated first, as its next write would: so that what a migration leaves
        // free (migration 12 rebuilds `article`: the old table's pages) is given back by this same compaction.
        let current = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        if current < latest {
          try connection.execute(sql: "PRAGMA foreign_keys = ON")
          try Migrator(migrations: Schema.migrations).migrate(connection)
          migratedFrom = current
        }
        let rowsBefore = try rowFingerprint(connection)
        // FTS5 deletes by writing tombstones into new segments: the index keeps the terms of every deleted article
        // until its segments are merged. `'optimize'` merges them into one without the deleted entries, before
        // `VACUUM` copies what is left.
        let hasSearchIndex =
          try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'article_fts'") == 1
        if hasSearchIndex {
          try connection.inTransaction {
            try connection.execute(sql: "INSERT INTO article_fts(article_fts) VALUES ('optimize')")
          }
        }
        try connection.execute(sql: "PRAGMA page_size = \(newDatabasePageSize)")
        try connection.execute(sql: "VACUUM")
        if hasSearchIndex, try rowFingerprint(connection) != rowsBefore {
          // The search index finds articles by rowid (migrations 4 and 7): renumbered rows need it built again.
          try connection.inTransaction {
            try connection.execute(sql: "INSERT INTO article_fts(article_fts) VALUES ('rebuild')")
          }
          rebuilt = true
        }
      } catch {
        _ = try? connection.setJournalMode("WAL")
        throw error
      }
      try switchJournalMode(connection, to: "WAL", path: path, refused: .other)
      let pageSizeAfter = Int(try connection.scalarInt("PRAGMA page_size") ?? 0)
      return StoreCompaction(
        bytesBefore: bytesBefore, bytesAfter: bytesOnDisk(path), pageSizeBefore: pageSizeBefore,
        pageSizeAfter: pageSizeAfter, rebuiltSearchIndex: rebuilt, migratedFrom: migratedFrom)
    } catch let error as StorageError {
      throw error
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    } catch {
      var other = StorageError(kind: .other, path: path)
      other.cause = String(describing: error)
      throw other
    }
  }

  /// What would change if rows of `article` got other rowids: their count and sums of rowids weighed by the keys
  /// (floating-point `total()`, which cannot overflow).
  private static func rowFingerprint(_ connection: Connection) throws -> [Double] {
    try connection.makeStatement(
      """
      SELECT count(*), total(rowid), total((rowid % 1000003) * length(url)), total((rowid % 999983) * unicode(url))
      FROM article
      """
    ).fetchOne { [$0.double(0), $0.double(1), $0.double(2), $0.double(3)].map { $0 ?? 0 } } ?? []
  }
}
