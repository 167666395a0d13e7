extension Migration {
  /// Version 18: `article.firstSeenAt`, when the store first saved the article (``ArticleColumn/Write/firstSave``:
  /// bound by every save, written only by the insert). The sync APIs page and filter by arrival, as FreshRSS does
  /// (its entry id is the time it was added: `ot`/`nt`, `crawlTimeMsec`, `timestampUsec`, the continuation), so an
  /// article dated in the past that arrives after a client's last sync still reaches it; `fetchedAt` could not
  /// serve, since every save that changes a row rewrites it. The index `article_by_firstSeenAt` serves an
  /// incremental client's `ot` (the rows since its last sync) and the arrival order.
  ///
  /// Stored rows get their `fetchedAt` (the last save that wrote them), not their `publishedAt`: it is the one stored
  /// time never earlier than the true arrival, so an incremental client misses nothing after the upgrade (an article
  /// it was denied by the old rule reaches it; at worst one it has is sent again under its unchanged id), while a
  /// publication date may be long before the arrival (the bug this fixes) or in the future.
  ///
  /// Every other read answers as before, so a store at 17 is read as it is (``keepsReads``: a read-only medium, a
  /// full disk, another process's write lock) and migrated at its first write; the reads that need the column (the
  /// sync APIs' arrival order and bounds, ``StorageContext/syncFacts(ofKeys:)``) run the migrations first
  /// (``StorageContext/migrateBeforeSyncReads()``). The column and the index are each added only when missing.
  static let v18ArticleFirstSeen = Migration(
    version: 18,
    name: "when each article was first saved",
    keepsReads: true,
    steps: [
      .addColumn(table: "article", column: "firstSeenAt", definition: "INTEGER"),
      .sql("UPDATE article SET firstSeenAt = fetchedAt WHERE firstSeenAt IS NULL"),
      // By first save, then by publication date, as the Reader API's streams are ordered (`ArticleOrder.firstSeen`),
      // so that a page is a walk of the index.
      .createIndex("CREATE INDEX article_by_firstSeenAt ON article(firstSeenAt DESC, publishedAt DESC, url)"),
    ]
  )
}
