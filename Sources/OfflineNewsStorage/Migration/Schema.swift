/// The schema of the OfflineNews store, as numbered migrations, one file each (`V<n><Name>.swift`).
/// Append; never edit a shipped migration.
enum Schema {
  static let migrations: [Migration] = [
    .v1Articles,
    .v2LocalStateAndEntities,
    .v3FetchValidators,
    .v4ArticleSearch,
    .v5FailedQueries,
    .v6ArticleIdentity,
    .v7SearchFolding,
    .v8ArticleHandles,
    .v9FullText,
    .v10ArticleImages,
    .v11SearchTextOfHTML,
  ]
}
