extension Migration {
  /// Version 21: the same-feed notice in the fetch log. `query_fetch.sameFeedNoted` is the name of the other
  /// subscription a feed was said to be the same feed as — its pending move (migration 16) leads to that
  /// subscription's address — so that the notice is given once, not at every refresh: again only when the situation
  /// changes (the move goes elsewhere or stops, which clears it: ``StorageContext/noteSameFeed(forQuery:as:)``; or
  /// the other subscription is another one, or renamed). `NULL`: nothing said.
  ///
  /// Adds the column, only when the store lacks it. Only the refresh reads it, so a store at 20 is read as it is
  /// (``keepsReads``) and migrated at its first write.
  static let v21SameFeedNotices = Migration(
    version: 21,
    name: "fetch log: same-feed notices given",
    keepsReads: true,
    steps: [.addColumn(table: "query_fetch", column: "sameFeedNoted", definition: "TEXT")]
  )
}
