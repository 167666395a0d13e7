extension Migration {
  /// Version 20: `article.servedID`, the id `news serve` gives the article in its sync APIs (a Miniflux entry id is
  /// its first 13 hex digits, a Google Reader item id all 16), written by the insert and never changed after: not by
  /// an update, and not by a re-key (``ArticleWriter``'s `moveRow` changes `url` and `handle` only), so that a client
  /// keeps seeing one article under one id, with its read and starred marks, when a publisher fixes a link. A new
  /// row's is its handle (``ArticleIdentity/handle(forKey:)``), but when another row holds an id with the same first
  /// 13 digits (a row re-keyed away from this key): then the next free 13-digit prefix (the writer's
  /// `ServedIDs.probe`).
  ///
  /// Stored rows get their `handle`: the id the APIs served before, so that a client that synced before the upgrade
  /// keeps its ids (its read and star marks by id still find their rows). The index `article_by_servedID` finds an
  /// id a client sends back; a first import drops it and builds it again like the others. Only the sync APIs read
  /// the column, so a store at 19 is read as it is (``keepsReads``) and migrated at its first write or before a read
  /// of the column (``StorageContext/migrateBeforeSyncReads()``). The column and the index are each added only when
  /// missing.
  static let v20ArticleServedIDs = Migration(
    version: 20,
    name: "the ids news serve gives articles",
    keepsReads: true,
    steps: [
      .addColumn(table: "article", column: "servedID", definition: "TEXT"),
      .sql("UPDATE article SET servedID = handle WHERE servedID IS NULL AND handle IS NOT NULL"),
      // A row without a handle (none is written so since migration 8) gets the one its key gives.
      .transform { try setHandles($0, column: "servedID", rows: " WHERE servedID IS NULL") },
      // An id a sync client sends back (a Miniflux entry id's 13 hex digits, a Reader item id's 16) is one range.
      .createIndex("CREATE INDEX article_by_servedID ON article(servedID)"),
    ]
  )
}
