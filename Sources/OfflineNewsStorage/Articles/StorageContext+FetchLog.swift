import Foundation
import OfflineNewsModel

/// A query's entry in the fetch log (`query_fetch`): its last good fetch, the max-age and validators stored with
/// it, and its last failed refresh.
package struct FetchRecord: Sendable, Hashable {
  /// The query's cache key (`NewsQuery.cacheKey`).
  package var query: String
  /// When its last good response was saved, or confirmed by a `304 Not Modified` (UTC, milliseconds).
  package var fetchedAt: Timestamp
  /// How many articles that response held after de-duplication.
  package var articleCount: Int
  /// How many of them are still cached (rows may have been evicted or deleted since).
  package var cachedCount: Int
  /// Seconds after ``fetchedAt`` during which the rows are fresh; `nil` when the query has no max-age.
  package var maxAge: TimeInterval?
  /// The `ETag` of the last good response, as the server sent it; `nil` if none.
  package var etag: String?
  /// The `Last-Modified` of the last good response, as the server sent it; `nil` if none.
  package var lastModified: String?
  /// A one-line description of the last failed refresh since the last good fetch; `nil` if none.
  package var lastError: String?
  /// When that refresh failed (UTC, milliseconds).
  package var lastErrorAt: Timestamp?
  /// The name of the source its last save was for (`query_fetch.source`, migration 17); `nil` when unknown.
  package var savedFor: String?

  package init(
    query: String, fetchedAt: Timestamp, articleCount: Int, cachedCount: Int, maxAge: TimeInterval? = nil,
    etag: String? = nil, lastModified: String? = nil, lastError: String? = nil, lastErrorAt: Timestamp? = nil,
    savedFor: String? = nil
  ) {
    self.query = query
    self.fetchedAt = fetchedAt
    self.articleCount = articleCount
    self.cachedCount = cachedCount
    self.maxAge = maxAge
    self.etag = etag
    self.lastModified = lastModified
    self.lastError = lastError
    self.lastErrorAt = lastErrorAt
    self.savedFor = savedFor
  }

  /// Seconds from ``fetchedAt`` to `now` (negative if `now` is earlier).
  package func age(at now: Timestamp) -> TimeInterval {
    Double(now.millisecondsSince1970 - fetchedAt.millisecondsSince1970) / 1000
  }
}

extension StorageContext {
  /// Saves the articles of one good response as ``saveArticles(_:forQuery:fetchedAt:)`` does, and records in the
  /// same transaction the max-age and the validators that came with it; clears the query's last error.
  ///
  /// - Parameters:
  ///   - articles: the response's articles, in response order.
  ///   - query: the query's cache key.
  ///   - fetchedAt: when the response was received.
  ///   - maxAge: seconds the rows stay fresh; `nil` keeps the query's stored max-age.
  ///   - etag: the response's `ETag`, or `nil` (a stored one is then cleared: it described older rows).
  ///   - lastModified: the response's `Last-Modified`, or `nil` (likewise).
  ///   - movedTo: where permanent redirects took the request (``ArticleSaveResult/permanentRedirects``), or `nil`.
  /// - Throws: ``StorageError``; nothing is saved then.
  @discardableResult
  package func saveArticles(
    _ articles: [Article], forQuery query: String, source: String? = nil, fetchedAt: Timestamp,
    maxAge: TimeInterval?, etag: String?, lastModified: String?, movedTo: URL? = nil
  ) async throws(StorageError) -> ArticleSaveResult {
    let eviction = self.eviction
    return try await writeAndPublish { db in
      var saved = try ArticleWriter(db: db).save(
        articles, query: query, source: source, fetchedAt: fetchedAt, eviction: eviction)
      saved.0.permanentRedirects =
        try db.cachedStatement(
          """
          UPDATE query_fetch SET maxAge = coalesce(?2, maxAge), etag = ?3, lastModified = ?4, lastError = NULL,
            lastErrorAt = NULL, \(Self.pendingMove)
          WHERE query = ?1 RETURNING movedSeen
          """
        ).fetchOne(
          [
            .text(query), maxAge.map { .real($0) } ?? .null, etag.databaseValue, lastModified.databaseValue,
            (movedTo?.absoluteString).databaseValue,
          ]
        ) { row in Int(row.int64(0) ?? 0) } ?? 0
      try db.execute("DELETE FROM query_failure WHERE query = ?1", [.text(query)])
      return saved
    }
  }

  /// The assignments that keep a query's pending move (migration 16) from the address bound as `?5` (`NULL`: the
  /// answer was not redirected): the count goes up when the address is the one already pending, starts again at 1
  /// when it is another, and the move is forgotten when the answer came from the query's own address. A same-feed
  /// notice given for the move (migration 21) is forgotten with it (every right-hand side reads the row as it was).
  private static let pendingMove = """
    movedSeen = CASE WHEN ?5 IS NULL THEN 0 WHEN movedTo IS ?5 THEN movedSeen + 1 ELSE 1 END, movedTo = ?5,
      sameFeedNoted = CASE WHEN movedTo IS ?5 THEN sameFeedNoted END
    """

  /// Records that a query's feed, whose pending move leads to the address of the subscription named `other`, was
  /// said to be the same feed as that one, and tells whether it was said already: the notice is given once per
  /// situation (migration 21). Moving elsewhere, or no longer moving, forgets it (``pendingMove``).
  ///
  /// - Returns: `true` when this is news — nothing was said for this move, or it was said of another subscription
  ///   (or of `other` under another name) — or the query has no fetch record to remember it in; `false` when it was
  ///   said of `other` already.
  /// - Throws: ``StorageError``.
  package func noteSameFeed(forQuery query: String, as other: String) async throws(StorageError) -> Bool {
    try await write { db in
      let noted = try db.cachedStatement("SELECT sameFeedNoted FROM query_fetch WHERE query = ?1").fetchOne(
        [.text(query)]
      ) { row in row.string(0) }
      if case .some(.some(let name)) = noted, name == other { return false }
      try db.execute("UPDATE query_fetch SET sameFeedNoted = ?2 WHERE query = ?1", [.text(query), .text(other)])
      return true
    }
  }

  /// Forgets the stored validators (`ETag`, `Last-Modified`) of each of `queries` (cache keys), so that the next
  /// request for it is unconditional; its rows, fetch time and other fields stay. A key with no fetch record is
  /// passed over.
  ///
  /// - Throws: ``StorageError``.
  package func forgetValidators(ofQueries queries: [String]) async throws(StorageError) {
    guard !queries.isEmpty else { return }
    try await write { db in
      let statement = try db.cachedStatement(
        """
        UPDATE query_fetch SET etag = NULL, lastModified = NULL
        WHERE query = ?1 AND (etag IS NOT NULL OR lastModified IS NOT NULL)
        """)
      for query in queries { try statement.execute([.text(query)]) }
    }
  }

  /// Records that the server confirmed a query's cached rows (`304 Not Modified`): sets its fetch time to
  /// `fetchedAt`, keeps or updates its max-age and validators, clears its last error. No article row is written.
  ///
  /// - Parameters:
  ///   - query: the query's cache key.
  ///   - fetchedAt: when the `304` was received.
  ///   - maxAge: seconds the rows stay fresh; `nil` keeps the stored max-age.
  ///   - etag: an `ETag` the `304` carried, replacing the stored one; `nil` keeps it.
  ///   - lastModified: a `Last-Modified` the `304` carried; `nil` keeps the stored one.
  ///   - movedTo: where permanent redirects took the request before the `304`, or `nil` (as
  ///     ``saveArticles(_:forQuery:source:fetchedAt:maxAge:etag:lastModified:movedTo:)`` keeps it).
  /// - Returns: `nil` when the query has no fetch record (nothing was changed); otherwise how many answered
  ///   refreshes in a row, this one included, were permanently redirected to `movedTo` (`0` when it is `nil`).
  /// - Throws: ``StorageError``.
  @discardableResult
  package func refreshFetch(
    forQuery query: String, fetchedAt: Timestamp, maxAge: TimeInterval?, etag: String?, lastModified: String?,
    movedTo: URL? = nil
  ) async throws(StorageError) -> Int? {
    try await write { db in
      try db.cachedStatement(
        """
        UPDATE query_fetch SET fetchedAt = ?2, maxAge = coalesce(?3, maxAge), etag = coalesce(?4, etag),
          lastModified = coalesce(?6, lastModified), lastError = NULL, lastErrorAt = NULL, \(Self.pendingMove)
        WHERE query = ?1 RETURNING movedSeen
        """
      ).fetchOne(
        [
          .text(query), .integer(fetchedAt.millisecondsSince1970), maxAge.map { .real($0) } ?? .null,
          etag.databaseValue, (movedTo?.absoluteString).databaseValue, lastModified.databaseValue,
        ]
      ) { row in Int(row.int64(0) ?? 0) }
    }
  }

  /// Records a failed refresh of a query; its rows and fetch time are not touched.
  ///
  /// A query with a fetch record keeps the error there (``FetchRecord/lastError``); a query never fetched
  /// successfully keeps it in `query_failure` (``lastFailure(forQuery:)``), until its first good fetch.
  ///
  /// - Parameters:
  ///   - message: a one-line description (it must not hold secrets).
  ///   - query: the query's cache key.
  ///   - date: when the refresh failed.
  /// - Returns: `false` when the query has no fetch record (the error went to `query_failure`).
  /// - Throws: ``StorageError``.
  @discardableResult
  package func recordFetchError(_ message: String, forQuery query: String, at date: Timestamp)
    async throws(StorageError) -> Bool
  {
    try await write { db in
      let values: [DatabaseValue] = [.text(query), .text(message), .integer(date.millisecondsSince1970)]
      try db.execute("UPDATE query_fetch SET lastError = ?2, lastErrorAt = ?3 WHERE query = ?1", values)
      if db.changes > 0 { return true }
      try db.execute(
        """
        INSERT INTO query_failure (query, lastError, lastErrorAt) VALUES (?1, ?2, ?3)
        ON CONFLICT(query) DO UPDATE SET lastError = excluded.lastError, lastErrorAt = excluded.lastErrorAt
        """, values)
      return false
    }
  }

  /// The last failed refresh of a query that was never fetched successfully: `(message, when)`, or `nil`.
  ///
  /// - Throws: ``StorageError``.
  package func lastFailure(forQuery query: String) async throws(StorageError) -> (message: String, at: Timestamp)? {
    try await read { db in
      try db.cachedStatement("SELECT lastError, lastErrorAt FROM query_failure WHERE query = ?1").fetchOne(
        [.text(query)]
      ) { row in (row.string(0) ?? "", Timestamp(millisecondsSince1970: row.int64(1) ?? 0)) }
    }
  }

  /// A query's fetch record, or `nil` if it was never fetched successfully (or its record was deleted).
  ///
  /// - Throws: ``StorageError``.
  package func fetchRecord(forQuery query: String) async throws(StorageError) -> FetchRecord? {
    try await read { db in try Self.fetchRecord(db, query) }
  }

  /// Every query's fetch record, most recent first.
  ///
  /// Remembered by the reading connection until the store changes (``Connection/rememberedWhileUnchanged(_:_:)``):
  /// each record counts its query's result list (`query_result`), a scan of every row of a large list, and
  /// `news serve` asks for the records at every request (a source's health and age). With 100,000 articles in one
  /// list that count was two thirds of the server's CPU (docs/PERFORMANCE.md, "news serve under load").
  ///
  /// - Throws: ``StorageError``.
  package func fetchRecords() async throws(StorageError) -> [FetchRecord] {
    try await read { db in
      let sql = "\(Self.fetchRecordSelect) ORDER BY f.fetchedAt DESC, f.query"
      return try db.rememberedWhileUnchanged(sql) {
        try db.makeStatement(sql).fetchAll([], Self.fetchRecordRow)
      }
    }
  }

  /// A query's cached rows, newest first (`publishedAt` descending, then `url`), and its fetch record, read in one
  /// transaction so that they agree.
  ///
  /// - Parameters:
  ///   - query: the query's cache key.
  ///   - limit: at most this many rows; `nil` for all.
  /// - Throws: ``StorageError``.
  package func cachedEntry(forQuery query: String, limit: Int? = nil) async throws(StorageError) -> (
    [Article], FetchRecord?
  ) {
    try await read { db in
      let rows = try db.cachedStatement(
        """
        SELECT \(Self.articleColumns) FROM query_result r JOIN article a ON a.url = r.url
        WHERE r.query = ?1 ORDER BY a.publishedAt DESC, a.url LIMIT ?2
        """
      ).fetchAll([.text(query), .integer(Int64(limit ?? -1))], Self.article).compactMap { $0 }
      return (rows, try Self.fetchRecord(db, query))
    }
  }

  static let fetchRecordSelect = """
    SELECT f.query, f.fetchedAt, f.articleCount,
      (SELECT count(*) FROM query_result r WHERE r.query = f.query),
      f.maxAge, f.etag, f.lastModified, f.lastError, f.lastErrorAt, f.source
    FROM query_fetch f
    """

  static func fetchRecord(_ db: Connection, _ query: String) throws -> FetchRecord? {
    try db.cachedStatement("\(fetchRecordSelect) WHERE f.query = ?1").fetchOne([.text(query)], fetchRecordRow)
  }

  static func fetchRecordRow(_ row: Row) -> FetchRecord {
    FetchRecord(
      query: row.string(0) ?? "", fetchedAt: Timestamp(millisecondsSince1970: row.int64(1) ?? 0),
      articleCount: Int(row.int64(2) ?? 0), cachedCount: Int(row.int64(3) ?? 0),
      maxAge: row.isNull(4) ? nil : row.double(4), etag: row.string(5), lastModified: row.string(6),
      lastError: row.string(7), lastErrorAt: row.int64(8).map(Timestamp.init(millisecondsSince1970:)),
      savedFor: row.string(9))
  }
}
