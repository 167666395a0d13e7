import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// `news delete`: batch delete of cached articles.
struct DeleteCommand: NewsCommand {
  static let name = "delete"
  static let summary = "Delete cached articles: all of them, or those published before a date."
  static let groups: [(options: [Option], required: Bool)] = [([.all, .before, .forgetDeleted], true)]
  static let details = """
    A date without a time means midnight UTC; a time needs an offset (Z or ±HH:MM). --before keeps bookmarked
    articles, as eviction does, unless --include-bookmarked; --all deletes everything, bookmarks too (it says how
    many were bookmarked).
    Articles deleted with --before stay deleted: their keys are remembered (for a year, at most 100,000), so a
    refresh of a feed that still lists them does not bring them back; --forget-deleted lets them return at the next
    refresh. --all empties the store and forgets them too (a reset: the next refresh saves everything again).
    """

  /// Deletions of this many articles or more are followed by a line naming `news compact`: about 5 MB of a store of
  /// NewsAPI articles (docs/PERFORMANCE.md: 131 MB for 98,640).
  static let compactHintThreshold = 1000

  static let storeOptions = StoreOptions<Option>(json: "{deleted}")

  enum Option: CommandOption {
    case all, before, forgetDeleted, includeBookmarked
    var spec: OptionSpec {
      switch self {
      case .all: OptionSpec(name: "all", help: "Delete every cached article.")
      case .before: SharedOption.before("Delete articles")
      case .forgetDeleted:
        OptionSpec(
          name: "forget-deleted",
          help: "Forget the articles deleted with --before, so the next refresh brings back those a source still lists."
        )
      case .includeBookmarked:
        OptionSpec(name: "include-bookmarked", help: "With --before: delete bookmarked articles too (kept by default).")
      }
    }
  }

  struct Report: Encodable { var deleted: Int }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let all = arguments.flag(.all)
    let before = arguments.value(.before)
    if arguments.flag(.includeBookmarked), before == nil {
      throw CommandFailure(.usage, "--include-bookmarked goes with --before DATE (--all deletes everything)")
    }
    let given = [all, before != nil, arguments.flag(.forgetDeleted)].filter { $0 }.count
    guard given == 1 else {
      throw CommandFailure(
        .usage,
        given > 1
          ? "give one of --all, --before DATE and --forget-deleted"
          : "what to delete? give --all or --before DATE (or --forget-deleted)")
    }
    let cutoff = arguments.date(.before)
    let repository = try context.makeRepository(arguments.common)
    if arguments.flag(.forgetDeleted) {
      let forgotten = try await repository.forgetDeletedArticles()
      if arguments.json {
        context.console.out(OutputFormat.json(["forgotten": forgotten]))
      } else {
        context.console.printLines(
          "forgot \(forgotten) deleted article\(forgotten == 1 ? "" : "s"); the next refresh brings back those a "
            + "source still lists\n")
      }
      return .success
    }
    let deleted: Int
    // --all takes the bookmarks with the rest: counted first, so that the report says so.
    let bookmarked =
      cutoff == nil ? try await repository.counts(matching: ArticleFilter(bookmarkedOnly: true)).total : 0
    if let cutoff {
      deleted = try await repository.delete(
        publishedBefore: cutoff.date, keepingBookmarks: !arguments.flag(.includeBookmarked))
    } else {
      deleted = try await repository.deleteAll()
    }
    if arguments.json {
      context.console.out(OutputFormat.json(Report(deleted: deleted)))
    } else {
      var scope = cutoff.map { " published before \($0.rfc3339String)" } ?? ""
      if cutoff != nil, !arguments.flag(.includeBookmarked) { scope += " (bookmarked ones kept)" }
      if bookmarked > 0 { scope += ", \(bookmarked) of them bookmarked" }
      var text = "deleted \(deleted) article\(deleted == 1 ? "" : "s")\(scope)\n"
      // SQLite keeps the freed pages in the file for later rows: after a large delete, say how to give them back.
      if deleted >= Self.compactHintThreshold {
        text += "the database file keeps its size (later saves reuse the space); 'news compact' shrinks it\n"
      }
      context.console.printLines(text)
    }
    return .success
  }
}
