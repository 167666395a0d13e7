import Foundation
import OfflineNews
import OfflineNewsModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `news open HANDLE|URL`: opens a cached article's link with the system's opener, as `gh browse` does.
struct OpenCommand: NewsCommand {
  static let name = "open"
  static let summary = "Open a cached article's link in the browser (the system opener: xdg-open, open)."
  static let positionals = [PositionalSpec.article]
  static let details = """
    The opener is $NEWS_OPENER when set, else xdg-open (Linux and other freedesktop systems), else open (macOS),
    found on PATH; it gets the link as its one argument. Without one, the link is printed. The link is the one the
    source gave, else the item's own page its mapping names (a Hacker News item without a url, such as Ask HN: its
    discussion on news.ycombinator.com). Opening marks nothing: 'news show' reads the article offline.
    Exit status: 0 opened (or printed), 64 a handle several articles share, 66 no cached article has this handle or
    URL, or it has no link (a Parse object: the message says so), or no database at the path (nothing is created),
    69 the opener could not be started or failed (xdg-open finding no browser exits 3).
    """

  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(json: "{handle, url, opener} (the link is still opened)")

  struct Report: Encodable {
    var handle: String
    var url: String
    var opener: String?

    enum CodingKeys: String, CodingKey { case handle, url, opener }

  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let article = try await context.article(
      arguments.positionals.first, command: Self.name, store: arguments.common, reading: true
    ).article
    guard let link = article.displayURL else {
      throw CommandFailure(
        .noInput, "\(OutputFormat.sanitized(article.title, collapsingWhitespace: true)) " + Self.noLink(article),
        hint: "news show \(article.handle.prefix(8)) reads it offline")
    }
    let opener = Self.opener(environment: context.environment)
    if let opener {
      let outcome = Self.spawn(opener, link.absoluteString, environment: context.environment)
      if let failure = outcome.failure(of: opener) {
        throw CommandFailure(
          .unavailable, failure, hint: "open it yourself: \(OutputFormat.sanitized(link.absoluteString))")
      }
    }
    if arguments.json {
      context.console.out(
        OutputFormat.json(Report(handle: article.handle, url: link.absoluteString, opener: opener)))
    } else if opener == nil {
      context.console.out(OutputFormat.sanitized(link.absoluteString) + "\n")
      context.console.printNote("no opener found (set NEWS_OPENER, or install xdg-utils): the link is above")
    } else {
      context.console.printLines(
        "opened \(OutputFormat.sanitized(link.absoluteString)) — "
          + "\(OutputFormat.sanitized(article.title, collapsingWhitespace: true))\n")
    }
    return .success
  }

  /// Why `article` (which has no ``Article/displayURL``) has nothing to open, for `news open` and the reader's `o`:
  /// its source gave it no link, and no page of its own on the site (a mapping's `key.page`, docs/MAPPING.md) —
  /// a Parse object, a feed item without a link, an item imported before its mapping named its page.
  static func noLink(_ article: Article) -> String {
    let from =
      article.source.map { " (\(OutputFormat.sanitized(NewsQuery.shown($0), collapsingWhitespace: true)))" } ?? ""
    return "has no link to open: its source\(from) gave it none, nor a page of its own"
  }

  /// `$NEWS_OPENER`, else the first of `xdg-open`, `open` that is an executable file on `$PATH`.
  static func opener(environment: [String: String]) -> String? {
    if let chosen = environment["NEWS_OPENER"], !chosen.isEmpty { return chosen }
    let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
    for name in ["xdg-open", "open"] {
      for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
        return "\(folder)/\(name)"
      }
    }
    return nil
  }

  /// How running the opener went.
  enum Outcome: Equatable {
    /// It ran and exited 0: the link was handed on.
    case opened
    /// It could not be started: `errno` of `posix_spawnp`.
    case notStarted(Int32)
    /// It ran and failed: its exit status (`xdg-open` exits 3 when it finds no browser), or 128 + the signal.
    case failed(Int32)

    /// The failure in words, `nil` when opened.
    func failure(of opener: String) -> String? {
      switch self {
      case .opened: nil
      case .notStarted(let error): "\(opener) could not be started (\(String(cString: strerror(error))))"
      case .failed(let status): "\(opener) failed (exit status \(status))"
      }
    }
  }

  /// Runs `program` with `link` (``ChildProcess``: found on `$PATH`, standard input from `/dev/null`) and waits for
  /// it, as `gh browse` does: an opener (xdg-open, open) hands the link to the browser and returns.
  static func spawn(_ program: String, _ link: String, environment: [String: String]) -> Outcome {
    let pid: pid_t
    do {
      pid = try ChildProcess.start([program, link], environment: environment, searchingPath: true)
    } catch {
      return .notStarted(error.code)
    }
    let exit = ChildProcess.exitStatus(of: pid)
    return exit == 0 ? .opened : .failed(exit)
  }
}
