extension Migration {
  /// Version 3: per-query freshness and validators in the fetch log: the max-age the query was fetched with, the
  /// `ETag` / `Last-Modified` of its last good response (for conditional requests), and its last network error.
  static let v3FetchValidators = Migration(
    version: 3,
    name: "fetch log: max-age, validators, last error",
    sql: """
      -- Seconds after `fetchedAt` during which the rows count as fresh; NULL: no max-age (never stale).
      ALTER TABLE query_fetch ADD COLUMN maxAge REAL CHECK (maxAge IS NULL OR maxAge >= 0);
      -- The validators of the last good response, as the server sent them (RFC 9110 §8.8); NULL when it sent none.
      ALTER TABLE query_fetch ADD COLUMN etag TEXT;
      ALTER TABLE query_fetch ADD COLUMN lastModified TEXT;
      -- The last failed attempt to refresh the query, if it failed after the last good fetch: a one-line
      -- description (never the API key) and when (ms since 1970 UTC). Cleared by the next good fetch.
      ALTER TABLE query_fetch ADD COLUMN lastError TEXT;
      ALTER TABLE query_fetch ADD COLUMN lastErrorAt INTEGER;
      """
  )
}
