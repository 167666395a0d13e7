import Foundation

/// Why the storage context could not open, read or write its database.
///
/// Every case names the database file, so that a message like
/// `cannot open /home/me/.local/share/news/news.sqlite: written by a newer version (schema 7, this build knows 1)`
/// tells the user which file and what to do. No case is recovered from by deleting or recreating the file.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong; switch on it to tell the cases apart (``description`` names the file and the cause).
  public enum Kind: Sendable, Hashable {
    /// The database was written by a newer version of OfflineNews (its schema version is higher than this
    /// build's). The file was not modified.
    case newerSchema(found: Int, supported: Int)
    /// The file is not a SQLite database, or is corrupt (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    case notADatabase
    /// The file or its folder cannot be opened or created (`SQLITE_CANTOPEN`, permissions, missing folder).
    case cannotOpen
    /// The file or its folder is read-only (`SQLITE_READONLY`).
    case readOnly
    /// The disk is full (`SQLITE_FULL`); the transaction was rolled back.
    case diskFull
    /// Another connection held the lock longer than the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`): in WAL mode
    /// another writer (readers never block a write), or any other connection for what needs the store alone
    /// (``StorageContext/compact(path:busyTimeout:)``). Nothing was written.
    case busy
    /// A fetch request, predicate or record names an entity or attribute that does not exist, or holds a value of
    /// the wrong type. Nothing was read or written.
    case invalidRequest(String)
    /// An entity description is invalid, or differs from the stored entity in a way only a numbered migration can
    /// handle (a type change, a removed attribute, a new identity). The file was not modified.
    case incompatibleSchema(String)
    /// The storage context was closed (``StorageContext/close()``) before this call: nothing was read or written.
    case closed
    /// The task was cancelled while the call waited for a connection: nothing was read or written.
    case cancelled
    /// Any other SQLite failure.
    case other
  }

  /// What went wrong, as a category.
  public var kind: Kind
  /// The database file.
  public var path: String
  /// The SQLite error underneath, when there is one.
  package var underlying: SQLiteError?
  /// For `.other`: the description of a failure that was no storage failure (what the body of a raw `read` or
  /// `write` threw), kept so that the message still says it. For `.cannotOpen`: what is at the path when it is no
  /// file SQLite could open (a directory, a device), said instead of the general causes.
  package var cause: String?

  package init(kind: Kind, path: String, underlying: SQLiteError? = nil) {
    self.kind = kind
    self.path = path
    self.underlying = underlying
  }

  /// Classifies a SQLite error.
  package init(_ error: SQLiteError, path: String) {
    let kind: Kind
    switch error.code {
    case SQLiteError.notADatabase, SQLiteError.corrupt: kind = .notADatabase
    case SQLiteError.cantOpen: kind = .cannotOpen
    case SQLiteError.readOnly: kind = .readOnly
    case SQLiteError.full: kind = .diskFull
    case SQLiteError.busy, SQLiteError.locked: kind = .busy
    // An I/O error is often a full or read-only file system seen while growing `-shm` or `-wal`.
    case SQLiteError.ioError where error.systemErrorNumber == ENOSPC: kind = .diskFull
    case SQLiteError.ioError
    where [EROFS, EPERM, EACCES].contains(error.systemErrorNumber ?? 0):
      kind = .readOnly
    default: kind = .other
    }
    self.init(kind: kind, path: path, underlying: error)
  }

  public var description: String {
    let reason: String
    switch kind {
    case .newerSchema(let found, let supported):
      reason =
        "written by a newer version of OfflineNews (schema \(found), this build knows up to \(supported)); "
        + "the file was left untouched: upgrade, or use another --db"
    case .notADatabase where underlying?.code == SQLiteError.corrupt:
      reason =
        "the file is damaged (a corrupt page); it was left untouched: keep a copy, then try "
        + "`sqlite3 FILE .recover`, or use another --db to start a new cache"
    case .notADatabase: reason = "not a SQLite database, or corrupt"
    case .cannotOpen where cause != nil:
      reason = cause ?? ""
    case .cannotOpen:
      reason =
        "cannot open or create the file or its -wal/-shm beside it "
        + "(missing folder, no permission, or a read-only or full file system)"
    case .readOnly: reason = "the database or its folder is read-only"
    case .diskFull: reason = "the disk is full; nothing was changed"
    case .busy:
      reason = "the database is locked by another process; nothing was changed"
    case .invalidRequest(let problem): reason = problem
    case .incompatibleSchema(let problem): reason = "incompatible schema: \(problem)"
    case .closed: reason = "the storage context was closed; nothing was read or written"
    case .cancelled: reason = "cancelled while waiting for a connection; nothing was read or written"
    case .other: reason = cause.map { "storage failure: \($0)" } ?? "storage failure"
    }
    var text = "database \(path): \(reason)"
    if let underlying { text += " (SQLite \(underlying.code): \(underlying.message))" }
    return text
  }
}
