import Foundation
import OfflineNewsModel

/// The whole article, as a reader view extracted it from the article's page.
package struct FullText: Sendable, Hashable {
  /// Cleaned HTML: paragraphs, headings, lists, quotes, figures, tables, links and images, URLs absolute.
  package var html: String
  /// Its text, as a reader reads it (the searched form).
  package var text: String

  /// Creates a full text.
  package init(html: String, text: String) {
    self.html = html
    self.text = text
  }
}

extension StorageContext {
  /// Stores the whole article fetched from its page, beside the source's fields (which are never changed): one
  /// transaction; the search index takes its text as the article's content. Clears a failure noted before.
  ///
  /// - Returns: `false` when no article has this key (it was deleted meanwhile).
  /// - Throws: ``StorageError``.
  @discardableResult
  package func saveFullText(_ fullText: FullText, forKey key: String, at date: Timestamp) async throws(StorageError)
    -> Bool
  {
    try await writeAndPublish { db in
      try db.execute(
        """
        UPDATE article SET fullTextHTML = ?2, fullText = ?3, fullTextAt = ?4, fullTextError = NULL WHERE url = ?1
        """, [.text(key), .text(fullText.html), .text(fullText.text), .integer(date.millisecondsSince1970)])
      let found = db.changes > 0
      return (found, found ? [StorageChange(entity: "article", updated: [Identity(.text(key))])] : [])
    }
  }

  /// Notes why fetching an article's page failed (`fullTextError`, with the time in `fullTextAt`), so that it is
  /// retried later rather than at once, and `news show` can say so.
  ///
  /// - Throws: ``StorageError``.
  package func recordFullTextFailure(_ reason: String, forKey key: String, at date: Timestamp)
    async throws(StorageError)
  {
    _ = try await writeAndPublish { db in
      try db.execute(
        "UPDATE article SET fullTextError = ?2, fullTextAt = ?3 WHERE url = ?1 AND fullText IS NULL",
        [.text(key), .text(reason), .integer(date.millisecondsSince1970)])
      return ((), [])
    }
  }

  /// Which of `keys` still need their whole text: none stored, and no failure noted since `retryAfter` (a failed
  /// page is tried again once that long has passed).
  ///
  /// - Throws: ``StorageError``.
  package func keysNeedingFullText(_ keys: [String], failedBefore retryAfter: Timestamp) async throws(StorageError)
    -> [String]
  {
    try await read { db in
      let statement = try db.cachedStatement(
        "SELECT 1 FROM article WHERE url = ?1 AND fullText IS NULL AND (fullTextError IS NULL OR fullTextAt < ?2)")
      return try keys.filter { key in
        try statement.fetchOne([.text(key), .integer(retryAfter.millisecondsSince1970)]) { _ in true } != nil
      }
    }
  }

  /// The failures noted for those of `keys` whose whole text is not stored: why the last attempt to fetch the page
  /// failed (`fullTextError`) and when (`fullTextAt`), by key. Keys without a failure (or with their whole text
  /// stored, or no article) are absent.
  ///
  /// - Throws: ``StorageError``.
  package func fullTextFailures(forKeys keys: [String]) async throws(StorageError) -> [String: (
    reason: String, at: Timestamp
  )] {
    try await read { db in
      let statement = try db.cachedStatement(
        """
        SELECT fullTextError, fullTextAt FROM article
        WHERE url = ?1 AND fullText IS NULL AND fullTextError IS NOT NULL AND fullTextAt IS NOT NULL
        """)
      var failures: [String: (reason: String, at: Timestamp)] = [:]
      for key in keys {
        let row = try statement.fetchOne([.text(key)]) { row -> (String, Timestamp)? in
          guard let reason = row.string(0), let at = row.int64(1) else { return nil }
          return (reason, Timestamp(millisecondsSince1970: at))
        }
        if let (reason, at) = row ?? nil { failures[key] = (reason, at) }
      }
      return failures
    }
  }

  /// Why the last attempt to fetch an article's page failed, or `nil`.
  ///
  /// - Throws: ``StorageError``.
  package func fullTextError(forKey key: String) async throws(StorageError) -> String? {
    try await read { db in
      try db.cachedStatement("SELECT fullTextError FROM article WHERE url = ?1").fetchOne([.text(key)]) {
        $0.string(0)
      } ?? nil
    }
  }
}
