extension Migration {
  /// Version 23: the identity of each renamed source (`source_identity`): the name it was first recorded under,
  /// kept through its renames, so that what identifies it outside the store — the feed id `news serve` gives it in
  /// the sync APIs, derived from that name — stays the same when a person renames it, a client retitles it
  /// (Miniflux's `PUT /v1/feeds/{id}`) or a feed imported without a title takes its own. A source without a row is
  /// its own identity. Written where a rename moves a source's articles
  /// (``StorageContext/renameArticleSource(from:to:)`` and its siblings); the retired name gets an identity of its
  /// own, so that a later source under that name is not taken for the renamed one.
  ///
  /// Adds a table no read of an earlier schema uses, so a store at 22 is read as it is (``keepsReads``: every source
  /// its own identity) and migrated at its first write.
  static let v23SourceIdentities = Migration(
    version: 23,
    name: "source identities kept through renames",
    sql: """
      -- One row per source name renamed to or from: the name, unique without regard to ASCII case, and its identity.
      CREATE TABLE IF NOT EXISTS source_identity (
        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
        identity TEXT NOT NULL
      );
      """,
    keepsReads: true
  )
}
