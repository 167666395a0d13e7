import Foundation
import OfflineNewsModel

extension Migration {
  /// Version 8: article handles — `article.handle`, the 16 hex digits of ``ArticleIdentity/handle(forKey:)`` of the
  /// article's key, indexed, so that a short prefix of it (as git shortens commit hashes) finds the article:
  /// ``StorageContext/shortHandles(forKeys:minimumLength:)`` and ``StorageContext/articles(withHandlePrefix:)``.
  /// Existing rows get theirs here; the article writer gives every new row its handle.
  static let v8ArticleHandles = Migration(
    version: 8,
    name: "article handles",
    sql: """
      ALTER TABLE article ADD COLUMN handle TEXT;
      CREATE INDEX article_by_handle ON article(handle);
      """,
    steps: [.transform { try setHandles($0, column: "handle", rows: "") }])

  /// Sets `column` of each `article` row that `rows` selects (a `WHERE` clause, or `""` for every row) to the handle
  /// of its key (``ArticleIdentity/handle(forKey:)``): migration 8's `handle`, and 20's `servedID` where the row has
  /// no handle to copy.
  static func setHandles(_ db: Connection, column: String, rows: String) throws {
    let keys = try db.makeStatement("SELECT url FROM article\(rows)").fetchAll { $0.string(0) ?? "" }
    let update = try db.makeStatement("UPDATE article SET \(column) = ?2 WHERE url = ?1")
    for key in keys { try update.execute([.text(key), .text(ArticleIdentity.handle(forKey: key))]) }
  }
}
