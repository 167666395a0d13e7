import Foundation
import OfflineNewsModel

extension Migration {
  /// Version 6: every source is news — the article's link as given, its source, tags and enclosures, and keys
  /// that are canonical URLs; query keys with their items sorted (``normalizeQueryKeys(_:)``).
  ///
  /// - New `article` columns: `link` (the URL as the source gave it), `source` (the configured source's name, or
  ///   the feed, file or URL it came from), `tags` and `enclosures` (JSON arrays), and the index `article_by_source`.
  /// - Every stored key becomes its canonical form (``CanonicalURL``; `article.url` was the URL as given until now),
  ///   the old text kept in `link` (which is `NULL` where the link is the key itself). Rows whose keys become equal are merged into one: the row fetched last keeps its
  ///   content; it is read when either was, bookmarked (at the earliest time) when either was; its query
  ///   memberships are the union. `query_result` follows the new keys. The key's rowid stays, so the search index
  ///   (migration 4) stays right without a rebuild; the merged-away rows leave it through the delete trigger.
  static let v6ArticleIdentity = Migration(
    version: 6,
    name: "article link, source, tags, enclosures; canonical keys",
    sql: """
      ALTER TABLE article ADD COLUMN link TEXT;
      ALTER TABLE article ADD COLUMN source TEXT;
      ALTER TABLE article ADD COLUMN tags TEXT;
      ALTER TABLE article ADD COLUMN enclosures TEXT;
      CREATE INDEX article_by_source ON article(source, publishedAt DESC);
      """,
    steps: [.transform(canonicalizeArticleKeys), .transform(normalizeQueryKeys)])

  /// Re-keys every query by ``NewsQuery/cacheKey(_:)`` (its items sorted): `?b=2&a=1`, cached before, is found as
  /// `?a=1&b=2`. When both spellings are cached, the one fetched last is kept.
  static func normalizeQueryKeys(_ db: Connection) throws {
    let queries = try db.makeStatement(
      "SELECT query FROM query_fetch UNION SELECT query FROM query_result UNION SELECT query FROM query_failure"
    ).fetchAll { $0.string(0) ?? "" }
    for old in queries {
      let key = NewsQuery.cacheKey(old)
      guard key != old else { continue }
      let fetched = { (query: String) throws -> Int64? in
        try db.makeStatement("SELECT fetchedAt FROM query_fetch WHERE query = ?1").fetchOne([.text(query)]) {
          $0.int64(0)
        } ?? nil
      }
      if let existing = try fetched(key) {
        if let mine = try fetched(old), mine > existing {
          for table in ["query_result", "query_fetch", "query_failure"] {
            try db.execute("DELETE FROM \(table) WHERE query = ?1", [.text(key)])
          }
        } else {
          for table in ["query_result", "query_fetch", "query_failure"] {
            try db.execute("DELETE FROM \(table) WHERE query = ?1", [.text(old)])
          }
          continue
        }
      }
      for table in ["query_result", "query_fetch", "query_failure"] {
        try db.execute(
          "DELETE FROM \(table) WHERE query = ?1 AND ?2 IN (SELECT query FROM \(table))", [.text(old), .text(key)])
        try db.execute("UPDATE \(table) SET query = ?2 WHERE query = ?1", [.text(old), .text(key)])
      }
      try db.execute("UPDATE article SET fetchQuery = ?2 WHERE fetchQuery = ?1", [.text(old), .text(key)])
    }
  }

  /// Re-keys every article whose key is not canonical (see ``v6ArticleIdentity``).
  static func canonicalizeArticleKeys(_ db: Connection) throws {
    // A re-keyed article and its query_result rows change in two statements: check the references at COMMIT.
    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
    let rows = try db.makeStatement("SELECT url, fetchedAt FROM article").fetchAll {
      ($0.string(0) ?? "", $0.int64(1) ?? 0)
    }
    var groups: [String: [(url: String, fetchedAt: Int64)]] = [:]
    for (url, fetchedAt) in rows {
      let key = CanonicalURL.canonical(url) ?? url
      groups[key, default: []].append((url, fetchedAt))
    }
    for (key, members) in groups where members.count > 1 || members.first?.url != key {
      // The survivor: the row that is already canonical, else the one fetched last.
      let survivor =
        members.first(where: { $0.url == key })?.url
        ?? members.max(by: { ($0.fetchedAt, $1.url) < ($1.fetchedAt, $0.url) })?.url ?? key
      let newest = members.max(by: { $0.fetchedAt < $1.fetchedAt })?.url ?? survivor
      for member in members where member.url != survivor {
        // Local state from either row; content from the row fetched last.
        try db.execute(
          """
          UPDATE article SET
            isRead = max(isRead, (SELECT isRead FROM article WHERE url = ?2)),
            bookmarkedAt = CASE
              WHEN bookmarkedAt IS NULL THEN (SELECT bookmarkedAt FROM article WHERE url = ?2)
              ELSE min(bookmarkedAt, coalesce((SELECT bookmarkedAt FROM article WHERE url = ?2), bookmarkedAt)) END
          WHERE url = ?1
          """, [.text(survivor), .text(member.url)])
        if member.url == newest {
          try db.execute(
            """
            UPDATE article SET (title, author, summary, imageURL, publishedAt, content, sourceID, sourceName,
              fetchedAt, fetchQuery) = (SELECT title, author, summary, imageURL, publishedAt, content, sourceID,
              sourceName, fetchedAt, fetchQuery FROM article WHERE url = ?2)
            WHERE url = ?1
            """, [.text(survivor), .text(member.url)])
        }
        // Memberships: keep the survivor's, move the others'.
        try db.execute(
          """
          INSERT INTO query_result (query, url, position)
          SELECT query, ?1, position FROM query_result WHERE url = ?2
          ON CONFLICT(query, url) DO UPDATE SET position = min(position, excluded.position)
          """, [.text(survivor), .text(member.url)])
        try db.execute("DELETE FROM query_result WHERE url = ?1", [.text(member.url)])
        try db.execute("DELETE FROM article WHERE url = ?1", [.text(member.url)])
      }
      if survivor != key {
        try db.execute(
          "UPDATE article SET link = coalesce(link, url), url = ?2 WHERE url = ?1", [.text(survivor), .text(key)])
        try db.execute("UPDATE query_result SET url = ?2 WHERE url = ?1", [.text(survivor), .text(key)])
      }
    }
  }
}
