import Foundation

/// The search index of a first import built on a second thread while the writer inserts the rows, in a private
/// side database, and copied into `article_fts` at the end of the save (``FirstImportSearchIndex``'s way when the
/// key index is set aside and `article_fts` holds no segment: the common, measured case of `news import` into a new
/// store).
///
/// The writer holds the main file's write lock for the whole save, so no second connection can write `article_fts`
/// meanwhile; and FTS5 costs a first import about a fifth of its CPU time (docs/PERFORMANCE.md, "Import against
/// sqlite-utils"), on the one core the writer runs on while the second has little to do. So the writer hands each
/// statement's bound values and rowids to the indexing thread (``send(_:)``), which gives them, folded as the view
/// `article_search_text` folds them (``SearchQuery/folded(_:)``: its `replace()`s; its `coalesce`s: the summary's
/// search text else the summary, the content's search text else the content, `fullText` being `NULL` in a new row),
/// to a contentless FTS5 table of the same columns, tokenizer and options in a private temporary database
/// (`sqlite3_open_v2("")`: deleted by SQLite when closed, and never linked in the file system on Unix, so a killed
/// import leaves nothing behind). A URL that comes again later in the save updates its row: the writer reads the
/// row's indexed text through `article_search_text` before and after the update, and the thread applies every
/// such change at the end, in rowid order (`'delete'` of the first text, insert of the last: FTS5 writes out its
/// pending terms whenever a rowid goes backwards, so one by one they would make a segment each). It then merges
/// the index into one segment (`optimize`), while the writer builds the table's indexes.
///
/// ``copy(into:)`` then replaces the rows of FTS5's shadow tables `article_fts_data` (the index's segments, its
/// structure and averages records), `article_fts_idx` (the segments' leaf index) and `article_fts_docsize` (the
/// token count of each column of each row) with the side database's, inside the save's transaction: a failed save
/// rolls all of it back. `article_fts_config` stays as it was (the side table takes its `pgsz`, the one setting
/// that shapes the segments). This relies on FTS5's on-disk format, not on its SQL interface: that a contentless
/// and an external-content table of the same columns and options have the same four shadow tables, of the same
/// schemas, whose records hold rowids, tokens, positions and sizes and nothing of where the text came from (FTS5's
/// `fts5_index.c` and `fts5_storage.c`); the format's version is the `version` row of `article_fts_config`, which
/// FTS5 checks when it opens a table, and the side index is used only when its version is the main table's.
/// `integrity-check` verifies the copied index against `article_search_text` (the tests run it after both paths).
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#contentless_tables>,
/// <https://www.sqlite.org/fts5.html#the_delete_command>, <https://www.sqlite.org/fts5.html#the_optimize_command>,
/// <https://www.sqlite.org/fts5.html#the_integrity_check_command>,
/// <https://www.sqlite.org/inmemorydb.html#temp_db> (the private temporary database)
final class SideSearchIndex {
  /// One statement's rows, as the writer bound them.
  struct Rows: Sendable {
    /// The bound values of the statement's rows, ``ArticleWriter/boundColumns`` per row.
    var arguments: [DatabaseValue]
    /// The rows inserted: their place among the statement's rows and their rowid.
    var inserted: [(row: Int, rowid: Int64)]
    /// The rows updated: their rowid and their indexed text before and after (`article_search_text`'s five columns).
    var updated: [(rowid: Int64, old: [DatabaseValue], new: [DatabaseValue])]
  }

  private let worker: Worker

  /// Opens the side database and starts the indexing thread when `article_fts` of `db` can be built beside the
  /// writer: its definition is the external-content table over `article_search_text` (migration 7's, whatever its
  /// tokenizer and options), it holds no segment and no row (nothing written to it since it was created or
  /// rebuilt empty), and its format version is this SQLite's. `nil` otherwise (the index is then built at the end,
  /// by ``FirstImportSearchIndex``).
  ///
  /// - Throws: ``SQLiteError`` from reading the main schema or creating the side database.
  init?(db: Connection) throws {
    guard
      let definition = try db.scalarString(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'article_fts'"),
      let side = Self.sideDefinition(definition),
      try db.scalarInt(
        """
        SELECT (SELECT count(*) FROM article_fts_data WHERE id NOT IN (1, 10))
          + (SELECT count(*) FROM article_fts_idx) + (SELECT count(*) FROM article_fts_docsize)
        """) == 0
    else { return nil }
    let version = try db.scalarInt("SELECT v FROM article_fts_config WHERE k = 'version'")
    let pageSize = try db.scalarInt("SELECT v FROM article_fts_config WHERE k = 'pgsz'")
    let filePageSize = try db.scalarInt("PRAGMA page_size") ?? 4096
    let connection = try Connection(path: "")
    try connection.execute(
      sql: """
        PRAGMA page_size = \(filePageSize);
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        PRAGMA cache_size = -\(Self.cacheKiB);
        \(side);
        BEGIN;
        """)
    guard try connection.scalarInt("SELECT v FROM article_fts_config WHERE k = 'version'") == version else {
      return nil
    }
    var settings: [(String, Int64)] = [
      ("hashsize", Self.hashSize), ("automerge", 0), ("crisismerge", 1999),
    ]
    if let pageSize { settings.append(("pgsz", pageSize)) }
    for (key, value) in settings {
      try connection.execute(
        "INSERT INTO article_fts (article_fts, rank) VALUES (?1, ?2)", [.text(key), .integer(value)])
    }
    worker = Worker(side: connection)
    let thread = Thread { [worker] in worker.run() }
    thread.name = "SideSearchIndex"
    thread.start()
  }

  deinit { worker.cancel() }

  /// The side database's page cache, in KiB: the index is written in order and merged once, so a small cache does.
  static let cacheKiB = 2048

  /// FTS5's `hashsize` on the side: the bytes of pending terms after which it writes a segment. Smaller than the
  /// at-end build's (``FirstImportSearchIndex/hashSize``, 8 MB): here it is held while the writer holds its own
  /// page cache and the decoder its batches, and with 8 MB a 100k import peaked at 140 MB (2.1× its payload); the
  /// extra segments are merged by the one `optimize` at the end either way.
  static let hashSize: Int64 = 2 << 20

  /// Statements' rows the thread may hold before ``send(_:)`` waits for it: the writer gets at most this far ahead.
  static let capacity = 4

  /// The main table's `CREATE VIRTUAL TABLE` text with its external content replaced by none (`content = ''`), or
  /// `nil` when it is not `article_fts` over `article_search_text`.
  static func sideDefinition(_ sql: String) -> String? {
    let collapsed = Schema.collapsed(sql)
    let external = "content = 'article_search_text', content_rowid = 'docid'"
    guard collapsed.hasPrefix("CREATE VIRTUAL TABLE article_fts USING fts5("),
      collapsed.components(separatedBy: external).count == 2
    else { return nil }
    return collapsed.replacingOccurrences(of: external, with: "content = ''")
  }

  /// Hands one statement's rows to the indexing thread; waits while it holds ``capacity`` statements.
  ///
  /// - Throws: the thread's ``SQLiteError`` if indexing failed.
  func send(_ rows: Rows) throws {
    try worker.send(rows)
  }

  /// Tells the thread that every row has been sent: it applies the updates and merges the index.
  func endInput() { worker.endInput() }

  /// Waits for the thread, then replaces the rows of `article_fts`'s shadow tables in `db` with the side index's.
  ///
  /// FTS5 keeps the index's structure record and row totals cached per connection and reads them again only after
  /// a rollback or another connection's commit; this connection may have cached those of the empty index (a search
  /// or a write earlier in its life). So a write to `article_fts` (its `usermerge` setting, to the value it has)
  /// is rolled back to a savepoint first: FTS5's `xRollbackTo` drops both caches, and nothing touches the table
  /// until the copy is done.
  ///
  /// - Throws: ``SQLiteError`` from the thread or from the copy.
  func copy(into db: Connection) throws {
    worker.endInput()
    let side = try worker.finished()
    let usermerge = try db.scalarInt("SELECT v FROM article_fts_config WHERE k = 'usermerge'") ?? 4
    try db.execute(sql: "SAVEPOINT side_search_index")
    try db.execute("INSERT INTO article_fts (article_fts, rank) VALUES ('usermerge', ?1)", [.integer(usermerge)])
    try db.execute(sql: "ROLLBACK TO side_search_index; RELEASE side_search_index")
    try db.execute(
      sql: "DELETE FROM article_fts_data; DELETE FROM article_fts_idx; DELETE FROM article_fts_docsize")
    let tables = [
      (name: "article_fts_data", columns: ["id", "block"], order: "id"),
      (name: "article_fts_idx", columns: ["segid", "term", "pgno"], order: "segid, term"),
      (name: "article_fts_docsize", columns: ["id", "sz"], order: "id"),
    ]
    for table in tables {
      let columns = table.columns.joined(separator: ", ")
      let marks = (1...table.columns.count).map { "?\($0)" }.joined(separator: ", ")
      try db.makeStatement("INSERT INTO \(table.name) (\(columns)) VALUES (\(marks))").insertRows(
        from: side.makeStatement("SELECT \(columns) FROM \(table.name) ORDER BY \(table.order)"))
    }
  }

  /// The indexing thread's state.
  private final class Worker: @unchecked Sendable {
    // @unchecked: `side` is used by the indexing thread until it sets `done`, then by the writer alone
    // (``finished()``); every other mutable property is guarded by `condition`.
    private let side: Connection
    private let condition = NSCondition()
    private var queue: [Rows] = []
    private var inputEnded = false
    private var cancelled = false
    private var done = false
    private var failure: SQLiteError?

    init(side: Connection) { self.side = side }

    func send(_ rows: Rows) throws {
      condition.lock()
      defer { condition.unlock() }
      while queue.count >= SideSearchIndex.capacity, failure == nil, !done { condition.wait() }
      if let failure { throw failure }
      queue.append(rows)
      condition.broadcast()
    }

    func endInput() {
      condition.lock()
      inputEnded = true
      condition.broadcast()
      condition.unlock()
    }

    func cancel() {
      condition.lock()
      cancelled = true
      condition.broadcast()
      condition.unlock()
    }

    /// Waits for the thread to end; returns the side database, or throws the thread's error.
    func finished() throws -> Connection {
      condition.lock()
      defer { condition.unlock() }
      while !done { condition.wait() }
      if let failure { throw failure }
      return side
    }

    /// The next statement's rows, or `nil` at the end of the input or when cancelled.
    private func take() -> Rows? {
      condition.lock()
      defer { condition.unlock() }
      while queue.isEmpty, !inputEnded, !cancelled { condition.wait() }
      guard !cancelled, !queue.isEmpty else { return nil }
      let rows = queue.removeFirst()
      condition.broadcast()
      return rows
    }

    /// The thread's body: indexes what it is sent, then the updates, then merges.
    func run() {
      do {
        try index()
      } catch let error as SQLiteError {
        condition.lock()
        failure = error
        condition.unlock()
      } catch {
        condition.lock()
        failure = SQLiteError(extendedCode: 1, message: "\(error)", path: side.path)
        condition.unlock()
      }
      condition.lock()
      done = true
      condition.broadcast()
      condition.unlock()
    }

    /// Bound columns read per inserted row: title, summary, its search text, content, its search text, author,
    /// source name (``ArticleWriter/boundColumns``).
    private static let columns: [Int] = [
      "title", "summary", "summaryText", "content", "contentText", "author",
      "sourceName",
    ].map { ArticleWriter.boundColumns.firstIndex(of: $0) ?? -1 }

    private func index() throws {
      let insert = try side.makeStatement(
        "INSERT INTO article_fts (rowid, title, summary, content, author, sourceName) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
      )
      let delete = try side.makeStatement(
        """
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        VALUES ('delete', ?1, ?2, ?3, ?4, ?5, ?6)
        """)
      let columns = Self.columns
      guard !columns.contains(-1) else {
        throw SQLiteError(extendedCode: 1, message: "a searched column is not bound", path: side.path)
      }
      let width = ArticleWriter.boundColumns.count
      // One buffer of the row's folded UTF-8, bound in place: no `String` per value.
      var bytes: [UInt8] = []
      var ranges: [Range<Int>?] = Array(repeating: nil, count: 5)
      func set(_ column: Int, _ value: DatabaseValue, else fallback: DatabaseValue = .null) {
        var chosen = value
        if case .null = value { chosen = fallback }
        guard case .text(let text) = chosen else {
          ranges[column] = nil
          return
        }
        let start = bytes.count
        SearchQuery.appendFoldedUTF8(text, to: &bytes)
        ranges[column] = start..<bytes.count
      }
      func write(_ statement: Statement, _ rowid: Int64, _ values: [DatabaseValue]) throws {
        bytes.removeAll(keepingCapacity: true)
        for column in ranges.indices { set(column, column < values.count ? values[column] : .null) }
        try statement.execute(rowid, texts: ranges, of: bytes)
      }
      var updates: [Int64: (old: [DatabaseValue], new: [DatabaseValue])] = [:]
      while let rows = take() {
        let arguments = rows.arguments
        for (row, rowid) in rows.inserted {
          let base = row * width
          bytes.removeAll(keepingCapacity: true)
          set(0, arguments[base + columns[0]])
          set(1, arguments[base + columns[2]], else: arguments[base + columns[1]])
          set(2, arguments[base + columns[4]], else: arguments[base + columns[3]])
          set(3, arguments[base + columns[5]])
          set(4, arguments[base + columns[6]])
          try insert.execute(rowid, texts: ranges, of: bytes)
        }
        for update in rows.updated {
          updates[update.rowid] = (updates[update.rowid]?.old ?? update.old, update.new)
        }
      }
      condition.lock()
      let stop = cancelled
      condition.unlock()
      guard !stop else { return }
      for (rowid, change) in updates.sorted(by: { $0.key < $1.key }) where change.old != change.new {
        try write(delete, rowid, change.old)
        try write(insert, rowid, change.new)
      }
      try side.execute(sql: "INSERT INTO article_fts (article_fts) VALUES ('optimize'); COMMIT")
    }
  }
}
