extension Migration {
  /// Version 5: the last error of queries that were never fetched successfully. `query_fetch` records good fetches
  /// (its `fetchedAt` is required), so a query whose every refresh failed had nowhere to keep its error, and
  /// `news sources` could not say why a source was empty.
  static let v5FailedQueries = Migration(
    version: 5,
    name: "last error of never-fetched queries",
    sql: """
      -- One row per query that has no good fetch yet and whose last refresh failed: a one-line description (never
      -- the API key) and when (ms since 1970 UTC). Deleted by the query's first good fetch.
      CREATE TABLE query_failure (
        query TEXT NOT NULL PRIMARY KEY,
        lastError TEXT NOT NULL,
        lastErrorAt INTEGER NOT NULL
      );
      """
  )
}
