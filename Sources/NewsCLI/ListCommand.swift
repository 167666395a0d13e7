import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// `news list`: cached articles, newest first, without the network.
struct ListCommand: NewsCommand {
  static let name = "list"
  static let summary = "List cached articles, newest first, without touching the network."

  static let storeOptions = StoreOptions<Option>(json: "{origin, fetchedAt, networkError, articles}")

  enum Option: CommandOption {
    case unread, bookmarked, source, folder, limit, offset
    var spec: OptionSpec {
      switch self {
      case .limit:
        OptionSpec(
          name: "limit", valueName: "N", help: "Show at most N articles (default: all).", type: .integer(minimum: 0))
      case .offset:
        OptionSpec(name: "offset", valueName: "N", help: "Skip the N newest first.", type: .integer(minimum: 0))
      case .unread: SharedOption.unread
      case .bookmarked: SharedOption.bookmarked
      case .source: SharedOption.source
      case .folder: SharedOption.folder
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let limit = arguments.integer(.limit)
    let offset = arguments.integer(.offset) ?? 0
    let repository = try context.makeRepository(arguments.common, reading: true)
    let articles: [Article]
    let lastFetch: Timestamp?
    let filter = try await context.narrowing(
      ArticleFilter(unreadOnly: arguments.flag(.unread), bookmarkedOnly: arguments.flag(.bookmarked)),
      source: arguments.value(.source), folder: arguments.value(.folder), in: repository)
    // One more than shown, to tell whether there are more.
    let read = try await repository.read(
      limit: limit.map { $0 < Int.max ? $0 + 1 : $0 }, offset: offset, filter: filter)
    articles = limit.map { Array(read.prefix($0)) } ?? read
    let more = read.count > articles.count
    lastFetch = try await repository.latestFetch()
    let console = context.console
    if arguments.json {
      let document = OutputFormat.ResultDocument(
        origin: .cache, fetchedAt: lastFetch, networkError: nil,
        articles: articles.map(OutputFormat.ArticleDocument.init))
      console.out(OutputFormat.json(document))
      return .success
    }
    let now = context.now()
    // `--limit 0` asked for no line: the cache is not empty for that, so nothing is said of it.
    if articles.isEmpty, limit == 0 { return .success }
    if articles.isEmpty {
      let filtered =
        arguments.flag(.unread) || arguments.flag(.bookmarked) || arguments.value(.source) != nil
        || arguments.value(.folder) != nil
      // Past the end of what there is, or nothing at all to list: a filter that matches nothing says so at any
      // offset, and the end of the whole cache says where it is.
      var anyAtAll = false
      if offset > 0 { anyAtAll = !(try await repository.read(limit: 1, offset: 0, filter: filter)).isEmpty }
      var message = filtered ? "no cached article matches the filter" : "nothing cached yet: run 'news fetch'"
      if !filtered, offset == 0, let remembered = try? await repository.rememberedDeletionCount(), remembered > 0 {
        // Everything was deleted: fetching again saves nothing the feeds list (tester LOW: a loop with no way out).
        message =
          "nothing cached: \(remembered) deleted article\(remembered == 1 ? " is" : "s are") remembered and not "
          + "fetched again; 'news delete --forget-deleted' lets them back at the next 'news fetch'"
      }
      if anyAtAll, filtered {
        message = "no cached articles that match the filter past the first \(offset)"
      } else if anyAtAll {
        let count = try await repository.counts().total
        message = "no cached articles past the first \(offset): the cache holds \(count)"
      }
      console.err(message + "\n")
      return .success
    }
    // What is shown of the cache: "20 articles", or, after `--offset 20`, "articles 21–40"; and whether more
    // follow (`--limit` cut the list), so that `--limit 3` is not read as "3 articles cached".
    let shown =
      offset == 0
      ? "\(articles.count) \(articles.count == 1 ? "article" : "articles")"
      : articles.count == 1 ? "article \(offset + 1)" : "articles \(offset + 1)–\(offset + articles.count)"
    let age = lastFetch.map { ", last fetch \(OutputFormat.relative($0.date, now: now))" } ?? ""
    let next = more ? "; more with --offset \(offset + articles.count)" : ""
    console.printLines("cache — \(shown), newest first\(age)\(next)\n")
    let handles = await context.shortHandles(articles, repository)
    console.printLines(OutputFormat.lines(articles, handles: handles, now: now, console: console))
    return .success
  }
}
