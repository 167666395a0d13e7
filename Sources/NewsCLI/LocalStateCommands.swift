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
    usage: "HANDLE|URL [--undo] [--db PATH] [--config PATH] [--json]",
    positionals: [("HANDLE|URL", "The article's handle, as `news list` prints it, or its URL.")],
    options: [
      OptionSpec(name: "undo", help: "Mark it unread instead."),
      .database,
      .configuration,
      OptionSpec(name: "json", help: "Print JSON: {url, isRead, bookmarked}."),
    ],
    details: "Exit status: 0 done, 64 a handle several articles share, 66 no cached article has this handle or URL.")

  static let bookmarkSpec = CommandSpec(
    name: "bookmark",
    summary: "Bookmark a cached article (--undo: remove the bookmark). Bookmarks are never evicted.",
    usage: "HANDLE|URL [--undo] [--db PATH] [--config PATH] [--json]",
    positionals: [("HANDLE|URL", "The article's handle, as `news list` prints it, or its URL.")],
    options: [
      OptionSpec(name: "undo", help: "Remove the bookmark instead."),
      .database,
      .configuration,
      OptionSpec(name: "json", help: "Print JSON: {url, isRead, bookmarked}."),
    ],
    details: "Exit status: 0 done, 64 a handle several articles share, 66 no cached article has this handle or URL.")

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
      throw CommandFailure(
        .usage, "which article? usage: news \(name) HANDLE|URL", hint: "'news list' shows each article's handle")
    }
    let undo = arguments.flag("undo")
    let repository = try context.makeRepository(arguments)
    let article: Article?
    let url = try await context.resolveArticle(typed, in: repository, command: name).url.absoluteString
    do {
      let found =
        kind == .read
        ? try await repository.markRead(!undo, url: url) : try await repository.bookmark(!undo, url: url)
      guard found else {
        throw CommandFailure(.noInput, "no cached article has the URL \(url)", hint: "'news list' shows handles")
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
