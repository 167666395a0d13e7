extension Migration {
  /// Version 14: the subscriptions an app keeps in the store itself (`subscription`), one row per source that
  /// ``StorageContext/subscriptions()`` reads. Adds a table no read of an earlier schema uses, so a store at 13 is
  /// read as it is (``keepsReads``) and migrated at its first write.
  static let v14Subscriptions = Migration(
    version: 14,
    name: "subscriptions",
    sql: """
      -- One row per subscribed source, in the order subscribed (position). name is unique without regard to
      -- ASCII case (as a person types it); url is the source's URL as subscribed (the repository refuses a second
      -- spelling of one URL by its CanonicalURL form). folder is a JSON array of folder names, outermost
      -- first ([] at the top level). policy is a CachePolicy raw value or NULL; maxAge seconds or NULL.
      CREATE TABLE IF NOT EXISTS subscription (
        position INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        url TEXT NOT NULL UNIQUE,
        title TEXT,
        folder TEXT NOT NULL DEFAULT '[]',
        homePage TEXT,
        policy TEXT,
        maxAge REAL,
        fullText INTEGER NOT NULL DEFAULT 0,
        subscribedAt INTEGER NOT NULL
      );
      """,
    keepsReads: true
  )
}
