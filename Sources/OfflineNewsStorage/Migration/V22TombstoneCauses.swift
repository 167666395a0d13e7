extension Migration {
  /// Version 22: why an article's key is remembered (`article_tombstone.evicted`): `1` when the store's eviction
  /// policy removed the article, `0` when a deletion did (`news delete`), so that a save that leaves remembered
  /// articles out can say which (an evicted article comes back only under a larger eviction limit, a deleted one by
  /// `news delete --forget-deleted` alone). Keys remembered before it read as deleted.
  ///
  /// Adds the column, only when the store lacks it. Only the article writer reads it, so a store at 21 is read as
  /// it is (``keepsReads``) and migrated at its first write.
  static let v22TombstoneCauses = Migration(
    version: 22,
    name: "tombstones: evicted or deleted",
    keepsReads: true,
    steps: [.addColumn(table: "article_tombstone", column: "evicted", definition: "INTEGER NOT NULL DEFAULT 0")]
  )
}
