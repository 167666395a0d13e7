extension Migration {
  /// Version 19: the folders of the store's subscription list kept while no subscription is filed in them
  /// (`subscription_folder`): a folder a person made before filing a feed in it (Miniflux's `POST /v1/categories`),
  /// which lives on until it is deleted. Adds a table no read of an earlier schema uses, so a store at 18 is read
  /// as it is (``keepsReads``: a read finds no kept folder) and migrated at its first write.
  static let v19SubscriptionFolders = Migration(
    version: 19,
    name: "kept subscription folders",
    sql: """
      -- One row per folder kept: its path as a JSON array of names, outermost first (as subscription.folder).
      CREATE TABLE IF NOT EXISTS subscription_folder (
        path TEXT NOT NULL PRIMARY KEY,
        keptAt INTEGER NOT NULL
      );
      """,
    keepsReads: true
  )
}
