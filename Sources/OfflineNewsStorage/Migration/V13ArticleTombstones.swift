extension Migration {
  /// Version 13: the keys of deleted articles (`article_tombstone`), so that a refresh does not bring back what
  /// `news delete --before` removed. Adds a table no read of an earlier schema uses, so a store at 12 is read as it
  /// is (``keepsReads``) and migrated at its first write.
  static let v13ArticleTombstones = Migration(
    version: 13,
    name: "tombstones of deleted articles",
    sql: """
      -- One row per deleted article key (the article's url column) and when it was deleted (ms since 1970 UTC).
      -- The article writer skips these keys; kept for StorageContext.tombstoneLifetime and at most
      -- StorageContext.maximumTombstones rows, the oldest dropped first.
      CREATE TABLE IF NOT EXISTS article_tombstone (
        url TEXT NOT NULL PRIMARY KEY,
        deletedAt INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS article_tombstone_by_deletedAt ON article_tombstone(deletedAt);
      """,
    keepsReads: true
  )
}
