import CSQLite

/// A prepared SQL statement, owned by one ``Connection``.
///
/// Prepared once (`sqlite3_prepare_v3`), reset before each use, finalized on `deinit`. Not `Sendable`: it is used
/// only inside its connection's owner.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
package final class Statement {
  let handle: OpaquePointer
  /// The SQL text the statement was prepared from.
  package let sql: String
  unowned let connection: Connection

  init(connection: Connection, sql: String, persistent: Bool) throws(SQLiteError) {
    var handle: OpaquePointer?
    let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
    let rc = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &handle, nil)
    guard rc == SQLITE_OK, let handle else {
      throw connection.error(rc, sql: sql)
    }
    self.handle = handle
    self.sql = sql
    self.connection = connection
  }

  deinit { sqlite3_finalize(handle) }

  /// The number of parameters of the statement: the largest `?NNN` index, or the count of `?` placeholders
  /// (`sqlite3_bind_parameter_count`).
  package var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

  /// Throws unless `count` arguments fill the statement's parameters exactly: SQLite itself would store `NULL` for
  /// a parameter left unbound, so that `VALUES (?1, ?2)` given one argument would silently write a `NULL`.
  ///
  /// - Throws: ``SQLiteError`` with code `SQLITE_MISUSE` naming the SQL and both counts: a programmer error.
  func checkArgumentCount(_ count: Int) throws(SQLiteError) {
    let expected = parameterCount
    guard count != expected else { return }
    throw SQLiteError(
      extendedCode: SQLITE_MISUSE,
      message: "\(count) argument\(count == 1 ? "" : "s") bound to a statement with \(expected) parameter"
        + (expected == 1 ? "" : "s"),
      sql: sql, path: connection.path)
  }

  /// Resets the statement and binds `arguments` to its parameters `?1…?n`, in order.
  ///
  /// - Throws: ``SQLiteError``: `SQLITE_MISUSE` when the number of arguments is not the statement's
  ///   ``parameterCount`` (nothing is bound then), or the error of a failing `sqlite3_bind_*`.
  package func bind(_ arguments: [DatabaseValue]) throws(SQLiteError) {
    try checkArgumentCount(arguments.count)
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    for (index, value) in arguments.enumerated() {
      let position = Int32(index + 1)
      let rc: Int32
      switch value {
      case .null: rc = sqlite3_bind_null(handle, position)
      case .integer(let v): rc = sqlite3_bind_int64(handle, position, v)
      case .real(let v): rc = sqlite3_bind_double(handle, position, v)
      case .text(let v):
        // Bind the UTF-8 bytes with their length: a length of -1 would stop at the first NUL character.
        var text = v
        rc = text.withUTF8 { bytes in
          bytes.withMemoryRebound(to: CChar.self) { chars in
            // An empty buffer may have no address; SQLite takes a zero-length text from any non-null pointer.
            guard let base = chars.baseAddress else {
              return sqlite3_bind_text(handle, position, "", 0, csqlite_transient)
            }
            return sqlite3_bind_text(handle, position, base, Int32(chars.count), csqlite_transient)
          }
        }
      case .blob(let v):
        rc = v.withUnsafeBytes {
          sqlite3_bind_blob(handle, position, $0.baseAddress, Int32($0.count), csqlite_transient)
        }
      }
      guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
    }
  }

  /// Binds `arguments` like ``bind(_:)``, except that the texts are not copied one by one: their UTF-8 goes into one
  /// buffer, bound in place (`SQLITE_STATIC`) while `body` runs; the statement is then reset and its bindings cleared,
  /// so that SQLite keeps no pointer into the buffer. For statements with many text parameters (the bulk upserts,
  /// a first import's row inserts), where SQLite's copy of each text (an allocation, a copy and a free per value) is
  /// a visible cost. `trailing`, when given, is bound after `arguments` (a row's rowid after its values), so that a
  /// caller binds part of a larger array without copying it into another.
  func withBorrowedTexts<T>(
    _ arguments: ArraySlice<DatabaseValue>, trailing: DatabaseValue? = nil, _ body: () throws -> T
  ) throws -> T {
    try checkArgumentCount(arguments.count + (trailing == nil ? 0 : 1))
    var length = 0
    for value in arguments { if case .text(let text) = value { length += text.utf8.count } }
    // On the stack when it is small (a row's texts), else on the heap; one buffer for every text either way.
    return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, length)) { buffer throws -> T in
      sqlite3_reset(handle)
      sqlite3_clear_bindings(handle)
      defer {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
      }
      var offset = 0
      var position: Int32 = 1
      func bindValue(_ value: DatabaseValue) throws {
        let rc: Int32
        switch value {
        case .text(var text):
          rc = text.withUTF8 { utf8 in
            guard let source = utf8.baseAddress, let base = buffer.baseAddress, !utf8.isEmpty else {
              return sqlite3_bind_text(handle, position, "", 0, csqlite_transient)
            }
            let start = base + offset
            start.initialize(from: source, count: utf8.count)
            offset += utf8.count
            // SQLITE_STATIC (a null destructor): SQLite reads the bytes in place until the bindings are cleared.
            let chars = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text(handle, position, chars, Int32(utf8.count), nil)
          }
        case .null: rc = sqlite3_bind_null(handle, position)
        case .integer(let v): rc = sqlite3_bind_int64(handle, position, v)
        case .real(let v): rc = sqlite3_bind_double(handle, position, v)
        case .blob(let v):
          rc = v.withUnsafeBytes {
            sqlite3_bind_blob(handle, position, $0.baseAddress, Int32($0.count), csqlite_transient)
          }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
        position += 1
      }
      for value in arguments { try bindValue(value) }
      if let trailing { try bindValue(trailing) }
      return try body()
    }
  }

  /// ``execute(_:)`` with the texts bound in place (see ``withBorrowedTexts(_:trailing:_:)``).
  func executeBorrowingTexts(_ arguments: ArraySlice<DatabaseValue>, trailing: DatabaseValue? = nil) throws {
    try withBorrowedTexts(arguments, trailing: trailing) { while try step() {} }
  }

  /// ``fetchAll(_:_:)`` with the texts bound in place (see ``withBorrowedTexts(_:trailing:_:)``).
  func fetchAllBorrowingTexts<T>(_ arguments: ArraySlice<DatabaseValue>, _ read: (Row) throws -> T) throws -> [T] {
    try withBorrowedTexts(arguments) {
      var rows: [T] = []
      let row = Row(statement: self)
      while try step() { rows.append(try read(row)) }
      return rows
    }
  }

  /// Runs the statement to completion, discarding rows.
  package func execute(_ arguments: [DatabaseValue] = []) throws(SQLiteError) {
    try bind(arguments)
    while try step() {}
  }

  /// Advances to the next row. Returns `false` when the statement is done.
  package func step() throws(SQLiteError) -> Bool {
    let box = connection.traceBox
    let outer = box?.stepping
    box?.stepping = handle
    defer { box?.stepping = outer }
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = connection.error(rc, sql: sql)
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Runs the statement and returns every row, each read by `read`.
  package func fetchAll<T>(_ arguments: [DatabaseValue] = [], _ read: (Row) throws -> T) throws -> [T] {
    try bind(arguments)
    var rows: [T] = []
    let row = Row(statement: self)
    while try step() { rows.append(try read(row)) }
    return rows
  }

  /// Runs the statement once, `?1` bound to `integer` and `?2…` to the texts at `ranges` of `bytes` (UTF-8; `nil`
  /// binds `NULL`), in place (`SQLITE_STATIC`) while it runs; the bindings are cleared after it, so that SQLite
  /// keeps no pointer into `bytes`. For a writer that builds the texts' bytes itself, without a `String` per value.
  ///
  /// - Throws: ``SQLiteError``: `SQLITE_MISUSE` when `ranges.count + 1` is not the statement's ``parameterCount``,
  ///   or the error of a bind or of the step.
  func execute(_ integer: Int64, texts ranges: [Range<Int>?], of bytes: [UInt8]) throws {
    try checkArgumentCount(ranges.count + 1)
    try bytes.withUnsafeBufferPointer { buffer in
      sqlite3_reset(handle)
      sqlite3_clear_bindings(handle)
      defer {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
      }
      var rc = sqlite3_bind_int64(handle, 1, integer)
      guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
      for (index, range) in ranges.enumerated() {
        let position = Int32(index + 2)
        if let range {
          if let base = buffer.baseAddress, !range.isEmpty {
            let start = UnsafeRawPointer(base + range.lowerBound).assumingMemoryBound(to: CChar.self)
            rc = sqlite3_bind_text(handle, position, start, Int32(range.count), nil)
          } else {
            rc = sqlite3_bind_text(handle, position, "", 0, csqlite_transient)
          }
        } else {
          rc = sqlite3_bind_null(handle, position)
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
      }
      while try step() {}
    }
  }

  /// Runs this statement once per row of `source` (a statement of another connection, or of this one), its
  /// parameters `?1…?n` bound to the row's `n` columns as stored (`sqlite3_bind_value`: SQLite copies each value,
  /// a blob included, without a Swift copy in between). Returns the number of rows.
  ///
  /// - Throws: ``SQLiteError``: `SQLITE_MISUSE` when `source` has not as many columns as this statement has
  ///   parameters, or the error of a step of either statement.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/c3ref/bind_blob.html> (`sqlite3_bind_value` takes the
  /// unprotected values of `sqlite3_column_value`)
  @discardableResult
  func insertRows(from source: Statement) throws(SQLiteError) -> Int {
    let columns = Int(sqlite3_column_count(source.handle))
    try checkArgumentCount(columns)
    sqlite3_reset(source.handle)
    defer { sqlite3_reset(source.handle) }
    var rows = 0
    while try source.step() {
      sqlite3_reset(handle)
      for column in 0..<columns {
        let rc = sqlite3_bind_value(handle, Int32(column + 1), sqlite3_column_value(source.handle, Int32(column)))
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
      }
      while try step() {}
      rows += 1
    }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    return rows
  }

  /// Runs the statement and returns the first row, read by `read`, or `nil` when there is none.
  package func fetchOne<T>(_ arguments: [DatabaseValue] = [], _ read: (Row) throws -> T) throws -> T? {
    try bind(arguments)
    defer { sqlite3_reset(handle) }
    return try step() ? read(Row(statement: self)) : nil
  }
}

/// The current row of a stepping ``Statement``; valid only inside the closure it is given to.
package struct Row {
  let statement: Statement

  /// The number of columns.
  package var count: Int { Int(sqlite3_column_count(statement.handle)) }

  /// Whether column `index` (0-based) is NULL.
  package func isNull(_ index: Int) -> Bool {
    sqlite3_column_type(statement.handle, Int32(index)) == SQLITE_NULL
  }
  /// Column `index` as an integer, or `nil` when NULL.
  package func int64(_ index: Int) -> Int64? {
    isNull(index) ? nil : sqlite3_column_int64(statement.handle, Int32(index))
  }
  /// Column `index` as a double, or `nil` when NULL.
  package func double(_ index: Int) -> Double? {
    isNull(index) ? nil : sqlite3_column_double(statement.handle, Int32(index))
  }
  /// Column `index` as text (UTF-8), or `nil` when NULL.
  package func string(_ index: Int) -> String? {
    guard let text = sqlite3_column_text(statement.handle, Int32(index)) else { return nil }
    let length = Int(sqlite3_column_bytes(statement.handle, Int32(index)))
    return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
  }
}

extension Row {
  /// Column `index` as it is stored.
  public func value(_ index: Int) -> DatabaseValue {
    let column = Int32(index)
    switch sqlite3_column_type(statement.handle, column) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement.handle, column))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement.handle, column))
    case SQLITE_TEXT: return string(index).map(DatabaseValue.text) ?? .null
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(statement.handle, column))
      guard count > 0, let bytes = sqlite3_column_blob(statement.handle, column) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return .null
    }
  }

  /// The first `count` columns as stored.
  public func values(count: Int) -> [DatabaseValue] { (0..<count).map(value) }
}
