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
    .v12ArticleKeyIndex,
    .v13ArticleTombstones,
    .v14Subscriptions,
    .v15ArticleItemIDs,
    .v16FetchMoves,
    .v17SourceCounts,
    .v18ArticleFirstSeen,
    .v19SubscriptionFolders,
    .v20ArticleServedIDs,
    .v21SameFeedNotices,
    .v22TombstoneCauses,
    .v23SourceIdentities,
    .v24SearchFoldsMark,
  ]
}

extension Schema {
  /// The `CREATE INDEX` statements on `article` that the migrations declare, with `--` comments removed and every
  /// run of whitespace made one space (as ``collapsed(_:)``), unique indexes excepted: the secondary indexes a
  /// first import may drop and build again from the text `sqlite_master` holds for them (``ArticleWriter``), read
  /// from the one declaration of the schema rather than written out a second time: the migrations' scripts and
  /// their steps' statements (``Migration/scripts``; steps such as migration 15's create an index only when the store
  /// lacks it).
  static let articleIndexDefinitions: Set<String> = Set(
    migrations.flatMap(\.scripts).flatMap { script in
      withoutComments(script)
        .split(separator: ";")
        .map { collapsed(String($0)) }
        .filter { statement in
          let words = statement.split(separator: " ", maxSplits: 4)
          return words.count == 5 && words[0] == "CREATE" && words[1] == "INDEX" && words[3] == "ON"
            && words[4].hasPrefix("article(")
        }
    })

  /// The `CREATE TRIGGER` statements the migrations declare, by trigger name, each as the latest migration that
  /// creates it wrote it: `--` comments removed, whitespace collapsed (``collapsed(_:)``), without the closing `;`
  /// (as `sqlite_master` holds it). A trigger a later migration dropped keeps its last text; the map is looked up by
  /// the names `sqlite_master` holds. A bulk save sets the search index's triggers aside only when `sqlite_master`
  /// holds exactly this text (``ArticleWriter``), so that what it does in their place is what they did.
  static let triggerDefinitions: [String: String] = {
    var definitions: [String: String] = [:]
    for script in migrations.flatMap(\.scripts) {
      var rest = Substring(collapsed(withoutComments(script)))
      while let start = rest.range(of: "CREATE TRIGGER "), let end = rest[start.upperBound...].range(of: " END;") {
        let statement = String(rest[start.lowerBound..<end.lowerBound]) + " END"
        let words = statement.split(separator: " ", maxSplits: 3)
        if words.count > 2 { definitions[String(words[2])] = statement }
        rest = rest[end.upperBound...]
      }
    }
    return definitions
  }()

  /// `sql` without its `--` comments (each up to the end of its line).
  static func withoutComments(_ sql: String) -> String {
    sql.split(separator: "\n", omittingEmptySubsequences: false)
      .map { line in line.range(of: "--").map { line[..<$0.lowerBound] } ?? line }
      .joined(separator: "\n")
  }

  /// `sql` with every run of whitespace made one space, and none at either end.
  static func collapsed(_ sql: String) -> String {
    sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }
}
