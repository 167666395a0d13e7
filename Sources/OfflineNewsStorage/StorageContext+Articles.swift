import Foundation
import OfflineNewsModel

/// The last successful fetch of a query, as recorded in the store.
public struct QueryFetch: Sendable, Hashable {
  /// The query's cache key (``NewsQuery/cacheKey``).
  public var query: String
  /// When its last successful response was saved (UTC, milliseconds).
  public var fetchedAt: Timestamp
  /// How many articles that response held after de-duplication.
  public var articleCount: Int
}

extension StorageContext {
  /// Saves the articles of one successful response for a query, as one transaction.
  ///
  /// Each article is upserted by its identity, `url` (`INSERT … ON CONFLICT(url) DO UPDATE`, never
  /// `INSERT OR REPLACE`, which would delete the row first); the query's result list is replaced by these articles in
  /// this order; and the query's fetch time is recorded. Articles with the same URL appear once (the last wins).
  /// Either all of this is committed or, on any error, none of it.
  ///
  /// - Parameters:
  ///   - articles: the response's articles, in response order.
  ///   - query: the query's cache key (``NewsQuery/cacheKey``).
  ///   - fetchedAt: when the response was received.
  /// - Returns: the number of distinct articles saved.
  /// - Throws: ``StorageError``.
  /// Related SQLite documentation: <https://www.sqlite.org/lang_upsert.html>
  @discardableResult
  public func saveArticles(_ articles: [Article], forQuery query: String, fetchedAt: Timestamp) throws -> Int {
    try write { db in
      let upsert = try db.cachedStatement(
        """
        INSERT INTO article (url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName,
                             fetchedAt, fetchQuery)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
        ON CONFLICT(url) DO UPDATE SET
          title = excluded.title, author = excluded.author, summary = excluded.summary,
          imageURL = excluded.imageURL, publishedAt = excluded.publishedAt, content = excluded.content,
          sourceID = excluded.sourceID, sourceName = excluded.sourceName,
          fetchedAt = excluded.fetchedAt, fetchQuery = excluded.fetchQuery
        """)
      let member = try db.cachedStatement(
        """
        INSERT INTO query_result (query, url, position) VALUES (?1, ?2, ?3)
        ON CONFLICT(query, url) DO UPDATE SET position = excluded.position
        """)
      try db.execute("DELETE FROM query_result WHERE query = ?1", [.text(query)])
      var seen = Set<String>()
      for (position, article) in articles.enumerated() {
        let url = article.url.absoluteString
        seen.insert(url)
        try upsert.execute([
          .text(url), .text(article.title), article.author.databaseValue, article.summary.databaseValue,
          article.imageURL.databaseValue, .integer(Timestamp(article.publishedAt).millisecondsSince1970),
          article.content.databaseValue, article.sourceID.databaseValue, article.sourceName.databaseValue,
          .integer(fetchedAt.millisecondsSince1970), .text(query),
        ])
        try member.execute([.text(query), .text(url), .integer(Int64(position))])
      }
      try db.execute(
        """
        INSERT INTO query_fetch (query, fetchedAt, articleCount) VALUES (?1, ?2, ?3)
        ON CONFLICT(query) DO UPDATE SET fetchedAt = excluded.fetchedAt, articleCount = excluded.articleCount
        """, [.text(query), .integer(fetchedAt.millisecondsSince1970), .integer(Int64(seen.count))])
      return seen.count
    }
  }

  /// The articles of a query's last successful response, newest first (`publishedAt` descending, then `url`).
  ///
  /// - Parameters:
  ///   - query: the query's cache key.
  ///   - limit: at most this many rows; `nil` for all.
  ///   - offset: rows to skip first.
  /// - Throws: ``StorageError``.
  public func articles(forQuery query: String, limit: Int? = nil, offset: Int = 0) throws -> [Article] {
    try read { db in
      try db.cachedStatement(
        """
        SELECT \(Self.articleColumns) FROM query_result r JOIN article a ON a.url = r.url
        WHERE r.query = ?1 ORDER BY a.publishedAt DESC, a.url LIMIT ?2 OFFSET ?3
        """
      ).fetchAll([.text(query), .integer(Int64(limit ?? -1)), .integer(Int64(max(0, offset)))], Self.article)
        .compactMap { $0 }
    }
  }

  /// All cached articles, newest first (`publishedAt` descending, then `url`).
  ///
  /// - Parameters:
  ///   - limit: at most this many rows; `nil` for all.
  ///   - offset: rows to skip first.
  /// - Throws: ``StorageError``.
  public func articles(limit: Int? = nil, offset: Int = 0) throws -> [Article] {
    try read { db in
      try db.cachedStatement(
        "SELECT \(Self.articleColumns) FROM article a ORDER BY a.publishedAt DESC, a.url LIMIT ?1 OFFSET ?2"
      ).fetchAll([.integer(Int64(limit ?? -1)), .integer(Int64(max(0, offset)))], Self.article)
        .compactMap { $0 }
    }
  }

  /// The number of cached articles.
  public func articleCount() throws -> Int {
    try read { Int(try $0.scalarInt("SELECT count(*) FROM article") ?? 0) }
  }

  /// When the query was last fetched successfully, or `nil` if never (or its record was deleted).
  public func lastFetch(forQuery query: String) throws -> QueryFetch? {
    try read { db in
      try db.cachedStatement("SELECT fetchedAt, articleCount FROM query_fetch WHERE query = ?1").fetchOne(
        [.text(query)]
      ) { row in
        QueryFetch(
          query: query, fetchedAt: Timestamp(millisecondsSince1970: row.int64(0) ?? 0),
          articleCount: Int(row.int64(1) ?? 0))
      }
    }
  }

  /// Batch delete: removes every cached article (and every query's result list and fetch record).
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``StorageError``.
  @discardableResult
  public func deleteAllArticles() throws -> Int {
    try write { db in
      try db.execute("DELETE FROM article")
      let count = db.changes
      try db.execute("DELETE FROM query_result")
      try db.execute("DELETE FROM query_fetch")
      return count
    }
  }

  /// Batch delete: removes the articles published strictly before `date` (and their places in query results).
  ///
  /// - Parameter date: the cut-off instant; articles with `publishedAt < date` go.
  /// - Returns: the number of articles deleted.
  /// - Throws: ``StorageError``.
  @discardableResult
  public func deleteArticles(publishedBefore date: Date) throws -> Int {
    let cutoff = Timestamp(date).millisecondsSince1970
    return try write { db in
      try db.execute("DELETE FROM article WHERE publishedAt < ?1", [.integer(cutoff)])
      return db.changes
    }
  }

  static let articleColumns =
    "a.url, a.title, a.author, a.summary, a.imageURL, a.publishedAt, a.content, a.sourceID, a.sourceName"

  static func article(_ row: Row) -> Article? {
    guard let urlText = row.string(0), let url = URL(string: urlText), let title = row.string(1) else { return nil }
    return Article(
      url: url, title: title, author: row.string(2), summary: row.string(3),
      imageURL: row.string(4).flatMap(URL.init(string:)),
      publishedAt: Timestamp(millisecondsSince1970: row.int64(5) ?? 0).date,
      content: row.string(6), sourceID: row.string(7), sourceName: row.string(8))
  }
}

extension StorageContext {
  /// The time of the most recent successful fetch of any query, or `nil` if none is recorded.
  public func latestFetch() throws -> Timestamp? {
    try read { db in
      try db.scalarInt("SELECT max(fetchedAt) FROM query_fetch").map(Timestamp.init(millisecondsSince1970:))
    }
  }
}
