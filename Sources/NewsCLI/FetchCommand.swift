import Foundation
import OfflineNews

/// `news fetch`: network-first read of a source, saved to the cache; the cache when the network fails.
struct FetchCommand {
  static let spec = CommandSpec(
    name: "fetch",
    summary: "Fetch articles (network first; the cache when the network fails) and save them.",
    usage: "[--url URL | --source NAME] [--db PATH] [--config PATH] [--limit N] [--timeout SECONDS] [--json]",
    options: [
      OptionSpec(name: "url", valueName: "URL", help: "A NewsAPI v2 URL, or a file (path or file: URL) to read."),
      OptionSpec(name: "source", valueName: "NAME", help: "A source named in the configuration."),
      OptionSpec(name: "db", valueName: "PATH", help: "The database (default: $XDG_DATA_HOME/news/news.sqlite)."),
      OptionSpec(name: "config", valueName: "PATH", help: "The configuration file (default: Config/news.json)."),
      OptionSpec(name: "limit", valueName: "N", help: "Show at most N articles (all are saved)."),
      OptionSpec(name: "timeout", valueName: "SECONDS", help: "Network timeout (default: the configuration's, 5)."),
      OptionSpec(name: "json", help: "Print JSON: {origin, fetchedAt, networkError, articles}."),
    ],
    details: """
      Without --url or --source, fetches the configuration's default source. The NewsAPI key is read from
      NEWSAPI_KEY (or the configuration's apiKey) and sent in the X-Api-Key header.
      Exit status: 0 articles served (from the network or the cache), 69 network failed and nothing cached,
      74 storage error.
      """)

  var context: CommandContext
  var arguments: ParsedArguments

  func run() async throws(CommandFailure) -> ExitCode {
    let limit = try arguments.integer("limit", minimum: 0)
    let timeout = try arguments.seconds("timeout")
    let (query, sourceName) = try resolveQuery()
    let repository = try context.makeRepository(arguments, timeout: timeout)
    let result: NewsResult
    do {
      result = try await repository.articles(for: query)
    } catch {
      throw context.failure(error)
    }
    let console = context.console
    if arguments.flag("json") {
      console.out(OutputFormat.json(OutputFormat.document(result, limit: limit)))
    } else {
      let now = context.now()
      console.out(OutputFormat.header(result, source: sourceName, now: now) + "\n")
      console.out(OutputFormat.lines(result.articles.prefix(limit ?? .max), now: now, width: console.width))
    }
    return .success
  }

  /// The query to fetch and a name for it: `--url`, else `--source`, else the default source.
  private func resolveQuery() throws(CommandFailure) -> (NewsQuery, String) {
    if arguments.value("url") != nil, arguments.value("source") != nil {
      throw CommandFailure(.usage, "give --url or --source, not both")
    }
    if let text = arguments.value("url") {
      guard !text.isEmpty else { throw CommandFailure(.usage, "--url needs a URL or a file path") }
      if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
        guard ["http", "https", "file"].contains(scheme) else {
          throw CommandFailure(.usage, "--url \(NewsQuery.redacting(url)): use an http(s) URL or a file")
        }
        let query = NewsQuery(url: url)
        return (query, query.cacheKey)
      }
      let path = absolute(expandingTilde(text), relativeTo: context.currentDirectory)
      return (NewsQuery(url: URL(fileURLWithPath: path)), path)
    }
    let configuration = context.configuration
    let name = arguments.value("source") ?? configuration.defaultSource
    guard let name else {
      throw CommandFailure(
        .usage, "nothing to fetch: no --url, no --source, and no defaultSource in the configuration",
        hint: "run from the package folder (Config/news.json), or pass --url or --config")
    }
    guard let source = configuration.sources[name] else {
      let known = configuration.sources.keys.sorted().joined(separator: ", ")
      throw CommandFailure(.usage, "no source named \"\(name)\"", hint: known.isEmpty ? nil : "configured: \(known)")
    }
    let query = NewsQuery(url: source.url)
    return (query, source.url.isFileURL ? "\(name) (\(source.url.path))" : "\(name) (\(query.cacheKey))")
  }
}
