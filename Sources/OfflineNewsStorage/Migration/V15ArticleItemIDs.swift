extension Migration {
  /// The index of migration 15: only rows with an identifier (feed items), so NewsAPI and mapped rows cost it
  /// nothing.
  static let articleItemIDIndex = "CREATE INDEX article_by_itemID ON article(itemID) WHERE itemID IS NOT NULL"

  /// Version 15: the item's own identifier scoped to its feed (`article.itemID`, ``Article/itemID``: an RSS `guid`,
  /// Atom `id` or JSON Feed `id` unique within its document, as `news-item:SCOPE/ID`), so that an item whose link
  /// was edited after publication (a slug fixed) is found again and its row re-keyed in place
  /// (``ArticleWriter/Session``), keeping read mark, bookmark and whole text, instead of a second unread article.
  ///
  /// Adds a column no read uses and an index of the rows that have one, each only when the store lacks it (a store
  /// whose `article` entity was reconciled by a newer build already has the column). Every stored row gets `NULL`:
  /// the migration creates, moves and merges nothing; a row gets its identifier at the next fetch of its feed that
  /// still carries its key, and only from then on can an edited link find it. So a store at 14 is read as it is
  /// (``keepsReads``) and migrated at its first write.
  static let v15ArticleItemIDs = Migration(
    version: 15,
    name: "feed item identifiers",
    keepsReads: true,
    steps: [.addColumn(table: "article", column: "itemID", definition: "TEXT"), .createIndex(articleItemIDIndex)]
  )
}
