extension Migration {
  /// Version 16: a feed's pending move in the fetch log. `query_fetch.movedTo` is where permanent redirects (`301`,
  /// `308`, RFC 9110 §15.4.2, §15.4.9) took the query's last answered refresh, `movedSeen` how many answered
  /// refreshes in a row were taken there (`0` and `NULL`: the last one was not redirected). A subscription is re-linked
  /// only once consecutive refreshes agree (``StorageContext/saveArticles(_:forQuery:source:fetchedAt:maxAge:etag:lastModified:movedTo:)``),
  /// so that a one-off misconfigured redirect does not rewrite anybody's subscription list.
  ///
  /// Adds two columns that no read outside the fetch log's own writes uses, each only when the store lacks it. Every
  /// stored row starts with no pending move; a store at 15 is read as it is (``keepsReads``) and migrated at its first
  /// write.
  static let v16FetchMoves = Migration(
    version: 16,
    name: "fetch log: pending permanent moves",
    keepsReads: true,
    steps: [
      .addColumn(table: "query_fetch", column: "movedTo", definition: "TEXT"),
      .addColumn(
        table: "query_fetch", column: "movedSeen", definition: "INTEGER NOT NULL DEFAULT 0 CHECK (movedSeen >= 0)"),
    ]
  )
}
