import Foundation
import OfflineNews

/// `news delete`: batch delete of cached articles.
struct DeleteCommand: NewsCommand {
  static let name = "delete"
  static let summary = "Delete cached articles: all of them, or those published before a date."
  static let groups: [(options: [Option], required: Bool)] = [([.all, .before], true)]
  static let details = """
    A date without a time means midnight UTC; a time needs an offset (Z or ±HH:MM). --before keeps bookmarked
    articles, as eviction does, unless --include-bookmarked; --all deletes everything.
    """

  /// Deletions of this many articles or more are followed by a line naming `news compact`: about 5 MB of a store of
  /// NewsAPI articles (docs/PERFORMANCE.md: 131 MB for 98,640).
  static let compactHintThreshold = 1000

  enum Option: CommandOption {
    case all, before, includeBookmarked, db, config, json
    var spec: OptionSpec {
      switch self {
      case .all: OptionSpec(name: "all", help: "Delete every cached article.")
      case .before:
        OptionSpec(
          name: "before", valueName: "DATE",
          help: "Delete articles published before DATE (RFC 3339: 2024-05-01 or 2024-05-01T12:00:00Z).")
      case .includeBookmarked:
        OptionSpec(name: "include-bookmarked", help: "With --before: delete bookmarked articles too (kept by default).")
      case .db: SharedOption.database
      case .config: SharedOption.configuration
      case .json: SharedOption.json("{deleted}")
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
    guard all != (before != nil) else {
      throw CommandFailure(
        .usage, all ? "give --all or --before DATE, not both" : "what to delete? give --all or --before DATE")
    }
    var cutoff: Timestamp?
    if let before {
      guard let timestamp = commandLineTimestamp(before) else {
        throw arguments.badValue(
          "--before \"\(before)\" is not an RFC 3339 date", hint: "e.g. 2024-05-01 or 2024-05-01T12:00:00Z")
      }
      cutoff = timestamp
    }
    let repository = try context.makeRepository(arguments.common)
    let deleted: Int
    if let cutoff {
      deleted = try await repository.delete(
        publishedBefore: cutoff.date, keepingBookmarks: !arguments.flag(.includeBookmarked))
    } else {
      deleted = try await repository.deleteAll()
    }
    if arguments.flag(.json) {
      context.console.out(OutputFormat.json(Report(deleted: deleted)))
    } else {
      var scope = cutoff.map { " published before \($0.rfc3339String)" } ?? ""
      if cutoff != nil, !arguments.flag(.includeBookmarked) { scope += " (bookmarked ones kept)" }
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
