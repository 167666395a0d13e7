import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage

/// One way of importing a payload file into the `article` table, run as a child process.
enum Importer: String, CaseIterable, Codable, Sendable {
  /// Our `news import` path (`news-bench --child-import`).
  case ours
  /// The limit: the `sqlite3` CLI, one `INSERT … SELECT … FROM json_each(readfile(…))` upsert.
  case jsonEach
  /// The limit doing our full work: the same upsert plus the query's `query_result` rows, in one transaction.
  case jsonEachWithQueryResult
  /// The peer: Python's `json` + `sqlite3` `executemany` upsert.
  case python
  /// The tool people pick for JSON → SQLite: the `sqlite-utils` Python library's `upsert_all` (PyPI `sqlite-utils`).
  case sqliteUtils

  var label: String {
    switch self {
    case .ours: "ours: news import path"
    case .jsonEach: "sqlite3 json_each (the limit)"
    case .jsonEachWithQueryResult: "sqlite3 json_each + query_result"
    case .python: "python3 json + executemany"
    case .sqliteUtils: "sqlite-utils upsert_all + enable_fts"
    }
  }

  /// Its short name in the reports' rows: `ours`, `json_each`, `python`, `sqlite-utils`.
  var name: String {
    switch self {
    case .ours: "ours"
    case .jsonEach: "json_each"
    case .jsonEachWithQueryResult: "json_each + query_result"
    case .python: "python"
    case .sqliteUtils: "sqlite-utils"
    }
  }

  /// The program it needs in `PATH`, if any.
  var program: String? {
    switch self {
    case .ours: nil
    case .jsonEach, .jsonEachWithQueryResult: "sqlite3"
    case .python, .sqliteUtils: "python3"
    }
  }

  /// The Python module it imports beyond the standard library and the PyPI package that installs it, if any
  /// (checked with `python3 -c "import MODULE"`).
  var pythonModule: (module: String, package: String)? {
    self == .sqliteUtils ? ("sqlite_utils", "sqlite-utils") : nil
  }
}

/// What one import run cost.
struct ImportRun: Codable, Sendable {
  /// Wall-clock seconds of the child process, start to exit.
  var seconds: Double
  /// User + system CPU seconds of the child (less sensitive than wall time to other load on the machine).
  var cpuSeconds: Double
  /// The child's peak resident set (`VmHWM`), KiB.
  var peakKiB: Int
  /// Ours: the peak once the file is read and decoded (before the save), KiB.
  var peakAfterDecodeKiB: Int?
  /// Seconds of each phase, as the child reports them (ours and python).
  var phases: [String: Double]
  /// CPU seconds of each phase (ours).
  var phasesCPU: [String: Double] = [:]
  /// Articles saved (ours) or rows written (python), when the child says.
  var saved: Int?
}

/// The JSON line an import child prints last, ours (`news-bench --child-import`) and the Python peers alike: one
/// format, read by ``ImportRunner/run(_:file:database:)``. The `sqlite3` limit prints none (only its `VmHWM` line).
struct ImportReport: Codable {
  /// Wall-clock seconds of each phase: ours `read`, `decode`, `open`, `save` (or `open`, `import` when streamed);
  /// the peers `load`, `transform`, `upsert` (and sqlite-utils' `fts`).
  var phases: [String: Double]
  /// Ours: process CPU seconds (all threads) of each phase, which tells work from waiting on a busy machine.
  var phasesCPU: [String: Double]?
  /// Articles saved (ours) or rows written (the peers).
  var saved: Int
  /// Ours: the records the decoder skipped.
  var skipped: Int?
  /// Ours: the decoder's issues, the skipped records' among them.
  var issues: Int?
  /// Ours: `VmHWM` once the page is decoded and the file's bytes released: the peak of read + decode (not streamed).
  var peakAfterDecodeKiB: Int?
  /// `VmHWM` at the end: the peak of the whole import.
  var peakKiB: Int
  /// Ours with `--sqlite-memory`: SQLite's own share of the peak, the most memory its allocator held at once
  /// (`sqlite3_memory_highwater`: the page cache, statement journals kept in memory by `temp_store = MEMORY`,
  /// FTS5's buffers, prepared statements).
  var sqlitePeakKiB: Int?
}

/// Runs importers on a payload file: each in its own process, on a database whose schema `StorageContext` created.
struct ImportRunner {
  var selfPath: String
  var workFolder: String

  /// The `fetchQuery` every importer writes: the cache key `news import FILE` uses.
  func cacheKey(file: String) -> String {
    NewsQuery(url: URL(fileURLWithPath: file)).cacheKey
  }

  /// Deletes `database` (and its WAL files) and creates it empty with our schema, so every importer writes into the
  /// very same table definition; for sqlite-utils, which creates its own table as its users run it, only deletes.
  func freshDatabase(_ database: String, for importer: Importer) throws {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    guard importer != .sqliteUtils else { return }
    _ = try StorageContext(path: database)
  }

  func run(_ importer: Importer, file: String, database: String) throws -> ImportRun {
    // The dirty pages of earlier runs and of the generated payload are written out first (sync(2)): otherwise the
    // kernel writes them back during this run, on a core a two-thread import needs and a one-thread peer leaves
    // idle.
    sync()
    let arguments: [String]
    switch importer {
    case .ours:
      arguments = [selfPath, "--child-import", file, database]
    case .jsonEach, .jsonEachWithQueryResult:
      let script = workFolder + "/import-json-each.sql"
      let sql = Self.jsonEachSQL(
        file: file, query: cacheKey(file: file), fetchedAt: Timestamp.now().millisecondsSince1970,
        withQueryResult: importer == .jsonEachWithQueryResult)
      try sql.write(toFile: script, atomically: true, encoding: .utf8)
      arguments = ["sqlite3", "-bail", database, ".read \(script)"]
    case .python, .sqliteUtils:
      let script = workFolder + "/bench-\(importer.rawValue).py"
      let source = importer == .python ? Self.pythonPeer : Self.sqliteUtilsPeer
      try source.write(toFile: script, atomically: true, encoding: .utf8)
      arguments = [
        "python3", script, file, database, cacheKey(file: file), String(Timestamp.now().millisecondsSince1970),
      ]
    }
    let child = try runChild(arguments, outputFolder: workFolder)
    guard child.exitStatus == 0 else {
      throw BenchError(
        "\(importer.label) failed with status \(child.exitStatus): \(child.standardError.prefix(2000))")
    }
    var report: ImportReport?
    if let line = child.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("{") }) {
      report = try? JSONDecoder().decode(ImportReport.self, from: Data(line.utf8))
    }
    return ImportRun(
      seconds: child.seconds, cpuSeconds: child.cpuSeconds,
      peakKiB: report?.peakKiB ?? statusKiB("VmHWM", in: child.standardOutput) ?? 0,
      peakAfterDecodeKiB: report?.peakAfterDecodeKiB, phases: report?.phases ?? [:],
      phasesCPU: report?.phasesCPU ?? [:], saved: report?.saved)
  }

  /// The `sqlite3` script of the limit: one statement reads the file (`readfile`), walks `$.articles` with
  /// `json_each`, applies the decoder's record rules that SQL can express, and upserts into `article`.
  ///
  /// - `[Removed]` placeholders, records without `url` or `title`, and dates SQLite cannot parse are skipped;
  ///   `""` becomes `NULL` (`nullif`).
  /// - `publishedAt` goes to milliseconds through SQLite's own date parser:
  ///   `CAST(round((julianday(x) - 2440587.5) * 86400000) AS INTEGER)`. SQLite keeps dates as whole milliseconds
  ///   rounded to the nearest (so a 7-digit fraction can land 1 ms above ours, which truncates); it rejects a
  ///   lowercase `t` or `z` (`NULL`, so the record is skipped here) and accepts impossible days such as Feb 30.
  /// - The pragmas are the ones `StorageContext` sets on its writer (synchronous, foreign_keys, temp_store, cache); keep
  ///   them in step with `StorageContext.openWriter`, or the limit stops being the limit.
  static func jsonEachSQL(file: String, query: String, fetchedAt: Int64, withQueryResult: Bool) -> String {
    func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
    var sql = """
      PRAGMA synchronous = NORMAL;
      PRAGMA foreign_keys = ON;
      PRAGMA temp_store = MEMORY;
      PRAGMA cache_size = -49152;
      BEGIN IMMEDIATE;
      INSERT INTO article (url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName,
                           fetchedAt, fetchQuery)
      SELECT url, title, nullif(author, ''), nullif(summary, ''), nullif(imageURL, ''), publishedAt,
             nullif(content, ''), nullif(sourceID, ''), nullif(sourceName, ''), \(fetchedAt), \(literal(query))
      FROM (
        SELECT value ->> '$.url' AS url, value ->> '$.title' AS title, value ->> '$.author' AS author,
               value ->> '$.description' AS summary, value ->> '$.urlToImage' AS imageURL,
               CAST(round((julianday(value ->> '$.publishedAt') - 2440587.5) * 86400000) AS INTEGER) AS publishedAt,
               value ->> '$.content' AS content, value ->> '$.source.id' AS sourceID,
               value ->> '$.source.name' AS sourceName
        FROM json_each(readfile(\(literal(file))), '$.articles')
      )
      WHERE url IS NOT NULL AND url <> '' AND url <> 'https://removed.com'
        AND title IS NOT NULL AND title <> '' AND title <> '[Removed]' AND publishedAt IS NOT NULL
      ON CONFLICT(url) DO UPDATE SET
        title = excluded.title, author = excluded.author, summary = excluded.summary,
        imageURL = excluded.imageURL, publishedAt = excluded.publishedAt, content = excluded.content,
        sourceID = excluded.sourceID, sourceName = excluded.sourceName,
        fetchedAt = excluded.fetchedAt, fetchQuery = excluded.fetchQuery;

      """
    if withQueryResult {
      sql += """
        DELETE FROM query_result WHERE query = \(literal(query));
        INSERT INTO query_result (query, url, position)
        SELECT \(literal(query)), url, key
        FROM (
          SELECT key, value ->> '$.url' AS url, value ->> '$.title' AS title,
                 julianday(value ->> '$.publishedAt') AS publishedAt
          FROM json_each(readfile(\(literal(file))), '$.articles')
        )
        WHERE url IS NOT NULL AND url <> '' AND url <> 'https://removed.com'
          AND title IS NOT NULL AND title <> '' AND title <> '[Removed]' AND publishedAt IS NOT NULL
        ON CONFLICT(query, url) DO UPDATE SET position = excluded.position;
        INSERT INTO query_fetch (query, fetchedAt, articleCount)
        VALUES (\(literal(query)), \(fetchedAt), (SELECT count(*) FROM query_result WHERE query = \(literal(query))))
        ON CONFLICT(query) DO UPDATE SET fetchedAt = excluded.fetchedAt, articleCount = excluded.articleCount;

        """
    }
    sql += """
      COMMIT;
      .system grep VmHWM /proc/$PPID/status

      """
    return sql
  }

  /// The Python peers' common part: `json.load`, then a loop applying the same record rules as ours into `rows`,
  /// tuples in the order of `COLUMNS`. Dates go through `datetime.fromisoformat` (Python 3.11+), truncated to
  /// milliseconds like ours. `t0`…`t2` time the load and the transform.
  static let pythonLoadAndTransform = #"""
    import json, sqlite3, sys, time
    from datetime import datetime, timedelta, timezone

    path, db, query, fetched_at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
    MS = timedelta(milliseconds=1)
    COLUMNS = ("url", "title", "author", "summary", "imageURL", "publishedAt", "content", "sourceID", "sourceName",
               "fetchedAt", "fetchQuery")

    t0 = time.monotonic()
    with open(path, "rb") as f:
        doc = json.load(f)
    t1 = time.monotonic()

    def ms(text):
        try:
            d = datetime.fromisoformat(text)
        except (TypeError, ValueError):
            return None
        if d.tzinfo is None:
            return None
        return (d - EPOCH) // MS

    rows = []
    for a in doc.get("articles") or []:
        if not isinstance(a, dict):
            continue
        url, title = a.get("url"), a.get("title")
        if not url or not title or title == "[Removed]" or url == "https://removed.com":
            continue
        published = ms(a.get("publishedAt"))
        if published is None:
            continue
        source = a.get("source") or {}
        rows.append((url, title, a.get("author") or None, a.get("description") or None,
                     a.get("urlToImage") or None, published, a.get("content") or None,
                     source.get("id") or None, source.get("name") or None, fetched_at, query))

    """#

  /// The Python peers' last lines: their phase times, rows and own `VmHWM` as one ``ImportReport`` line.
  static let pythonReport = #"""

    peak = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    phases = {"load": t1 - t0, "transform": t2 - t1, "upsert": t3 - t2}
    if "t4" in globals():
        phases["fts"] = t4 - t3
    print(json.dumps({"phases": phases, "saved": len(rows), "peakKiB": peak}))
    """#

  /// The peer a user would write instead: `pythonLoadAndTransform`, then one `executemany` upsert in one
  /// transaction with the same pragmas.
  static let pythonPeer =
    pythonLoadAndTransform + #"""
      t2 = time.monotonic()

      con = sqlite3.connect(db, isolation_level=None)
      con.execute("PRAGMA synchronous = NORMAL")
      con.execute("PRAGMA foreign_keys = ON")
      con.execute("PRAGMA temp_store = MEMORY")
      con.execute("PRAGMA cache_size = -49152")
      con.execute("BEGIN IMMEDIATE")
      con.executemany("""
          INSERT INTO article (url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName,
                               fetchedAt, fetchQuery)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(url) DO UPDATE SET
            title = excluded.title, author = excluded.author, summary = excluded.summary,
            imageURL = excluded.imageURL, publishedAt = excluded.publishedAt, content = excluded.content,
            sourceID = excluded.sourceID, sourceName = excluded.sourceName,
            fetchedAt = excluded.fetchedAt, fetchQuery = excluded.fetchQuery""", rows)
      con.execute("COMMIT")
      con.close()
      t3 = time.monotonic()
      """# + pythonReport

  /// The tool many people pick for JSON → SQLite, run as its documentation shows: `pythonLoadAndTransform` with
  /// each row made a dict (its `transform` phase includes that), then `sqlite_utils`' `Table.upsert_all(rows,
  /// pk="url")` into its own `article` table (created by sqlite-utils from the first rows, in an empty database),
  /// inside one `db.atomic()` transaction, with its default batch size; then, once, `Table.enable_fts(columns,
  /// create_triggers=True)` over the five columns ours searches (FTS5, its default tokenizer, its own
  /// `article_fts` with `content='article'` and `article_ai`/`_ad`/`_au` triggers), when the table has no index yet.
  /// On a re-import the index exists: the triggers keep it current as the rows are upserted. The connection gets
  /// the pragmas ours sets (sqlite-utils adds its own `recursive_triggers=on`). Its `upsert` phase includes
  /// importing the module; `fts` is `enable_fts` (0 on a re-import).
  ///
  /// Documentation: <https://sqlite-utils.datasette.io/en/stable/python-api.html#upserting-data>,
  /// <https://sqlite-utils.datasette.io/en/stable/python-api.html#enabling-full-text-search>
  static let sqliteUtilsPeer =
    pythonLoadAndTransform + #"""
      records = [dict(zip(COLUMNS, row)) for row in rows]
      t2 = time.monotonic()

      import sqlite_utils
      con = sqlite3.connect(db)
      con.execute("PRAGMA synchronous = NORMAL")
      con.execute("PRAGMA foreign_keys = ON")
      con.execute("PRAGMA temp_store = MEMORY")
      con.execute("PRAGMA cache_size = -49152")
      database = sqlite_utils.Database(con)
      table = database["article"]
      with database.atomic():
          table.upsert_all(records, pk="url")
      t3 = time.monotonic()
      if table.detect_fts() is None:
          table.enable_fts(["title", "summary", "content", "author", "sourceName"], create_triggers=True)
      con.close()
      t4 = time.monotonic()
      """# + pythonReport
}
