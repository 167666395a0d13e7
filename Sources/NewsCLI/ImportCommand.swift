import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// `news import FILE`: saves a NewsAPI response or a feed into the cache (``NewsRepository/importArticles(from:progress:)``),
/// a JSON export through a mapping, an OPML or newsboat list's feeds into the configuration, newsboat's reading state.
struct ImportCommand: NewsCommand {
  static let name = "import"
  static let summary =
    "Save a NewsAPI response, a feed or any JSON (through a mapping) into the cache; add an OPML list's feeds."
  static let positionals = [
    PositionalSpec(
      name: "FILE",
      help: "A saved NewsAPI v2 response, an RSS, Atom, RDF or JSON Feed file, any JSON export with --mapping, or an "
        + "OPML subscription list, a newsboat urls file or newsboat's cache.db.")
  ]
  static let groups: [(options: [Option], required: Bool)] = [
    ([.deleteMissing, .deleteMissingWhere], false), ([.insertOnly, .updateOnly], false),
  ]
  /// An OPML list adds its feeds to the configuration file, which may not exist yet; any other file leaves the
  /// configuration as it is (the package's sample is not copied for it).
  static func configurationUse(for arguments: ParsedArguments<Option>, resolve: (String) -> String)
    -> ConfigurationUse
  {
    guard let file = arguments.positionals.first, arguments.value(.mapping) == nil,
      isSubscriptionList(at: resolve(file))
    else { return .newFileAllowed }
    return .creatable
  }
  static let details = """
    Records that cannot be saved (no url, no title, a bad date, NewsAPI's [Removed] placeholders) are skipped and
    reported; the rest are saved in one transaction. A file that is not valid JSON, is truncated, or is a NewsAPI
    error response is refused with status 65 and nothing is written.
    With --mapping (docs/MAPPING.md), the report counts the root entity's rows and lists failures (records not
    saved: no identity, a required value unreadable) apart from warnings (values not stored in records that
    were saved); each names the record's entity, identity and key path. --delete-missing never runs on a file
    that cannot be read, nor when a record's identity cannot be read. Exit status: 0 every record was processed
    (warnings and skips included), 1 some records failed (the rest saved), 65 not valid JSON or not the
    mapping's shape (nothing written), 78 the mapping is invalid.
    An OPML subscription list or a newsboat urls file (told apart by their content, not their names) adds its
    feeds as sources to the configuration file, with their folders, keeping everything else in the file; feeds
    configured already are not added again. Nothing is fetched: 'news fetch' does that. Of a newsboat urls file,
    '~TITLE' names a feed and its first tag is its folder; query:, exec: and filter: lines, hidden feeds ('!')
    and tags after the first are reported by line. newsboat's cache.db (a SQLite file) marks read the articles
    newsboat read and bookmarks those it flagged (any flag), matched by link or guid; articles not fetched here
    yet are counted: 'news fetch --all', then import cache.db again.
    """

  static let storeOptions = StoreOptions<Option>(
    json: "{saved, skipped, issues}; with --mapping {inserted, updated, unchanged, skipped, failed, deleted, "
      + "duplicates, failures, warnings, entities}; for OPML {file, config, added, existing, issues}")

  enum Option: CommandOption {
    case mapping, root, deleteMissing, deleteMissingWhere, insertOnly, updateOnly, quiet
    var spec: OptionSpec {
      switch self {
      case .mapping:
        OptionSpec(
          name: "mapping", valueName: "NAME|PATH",
          help: "Import through a mapping: a file, or NAME for Config/mappings/NAME.json (newsapi, parse-server, …).")
      case .root:
        OptionSpec(
          name: "root", valueName: "NAME", help: "The mapping root to use (default: matched from FILE's name).")
      case .deleteMissing:
        OptionSpec(
          name: "delete-missing",
          help: "With --mapping: delete the root entity's rows that FILE does not hold (the store mirrors FILE).")
      case .deleteMissingWhere:
        OptionSpec(
          name: "delete-missing-where", valueName: "ATTR=VALUE",
          help: "With --mapping: delete the rows with ATTR = VALUE that FILE does not hold (e.g. feed=tech).")
      case .insertOnly:
        OptionSpec(name: "insert-only", help: "With --mapping: add new rows only; existing rows are left as they are.")
      case .updateOnly:
        OptionSpec(name: "update-only", help: "With --mapping: update existing rows only; new records are not added.")
      case .quiet: OptionSpec(name: "quiet", help: "No progress line on a terminal.")
      }
    }
  }

  struct Report: Encodable {
    struct Issue: Encodable {
      var index: Int
      var url: String?
      var keyPath: String
      var reason: String
      var skipped: Bool

      enum CodingKeys: String, CodingKey { case index, url, keyPath, reason, skipped }
    }
    var file: String
    var saved: Int
    /// Articles the eviction policy removed after the save (``Configuration/eviction``).
    var evicted: Int
    /// Articles in the cache after the eviction; `nil` when nothing was evicted.
    var cached: Int?
    var skipped: Int
    /// Articles left out because `news delete` or the eviction removed them before (``ArticleSaveResult/remembered``).
    var remembered: Int
    /// Of `remembered`, those the eviction policy removed (``ArticleSaveResult/rememberedEvicted``).
    var rememberedEvicted: Int
    var issues: [Issue]

    enum CodingKeys: String, CodingKey {
      case file, saved, evicted, cached, skipped, remembered, rememberedEvicted, issues
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let file = arguments.positionals.first else {
      throw CommandFailure(.usage, "which file? usage: news import \(Self.spec.usage)")
    }
    if let scheme = URL(string: file)?.scheme?.lowercased(), scheme == "http" || scheme == "https" {
      // Not a relative path "http:/host/…": import reads files; the network is fetch's and add's.
      throw CommandFailure(
        .usage, "\(OutputFormat.sanitized(file)): news import reads a file, not a URL",
        hint: "subscribe with 'news add URL', read it once with 'news fetch --url URL', or save it first "
          + "(curl -o FILE URL) and import the file")
    }
    let path = context.resolvedPath(file)
    if let mapping = arguments.value(.mapping) {
      return try await MappedImport(context: context, arguments: arguments).run(
        file: file, path: path, mapping: mapping)
    }
    for option in [Option.root, .deleteMissingWhere] where arguments.value(option) != nil {
      throw CommandFailure(.usage, "--\(option.spec.name) needs --mapping")
    }
    for flag in [Option.deleteMissing, .insertOnly, .updateOnly] where arguments.flag(flag) {
      throw CommandFailure(.usage, "--\(flag.spec.name) needs --mapping")
    }
    if Self.isSQLite(at: path) {
      return try await NewsboatCacheImport(context: context, arguments: arguments).run(file: file, path: path)
    }
    let kind = Self.documentKind(at: path)
    if kind == .opml || (kind == .unknown && Self.isNewsboatURLs(at: path)) {
      let list: Data
      do {
        list = try LocalFile.read(path, maxBytes: NewsRequest.maximumBodySize)
      } catch {
        let cause: NewsNetworkError =
          error.isTooLarge
          ? .tooLarge(bytes: error.size.map { Int($0) }, limit: NewsRequest.maximumBodySize)
          : .unreadableFile(path: path, reason: error.reason)
        throw unreadable(file, path: path, cause)
      }
      let fileURL = URL(fileURLWithPath: path)
      let document: OPMLDocument
      if kind == .opml {
        do {
          document = try OPML.read(list, url: fileURL)
        } catch {
          throw CommandFailure(.badInput, "\(file): \(error); nothing was added")
        }
      } else {
        document = NewsboatURLs.read(list, url: fileURL)
      }
      return try await SubscriptionListImport(context: context, arguments: arguments).run(
        file: file, path: path, list: document)
    }
    // The library's one import of a file (formats, streaming of a large NewsAPI export: importArticles(from:)),
    // opened first so that a file refused makes no store.
    let opened: OpenedArticleFile
    do {
      opened = try await OpenedArticleFile.open(URL(fileURLWithPath: path))
    } catch {
      throw unreadable(file, path: path, error)
    }
    let repository = try context.makeRepository(arguments.common)
    let reporter = ProgressReporter(
      "saving", total: opened.articleCount, unit: "articles", console: context.console,
      quiet: arguments.flag(.quiet) || arguments.json)
    let result: FileImportResult
    do {
      defer { reporter.finish() }
      // Ctrl-C: the save is one transaction: stopped before its commit, the store is as it was; said so.
      result = try await Interruption.endingAtOnce(.wholeOrNothing, through: repository) { interruption, gate in
        try await repository.importArticles(opened) { progress in
          // Articles written: the file's transaction is under way, and its commit is the next one.
          gate.count()
          interruption.report {
            switch progress {
            case .writing(let written, _): reporter.update(completed: written)
            case .finishing: reporter.enter(Self.finishingStage)
            }
          }
        }
      } ending: {
        reporter.finish()
        context.console.printNote(Self.interruptedNote(file))
      }
    } catch let error as NewsNetworkError {
      throw unreadable(file, path: path, error)
    }
    await printReport(file: file, path: path, result, repository)
    return .success
  }

  /// The note of an import Ctrl-C ended: nothing of `file` was saved (one transaction, not committed).
  static func interruptedNote(_ file: String) -> String {
    "interrupted: nothing of \(OutputFormat.sanitized(file)) was imported; the store is as it was"
  }

  /// What the progress line says once every article is written and the save goes on: the search index of a first
  /// import is built at its end (about a third of its time: 15 s of 44 s at a million articles), then the indexes,
  /// the result list and the commit.
  static let finishingStage = "indexing for search, committing…"

  /// What the file holds, told by its first bytes whatever its name (``FeedFormatSniffer``): an OPML subscription
  /// list, a feed, JSON…; `nil` when it cannot be opened (the read that follows says why).
  static func documentKind(at path: String) -> FeedDocumentKind? { OpenedArticleFile.documentKind(at: path) }

  /// Whether the file is a SQLite database (``NewsboatCache/isSQLite(_:)``): newsboat's `cache.db`, read for its
  /// reading state.
  static func isSQLite(at path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: NewsboatCache.sqliteHeader.count)).map { NewsboatCache.isSQLite($0) } ?? false
  }

  /// Whether the file is a subscription list: OPML, or a newsboat `urls` file (``NewsboatURLs/recognizes(_:)``),
  /// told by its content.
  static func isSubscriptionList(at path: String) -> Bool {
    switch documentKind(at: path) {
    case .opml: true
    case .unknown: isNewsboatURLs(at: path)
    default: false
    }
  }

  /// Whether the file is a newsboat `urls` file (``NewsboatURLs/recognizes(_:)``); `false` when it cannot be read
  /// (the read that follows says why).
  static func isNewsboatURLs(at path: String) -> Bool {
    guard let data = try? LocalFile.read(path, maxBytes: NewsRequest.maximumBodySize) else { return false }
    return NewsboatURLs.recognizes(data)
  }

  /// A file that cannot be read or is not a complete NewsAPI response: exit 65, with a hint that fits the cause
  /// (a missing file is a path to check; other JSON needs `--mapping`).
  private func unreadable(_ file: String, path: String, _ error: NewsNetworkError) -> CommandFailure {
    context.importRefusal(file, path: path, error)
  }

  /// What was saved and skipped, as one line and a note per problem, or as `--json`. When the configuration's
  /// eviction removed articles after the save, the report says how many the cache holds, so that "saved 30" is not
  /// read as 30 kept.
  private func printReport(file: String, path: String, _ result: FileImportResult, _ repository: NewsRepository)
    async
  {
    let (saved, evicted, issues) = (result.save.saved, result.save.evicted, result.issues)
    let remembered = (all: result.save.remembered, evicted: result.save.rememberedEvicted)
    let cached = evicted > 0 ? try? await repository.counts().total : nil
    let report = Report(
      file: path, saved: saved, evicted: evicted, cached: cached, skipped: issues.filter(\.skipped).count,
      remembered: remembered.all, rememberedEvicted: remembered.evicted,
      issues: issues.map {
        .init(index: $0.index, url: $0.url, keyPath: $0.keyPath, reason: $0.reason, skipped: $0.skipped)
      })
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(report))
    } else {
      let shown = OutputFormat.sanitized(file)
      var line = "saved \(saved) article\(saved == 1 ? "" : "s") from \(shown), skipped \(report.skipped)"
      line += OutputFormat.leftOut(remembered.all, evicted: remembered.evicted)
      line += context.evictionNote(evicted: evicted, cached: cached)
      console.printLines(line + "\n")
      context.reportIssues(issues, arguments.common)
    }
  }
}

extension CommandContext {
  /// The error (status 65) of an import that could not read `file` (at `path`), with the hint for its cause
  /// (``FailureHint``): a missing file, a folder, a page, a cut-off file…; nothing was saved.
  /// JSON of another shape that a shipped mapping reads (Hacker News items, a Parse export) gets that mapping named
  /// (``ImportMapping/shippedNames(reading:)``), not only "give a mapping".
  func importRefusal(_ file: String, path: String, _ error: NewsNetworkError) -> CommandFailure {
    var hint = FailureHint.reading(
      NewsQuery(url: URL(fileURLWithPath: path)), error, currentDirectory: currentDirectory)
    if case .invalidResponse(let problem) = error, problem.kind == .wrongShape || problem.kind == .noArticles,
      let data = try? LocalFile.read(path, maxBytes: NewsRequest.maximumBodySize),
      let name = ImportMapping.shippedNames(reading: data).first
    {
      hint =
        "this is what the shipped mapping '\(name)' reads: news import \(NetworkProgram.shellQuoted(file)) --mapping \(name)"
    }
    return CommandFailure(.badInput, "\(file): \(error.description); nothing was saved", hint: hint)
  }

  /// What an import's line adds when the configuration's `eviction` removed articles right after the save:
  /// `; then evicted 9 (eviction: maxArticles 10), 10 kept in the cache` (so that "saved 19" is not read as 19 kept);
  /// empty when nothing was evicted. `cached`: the articles in the cache after the eviction.
  func evictionNote(evicted: Int, cached: Int?) -> String {
    guard evicted > 0 else { return "" }
    let policy = configuration.eviction
    let rules = [
      policy.maxArticles.map { "maxArticles \($0)" },
      policy.maxAge.map { "maxAgeDays \(Int(($0 / 86_400).rounded()))" },
    ].compactMap { $0 }.joined(separator: ", ")
    return "; then evicted \(evicted) (eviction: \(rules))" + (cached.map { ", \($0) kept in the cache" } ?? "")
  }
}
