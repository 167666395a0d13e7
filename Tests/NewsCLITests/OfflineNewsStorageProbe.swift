import OfflineNews

/// Reads a database with a plain connection: what any SQLite reader would find after a crash.
struct OfflineNewsStorageProbe {
  let connection: Connection

  init(path: String) throws {
    connection = try Connection(path: path, readOnly: true)
  }

  func integrity() throws -> String { try connection.scalarString("PRAGMA integrity_check") ?? "" }

  func urls() throws -> [String] {
    try connection.makeStatement("SELECT url FROM article ORDER BY publishedAt DESC, url").fetchAll {
      $0.string(0) ?? ""
    }
  }
}
