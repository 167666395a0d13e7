/// The one owner of one SQLite connection: every use of the connection runs on this actor, on its executor: a
/// dispatch queue of its own (``QueueExecutor``), or the one thread of a command-line process
/// (``CallingThreadExecutor``).
///
/// A reader whose transaction cannot be ended (its `COMMIT` and then its `ROLLBACK` failed) is discarded: the
/// connection is closed and the next use opens a new one with `reopen`. A connection may also be opened at its
/// first use (``init(opening:path:label:)``): a store that is only read never opens its writer. After ``close()``
/// every use throws ``StorageError/Kind/closed``.
actor SerialConnection {
  private let executor: any SerialExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  /// The database file's path, for errors.
  nonisolated let path: String
  /// The open connection; `nil` once discarded or closed.
  private var connection: Connection?
  /// Opens the connection at its first use, or a replacement for a discarded one.
  private let reopen: (@Sendable () throws(StorageError) -> Connection)?
  /// Whether a connection left in a transaction is closed for `reopen` to replace (a reader's); never the writer's.
  private let discardable: Bool
  private var isClosed = false

  /// Owns `connection`, running on `executor`; a reader gives `reopen`, which replaces it once discarded.
  init(
    _ connection: Connection, executor: any SerialExecutor,
    reopen: (@Sendable () throws(StorageError) -> Connection)? = nil
  ) {
    self.connection = connection
    path = connection.path
    self.reopen = reopen
    discardable = reopen != nil
    self.executor = executor
  }

  /// Opens the connection with `open` at its first use, and again at the next use when that failed; a
  /// `discardable` one (a reader's) is also replaced once discarded.
  init(
    opening open: @escaping @Sendable () throws(StorageError) -> Connection, path: String,
    executor: any SerialExecutor, discardable: Bool
  ) {
    connection = nil
    self.path = path
    reopen = open
    self.discardable = discardable
    self.executor = executor
  }

  /// Runs `body` with the connection.
  ///
  /// - Throws: ``StorageError`` `.closed` after ``close()``; what `body` throws.
  func run<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
    try body(try current())
  }

  /// Runs `body` in a read transaction (`BEGIN DEFERRED` … `COMMIT`), so that every statement of it sees one
  /// committed state. When `body` or the `COMMIT` fails, the transaction is rolled back; a connection left in a
  /// transaction even then is discarded, so that no later read inherits an old snapshot or a failing `BEGIN`.
  ///
  /// - Parameter beforeCommit: a test's fault (``StorageFaults/beforeReadCommit``): its error stands for a failed
  ///   `COMMIT`.
  /// - Throws: ``StorageError`` `.closed` after ``close()``; SQLite's errors; what `body` throws.
  func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T, beforeCommit: (@Sendable () throws -> Void)?)
    throws -> T
  {
    let db = try current()
    try db.execute(sql: "BEGIN DEFERRED")
    do {
      let result = try body(db)
      try beforeCommit?()
      try db.execute(sql: "COMMIT")
      return result
    } catch {
      endTransaction(db)
      throw error
    }
  }

  /// Rolls back the transaction `db` has open, if any; discards the connection when that fails and it can be
  /// reopened (a reader).
  private func endTransaction(_ db: Connection) {
    guard db.isInTransaction else { return }
    let rolledBack: Bool
    do {
      try db.execute(sql: "ROLLBACK")
      rolledBack = true
    } catch {
      rolledBack = false
    }
    if (!rolledBack || db.isInTransaction) && discardable { connection = nil }
  }

  /// Closes a reader's connection while it is in no transaction (the next use opens a new one with `reopen`), so
  /// that it holds nothing of the database: a connection that has read in WAL mode keeps a shared lock on the WAL
  /// index until it closes. The writer's, and one without `reopen`, stays open.
  func releaseIdle() {
    guard discardable, let connection, !connection.isInTransaction else { return }
    self.connection = nil
  }

  /// Closes the connection (SQLite checkpoints the WAL when the last connection to a database closes). Idempotent;
  /// runs after every job already queued on this actor.
  func close() {
    isClosed = true
    connection = nil
  }

  private func current() throws(StorageError) -> Connection {
    if isClosed { throw StorageError(kind: .closed, path: path) }
    if let connection { return connection }
    guard let reopen else { throw StorageError(kind: .closed, path: path) }
    let fresh = try reopen()
    connection = fresh
    return fresh
  }
}
