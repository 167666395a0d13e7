import Foundation
import OfflineNews

/// `news mark-read URL` and `news bookmark URL`: local state that refreshes never change.
struct LocalStateCommand {
  enum Kind {
    case read, bookmark
  }

  static let markReadSpec = CommandSpec(
    name: "mark-read",
    summary: "Mark a cached article read (--undo: unread). Refreshes never change it.",
    usage: "URL [--undo] [--db PATH] [--config PATH] [--json]",
    positionals: [("URL", "The article's URL, as `news list --json` shows it.")],
    options: [
      OptionSpec(name: "undo", help: "Mark it unread instead."),
      .database,
      .configuration,
      OptionSpec(name: "json", help: "Print JSON: {url, isRead, bookmarked}."),
    ],
    details: "Exit status: 0 done, 66 no cached article has this URL.")

  static let bookmarkSpec = CommandSpec(
    name: "bookmark",
    summary: "Bookmark a cached article (--undo: remove the bookmark). Bookmarks are never evicted.",
    usage: "URL [--undo] [--db PATH] [--config PATH] [--json]",
    positionals: [("URL", "The article's URL, as `news list --json` shows it.")],
    options: [
      OptionSpec(name: "undo", help: "Remove the bookmark instead."),
      .database,
      .configuration,
      OptionSpec(name: "json", help: "Print JSON: {url, isRead, bookmarked}."),
    ],
    details: "Exit status: 0 done, 66 no cached article has this URL.")

  struct Report: Encodable {
    var url: String
    var isRead: Bool
    var bookmarked: Bool
  }

  var kind: Kind
  var context: CommandContext
  var arguments: ParsedArguments

  func run() async throws(CommandFailure) -> ExitCode {
    let name = kind == .read ? "mark-read" : "bookmark"
    guard let typed = arguments.positionals.first, !typed.isEmpty else {
      throw CommandFailure(.usage, "which article? usage: news \(name) URL", hint: "'news list --json' shows URLs")
    }
    let undo = arguments.flag("undo")
    let repository = try context.makeRepository(arguments)
    let article: Article?
    var url = typed
    do {
      url = try await context.cachedURL(for: typed, in: repository)
      let found =
        kind == .read
        ? try await repository.markRead(!undo, url: url) : try await repository.bookmark(!undo, url: url)
      guard found else {
        throw CommandFailure(.noInput, "no cached article has the URL \(url)", hint: "'news list --json' shows URLs")
      }
      article = try await repository.article(url: url)
    } catch let failure as CommandFailure {
      throw failure
    } catch let error as NewsRepositoryError {
      throw context.failure(error)
    } catch {
      throw CommandFailure(.storage, "\(error)")
    }
    let report = Report(url: url, isRead: article?.isRead ?? false, bookmarked: article?.isBookmarked ?? false)
    if arguments.flag("json") {
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
