import Foundation
import OfflineNews

/// The `news` command line: the composition root that wires configuration → storage context + network →
/// repository → command, as an app's coordinator wires repository → view model → view controller.
///
/// For example (what `Sources/news/main.swift` does):
/// ```swift
/// let commandLine = NewsCommandLine(environment: ProcessInfo.processInfo.environment, network: .urlSession)
/// let status = await commandLine.run(["fetch", "--json"])
/// ```
public struct NewsCommandLine: Sendable {
  let environment: [String: String]
  let currentDirectory: String
  let console: Console
  let now: @Sendable () -> Date
  let network: NetworkStack
  /// What a test helper injects (``CommandFaults``); none in the product.
  package var faults = CommandFaults()

  /// - Parameters:
  ///   - environment: the process environment (`NEWSAPI_KEY`, `NEWS_CONFIG`, `XDG_DATA_HOME`, `HOME`, …).
  ///   - currentDirectory: the folder relative paths are resolved against.
  ///   - console: where output goes; the process's standard output and error by default.
  ///   - now: the current time, for "3 h ago"; tests inject a fixed one.
  ///   - network: how networks and HTTP transports are made (``NetworkStack``): `.urlSession` (the
  ///     `OfflineNewsURLSession` module) in `news-online`, ``NetworkStack/filesOnly`` in `news`, which hands the
  ///     commands that use the network to `news-online` (``usesNetwork(_:)``).
  public init(
    environment: [String: String], currentDirectory: String = FileManager.default.currentDirectoryPath,
    console: Console? = nil, now: @escaping @Sendable () -> Date = { Date() }, network: NetworkStack
  ) {
    self.environment = environment
    self.currentDirectory = currentDirectory
    self.console = console ?? .standard(environment: environment)
    self.now = now
    self.network = network
  }

  /// The commands that use the network: `news` runs them in `news-online`. Names, not the specs (``FetchCommand``,
  /// ``SyncCommand``, ``AddCommand``), so that `news list` does not build every command's help text to ask;
  /// `NewsCommandLineTests` checks them against the specs.
  static let networkCommands = ["fetch", "sync", "add"]

  /// Whether a command line (without the program name) runs a command that uses the network, and so needs a
  /// program built with one (`news-online`); `news --help` and every other command read only files and the cache.
  public static func usesNetwork(_ arguments: [String]) -> Bool {
    arguments.first.map(networkCommands.contains) ?? false
  }

  static let commands: [CommandSpec] = [
    FetchCommand.spec, ListCommand.spec, ImportCommand.spec, DeleteCommand.spec, LocalStateCommand.markReadSpec,
    LocalStateCommand.bookmarkSpec, StatsCommand.spec, EntitiesCommand.spec, RecordsCommand.spec,
    SourcesCommand.spec, AddCommand.spec, RemoveCommand.spec, SyncCommand.spec,
    SearchCommand.spec, ShowCommand.spec, OpenCommand.spec, ExtractCommand.spec,
  ]

  static let version = "0.1.0"

  static var overview: String {
    var text = """
      news — read news offline: fetch headlines, keep them in a local SQLite cache, read them without a network.

      Usage: news <command> [options]

      Commands:

      """
    for command in commands { text += "  " + pad(command.name, 10) + command.summary + "\n" }
    text += """

      Run 'news <command> --help' for a command's options. Every command takes --color auto|always|never
      (colour on a terminal unless NO_COLOR is set; always/never override it) and --verbose.
      Exit status: 0 articles served or done, 64 usage error, 65 bad input file, 66 no such article or source, 69 network
      failed and nothing cached, 74 storage error, 78 configuration error.
      """
    return text + "\n"
  }

  /// Runs one command line (without the program name) and returns the exit status.
  public func run(_ arguments: [String]) async -> Int32 {
    if let status = runWithoutCommand(arguments) { return status }
    guard let first = arguments.first, let spec = Self.commands.first(where: { $0.name == first }) else {
      return ExitCode.usage.rawValue
    }
    return await runCommand(spec, Array(arguments.dropFirst()))
  }

  /// The command lines that run no command, answered at once and synchronously (no task, no thread, so that
  /// `news --help` costs only the start of the process): none (the overview, on standard error), `--help`/`-h`,
  /// `help [COMMAND]`, `--version`, an unknown command. Returns their exit status; `nil` for a command line that
  /// names a command, for ``run(_:)``.
  public func runWithoutCommand(_ arguments: [String]) -> Int32? {
    guard let first = arguments.first else {
      console.err(Self.overview)
      return ExitCode.usage.rawValue
    }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "-h", "--help":
      console.out(Self.overview)
      return ExitCode.success.rawValue
    case "help":
      guard let name = rest.first else {
        console.out(Self.overview)
        return ExitCode.success.rawValue
      }
      guard let spec = Self.commands.first(where: { $0.name == name }) else {
        console.printError("no command named '\(name)'", hint: "the commands are listed below")
        console.err("\n" + Self.overview)
        return ExitCode.usage.rawValue
      }
      console.out(spec.helpText)
      return ExitCode.success.rawValue
    case "--version":
      console.out("news \(Self.version)\n")
      return ExitCode.success.rawValue
    default:
      break
    }
    guard Self.commands.contains(where: { $0.name == first }) else {
      return fail(
        CommandFailure(.usage, "unknown command '\(first)'", hint: "run 'news --help' for the commands"), on: console)
    }
    return nil
  }

  private func runCommand(_ spec: CommandSpec, _ rest: [String]) async -> Int32 {
    var console = self.console
    do {
      let parsed = try ArgumentParser.parse(rest, for: spec)
      if parsed.wantsHelp {
        console.out(spec.helpText)
        return ExitCode.success.rawValue
      }
      console = console.coloring(try parsed.colorChoice())
      if spec.name == ExtractCommand.spec.name {
        // Reads only its file: no configuration to load.
        return try ExtractCommand(console: console, currentDirectory: currentDirectory, arguments: parsed).run()
          .rawValue
      }
      // The commands that write sources may create the configuration file they are pointed at.
      let context = try makeContext(
        parsed, console: console, creatable: [AddCommand.spec.name, ImportCommand.spec.name].contains(spec.name))
      switch spec.name {
      case FetchCommand.spec.name: return try await FetchCommand(context: context, arguments: parsed).run().rawValue
      case ListCommand.spec.name: return try await ListCommand(context: context, arguments: parsed).run().rawValue
      case ImportCommand.spec.name: return try await ImportCommand(context: context, arguments: parsed).run().rawValue
      case DeleteCommand.spec.name: return try await DeleteCommand(context: context, arguments: parsed).run().rawValue
      case LocalStateCommand.markReadSpec.name:
        return try await LocalStateCommand(kind: .read, context: context, arguments: parsed).run().rawValue
      case LocalStateCommand.bookmarkSpec.name:
        return try await LocalStateCommand(kind: .bookmark, context: context, arguments: parsed).run().rawValue
      case StatsCommand.spec.name: return try await StatsCommand(context: context, arguments: parsed).run().rawValue
      case SearchCommand.spec.name: return try await SearchCommand(context: context, arguments: parsed).run().rawValue
      case ShowCommand.spec.name: return try await ShowCommand(context: context, arguments: parsed).run().rawValue
      case OpenCommand.spec.name: return try await OpenCommand(context: context, arguments: parsed).run().rawValue
      case SourcesCommand.spec.name:
        return try await SourcesCommand(context: context, arguments: parsed).run().rawValue
      case AddCommand.spec.name: return try await AddCommand(context: context, arguments: parsed).run().rawValue
      case RemoveCommand.spec.name: return try RemoveCommand(context: context, arguments: parsed).run().rawValue
      case SyncCommand.spec.name: return try await SyncCommand(context: context, arguments: parsed).run().rawValue
      case EntitiesCommand.spec.name:
        return try await EntitiesCommand(context: context, arguments: parsed).run().rawValue
      case RecordsCommand.spec.name: return try await RecordsCommand(context: context, arguments: parsed).run().rawValue
      default: return fail(CommandFailure(.usage, "unknown command '\(spec.name)'"), on: console)
      }
    } catch {
      return fail(error, on: console)
    }
  }

  private func fail(_ failure: CommandFailure, on console: Console) -> Int32 {
    console.printError(failure.message, hint: failure.hint)
    return failure.code.rawValue
  }

  private func makeContext(_ arguments: ParsedArguments, console: Console, creatable: Bool = false)
    throws(CommandFailure) -> CommandContext
  {
    let configuration = try Configuration.load(
      explicitPath: arguments.value("config"), environment: environment, currentDirectory: currentDirectory,
      creatable: creatable)
    return CommandContext(
      configuration: configuration, environment: environment, currentDirectory: currentDirectory, console: console,
      now: now, network: network, faults: faults)
  }
}

/// Crashes a test helper injects into a command, to show what a kill at the worst moment leaves behind: set only by
/// the `news-with-fault` test executable, never read from the environment.
package struct CommandFaults: Sendable {
  /// Injected into the storage context every command opens.
  package var storage = StorageFaults()
  /// Called by `news sync` right after a page is staged, before it is imported.
  package var afterPageStaged: (@Sendable () -> Void)?

  package init() {}
}

/// What every command gets: configuration, environment, console, clock; and the composition of the repository.
struct CommandContext: Sendable {
  var configuration: Configuration
  var environment: [String: String]
  var currentDirectory: String
  var console: Console
  var now: @Sendable () -> Date
  /// How networks and HTTP transports are made (``NetworkStack``).
  var network: NetworkStack
  var faults = CommandFaults()

  /// The URL under which a cached article is stored for a URL typed by the user: as typed, else as the importer
  /// stores URLs (`URL(string:)`, which percent-encodes non-ASCII characters: `?q=ü` is kept as `?q=%C3%BC`).
  /// The text as typed when neither is cached.
  /// The cached article `text` names — a handle (or a prefix of one) as `news list` prints it, or a URL in any
  /// equivalent form — for the commands that act on one article.
  ///
  /// - Throws: ``CommandFailure``: `.noInput` (66) when nothing cached has it, `.usage` (64) for a handle prefix
  ///   several articles share (listing them), `.storage` (74).
  func resolveArticle(_ text: String, in repository: NewsRepository, command: String) async throws(CommandFailure)
    -> Article
  {
    let lookup: ArticleLookup
    do {
      lookup = try await repository.article(handleOrURL: text)
    } catch {
      throw failure(error)
    }
    switch lookup {
    case .found(let article): return article
    case .ambiguous(let candidates):
      let listed = candidates.map {
        "\($0.handle.prefix(10))  \(OutputFormat.sanitized($0.title, collapsingWhitespace: true))"
      }
      throw CommandFailure(
        .usage, "the handle \(OutputFormat.sanitized(text)) is ambiguous: \(candidates.count) articles start with it",
        hint: "give more digits:\n  " + listed.joined(separator: "\n  "))
    case .notFound:
      let what = ArticleIdentity.looksLikeHandle(text.lowercased()) ? "the handle or URL" : "the URL"
      throw CommandFailure(
        .noInput, "no cached article has \(what) \(OutputFormat.sanitized(text))",
        hint: "'news list' shows each article's handle; news \(command) HANDLE")
    }
  }

  /// Fetches the pages of `articles` for their whole text (``NewsRepository/fetchFullText(for:using:limits:)``) and
  /// says on standard error what it did; a page that fails is noted and tried again by a later fetch, never an error.
  func fetchFullText(_ articles: [Article], _ repository: NewsRepository, timeout: Double?) async {
    let seconds = timeout ?? configuration.timeoutSeconds
    let transport = network.httpTransport(
      seconds, RetryPolicy(maxAttempts: 2, initialDelay: 0.25, maxDelay: 1, maxTotalTime: 2 * seconds), [])
    let report = await repository.fetchFullText(for: articles, using: transport)
    guard report.fetched + report.failures.count > 0 else { return }
    var line = "full text: \(report.fetched) fetched"
    if !report.failures.isEmpty {
      line += ", \(report.failures.count) failed: " + OutputFormat.reasonCounts(report.failures.map(\.reason))
      line += " (retried by a later fetch)"
    }
    console.printNote(line)
  }

  /// The short handles of articles about to be printed; the first 6 digits of each when the store cannot say (a
  /// read-only or damaged store: the listing still prints).
  func shortHandles(_ articles: some Collection<Article>, _ repository: NewsRepository) async -> [String: String] {
    (try? await repository.shortHandles(for: articles)) ?? [:]
  }

  /// The database path: `--db`, else the configuration's, else the XDG default.
  func databasePath(_ arguments: ParsedArguments) -> String {
    if let path = arguments.value("db") { return absolute(expandingTilde(path), relativeTo: currentDirectory) }
    return configuration.databasePath ?? Configuration.defaultDatabasePath(environment: environment)
  }

  /// The composition: storage context + network → repository.
  /// The repository the commands read and write through: the configured store, and a network that reads every
  /// format a source may send (``articleDecoder``).
  ///
  /// - Parameters:
  ///   - timeout: seconds per attempt; the configuration's `timeoutSeconds` by default.
  ///   - retrying: retry failed attempts (3 attempts within twice the timeout) and serve the cache at the latest
  ///     0.5 s after that (`news fetch`); `false`: one attempt, no deadline.
  func makeRepository(
    _ arguments: ParsedArguments, timeout: Double? = nil, entities: [EntityDescription] = [], retrying: Bool = false
  ) throws(CommandFailure) -> NewsRepository {
    let storage: StorageContext
    do {
      storage = try StorageContext(
        path: databasePath(arguments), entities: entities, eviction: configuration.eviction, faults: faults.storage)
    } catch {
      throw CommandFailure(.storage, error.description)
    }
    let apiKey = environment["NEWSAPI_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? configuration.apiKey
    let requested = timeout ?? configuration.timeoutSeconds
    let perAttempt = RequestTimeout.effective(requested)
    let retry =
      retrying ? RetryPolicy(maxAttempts: 3, initialDelay: 0.25, maxDelay: 2, maxTotalTime: 2 * perAttempt) : .none
    let stack = network
    let context = self
    let network = DeferredNetwork { stack.newsNetwork(apiKey, requested, retry, context.articleDecoder) }
    let now = self.now
    return NewsRepository(
      storage: storage, network: network, clock: { Timestamp(now()) }, deadline: retrying ? 2 * perAttempt + 0.5 : nil)
  }

  /// The decoder of every source format (NewsAPI, JSON Feed through the `jsonfeed` mapping, …); a JSON Feed needs
  /// that mapping to be found (``mappingFolders``).
  var articleDecoder: ArticleDecoder {
    ArticleDecoder(jsonFeedMapping: try? loadMapping("jsonfeed"))
  }

  /// The folders where `--mapping NAME` (and a sync source's `mapping`) looks for `NAME.json`, in order:
  /// `mappings/` beside the configuration file; `Config/mappings/` in the current folder; `$XDG_CONFIG_HOME/news/
  /// mappings/` (default `~/.config/news/mappings/`); and the shipped mappings of the checkout the running `news` was
  /// built in (`Config/mappings/` above `.build/…/news`), so that a `news` run from anywhere finds them.
  var mappingFolders: [String] {
    var folders: [String] = []
    if let file = configuration.file {
      folders.append(URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("mappings").path)
    }
    folders.append(absolute("Config/mappings", relativeTo: currentDirectory))
    folders.append(
      Configuration.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config", environment: environment) + "/news/mappings")
    if let shipped = Self.shippedMappingFolder, !folders.contains(shipped) { folders.append(shipped) }
    var seen = Set<String>()
    return folders.filter { seen.insert($0).inserted }
  }

  /// `Config/mappings` of the package checkout the running executable was built in: the first of its ancestor
  /// folders (up to five levels, after resolving links) that holds `Config/mappings` and `Package.swift`.
  static let shippedMappingFolder: String? = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var folder = executable.deletingLastPathComponent()
    for _ in 0..<5 {
      folder = folder.deletingLastPathComponent()
      let mappings = folder.appendingPathComponent("Config/mappings").path
      if FileManager.default.fileExists(atPath: mappings),
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
      {
        return mappings
      }
    }
    return nil
  }()

  /// Maps a repository error to the command's failure and exit status. A failed read names its input (the file,
  /// or the URL without its API key) and gets a hint that fits the cause (``FailureHint``).
  func failure(_ error: NewsRepositoryError) -> CommandFailure {
    switch error {
    case .networkFailedAndCacheEmpty(let query, let network):
      return CommandFailure(
        .unavailable, "\(FailureHint.name(query)): \(network); nothing is cached for it",
        hint: FailureHint.reading(query, network, currentDirectory: currentDirectory))
    case .networkFailed(let query, let network):
      let hint = FailureHint.reading(query, network, currentDirectory: currentDirectory)
      return CommandFailure(
        .unavailable, "\(FailureHint.name(query)): \(network)",
        hint: [hint, "without --policy network-only, the cache is served"].compactMap { $0 }.joined(separator: "; "))
    case .storage(let storageError, _):
      return CommandFailure(.storage, storageError.description)
    }
  }
}
