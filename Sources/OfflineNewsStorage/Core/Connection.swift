import CSQLite
import Foundation

/// One open SQLite database connection.
///
/// Not `Sendable`: a connection has exactly one owner (``StorageContext``), which serializes every use of it, so
/// SQLite is opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`) with no locking of its own.
///
/// Opening runs a fixed sequence: `sqlite3_open_v2` (closing the handle on failure), extended result codes, the busy
/// timeout. What follows (`foreign_keys`, WAL, `synchronous=NORMAL`) is the owner's choice, because a database that
/// must be refused (written by a newer version) must be refused before anything is written to it.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>, <https://www.sqlite.org/wal.html>
package final class Connection {
  let handle: OpaquePointer
  /// The database file's path.
  package let path: String
  /// Prepared statements by SQL text, each with the time of its last use (see ``cachedStatement(_:)``).
  private var statementCache: [String: (statement: Statement, lastUse: Int)] = [:]
  private var statementUses = 0
  /// How many statements are kept prepared at most: the least recently used one is finalized to make room.
  /// Multi-row statements have one text per row count, so without a bound a long sync would keep every size.
  package static let statementCacheLimit = 256
  /// The number of statements this connection has prepared (`sqlite3_prepare_v3`) since it opened, cached or
  /// not: tests show with it that a repeated save prepares nothing.
  package private(set) var preparedStatementCount = 0
  private(set) var traceBox: TraceBox?
  /// The writer's record of the rows a raw write changes (``ChangeCapture/install(on:entities:)``); `nil` on readers.
  var changeCapture: ChangeCapture?
  /// The gate of this connection's commits (``CommitGate/install(_:on:)``), held while it is installed.
  var commitGate: CommitGate?
  /// Whether ``SearchRanking``'s function is registered on this connection.
  var hasSearchRanking = false
  /// How long, in seconds, a statement waits for another connection's lock (the `busyTimeout` it was opened with).
  package let busyTimeout: Double

  /// Opens (and, unless `readOnly`, creates) the database at `path`.
  ///
  /// - Parameters:
  ///   - path: a file path; `:memory:` for a private in-memory database.
  ///   - readOnly: open with `SQLITE_OPEN_READONLY`.
  ///   - immutable: open read-only as an immutable file (`file:…?mode=ro&immutable=1`): no lock, no `-wal` or
  ///     `-shm` is read or created, so a file on a read-only or full file system can still be read. Only correct
  ///     while nothing writes the file and no committed data waits in a `-wal` beside it.
  ///   - busyTimeout: how long, in seconds, to wait for another connection's lock before failing with `SQLITE_BUSY`.
  /// - Throws: ``SQLiteError`` carrying the path, e.g. `SQLITE_CANTOPEN` for a missing folder or no permission.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/uri.html#uriimmutable>
  package init(path: String, readOnly: Bool = false, immutable: Bool = false, busyTimeout: Double = 5)
    throws(SQLiteError)
  {
    _ = Connection.processConfiguration
    var handle: OpaquePointer?
    var flags =
      (readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
      | SQLITE_OPEN_NOMUTEX
    var name = path
    if immutable {
      flags |= SQLITE_OPEN_URI
      // `URL(fileURLWithPath:)` percent-encodes `?`, `#` and `%`, so no part of the path is read as URI syntax.
      name = URL(fileURLWithPath: path).absoluteString + "?mode=ro&immutable=1"
    }
    let rc = sqlite3_open_v2(name, &handle, flags, nil)
    guard rc == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      let extended = handle.map { sqlite3_extended_errcode($0) } ?? rc
      let systemError = handle.map { sqlite3_system_errno($0) } ?? 0
      sqlite3_close_v2(handle)
      throw SQLiteError(
        extendedCode: extended, message: message, path: path, systemErrorNumber: systemError == 0 ? nil : systemError)
    }
    self.handle = handle
    self.path = path
    self.busyTimeout = busyTimeout
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
    sqlite3_create_collation_v2(handle, Self.unicodeNoCase, SQLITE_UTF8, nil, Self.compareIgnoringCase, nil)
  }

  /// The collation every connection has that compares text without regard to case beyond ASCII (SQLite's own
  /// `NOCASE` folds only `A`–`Z`): `"SÜDDEUTSCHE" = "Süddeutsche" COLLATE UNICODE_NOCASE` holds. It compares as
  /// Foundation's `String.compare(_:options: .caseInsensitive)`, the rule ``StorageContext``'s search applies to
  /// publishers' names. A function call per comparison: for text that is all ASCII, `NOCASE` is the same and faster.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/c3ref/create_collation.html>
  package static let unicodeNoCase = "UNICODE_NOCASE"

  private static let compareIgnoringCase:
    @convention(c) (
      UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?
    ) -> Int32 = { _, count1, bytes1, count2, bytes2 in
      func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
      }
      switch text(bytes1, count1).compare(text(bytes2, count2), options: .caseInsensitive) {
      case .orderedAscending: return -1
      case .orderedSame: return 0
      case .orderedDescending: return 1
      }
    }

  /// SQLite's process-wide configuration, set once before the first connection opens (`sqlite3_config` is refused
  /// once SQLite is initialized, which opening a connection does): memory statistics off
  /// (`SQLITE_CONFIG_MEMSTATUS`: otherwise every allocation and free takes a global mutex to count its bytes;
  /// about 5 % of a first import's CPU time, docs/PERFORMANCE.md). The store reads no such statistic
  /// (`sqlite3_memory_used`, `sqlite3_memory_highwater` and `sqlite3_status64` then report 0). A process that
  /// initialized SQLite before (another library, or `news-bench --child-import --sqlite-memory`, which wants the
  /// statistics) keeps its own configuration: the call is refused, and either is correct.
  ///
  /// Statement journals are held in memory whatever their size (`SQLITE_CONFIG_STMTJRNL_SPILL` −1): a large save
  /// journals the pages each multi-row statement touches, and the writer's `temp_store` is `FILE` so that SQLite's
  /// sorter (`CREATE INDEX` at the end of a first import, large `ORDER BY`s) spills its runs to temporary files
  /// instead of memory (StorageContext's writer pragmas). Before, `temp_store = MEMORY` kept both in memory.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_config_covering_index_scan.html>,
  /// <https://www.sqlite.org/tempfiles.html> (statement journals, transient indices, temporary file storage)
  private static let processConfiguration: Void = {
    _ = csqlite_config_memstatus(0)
    _ = csqlite_config_stmtjrnl_spill(-1)
  }()

  deinit {
    // A gate must not interrupt a closed handle.
    commitGate?.detach()
    if traceBox != nil { sqlite3_trace_v2(handle, 0, nil, nil) }
    statementCache.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs one or more SQL statements separated by `;`, with no arguments (schema scripts, pragmas).
  package func execute(sql: String) throws(SQLiteError) {
    let rc = sqlite3_exec(handle, sql, nil, nil, nil)
    guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
  }

  /// Runs one statement with arguments, through the statement cache.
  package func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws(SQLiteError) {
    try cachedStatement(sql).execute(arguments)
  }

  /// A prepared statement for `sql`, prepared once per connection and reused (`SQLITE_PREPARE_PERSISTENT`), for SQL
  /// run again and again. At most ``statementCacheLimit`` are kept; the least recently used goes first.
  package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
    statementUses += 1
    if let entry = statementCache[sql] {
      statementCache[sql] = (entry.statement, statementUses)
      return entry.statement
    }
    let statement = try Statement(connection: self, sql: sql, persistent: true)
    preparedStatementCount += 1
    if statementCache.count >= Self.statementCacheLimit,
      let oldest = statementCache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
    {
      // A caller still holding the statement keeps it alive; it is finalized when the last reference goes.
      statementCache[oldest] = nil
    }
    statementCache[sql] = (statement, statementUses)
    return statement
  }

  /// A new prepared statement that is not cached, for SQL run once.
  package func makeStatement(_ sql: String) throws(SQLiteError) -> Statement {
    let statement = try Statement(connection: self, sql: sql, persistent: false)
    preparedStatementCount += 1
    return statement
  }

  /// Values computed by ``rememberedWhileUnchanged(_:_:)``, with the state of the database they were computed on.
  private var remembered: (version: [Int64], values: [AnyHashable: Any]) = ([], [:])
  /// How many values ``rememberedWhileUnchanged(_:_:)`` keeps at most; they are all dropped to make room.
  static let rememberedLimit = 64

  /// The value `compute` gives for `key`, computed once and then remembered for as long as the database is the same
  /// committed state: no other connection or process has committed since (`PRAGMA data_version`,
  /// <https://www.sqlite.org/pragma.html#pragma_data_version>) and this connection has changed no row
  /// (``totalChanges``). For what costs a scan and is asked again and again between writes (the count of a page's
  /// selection). Only inside a transaction, whose snapshot both the version and `compute` read; outside one,
  /// `compute` runs every time.
  ///
  /// - Parameters:
  ///   - key: what identifies the value: the SQL and its arguments.
  /// - Throws: what `compute` throws, or the version's ``SQLiteError``.
  package func rememberedWhileUnchanged<T>(_ key: some Hashable, _ compute: () throws -> T) throws -> T {
    guard isInTransaction else { return try compute() }
    let dataVersion: Int64?? = try cachedStatement("PRAGMA data_version").fetchOne { $0.int64(0) }
    let version: [Int64] = [(dataVersion ?? nil) ?? -1, Int64(totalChanges)]
    if version != remembered.version { remembered = (version, [:]) }
    if let value = remembered.values[AnyHashable(key)] as? T { return value }
    let value = try compute()
    if remembered.values.count >= Self.rememberedLimit { remembered.values.removeAll() }
    remembered.values[AnyHashable(key)] = value
    return value
  }

  /// The number of rows changed by the last `INSERT`, `UPDATE` or `DELETE` (`sqlite3_changes64`).
  package var changes: Int { Int(sqlite3_changes64(handle)) }

  /// The number of rows changed by every `INSERT`, `UPDATE` or `DELETE` since the connection opened, those of
  /// triggers and of virtual tables' own statements included (`sqlite3_total_changes64`).
  package var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

  /// Whether a transaction is open (not in autocommit mode).
  package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in a write transaction: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK` and rethrow if `body`
  /// throws or the commit fails. Nested calls use a savepoint, so an inner failure undoes only the inner work.
  ///
  /// `IMMEDIATE` takes the write lock up front: a deferred transaction that later upgrades its lock can fail
  /// with `SQLITE_BUSY` whatever the busy timeout (<https://www.sqlite.org/lang_transaction.html>). The schema is
  /// read again first if another connection changed it (<https://www.sqlite.org/rescode.html#schema>).
  package func inTransaction<T>(_ body: () throws -> T) throws -> T {
    if isInTransaction {
      try execute(sql: "SAVEPOINT nested")
      do {
        let result = try body()
        try execute(sql: "RELEASE nested")
        return result
      } catch {
        try? execute(sql: "ROLLBACK TO nested")
        try? execute(sql: "RELEASE nested")
        throw error
      }
    }
    try execute(sql: "BEGIN IMMEDIATE")
    do {
      // Another connection may have changed the schema since this one read it (a first import drops and creates
      // `article`'s triggers and indexes): a statement that reads the database now makes SQLite load the new
      // schema before `body` prepares its own. Without it, SQLite 3.40 fails the prepare of a `DELETE FROM
      // article` (foreign keys on) with SQLITE_SCHEMA "no such table: article".
      try execute(sql: "SELECT 1 FROM sqlite_master LIMIT 1")
      let result = try body()
      try execute(sql: "COMMIT")
      return result
    } catch {
      if isInTransaction { try? execute(sql: "ROLLBACK") }
      throw error
    }
  }

  /// Sets the journal mode (`PRAGMA journal_mode = mode`: `WAL`, `DELETE`) and returns the mode SQLite reports
  /// after it, trying again for up to ``busyTimeout`` seconds while another connection's lock refuses the change.
  /// SQLite calls no busy handler for a change between WAL and a rollback journal: it fails at once with
  /// `SQLITE_BUSY` while another connection has a WAL database open (to leave WAL) or holds the write lock of a
  /// rollback-journal one (to enter WAL), as during ``StorageContext/compact(path:busyTimeout:)``.
  ///
  /// - Throws: ``SQLiteError``: `SQLITE_BUSY` when the lock is still held after the busy timeout.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>,
  /// <https://www.sqlite.org/c3ref/busy_timeout.html>
  package func setJournalMode(_ mode: String) throws -> String? {
    let deadline = ContinuousClock.now + .milliseconds(Int(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
    var pause: Int32 = 1
    while true {
      do {
        return try scalarString("PRAGMA journal_mode = \(mode)")
      } catch let error as SQLiteError where error.code == SQLiteError.busy && ContinuousClock.now < deadline {
        // As SQLite's own busy handler: short pauses first, then up to 100 ms.
        sqlite3_sleep(pause)
        pause = min(pause * 2, 100)
      }
    }
  }

  /// Reads one integer from a `PRAGMA` or a one-value query.
  package func scalarInt(_ sql: String) throws -> Int64? {
    try makeStatement(sql).fetchOne { $0.int64(0) } ?? nil
  }

  /// ``scalarInt(_:)`` through the statement cache (``cachedStatement(_:)``): for a one-value query every save runs
  /// (a refresh of many feeds saves each in its own transaction; preparing such a query costs more than running it).
  package func cachedScalarInt(_ sql: String) throws -> Int64? {
    try cachedStatement(sql).fetchOne { $0.int64(0) } ?? nil
  }

  /// Reads one text value from a `PRAGMA` or a one-value query.
  package func scalarString(_ sql: String) throws -> String? {
    try makeStatement(sql).fetchOne { $0.string(0) } ?? nil
  }

  /// Calls `trace` with the SQL of every statement this connection starts (`sqlite3_trace_v2`, `SQLITE_TRACE_STMT`),
  /// or stops tracing when `trace` is `nil`. Trigger programs, and the statements a virtual table such as FTS5 runs
  /// inside one of this connection's statements, are not reported.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/c3ref/trace_v2.html>
  package func setTrace(_ trace: (@Sendable (String) -> Void)?) {
    guard let trace else {
      sqlite3_trace_v2(handle, 0, nil, nil)
      traceBox = nil
      return
    }
    let box = TraceBox(trace)
    traceBox = box
    sqlite3_trace_v2(
      handle, UInt32(SQLITE_TRACE_STMT),
      { _, context, statement, text in
        guard let context, let statement else { return 0 }
        let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
        // A trigger program starts with the text "-- TRIGGER name"; it is part of the statement already reported.
        if let text, text.load(as: UInt8.self) == UInt8(ascii: "-") { return 0 }
        // FTS5 runs statements of its own inside ours (shadow tables): report only the statement being stepped.
        if let stepping = box.stepping, stepping != OpaquePointer(statement) { return 0 }
        if let sql = sqlite3_sql(OpaquePointer(statement)) { box.trace(String(cString: sql)) }
        return 0
      }, Unmanaged.passUnretained(box).toOpaque())
  }

  func error(_ rc: Int32, sql: String?) -> SQLiteError {
    let extended = sqlite3_extended_errcode(handle)
    // `sqlite3_errmsg` describes the most recent failing API call; prefer its code when it matches `rc`.
    let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
    // The errno of the failing system call, e.g. ENOSPC behind a `SQLITE_IOERR` while growing `-shm`.
    let systemError = sqlite3_system_errno(handle)
    return SQLiteError(
      extendedCode: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path,
      systemErrorNumber: (code & 0xFF) == SQLITE_IOERR || (code & 0xFF) == SQLITE_CANTOPEN
        || (code & 0xFF) == SQLITE_FULL ? (systemError == 0 ? nil : systemError) : nil)
  }
}

/// Keeps a trace callback alive for as long as SQLite may call it.
final class TraceBox {
  let trace: @Sendable (String) -> Void
  /// The statement ``Statement/step()`` is running, if any.
  var stepping: OpaquePointer?
  init(_ trace: @escaping @Sendable (String) -> Void) { self.trace = trace }
}
