import CSQLite
import Foundation
import Synchronization

/// The storage context: the owner of a SQLite database that the repository reads and writes through.
///
/// It plays the part of Core Data's `viewContext` in the classic iOS design: an object created once by the
/// composition root and injected wherever data is saved or read. Its API is `Sendable` and `async`.
///
/// For example:
/// ```swift
/// let storage = try StorageContext(path: "/tmp/news.sqlite")
/// let saved = try await storage.saveArticles(articles, forQuery: query.cacheKey, fetchedAt: .now())
/// let newest = try await storage.articles(limit: 20)
/// ```
///
/// - One writer: a single connection, owned by an actor running on its own thread, performs every write in a
///   `BEGIN IMMEDIATE` transaction that commits whole or rolls back.
/// - Readers that a write never blocks: a small pool of read-only connections (WAL mode), each read in its own
///   transaction, so it sees the last committed state and never half of a save in progress.
/// - Opening sets WAL, a busy timeout, `foreign_keys=ON`, `synchronous=NORMAL`; runs the numbered migrations in
///   one transaction; then creates or extends the tables of the declared entities. A database whose schema is
///   newer than this build's is refused before anything is written to it.
/// - Committed changes, of every write, are published to ``changes(bufferLimit:)`` observers, in commit order.
/// - ``close()`` ends it: calls made afterwards throw ``StorageError/Kind/closed``.
///
/// Related SQLite documentation: <https://www.sqlite.org/wal.html>, <https://www.sqlite.org/isolation.html>
public final class StorageContext: Sendable {
  /// The database file's path.
  public let path: String
  /// The entities of this store: the built-in `EntityDescription/article`, the app's, any other entity recorded in
  /// the database by an earlier open (so a tool can read any entity without its declaration), and those it learned
  /// since it was opened (``learn(_:)``: an import of a mapping whose entities it lacked).
  package var entities: [EntityDescription] { entityList.withLock { $0 } }
  /// ``entities``, which ``learn(_:)`` extends.
  let entityList: Mutex<[EntityDescription]>
  /// What to evict after each save of articles.
  package let eviction: EvictionPolicy
  /// Why the database was opened read-only, or `nil` when it is writable. When the file cannot be opened for
  /// writing (a read-only folder or mount, a full file system) but holds a current schema, and nothing waits in a
  /// `-wal` or `-journal` beside it, the context opens it read-only and immutable: reads work, and every write throws
  /// this error (`.readOnly`, `.diskFull`, or the I/O error that stopped the normal open).
  public let readOnlyCause: StorageError?

  let writer: SerialConnection
  /// The read-only connections; empty for `:memory:` and a database opened read-only, whose reads use the writer.
  let readers: ReaderPool
  let broadcaster = ChangeBroadcaster()
  /// What tests inject (``StorageFaults``); empty in the product.
  private let faults: StorageFaults
  private let isClosed = Atomic<Bool>(false)

  /// The schema version this build creates and understands.
  package static var schemaVersion: Int { Migrator(migrations: Schema.migrations).latestVersion }

  /// Opens or creates the database at `path`, creating its parent folder if needed, and migrates it.
  ///
  /// - Parameters:
  ///   - path: the database file (`:memory:` for a private in-memory database, with no read pool).
  ///   - entities: the app's entities, beside the built-in `article`.
  ///   - eviction: what to evict after saves of articles; none by default.
  ///   - readers: the number of read-only connections (at least 1).
  ///   - busyTimeout: seconds to wait for another process's lock before failing with `.busy`.
  /// - Throws: ``StorageError`` naming `path`: `.newerSchema` (file untouched), `.notADatabase`, `.cannotOpen`,
  ///   `.readOnly`, `.diskFull`, `.busy`, `.incompatibleSchema`. A database that can be read but not written (a
  ///   read-only folder or mount, a full disk) opens read-only instead: see ``readOnlyCause``.
  public convenience init(
    path: String, entities: [EntityDescription] = [], eviction: EvictionPolicy = .none, readers: Int = 2,
    busyTimeout: Double = 5
  ) throws(StorageError) {
    try self.init(
      path: path, entities: entities, eviction: eviction, readers: readers, busyTimeout: busyTimeout,
      faults: StorageFaults())
  }

  /// Refuses a file that is there, not empty, and does not begin with SQLite's header (`"SQLite format 3\0"`,
  /// sqlite.org/fileformat.html §1.3.1). SQLite itself refuses such a file at its first read only when it holds a
  /// whole header's worth of bytes: a shorter one (a 1-byte text file given as `--db`) it takes for an empty
  /// database and overwrites. An empty file is a new database (and, in WAL mode, may have its pages in `-wal`).
  ///
  /// - Throws: ``StorageError`` `.notADatabase` naming `path`.
  static func refuseNonDatabase(_ path: String) throws(StorageError) {
    guard path != ":memory:", let file = FileHandle(forReadingAtPath: path) else { return }
    defer { try? file.close() }
    let header = (try? file.read(upToCount: 16)) ?? Data()
    guard !header.isEmpty, header != Data("SQLite format 3\u{0}".utf8) else { return }
    throw StorageError(
      kind: .notADatabase, path: path,
      underlying: SQLiteError(extendedCode: SQLITE_NOTADB, message: "file is not a database", path: path))
  }

  /// Opens the database like ``init(path:entities:eviction:readers:busyTimeout:)``, with `faults` injected into its
  /// transactions (for tests and test helpers), and every connection running on `executor` when one is given.
  ///
  /// - Parameter executor: the executor of every connection (writer and readers) instead of a dispatch queue each:
  ///   `news` gives its ``CallingThreadExecutor``, so that a one-shot command reads without a thread hop.
  ///
  /// - Parameter willMigrate: called with the stored and the new schema version just before the numbered migrations
  ///   run on a store made by an older build (never for a new store, nor for one already current), so that a
  ///   command can say why it pauses: a migration that rebuilds a table (12) takes seconds for 100k articles. That
  ///   is here, or at the first write when the store's schema reads as this build's
  ///   (``Migrator/readsAsLatest(_:)``).
  package init(
    path: String, entities: [EntityDescription] = [], eviction: EvictionPolicy = .none, readers: Int = 2,
    busyTimeout: Double = 5, faults: StorageFaults, executor: CallingThreadExecutor? = nil,
    willMigrate: (@Sendable (_ from: Int, _ to: Int) -> Void)? = nil
  ) throws(StorageError) {
    let makeExecutor = { (label: String) -> any SerialExecutor in executor ?? QueueExecutor(label: label) }
    self.path = path
    self.faults = faults
    self.eviction = eviction
    var all = [EntityDescription.article]
    for entity in entities {
      if entity.name == EntityDescription.article.name {
        all[0] = all[0].extended(with: entity)
      } else if !all.contains(where: { $0.name == entity.name }) {
        all.append(entity)
      }
    }
    for entity in all {
      if let problem = entity.validationProblem() {
        throw StorageError(kind: .incompatibleSchema(problem), path: path)
      }
    }
    try Self.refuseNonDatabase(path)
    let openReader: @Sendable () throws(StorageError) -> Connection = { () throws(StorageError) -> Connection in
      do throws(SQLiteError) {
        // Read-write but query_only: a read-only connection cannot checkpoint, and when it is the last to close it
        // would leave the committed data in the -wal file beside a main file that lacks it.
        let connection = try Connection(path: path, busyTimeout: busyTimeout)
        try connection.execute(sql: "PRAGMA query_only = ON")
        try connection.execute(sql: "PRAGMA foreign_keys = ON")
        // Pages read through a memory map, not copied by a read(2) each into a page cache of 2 MiB: a count over a
        // 100,000-article store spent more time in the system than in SQLite without it (docs/PERFORMANCE.md,
        // "news read"). <https://www.sqlite.org/mmap.html>
        try connection.execute(sql: "PRAGMA mmap_size = \(Self.readerMapSize)")
        return connection
      } catch {
        throw StorageError(error, path: path)
      }
    }
    var pool: [SerialConnection] = []
    if let (reader, recorded) = Self.openCurrent(path: path, entities: all, openReader: openReader) {
      // Nothing to create, migrate or record: the writer opens at the first write, with the same checks (which then
      // find nothing to do), and a store that is only read (`news list`, `news search`) opens one connection.
      readOnlyCause = nil
      let declared = all
      all = Self.merging(recorded, into: all)
      entityList = Mutex(all)
      let captured = all
      writer = SerialConnection(
        opening: { () throws(StorageError) -> Connection in
          let connection = try Self.openWriter(
            path: path, busyTimeout: busyTimeout, entities: declared, willMigrate: willMigrate)
          do throws(SQLiteError) {
            try ChangeCapture.install(on: connection, entities: captured)
          } catch {
            throw StorageError(error, path: path)
          }
          return connection
        }, path: path, executor: makeExecutor("OfflineNews.writer"), discardable: false)
      for index in 1..<max(1, readers) {
        pool.append(
          SerialConnection(
            opening: openReader, path: path, executor: makeExecutor("OfflineNews.reader\(index)"), discardable: true))
      }
      // Last: the pool serves its free readers from the end, so the first read gets the open one.
      pool.append(SerialConnection(reader, executor: makeExecutor("OfflineNews.reader0"), reopen: openReader))
      self.readers = ReaderPool(pool, path: path)
      return
    }
    let writeConnection: Connection
    do {
      writeConnection = try Self.openWriter(
        path: path, busyTimeout: busyTimeout, entities: all, willMigrate: willMigrate)
      readOnlyCause = nil
    } catch {
      guard let (connection, cause) = Self.openReadOnlyFallback(path: path, after: error, entities: all) else {
        throw error
      }
      writeConnection = connection
      readOnlyCause = cause
    }
    all = Self.merging(try Self.recordedEntities(writeConnection, path: path), into: all)
    entityList = Mutex(all)
    if readOnlyCause == nil {
      do {
        try ChangeCapture.install(on: writeConnection, entities: all)
      } catch {
        throw StorageError(error, path: path)
      }
    }
    writer = SerialConnection(writeConnection, executor: makeExecutor("OfflineNews.writer"))
    if path != ":memory:" && readOnlyCause == nil {
      for index in 0..<max(1, readers) {
        pool.append(
          SerialConnection(
            try openReader(), executor: makeExecutor("OfflineNews.reader\(index)"), reopen: openReader))
      }
    }
    self.readers = ReaderPool(pool, path: path)
  }

  /// The declared entities with those recorded in the database: the built-in article with the extensions mappings
  /// gave it (see `EntityDescription.extended(with:)`), and every other recorded entity after the declared ones.
  static func merging(_ recorded: [EntityDescription], into declared: [EntityDescription])
    -> [EntityDescription]
  {
    var all = declared
    for entity in recorded {
      if let index = all.firstIndex(where: { $0.name == entity.name }) {
        if entity.name == EntityDescription.article.name { all[index] = all[index].extended(with: entity) }
      } else {
        all.append(entity)
      }
    }
    return all
  }

  /// A reader connection on a database that needs nothing from the writer's open: an existing, writable, regular
  /// file, in WAL mode, at this build's schema version or one it reads as its own (``Migrator/readsAsLatest(_:)``:
  /// the migration then runs at the first write, and reads meanwhile do not wait for another process's), every
  /// declared entity recorded as declared (so
  /// `EntityMigrator` has no table to create or extend); with the recorded entities. `nil` when any of it does not hold, for
  /// the full open to deal with (create, migrate, refuse, or open read-only).
  private static func openCurrent(
    path: String, entities: [EntityDescription], openReader: () throws(StorageError) -> Connection
  ) -> (Connection, [EntityDescription])? {
    guard path != ":memory:", isRegularFile(path, nonEmpty: true), access(path, R_OK | W_OK) == 0 else { return nil }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard access(folder, W_OK | X_OK) == 0, let connection = try? openReader() else { return nil }
    do {
      guard sqlite3_db_readonly(connection.handle, "main") == 0,
        try connection.scalarString("PRAGMA journal_mode")?.lowercased() == "wal",
        Migrator(migrations: Schema.migrations).readsAsLatest(
          try Migrator(migrations: Schema.migrations).currentVersion(connection))
      else { return nil }
      let definitions = try recordedDefinitions(connection, path: path)
      // As recorded: then `EntityMigrator` has nothing to create or add (it compares the definitions' JSON texts;
      // one written by an older build in another layout is written again at the writer's open, at the first write).
      // A definition whose text is the declared description's is that description, without decoding it.
      guard entities.allSatisfy({ entity in definitions.contains { $0.name == entity.name } }) else { return nil }
      var recorded: [EntityDescription] = []
      for (name, text) in definitions {
        guard let entity = entities.first(where: { $0.name == name }) else {
          if let other = decodedDefinition(text) { recorded.append(other) }
          continue
        }
        if text == entity.definitionText {
          recorded.append(entity)
          continue
        }
        guard let previous = decodedDefinition(text) else { return nil }
        let declared = entity.name == EntityDescription.article.name ? entity.extended(with: previous) : entity
        guard declared == previous else { return nil }
        recorded.append(previous)
      }
      return (connection, recorded)
    } catch {
      return nil
    }
  }

  /// The file SQLite opens for `path`: its symbolic links resolved (`realpath(3)`), as SQLite resolves them before
  /// it names the `-wal`, `-shm` and `-journal` beside the database. `path` itself when it does not resolve (no
  /// file yet, `:memory:`).
  package static func databaseFile(_ path: String) -> String {
    guard path != ":memory:", let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The bytes the store at `path` takes on disk: the database file and its `-wal` (beside the file a link leads
  /// to), 0 for what does not exist.
  package static func bytesOnDisk(_ path: String) -> Int64 {
    let file = databaseFile(path)
    var total: Int64 = 0
    for suffix in ["", "-wal"] {
      var info = stat()
      if stat(file + suffix, &info) == 0 { total += Int64(info.st_size) }
    }
    return total
  }

  /// Whether `path` is a regular file, or a symbolic link to one (`stat`), of at least one byte with `nonEmpty`.
  private static func isRegularFile(_ path: String, nonEmpty: Bool) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
    return !nonEmpty || info.st_size > 0
  }

  /// The page size, in bytes, of a database this store creates (SQLite's default is 4,096; a power of two from 512
  /// to 65,536, fixed when the first page is written: <https://www.sqlite.org/pragma.html#pragma_page_size>). A
  /// store opened on an existing database keeps that database's page size.
  ///
  /// Why 16 KiB: inside a transaction, a page read that misses the page cache is first looked up in the WAL index,
  /// whose hash tables (4,096 frames each) are searched from the newest back, so the cost of a miss grows with the
  /// transaction. A first import of a million articles writes its whole database in one transaction, and with 4 KiB
  /// pages it had four times as many frames to search, and four times as many reads past the page cache (its key
  /// index outgrows the cache): 48 s, 1.16 times ten 100,000-article imports. With 16 KiB pages: 37–41 s, and 3.6–3.7 s
  /// instead of 4.1–4.3 s for 100,000 articles; re-imports as fast, files a little smaller. The cost: a store of
  /// 20 articles takes 360 KB instead of about 100 KB. 8 KiB and 32 KiB were slower at a million articles
  /// (docs/PERFORMANCE.md, "Page size").
  package static let newDatabasePageSize = 16_384

  /// How much of the store a reading connection maps into memory (`PRAGMA mmap_size`, bytes): 1 GiB, a store of
  /// about 500,000 articles whole; past that, pages are read as without a map.
  static let readerMapSize = 1 << 30

  /// `.cannotOpen` saying what is at `path` when something other than a regular file is there (`stat`, which
  /// follows a symbolic link as SQLite does: a directory, a device, or a link to one); `nil` for a regular file, a
  /// link to one, or nothing.
  static func notARegularFile(_ path: String) -> StorageError? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG else { return nil }
    let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file (a device or a socket)"
    var error = StorageError(kind: .cannotOpen, path: path)
    error.cause = "it is \(what), not a database file: give the path of a database file, or of one to create"
    return error
  }

  /// Sets `connection`'s journal mode to `mode` (``Connection/setJournalMode(_:)``: waiting the busy timeout), and
  /// throws a `refused` ``StorageError`` naming `path` when SQLite reports another mode after it.
  static func switchJournalMode(_ connection: Connection, to mode: String, path: String, refused: StorageError.Kind)
    throws
  {
    let got = try connection.setJournalMode(mode)
    guard got?.lowercased() == mode.lowercased() else {
      throw StorageError(
        kind: refused, path: path,
        underlying: SQLiteError(
          extendedCode: refused == .busy ? 5 : 1, message: "journal_mode=\(mode) was refused (got \(got ?? "nothing"))")
      )
    }
  }

  private static func openWriter(
    path: String, busyTimeout: Double, entities: [EntityDescription],
    willMigrate: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(StorageError) -> Connection {
    if path != ":memory:" {
      // Only a regular file (or nothing yet) can be a database: a directory or a device (/dev/null) is refused
      // before SQLite creates anything beside it. A symbolic link is followed (`stat`, not `lstat`), as SQLite
      // follows it, its `-wal` and `-shm` beside the target: a store kept on another disk through a link opens;
      // a link to nothing yet is created at its target, as a missing file is.
      if let error = notARegularFile(path) { throw error }
      let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
      var isDirectory: ObjCBool = false
      if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
        do {
          try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
          throw StorageError(kind: .cannotOpen, path: path)
        }
      } else if !isDirectory.boolValue {
        throw StorageError(kind: .cannotOpen, path: path)
      }
    }
    let migrator = Migrator.store
    do {
      let connection = try Connection(path: path, busyTimeout: busyTimeout)
      // Refuse a newer schema before any write, WAL switch included: the file stays byte-identical.
      let found = try migrator.currentVersion(connection)
      guard found <= migrator.latestVersion else {
        throw StorageError(kind: .newerSchema(found: found, supported: migrator.latestVersion), path: path)
      }
      try connection.execute(sql: "PRAGMA foreign_keys = ON")
      // Before the first write: SQLite fixes a database's page size when it writes its first page, and ignores the
      // pragma on a database with pages (an existing store keeps its own; see ``newDatabasePageSize``).
      let isNew = try connection.scalarInt("PRAGMA page_count") == 0
      if isNew {
        try connection.execute(sql: "PRAGMA page_size = \(Self.newDatabasePageSize)")
      }
      if path != ":memory:" {
        // A new database's switch to WAL writes its first page through a rollback journal, synced four times
        // (journal, folder, journal, file) before the first request of a first refresh could go out. It holds
        // nothing to lose: with `synchronous = OFF` for the switch only (NORMAL again below), a power cut leaves an
        // empty file or an empty database in WAL mode, each opened as new (docs/PERFORMANCE.md, "The start of a
        // refresh").
        if isNew { try connection.execute(sql: "PRAGMA synchronous = OFF") }
        // Waits the busy timeout while a compaction holds the rollback journal's write lock (`setJournalMode`).
        try switchJournalMode(connection, to: "WAL", path: path, refused: .other)
      }
      try connection.execute(sql: "PRAGMA synchronous = NORMAL")
      // A large save journals every page each multi-row upsert touches (a statement journal): in memory, not in a
      // temporary file (`SQLITE_CONFIG_STMTJRNL_SPILL` −1, Connection's process configuration); SQLite's sorter
      // spills its runs to temporary files (`temp_store = FILE`): with `MEMORY` the sorts of the indexes a 1M-article
      // first import builds at its end held 300 MB (docs/PERFORMANCE.md). A 48 MB page cache keeps a 100k-article
      // save from spilling pages to the WAL and reading them back (news-bench, when the cache was raised from
      // SQLite's default: −40 % save time). 64 MB took the same CPU time at 100k articles, first import and
      // re-import, and 17 MB more at the import's peak; 32 MB cost 18 % more CPU at 1M (docs/PERFORMANCE.md,
      // "Memory of a first import at 100k").
      try connection.execute(sql: "PRAGMA temp_store = FILE")
      try connection.execute(sql: "PRAGMA cache_size = -49152")
      if found < migrator.latestVersion {
        if found > 0 { willMigrate?(found, migrator.latestVersion) }
        try migrator.migrate(connection)
      }
      try EntityMigrator(entities: entities).reconcile(connection)
      return connection
    } catch let error as StorageError {
      var error = error
      if error.path.isEmpty { error.path = path }
      throw error
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    } catch {
      throw StorageError(kind: .other, path: path)
    }
  }

  /// Opens `path` read-only and immutable after `error` stopped the normal open, when that is safe: the error is
  /// one a read-only or full file system gives, the file is a regular, non-empty file with no committed data in a
  /// `-wal` and no hot `-journal` beside it (absent or empty: an immutable connection reads neither), its schema is
  /// this build's (or one it reads as its own, ``Migrator/readsAsLatest(_:)``) and every declared entity is already
  /// there. Returns the connection and the error later writes throw.
  private static func openReadOnlyFallback(path: String, after error: StorageError, entities: [EntityDescription])
    -> (Connection, StorageError)?
  {
    let cause: StorageError
    switch error.kind {
    case .diskFull: cause = error
    case .readOnly, .cannotOpen: cause = StorageError(kind: .readOnly, path: path, underlying: error.underlying)
    // An I/O error whose errno says neither "full" nor "read-only" (StorageError.init classifies those): reads may
    // still work, and writes repeat the error as it was.
    case .other where error.underlying?.code == SQLiteError.ioError: cause = error
    default: return nil
    }
    guard path != ":memory:", isRegularFile(path, nonEmpty: true) else { return nil }
    // An immutable read uses neither: it would miss rows committed to a -wal, and would not roll back the half-written
    // transaction a hot journal (a crash in rollback-journal mode) leaves in the main file. Both are beside the file
    // a symbolic link leads to.
    let file = databaseFile(path)
    for suffix in ["-wal", "-journal"] {
      var info = stat()
      if stat(file + suffix, &info) == 0, info.st_size != 0 { return nil }
    }
    do {
      let connection = try Connection(path: path, immutable: true)
      // This build's schema, or an older one it reads as its own (a migration that could not run for want of room).
      let migrator = Migrator(migrations: Schema.migrations)
      guard migrator.readsAsLatest(try migrator.currentVersion(connection)) else { return nil }
      // Writes nothing when every entity is recorded as declared; anything else fails on the read-only connection.
      try EntityMigrator(entities: entities).reconcile(connection)
      return (connection, cause)
    } catch {
      return nil
    }
  }

  /// The entities recorded in `schema_entity`, by name; a definition that cannot be decoded is left out.
  private static func recordedEntities(_ db: Connection, path: String) throws(StorageError) -> [EntityDescription] {
    try recordedDefinitions(db, path: path).compactMap { decodedDefinition($0.definition) }
  }

  /// The rows of `schema_entity`, by name: each entity's name and the JSON text of its description.
  static func recordedDefinitions(_ db: Connection, path: String) throws(StorageError)
    -> [(name: String, definition: String)]
  {
    do {
      return try db.makeStatement("SELECT name, definition FROM schema_entity ORDER BY name").fetchAll {
        (name: $0.string(0) ?? "", definition: $0.string(1) ?? "")
      }
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    } catch {
      throw StorageError(kind: .other, path: path)
    }
  }

  /// A recorded definition decoded, or `nil` when it is not a description's JSON.
  static func decodedDefinition(_ text: String) -> EntityDescription? {
    try? JSONDecoder().decode(EntityDescription.self, from: Data(text.utf8))
  }

  /// The description of the entity named `name`.
  ///
  /// - Throws: ``StorageError`` `.invalidRequest` when there is none.
  package func entity(_ name: String) throws(StorageError) -> EntityDescription {
    guard let entity = entities.first(where: { $0.name == name }) else {
      throw StorageError(kind: .invalidRequest("no entity named \"\(name)\""), path: path)
    }
    return entity
  }

  /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` … `COMMIT`) on the writer connection; if it throws,
  /// everything it did is rolled back and the error rethrown, SQLite errors as ``StorageError``.
  ///
  /// For example:
  /// ```swift
  /// try await storage.write { db in try db.execute("UPDATE article SET isRead = 1 WHERE sourceName = ?1", [.text("BBC")]) }
  /// ```
  ///
  /// The rows it inserts, updates and deletes in the tables of ``entities`` (and their to-many join tables, as an
  /// update of the owner) are published to ``changes(bufferLimit:)`` after the commit, like the changes of every
  /// other write. A savepoint `body` rolls back itself still counts as changed.
  ///
  /// - Throws: ``StorageError`` only (`.closed` after ``close()``, `.readOnly` and the like on a read-only database):
  ///   what `body` throws becomes one as ``storageErrors(_:)`` says (a SQLite error names the file; anything else is
  ///   `.other`).
  package func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws(StorageError) -> T
  {
    try await performWrite(capturing: true) { db in (try body(db), []) }
  }

  /// Runs `body` in a read transaction on a free read-only connection, waiting for one while every reader is in
  /// use (the writer for `:memory:` and a database opened read-only). It sees the last committed state as of its
  /// first read, however long it runs, and never waits for a write.
  ///
  /// When `body` or the transaction's `COMMIT` fails, the transaction is rolled back before the reader serves
  /// another read; a reader that cannot end its transaction is closed and replaced by a new connection.
  ///
  /// - Throws: ``StorageError`` only: `.closed` after ``close()``, `.cancelled` when the task is cancelled while it
  ///   waits for a reader, and what `body` throws as ``storageErrors(_:)`` maps it.
  package func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws(StorageError) -> T {
    try checkOpen()
    let beforeCommit = faults.beforeReadCommit
    return try await storageErrors {
      if readers.readers.isEmpty { return try await writer.read(body, beforeCommit: beforeCommit) }
      let reader = try await readers.checkOut()
      defer { readers.checkIn(reader) }
      return try await reader.read(body, beforeCommit: beforeCommit)
    }
  }

  /// A stream of the changes committed from now on: for each transaction, in commit order, one
  /// ``StorageEvent/change(_:)`` per entity it changed. Every write publishes, raw `write(_:)` included.
  ///
  /// For example:
  /// ```swift
  /// for await event in storage.changes() {
  ///   switch event {
  ///   case .change(let change) where change.entity == "article": print(change.inserted)
  ///   case .change: break
  ///   case .missedChanges: reloadEverything()
  ///   }
  /// }
  /// ```
  ///
  /// Memory is bounded: an observer that falls `bufferLimit` changes behind loses the changes it has not taken and
  /// gets one ``StorageEvent/missedChanges`` in their place, then the changes committed after it. The stream ends
  /// when the context is closed (``close()``) or deinitialized, or when the task iterating it is cancelled.
  ///
  /// - Parameter bufferLimit: how many changes (at least 1) may wait for the observer.
  public func changes(bufferLimit: Int = 1000) -> AsyncStream<StorageEvent> {
    broadcaster.stream(bufferLimit: bufferLimit)
  }

  /// Calls `trace` with the SQL of every statement the writer starts from now on (`sqlite3_trace_v2`), or stops
  /// tracing when `nil`. For tests and diagnostics: it shows how many statements a save costs.
  ///
  /// - Throws: ``StorageError`` `.closed` after ``close()``.
  package func traceWrites(_ trace: (@Sendable (String) -> Void)?) async throws(StorageError) {
    try checkOpen()
    try await storageErrors { try await writer.run { db in db.setTrace(trace) } }
  }

  /// Lets the writer's commits through `gate` from now on (`nil`: every commit, as before): once the gate is closed,
  /// each later commit is turned into a rollback (``CommitGate``). A read-only store has no writer to gate.
  ///
  /// - Throws: ``StorageError`` `.closed` after ``close()``.
  package func gateCommits(_ gate: CommitGate?) async throws(StorageError) {
    try checkOpen()
    guard readOnlyCause == nil else { return }
    try await storageErrors { try await writer.run { db in CommitGate.install(gate, on: db) } }
  }

  /// The schema version stored in the database.
  package func storedSchemaVersion() async throws(StorageError) -> Int {
    try await read { Int(try $0.scalarInt("PRAGMA user_version") ?? 0) }
  }

  /// The database file's pages: their size in bytes, how many the file has, and how many of them are free (left by
  /// deleted rows, reused by later writes; ``compact(path:busyTimeout:)`` gives them back to the file system).
  /// Pages still in the `-wal` are not counted.
  package func pageUsage() async throws(StorageError) -> (pageSize: Int, pages: Int, freePages: Int) {
    try await read { db in
      (
        Int(try db.scalarInt("PRAGMA page_size") ?? 0), Int(try db.scalarInt("PRAGMA page_count") ?? 0),
        Int(try db.scalarInt("PRAGMA freelist_count") ?? 0)
      )
    }
  }

  /// Closes the database: reads and writes already running finish, then every connection is closed (the last one
  /// checkpoints the WAL into the database file and removes the `-wal`); every call made after `close()` begins
  /// throws ``StorageError`` `.closed`, and every ``changes(bufferLimit:)`` stream ends. Calling it again does
  /// nothing more.
  ///
  /// Without `close()`, the connections close when the context is deinitialized.
  public func close() async {
    isClosed.store(true, ordering: .sequentiallyConsistent)
    readers.close()
    for reader in readers.readers { await reader.close() }
    await writer.close()
    broadcaster.finish()
  }

  private func checkOpen() throws(StorageError) {
    if isClosed.load(ordering: .sequentiallyConsistent) { throw StorageError(kind: .closed, path: path) }
  }

  /// Writes in a transaction, then publishes the changes the body reports, after the commit; its errors are
  /// ``StorageError`` only (see ``storageErrors(_:)``).
  func writeAndPublish<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> (T, [StorageChange]))
    async throws(StorageError) -> T
  {
    try await performWrite(capturing: false, body)
  }

  /// The one path of every write: a `BEGIN IMMEDIATE` transaction on the writer, the test's fault right before
  /// `COMMIT`, then — on the writer, right after the commit, so that observers see changes in commit order — the
  /// publication of what changed: what `body` reports, or, `capturing`, the rows its statements changed in the
  /// entities' tables (``ChangeCapture``).
  private func performWrite<T: Sendable>(
    capturing: Bool, _ body: @escaping @Sendable (Connection) throws -> (T, [StorageChange])
  ) async throws(StorageError) -> T {
    try checkOpen()
    if let readOnlyCause { throw readOnlyCause }
    let broadcaster = self.broadcaster
    let beforeCommit = faults.beforeWriteCommit
    return try await storageErrors {
      try await writer.run { db in
        let capture = capturing ? db.changeCapture : nil
        capture?.begin()
        defer { capture?.stop() }
        let (result, changes) = try db.inTransaction {
          var (result, changes) = try body(db)
          if let capture { changes += capture.collected() }
          try beforeCommit?()
          return (result, changes)
        }
        broadcaster.publish(changes)
        return result
      }
    }
  }

  /// Runs `body`, whose failures are storage failures, with its errors as ``StorageError`` only: SQLite errors name
  /// the file, a cancelled wait for a reader (or a `CancellationError` of the body) is `.cancelled`, anything else
  /// `.other` with the error's description as its cause. Every call of the context goes through it (the raw
  /// `read`/`write` included), so that each declares `throws(StorageError)`.
  package func storageErrors<T>(_ body: () async throws -> T) async throws(StorageError) -> T {
    do {
      return try await body()
    } catch var error as StorageError {
      if error.path.isEmpty { error.path = path }
      throw error
    } catch let error as SQLiteError {
      throw StorageError(error, path: path)
    } catch is CancellationError {
      throw StorageError(kind: .cancelled, path: path)
    } catch {
      var other = StorageError(kind: .other, path: path)
      other.cause = String(describing: error)
      throw other
    }
  }
}
