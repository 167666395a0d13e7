import Foundation
import OfflineNews

/// What `news mark-read` and `news bookmark` share: local state that refreshes never change.
struct LocalStateCommand {
  enum Kind {
    case read, bookmark
  }

  enum Option: CommandOption {
    case undo, db, config, json
    var spec: OptionSpec {
      switch self {
      case .undo: OptionSpec(name: "undo", help: "Undo: mark it unread, or remove the bookmark.")
      case .db: SharedOption.database
      case .config: SharedOption.configuration
      case .json: SharedOption.json("{url, isRead, bookmarked}")
      }
    }
  }

  static let positionals = [
    PositionalSpec(name: "HANDLE|URL", help: "The article's handle, as `news list` prints it, or its URL.")
  ]
  static let details =
    "Exit status: 0 done, 64 a handle several articles share, 66 no cached article has this handle or URL."

  struct Report: Encodable {
    var url: String
    var isRead: Bool
    var bookmarked: Bool
  }

  var kind: Kind
  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let name = kind == .read ? "mark-read" : "bookmark"
    guard let typed = arguments.positionals.first, !typed.isEmpty else {
      throw CommandFailure(
        .usage, "which article? usage: news \(name) HANDLE|URL", hint: "'news list' shows each article's handle")
    }
    let undo = arguments.flag(.undo)
    let repository = try context.makeRepository(arguments.common)
    let url = try await context.resolveArticle(typed, in: repository, command: name).url.absoluteString
    let found =
      kind == .read
      ? try await repository.markRead(!undo, url: url) : try await repository.bookmark(!undo, url: url)
    guard found else {
      throw CommandFailure(.noInput, "no cached article has the URL \(url)", hint: "'news list' shows handles")
    }
    let article = try await repository.article(url: url)
    let report = Report(url: url, isRead: article?.isRead ?? false, bookmarked: article?.isBookmarked ?? false)
    if arguments.flag(.json) {
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

/// `news mark-read HANDLE|URL [--undo]`.
struct MarkReadCommand: NewsCommand {
  typealias Option = LocalStateCommand.Option
  static let name = "mark-read"
  static let summary = "Mark a cached article read (--undo: unread). Refreshes never change it."
  static let positionals = LocalStateCommand.positionals
  static let details = LocalStateCommand.details

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    try await LocalStateCommand(kind: .read, context: context, arguments: arguments).run()
  }
}

/// `news bookmark HANDLE|URL [--undo]`.
struct BookmarkCommand: NewsCommand {
  typealias Option = LocalStateCommand.Option
  static let name = "bookmark"
  static let summary = "Bookmark a cached article (--undo: remove the bookmark). Bookmarks are never evicted."
  static let positionals = LocalStateCommand.positionals
  static let details = LocalStateCommand.details

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    try await LocalStateCommand(kind: .bookmark, context: context, arguments: arguments).run()
  }
}
