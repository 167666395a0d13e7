import Foundation
import OfflineNews
import OfflineNewsStorage

/// What `news mark-read` and `news bookmark` share: local state that refreshes never change.
enum LocalStateCommand {
  enum Kind {
    case read, bookmark
  }

  static let storeOptions = StoreOptions<Option>(json: "{url, isRead, bookmarked}")

  enum Option: CommandOption {
    case undo
    var spec: OptionSpec {
      switch self {
      case .undo: OptionSpec(name: "undo", help: "Undo: mark it unread, or remove the bookmark.")
      }
    }
  }

  static let positionals = [PositionalSpec.article]
  static let details =
    "Exit status: 0 done, 64 a handle several articles share, 66 no cached article has this handle or URL."

  struct Report: Encodable {
    var url: String
    var isRead: Bool
    var bookmarked: Bool
  }

  /// Marks one article — the handle or URL first among `arguments`' positionals — read (`kind` `.read`) or
  /// bookmarked, or, with `undo`, unread or not bookmarked, and prints its state (``Report`` with `--json`): `news
  /// bookmark`, and `news mark-read` of one article.
  ///
  /// - Throws: ``CommandFailure`` 64 when no article is typed or a handle is ambiguous, 66 when none is cached; the
  ///   repository's errors.
  static func run<Option>(
    _ kind: Kind, _ arguments: ParsedArguments<Option>, undo: Bool, context: CommandContext
  ) async throws -> ExitCode {
    let name = kind == .read ? MarkReadCommand.name : BookmarkCommand.name
    let also = kind == .read ? " (or --source NAME, --folder NAME, --all, --before DATE)" : ""
    let (named, repository) = try await context.article(
      arguments.positionals.first, command: name, alternatives: also, store: arguments.common)
    let url = named.url.absoluteString
    let found =
      kind == .read
      ? try await repository.markRead(!undo, url: url) : try await repository.bookmark(!undo, url: url)
    guard found else {
      throw CommandFailure(.noInput, "no cached article has the URL \(url)", hint: "'news list' shows handles")
    }
    let article = try await repository.article(url: url)
    let report = Report(url: url, isRead: article?.isRead ?? false, bookmarked: article?.isBookmarked ?? false)
    if arguments.json {
      context.console.out(OutputFormat.json(report))
    } else {
      let title = OutputFormat.sanitized(article?.title ?? url, collapsingWhitespace: true)
      let done =
        kind == .read
        ? "marked \(report.isRead ? "read" : "unread")" : report.bookmarked ? "bookmarked" : "bookmark removed"
      context.console.printLines("\(done): \(title)\n")
    }
    return .success
  }
}

/// `news mark-read HANDLE|URL [--undo]`, or in bulk: `news mark-read --source NAME | --folder NAME | --all
/// [--before DATE] [--undo]`.
struct MarkReadCommand: NewsCommand {
  static let name = "mark-read"
  static let summary =
    "Mark a cached article read, or a source's, a folder's or all (--undo: unread). Refreshes never change it."
  static let positionals = [
    PositionalSpec(
      name: "[HANDLE|URL]", help: "The article's handle, as `news list` prints it, or its URL (or a bulk option).")
  ]
  static let groups: [(options: [Option], required: Bool)] = [([.source, .folder, .all], false)]
  static let details = """
    In bulk: the articles of a source (as 'news list --source' selects them), of every source in a folder or below
    it, or all; --before DATE keeps those published before it (alone: of every source). One transaction; it prints
    how many articles changed.
    Exit status: 0 done (also when none changed), 64 a handle several articles share, a bad date or a folder no
    source is in, 66 no cached article has this handle or URL.
    """

  static let storeOptions = StoreOptions<Option>(json: "{url, isRead, bookmarked}; in bulk {changed, isRead}")

  enum Option: CommandOption {
    case undo, source, folder, all, before
    var spec: OptionSpec {
      switch self {
      case .undo: OptionSpec(name: "undo", help: "Undo: mark them unread.")
      case .source:
        OptionSpec(name: "source", valueName: "NAME", help: "Every article of this source, as 'news list --source'.")
      case .folder:
        OptionSpec(name: "folder", valueName: "NAME", help: "Every article of the sources in this folder or below.")
      case .all: OptionSpec(name: "all", help: "Every cached article.")
      case .before: SharedOption.before("Only articles")
      }
    }
  }

  /// What `--json` prints of a bulk change.
  struct BulkReport: Encodable {
    var changed: Int
    var isRead: Bool
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let bulk =
      arguments.value(.source) != nil || arguments.value(.folder) != nil || arguments.flag(.all)
      || arguments.value(.before) != nil
    guard bulk else {
      return try await LocalStateCommand.run(.read, arguments, undo: arguments.flag(.undo), context: context)
    }
    if let typed = arguments.positionals.first {
      throw arguments.badValue("give an article (\(typed)) or --source, --folder, --all or --before, not both")
    }
    let selections = [arguments.value(.source) != nil, arguments.value(.folder) != nil, arguments.flag(.all)]
    guard selections.filter({ $0 }).count <= 1 else {
      throw arguments.badValue("give one of --source, --folder and --all (--before narrows any of them)")
    }
    let repository = try context.makeRepository(arguments.common)
    // As `news list --source` and `--folder` select (a publisher's name included), so that what it lists is what
    // this marks.
    let filter = try await context.narrowing(
      ArticleFilter(publishedBefore: arguments.date(.before)?.date), source: arguments.value(.source),
      folder: arguments.value(.folder), in: repository)
    let read = !arguments.flag(.undo)
    let changed = try await repository.markRead(read, matching: filter)
    if arguments.json {
      context.console.out(OutputFormat.json(BulkReport(changed: changed, isRead: read)))
    } else {
      let state = read ? "read" : "unread"
      context.console.printLines("marked \(changed) \(changed == 1 ? "article" : "articles") \(state)\n")
    }
    return .success
  }
}

/// `news bookmark HANDLE|URL [--undo]`.
struct BookmarkCommand: NewsCommand {
  typealias Option = LocalStateCommand.Option
  static let storeOptions = LocalStateCommand.storeOptions
  static let name = "bookmark"
  static let summary = "Bookmark a cached article (--undo: remove the bookmark). Bookmarks are never evicted."
  static let positionals = LocalStateCommand.positionals
  static let details = LocalStateCommand.details

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    try await LocalStateCommand.run(.bookmark, arguments, undo: arguments.flag(.undo), context: context)
  }
}
