import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// `news search QUERY`: full-text search of the cache, best match first, with highlighted snippets. No network.
struct SearchCommand: NewsCommand {
  static let name = "search"
  static let summary = "Search cached articles (title, summary, content, author, source), best match first, offline."
  static let positionals = [
    PositionalSpec(name: "QUERY", help: "Words, \"a phrase\", a prefix*, AND/OR/NOT: one argument, so quote it.")
  ]
  static let details = """
    Query: every word must appear, in any case and with or without accents (muller finds Müller); "two words"
    is a phrase; elect* is a prefix; AND, OR and NOT in capitals combine terms (NOT binds tightest, then AND,
    then OR). Anything else is plain words, never syntax: title:x, NEAR(…), brackets and stray quotes are
    searched as the words they hold. Chinese, Japanese, Korean and Thai words are found anywhere in the text.
    Examples: news search 'storm ferr*'   news search '"climate change" NOT policy'   news search 地震
    A query that starts with - goes after --: news search -- -x.
    Results are ranked by relevance (a match in the title counts most); matches are shown between ⟨ and ⟩,
    in bold on a colour terminal. Dates are RFC 3339: 2024-05-01 or 2024-05-01T12:00:00Z; a date alone is
    midnight UTC, and --until with a date alone includes that whole day.
    Exit status: 0 searched (even with no result), 64 usage error (no query, nothing to look for in it, a bad
    date or number), 66 no database at the path (nothing is created), 74 storage error.
    """

  static let storeOptions = StoreOptions<Option>(json: "{query, results: [{url, title, …, rank, snippet}]}")

  enum Option: CommandOption {
    case source, folder, since, until, unread, bookmarked, limit
    var spec: OptionSpec {
      switch self {
      case .source: SharedOption.source
      case .since:
        OptionSpec(name: "since", valueName: "DATE", help: "Only articles published at or after DATE.", type: .date)
      case .until:
        OptionSpec(
          name: "until", valueName: "DATE", help: "Only articles published before DATE (a date alone: to its end).",
          type: .date)
      case .unread: SharedOption.unread
      case .bookmarked: SharedOption.bookmarked
      case .limit:
        OptionSpec(
          name: "limit", valueName: "N", help: "Show at most N results (default: \(SearchCommand.defaultLimit)).",
          type: .integer(minimum: 1))
      case .folder: SharedOption.folder
      }
    }
  }

  static let defaultLimit = 20

  /// `{"query": …, "results": [{…article fields as in list --json…, "rank": …, "snippet": …}]}`.
  struct Document: Encodable {
    var query: String
    var results: [Result]
  }

  /// One hit: the article's fields as `list --json` prints them, plus `rank` (lower is better) and `snippet`.
  typealias Result = Merged<OutputFormat.ArticleDocument, Match>

  /// The members a hit adds to its article's.
  struct Match: Encodable {
    var rank: Double
    var snippet: String
  }

  static func result(_ hit: SearchHit) -> Result {
    Merged(OutputFormat.ArticleDocument(article: hit.article), Match(rank: hit.rank, snippet: hit.snippet))
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let text = arguments.positionals.first else {
      throw CommandFailure(
        .usage, "what to search for? usage: news search QUERY", hint: "e.g. news search 'storm OR gale'")
    }
    do {
      _ = try SearchQuery(text)
    } catch {
      throw CommandFailure(.usage, error.description, hint: "search for words, \"a phrase\" or a prefix*")
    }
    let limit = arguments.integer(.limit) ?? Self.defaultLimit
    let since = date(.since, throughDay: false)
    let until = date(.until, throughDay: true)
    if let since, let until, since >= until {
      // The dates as typed: `--until 2019-01-01` means up to that day's end, which is not what the user wrote.
      let typed = { (option: Option) in arguments.value(option) ?? "" }
      throw CommandFailure(.usage, "--since \(typed(.since)) is not before --until \(typed(.until))")
    }
    let repository = try context.makeRepository(arguments.common, reading: true)
    let filter = try await context.narrowing(
      ArticleFilter(
        unreadOnly: arguments.flag(.unread), bookmarkedOnly: arguments.flag(.bookmarked),
        publishedSince: since?.date, publishedBefore: until?.date),
      source: arguments.value(.source), folder: arguments.value(.folder), in: repository)
    // One more than shown, to tell whether there are more.
    let hits = try await repository.search(text, filter: filter, limit: limit < Int.max ? limit + 1 : limit)
    let shown = Array(hits.prefix(limit))
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(Document(query: text, results: shown.map(Self.result))))
      return .success
    }
    // In double quotes, a quote or backslash in the text escaped (`"\"climate"`), as the search error quotes it.
    let quoted = JSONText.quoted(OutputFormat.sanitized(text, collapsingWhitespace: true))
    guard !shown.isEmpty else {
      console.err("no cached article matches \(quoted)\n")
      return .success
    }
    let noun = shown.count == 1 ? "result" : "results"
    let more = hits.count > limit ? "; more with --limit" : ""
    console.printLines("\(shown.count) \(noun) for \(quoted), best first\(more)\n")
    let handles = await context.shortHandles(shown.map(\.article), repository)
    let lines = OutputFormat.lines(
      shown.map(\.article), handles: handles, now: context.now(), width: console.width, color: console.color
    )
    .split(separator: "\n", omittingEmptySubsequences: false)
    let indent = String(repeating: " ", count: 10)  // under the time column, past the handle
    for (line, hit) in zip(lines, shown) {
      console.printLines(line + "\n")
      let snippet = Self.render(Self.excerpt(hit), width: console.width.map { $0 - indent.count }, color: console.color)
      if !snippet.isEmpty { console.printLines(indent + snippet + "\n") }
    }
    return .success
  }

  /// The value of a date option, parsed by `Timestamp(rfc3339:)`; with `throughDay`, a date alone means the end of
  /// that day (the next midnight UTC), so that `--until 2024-05-01` includes May 1.
  private func date(_ option: Option, throughDay: Bool) -> Timestamp? {
    guard let text = arguments.value(option), let timestamp = arguments.date(option) else { return nil }
    let dateOnly = text.count == 10 && !text.contains(where: { $0 == "T" || $0 == "t" || $0 == " " })
    return throughDay && dateOnly
      ? Timestamp(millisecondsSince1970: timestamp.millisecondsSince1970 + 86_400_000) : timestamp
  }

  /// The hit's snippet; when it is only the title, which the line above already shows, the summary instead (its
  /// text when it is HTML, ``Article/summaryText``: what the snippet would have been cut from).
  static func excerpt(_ hit: SearchHit) -> String {
    // Characters compared, as Foundation's `replacingOccurrences` without `.literal` does, without its first-use
    // cost (about 0.5 ms of a search's start, docs/PERFORMANCE.md).
    let start = Character(SearchHit.highlightStart)
    let end = Character(SearchHit.highlightEnd)
    let plain = hit.snippet.filter { $0 != start && $0 != end }
    guard plain == hit.article.title else { return hit.snippet }
    return hit.article.summaryText ?? hit.article.summary ?? ""
  }

  /// A snippet on one line, fitted to `width`, with its matches in bold on a colour console (the ⟨ ⟩ marks are
  /// then left out) and kept as ⟨ ⟩ otherwise.
  static func render(_ snippet: String, width: Int?, color: Bool) -> String {
    var text = OutputFormat.sanitized(snippet, collapsingWhitespace: true)
    if let width { text = OutputFormat.clip(text, max(1, width)) }
    guard color else { return text }
    let style = TextStyle(enabled: true)
    var result = ""
    var run = ""
    var inside = false
    for character in text {
      switch String(character) {
      case SearchHit.highlightStart:
        result += run
        run = ""
        inside = true
      case SearchHit.highlightEnd:
        result += style.apply(.bold, run)
        run = ""
        inside = false
      default:
        run.append(character)
      }
    }
    return result + (inside ? style.apply(.bold, run) : run)
  }
}
