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
package struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
  package var extendedCode: Int32
  /// The primary result code, e.g. 19 (`SQLITE_CONSTRAINT`): the low 8 bits of ``extendedCode``.
  package var code: Int32 { extendedCode & 0xFF }
  /// The message SQLite gave (`sqlite3_errmsg`), read when the error happened.
  package var message: String
  /// The SQL being executed, if any.
  package var sql: String?
  /// The database file involved, if known.
  package var path: String?
  /// The operating system's error number behind an I/O or open failure (`sqlite3_system_errno`), e.g. `ENOSPC`.
  package var systemErrorNumber: Int32?

  package init(
    extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil, systemErrorNumber: Int32? = nil
  ) {
    self.extendedCode = extendedCode
    self.message = message
    self.sql = sql
    self.path = path
    self.systemErrorNumber = systemErrorNumber
  }

  /// The English name of the primary result code, from `sqlite3_errstr`, e.g. "database is locked".
  package var codeDescription: String { String(cString: sqlite3_errstr(extendedCode)) }

  package var description: String {
    var text = "SQLite error \(code): \(message)"
    if let path { text += " (database \(path))" }
    if let sql { text += " - while executing `\(sql)`" }
    return text
  }

  // Primary result codes worth matching with `catch let e as SQLiteError where e.code == SQLiteError.busy`.
  package static let busy = SQLITE_BUSY
  package static let locked = SQLITE_LOCKED
  package static let readOnly = SQLITE_READONLY
  package static let corrupt = SQLITE_CORRUPT
  package static let notADatabase = SQLITE_NOTADB
  package static let full = SQLITE_FULL
  package static let cantOpen = SQLITE_CANTOPEN
  package static let ioError = SQLITE_IOERR
  package static let constraint = SQLITE_CONSTRAINT
}
