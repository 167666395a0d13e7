import CSQLite

/// An error reported by SQLite, with the code, message and statement that produced it.
///
/// Its description reads like
///
///     SQLite error 19: NOT NULL constraint failed: article.title (database /path/news.sqlite) - while executing `INSERT …`
///
/// Bound arguments are never included, so no user data or secret reaches a log.
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
  /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
  public var extendedCode: Int32
  /// The primary result code, e.g. 19 (`SQLITE_CONSTRAINT`): the low 8 bits of ``extendedCode``.
  public var code: Int32 { extendedCode & 0xFF }
  /// The message SQLite gave (`sqlite3_errmsg`), read when the error happened.
  public var message: String
  /// The SQL being executed, if any.
  public var sql: String?
  /// The database file involved, if known.
  public var path: String?
  /// The operating system's error number behind an I/O or open failure (`sqlite3_system_errno`), e.g. `ENOSPC`.
  public var systemErrorNumber: Int32?

  public init(
    extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil, systemErrorNumber: Int32? = nil
  ) {
    self.extendedCode = extendedCode
    self.message = message
    self.sql = sql
    self.path = path
    self.systemErrorNumber = systemErrorNumber
  }

  /// The English name of the primary result code, from `sqlite3_errstr`, e.g. "database is locked".
  public var codeDescription: String { String(cString: sqlite3_errstr(extendedCode)) }

  public var description: String {
    var text = "SQLite error \(code): \(message)"
    if let path { text += " (database \(path))" }
    if let sql { text += " - while executing `\(sql)`" }
    return text
  }

  // Primary result codes worth matching with `catch let e as SQLiteError where e.code == SQLiteError.busy`.
  public static let busy = SQLITE_BUSY
  public static let locked = SQLITE_LOCKED
  public static let readOnly = SQLITE_READONLY
  public static let corrupt = SQLITE_CORRUPT
  public static let notADatabase = SQLITE_NOTADB
  public static let full = SQLITE_FULL
  public static let cantOpen = SQLITE_CANTOPEN
  public static let ioError = SQLITE_IOERR
  public static let constraint = SQLITE_CONSTRAINT
}
