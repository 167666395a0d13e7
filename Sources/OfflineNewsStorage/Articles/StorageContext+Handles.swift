import Foundation
import OfflineNewsModel

extension StorageContext {
  /// The short handles of articles: for each key, the fewest leading digits of its handle
  /// (``ArticleIdentity/handle(forKey:)``), at least `minimumLength`, that no other stored article's handle starts
  /// with — one more than the longest prefix it shares with its neighbours in handle order (two index lookups per
  /// key).
  ///
  /// - Throws: ``StorageError``.
  package func shortHandles(forKeys keys: [String], minimumLength: Int = 6) async throws(StorageError) -> [String:
    String]
  {
    try await read { db in
      let before = try db.cachedStatement("SELECT max(handle) FROM article WHERE handle < ?1")
      let after = try db.cachedStatement("SELECT min(handle) FROM article WHERE handle > ?1")
      var result: [String: String] = [:]
      for key in keys {
        let handle = ArticleIdentity.handle(forKey: key)
        var shared = 0
        for statement in [before, after] {
          guard let neighbour = try statement.fetchOne([.text(handle)], { $0.string(0) }) ?? nil else { continue }
          shared = max(shared, zip(handle, neighbour).prefix { $0 == $1 }.count)
        }
        result[key] = String(handle.prefix(min(handle.count, max(minimumLength, shared + 1))))
      }
      return result
    }
  }

  /// The articles whose handle starts with `prefix` (lower-case hex digits), at most 10: one when the prefix is
  /// unique, several when it is ambiguous, none when no article has it.
  ///
  /// - Throws: ``StorageError``.
  package func articles(withHandlePrefix prefix: String) async throws(StorageError) -> [Article] {
    let lower = prefix.lowercased()
    guard ArticleIdentity.looksLikeHandle(lower) else { return [] }
    return try await read { db in
      try db.cachedStatement(
        "SELECT \(Self.articleColumns) FROM article a WHERE a.handle >= ?1 AND a.handle < ?2 ORDER BY a.handle LIMIT 10"
      ).fetchAll([.text(lower), .text(lower + "g")], Self.article).compactMap { $0 }
    }
  }
}
