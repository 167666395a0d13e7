import Foundation
import OfflineNewsModel

/// The save of one response's articles, inside the writer's transaction. A bounded number of statements whatever
/// the number of articles: one lookup and one upsert per chunk of rows, not one per row.
struct ArticleWriter {
  let db: Connection
  var progress: (@Sendable (Int) -> Void)? = nil

  /// Rows per multi-row statement: 500 × 11 parameters stays far below SQLite's 32,766-parameter limit.
  static let chunk = 500

  /// The content columns, in bind order. Local-only columns are absent on purpose.
  static let contentColumns = [
    "url", "title", "author", "summary", "imageURL", "publishedAt", "content", "sourceID", "sourceName",
  ]

  func save(_ articles: [Article], query: String, fetchedAt: Timestamp, eviction: EvictionPolicy) throws
    -> (ArticleSaveResult, [StorageChange])
  {
    // One row per URL: the later record wins, at the earlier one's place.
    var order: [String] = []
    var byURL: [String: [DatabaseValue]] = [:]
    for article in articles {
      let url = article.url.absoluteString
      if byURL[url] == nil { order.append(url) }
      byURL[url] = Self.content(article)
    }

    var inserted: [Identity] = []
    var updated: [Identity] = []
    var unchanged = 0
    var seenUnchanged: [DatabaseValue] = []
    var start = 0
    while start < order.count {
      let urls = Array(order[start..<min(start + Self.chunk, order.count)])
      start += urls.count
      let stored = try existing(urls)
      var rows: [[DatabaseValue]] = []
      for url in urls {
        guard let content = byURL[url] else { continue }
        if let current = stored[url] {
          if current == content {
            unchanged += 1
            seenUnchanged.append(.text(url))
            continue
          }
          updated.append(Identity(.text(url)))
        } else {
          inserted.append(Identity(.text(url)))
        }
        rows.append(content + [.integer(fetchedAt.millisecondsSince1970), .text(query)])
      }
      try upsert(rows)
      progress?(start)
      // Unchanged rows are not rewritten, but they were fetched now: eviction by age counts from here.
      if !seenUnchanged.isEmpty {
        let marks = Array(repeating: "?", count: seenUnchanged.count).joined(separator: ",")
        try db.makeStatement("UPDATE article SET fetchedAt = ?, fetchQuery = ? WHERE url IN (\(marks))").execute(
          [.integer(fetchedAt.millisecondsSince1970), .text(query)] + seenUnchanged)
        seenUnchanged.removeAll(keepingCapacity: true)
      }
    }

    try db.execute("DELETE FROM query_result WHERE query = ?1", [.text(query)])
    start = 0
    while start < order.count {
      let end = min(start + Self.chunk, order.count)
      var arguments: [DatabaseValue] = []
      arguments.reserveCapacity((end - start) * 3)
      for position in start..<end {
        arguments += [.text(query), .text(order[position]), .integer(Int64(position))]
      }
      try statement(
        "INSERT INTO query_result (query, url, position) VALUES ", rowCount: end - start, columns: 3
      ).execute(arguments)
      start = end
    }
    try db.execute(
      """
      INSERT INTO query_fetch (query, fetchedAt, articleCount) VALUES (?1, ?2, ?3)
      ON CONFLICT(query) DO UPDATE SET fetchedAt = excluded.fetchedAt, articleCount = excluded.articleCount
      """, [.text(query), .integer(fetchedAt.millisecondsSince1970), .integer(Int64(order.count))])

    let evicted = try evict(eviction, now: fetchedAt)
    let result = ArticleSaveResult(
      saved: order.count, inserted: inserted.count, updated: updated.count, unchanged: unchanged,
      evicted: evicted.count)
    return (result, [StorageChange(entity: "article", inserted: inserted, updated: updated, deleted: evicted)])
  }

  static func content(_ article: Article) -> [DatabaseValue] {
    [
      .text(article.url.absoluteString), .text(article.title), article.author.databaseValue,
      article.summary.databaseValue, article.imageURL.databaseValue,
      .integer(Timestamp(article.publishedAt).millisecondsSince1970), article.content.databaseValue,
      article.sourceID.databaseValue, article.sourceName.databaseValue,
    ]
  }

  /// The stored content of those of `urls` that exist, by URL: one query.
  private func existing(_ urls: [String]) throws -> [String: [DatabaseValue]] {
    let marks = Array(repeating: "?", count: urls.count).joined(separator: ",")
    let sql = "SELECT \(Self.contentColumns.joined(separator: ", ")) FROM article WHERE url IN (\(marks))"
    let statement = urls.count == Self.chunk ? try db.cachedStatement(sql) : try db.makeStatement(sql)
    var stored: [String: [DatabaseValue]] = [:]
    for row in try statement.fetchAll(urls.map { .text($0) }, { row in row.values(count: 9) }) {
      if case .text(let url) = row[0] { stored[url] = row }
    }
    return stored
  }

  private func upsert(_ rows: [[DatabaseValue]]) throws {
    guard !rows.isEmpty else { return }
    let columns = Self.contentColumns + ["fetchedAt", "fetchQuery"]
    let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    let head = "INSERT INTO article (\(columns.joined(separator: ", "))) VALUES "
    let statement = try statement(
      head, rowCount: rows.count, columns: columns.count, tail: " ON CONFLICT(url) DO UPDATE SET \(updates)")
    try statement.execute(rows.flatMap { $0 })
  }

  /// `head (?,?…),(?,?…)… tail`: cached when it is a full chunk, prepared once otherwise.
  private func statement(_ head: String, rowCount: Int, columns: Int, tail: String = "") throws -> Statement {
    let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
    let sql = head + Array(repeating: row, count: rowCount).joined(separator: ",") + tail
    return rowCount == Self.chunk ? try db.cachedStatement(sql) : try db.makeStatement(sql)
  }

  /// Applies the eviction policy; returns the URLs removed. Bookmarked articles are never evicted.
  private func evict(_ policy: EvictionPolicy, now: Timestamp) throws -> [Identity] {
    guard !policy.isNone else { return [] }
    var urls: [String] = []
    if let maxAge = policy.maxAge, maxAge > 0 {
      // A limit beyond the representable past means no limit (and must not trap).
      let span = maxAge * 1000
      guard span.isFinite, span < Double(now.millisecondsSince1970) + 9e18 else { return [] }
      let cutoff = now.millisecondsSince1970 - Int64(span)
      // Last seen: the latest fetch of any query whose result holds it, else its own last write.
      urls += try db.makeStatement(
        """
        DELETE FROM article WHERE bookmarkedAt IS NULL AND coalesce(
          (SELECT max(f.fetchedAt) FROM query_result r JOIN query_fetch f ON f.query = r.query WHERE r.url = article.url),
          fetchedAt) < ?1
        RETURNING url
        """
      ).fetchAll([.integer(cutoff)]) { $0.string(0) ?? "" }
    }
    if let maxArticles = policy.maxArticles {
      urls += try db.makeStatement(
        """
        DELETE FROM article WHERE url IN (
          SELECT url FROM article WHERE bookmarkedAt IS NULL ORDER BY publishedAt DESC, url LIMIT -1 OFFSET ?1)
        RETURNING url
        """
      ).fetchAll([.integer(Int64(max(0, maxArticles)))]) { $0.string(0) ?? "" }
    }
    return urls.map { Identity(.text($0)) }
  }
}
