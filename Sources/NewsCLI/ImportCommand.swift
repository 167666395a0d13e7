import Foundation
import OfflineNews

/// `news import FILE`: saves a NewsAPI-format response file into the cache.
struct ImportCommand {
  static let spec = CommandSpec(
    name: "import",
    summary: "Save a NewsAPI-format response file into the cache.",
    usage: "FILE [--db PATH] [--config PATH] [--json]",
    positionals: [("FILE", "A saved NewsAPI v2 response (top-headlines or everything).")],
    options: [
      OptionSpec(name: "db", valueName: "PATH", help: "The database (default: $XDG_DATA_HOME/news/news.sqlite)."),
      OptionSpec(name: "config", valueName: "PATH", help: "The configuration file (default: Config/news.json)."),
      OptionSpec(name: "json", help: "Print JSON: {saved, skipped, issues}."),
    ],
    details: """
      Records that cannot be saved (no url, no title, a bad date, NewsAPI's [Removed] placeholders) are skipped and
      reported; the rest are saved in one transaction. A file that is not valid JSON, is truncated, or is a NewsAPI
      error response is refused with status 65 and nothing is written.
      """)

  struct Report: Encodable {
    struct Issue: Encodable {
      var index: Int
      var url: String?
      var keyPath: String
      var reason: String
      var skipped: Bool

      enum CodingKeys: String, CodingKey { case index, url, keyPath, reason, skipped }
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(url, forKey: .url)
        try c.encode(keyPath, forKey: .keyPath)
        try c.encode(reason, forKey: .reason)
        try c.encode(skipped, forKey: .skipped)
      }
    }
    var file: String
    var saved: Int
    var skipped: Int
    var issues: [Issue]
  }

  var context: CommandContext
  var arguments: ParsedArguments

  func run() async throws(CommandFailure) -> ExitCode {
    guard let file = arguments.positionals.first else {
      throw CommandFailure(.usage, "which file? usage: news import \(Self.spec.usage)")
    }
    let path = absolute(expandingTilde(file), relativeTo: context.currentDirectory)
    let query = NewsQuery(url: URL(fileURLWithPath: path))
    let page: NewsPage
    do {
      page = try await FileNewsNetwork().fetch(query)
    } catch {
      throw CommandFailure(.badInput, "\(file): \(error.description); nothing was saved")
    }
    let repository = try context.makeRepository(arguments)
    var saved = 0
    if !page.articles.isEmpty {
      do {
        saved = try await repository.save(page.articles, for: query).saved
      } catch {
        throw context.failure(error)
      }
    }
    let report = Report(
      file: path, saved: saved, skipped: page.skippedCount,
      issues: page.issues.map {
        .init(index: $0.index, url: $0.url, keyPath: $0.keyPath, reason: $0.reason, skipped: $0.skipped)
      })
    let console = context.console
    if arguments.flag("json") {
      console.out(OutputFormat.json(report))
    } else {
      console.out("saved \(saved) article\(saved == 1 ? "" : "s") from \(file), skipped \(report.skipped)\n")
      for issue in page.issues { console.err("  \(issue)\n") }
    }
    return .success
  }
}
