import OfflineNews
import OfflineNewsStorage

/// Reads a database with a plain connection: what any SQLite reader would find after a crash.
struct OfflineNewsStorageProbe {
  let connection: Connection

  /// Opens the store at `path` read-only; with `recovering`, read-write, so that SQLite rolls back a hot journal
  /// left by a process killed mid-write, as the next `news` to open the store does (a read-only connection cannot:
  /// "attempt to write a readonly database").
  init(path: String, recovering: Bool = false) throws {
    connection = try Connection(path: path, readOnly: !recovering)
  }

  func integrity() throws -> String { try connection.scalarString("PRAGMA integrity_check") ?? "" }

  func urls() throws -> [String] {
    try connection.makeStatement("SELECT url FROM article ORDER BY publishedAt DESC, url").fetchAll {
      $0.string(0) ?? ""
    }
  }

  /// FTS5's `integrity-check` of the search index against `article_search_text`: "ok", or the error it raised (a
  /// connection opened `recovering`: the check is written as an `INSERT`).
  func searchIndexIntegrity() throws -> String {
    do {
      try connection.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
      return "ok"
    } catch {
      return "\(error)"
    }
  }

  /// The values of `column` in `table`, sorted (any table, e.g. an imported entity's).
  func values(_ table: String, _ column: String) throws -> [String] {
    try connection.makeStatement("SELECT \"\(column)\" FROM \"\(table)\" ORDER BY 1").fetchAll { $0.string(0) ?? "" }
  }

  /// The number of rows of `table`.
  func count(_ table: String) throws -> Int {
    Int(try connection.makeStatement("SELECT count(*) FROM \"\(table)\"").fetchOne([]) { $0.int64(0) ?? 0 } ?? 0)
  }
}
