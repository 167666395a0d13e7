import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// The `news` command line: the composition root that wires configuration → storage context + network →
/// repository → command, as an app's coordinator wires repository → view model → view controller.
///
/// For example (what `Sources/news/main.swift` does):
/// ```swift
/// let commandLine = NewsCommandLine(environment: ProcessInfo.processInfo.environment, network: .curl)
/// let status = await commandLine.run(["fetch", "--json"])
/// ```
public struct NewsCommandLine: Sendable {
  let environment: [String: String]
  let currentDirectory: String
  let console: Console
  let now: @Sendable () -> Date
  let network: NetworkStack
  /// How HTTP servers are started (``ServerStack``): `.microHTTPD` in `news-online`, ``ServerStack/none`` in `news`.
  let server: ServerStack
  /// What a test helper injects (``CommandFaults``); none in the product.
  package var faults = CommandFaults()
  /// The executor of ``runOnCallingThread(_:)``, given to the storage context of every command; `nil` unless
  /// `oneThread`.
  private let executor: CallingThreadExecutor?

  /// - Parameters:
  ///   - environment: the process environment (`NEWSAPI_KEY`, `NEWS_CONFIG`, `XDG_DATA_HOME`, `HOME`, …).
  ///   - currentDirectory: the folder relative paths are resolved against.
  ///   - console: where output goes; the process's standard output and error by default.
  ///   - now: the current time, for "3 h ago"; tests inject a fixed one.
  ///   - network: how networks and HTTP transports are made (``NetworkStack``): `.curl` (the
  ///     `OfflineNewsCurl` module) in `news-online`, ``NetworkStack/filesOnly`` in `news`, which hands the
  ///     commands that use the network to `news-online` (``usesNetwork(_:)``).
  ///   - server: how `news serve` starts its HTTP server (``ServerStack``): `.microHTTPD` (the
  ///     `OfflineNewsMicroHTTPD` module) in `news-online`; ``ServerStack/none`` (the default) in `news`, which hands
  ///     `serve` to `news-online`.
  ///   - oneThread: the commands are run by ``runOnCallingThread(_:)``, and their storage context's connections run
  ///     on that thread too (`news`); `false`: each connection on a dispatch queue of its own, for ``run(_:)``.
  package init(
    environment: [String: String], currentDirectory: String = FileManager.default.currentDirectoryPath,
    console: Console? = nil, now: @escaping @Sendable () -> Date = { Date() }, network: NetworkStack,
    server: ServerStack = .none, oneThread: Bool = false
  ) {
    self.environment = environment
    self.currentDirectory = currentDirectory
    self.console = console ?? .standard(environment: environment)
    self.now = now
    self.network = network
    self.server = server
    executor = oneThread ? CallingThreadExecutor() : nil
  }

  /// The commands that use the network: `news` runs them in `news-online`. Names, not the specs (``FetchCommand``,
  /// ``SyncCommand``, ``AddCommand``), so that `news list` does not build every command's help text to ask;
  /// `NewsCommandLineTests` checks them against the specs.
  /// `read` is not one: it reads the cache in `news` and runs each reload as a child `news fetch` (``ReaderReload``).
  static let networkCommands = ["fetch", "sync", "add", "serve"]

  /// Whether a command line (without the program name) runs a command that uses the network, and so needs a
  /// program built with one (`news-online`); `news --help` and every other command read only files and the cache.
  public static func usesNetwork(_ arguments: [String]) -> Bool {
    arguments.first.map(networkCommands.contains) ?? false
  }

  static let version = "0.1.0"

  /// What `news --version` prints: `news 0.1.0 (a7d60e1)`, the commit baked in at build time
  /// (``commit``, written by `scripts/build-commit.sh`), or `news 0.1.0 (unknown commit)`.
  static var versionLine: String {
    "news \(version) (\(commit ?? "unknown commit"))"
  }

  static var overview: String {
    var text = """
      news — read news offline: fetch headlines, keep them in a local SQLite cache, read them without a network.

      Usage: news <command> [options]

      Commands:

      """
    for command in CommandRegistry.commands { text += "  " + pad(command.name, 10) + command.summary + "\n" }
    text += """

      Run 'news <command> --help' for a command's options. Every command takes --color auto|always|never
      (colour on a terminal unless NO_COLOR is set; always/never override it) and --verbose.
      Exit status: 0 articles served or done, 64 usage error, 65 bad input file, 66 no such article, source or
      database, 69 network failed and nothing cached, 74 storage error, 78 configuration error.
      """
    return text + "\n"
  }

  /// What a command line asks for, once its words are parsed: done already (help, the version, a usage error), or a
  /// command to run.
  public enum Invocation: Sendable {
    /// Answered without running a command; the exit status.
    case finished(Int32)
    /// A command to run, which returns its exit status.
    case command(@Sendable () async -> Int32)
  }

  /// Runs one command line (without the program name) and returns the exit status.
  public func run(_ arguments: [String]) async -> Int32 {
    switch prepare(arguments) {
    case .finished(let status): return status
    case .command(let command): return await command()
    }
  }

  /// Runs a command ``prepare(_:)`` returned to its end on the calling thread, which it blocks, and returns its exit
  /// status. Made with `oneThread`, everything the command does runs there — its task and the connections of its
  /// storage context — so that a one-shot read costs no thread hop (docs/PERFORMANCE.md, "Command-line latency"); a
  /// command line made without it runs only the command's task there. For a program's main thread, never from a
  /// task.
  public func runOnCallingThread(_ command: @escaping @Sendable () async -> Int32) -> Int32 {
    (executor ?? CallingThreadExecutor()).run(command)
  }

  /// Parses one command line (without the program name) and answers what needs no command to run: the overview,
  /// `news help [COMMAND]`, `COMMAND --help`, `--version` and usage errors, synchronously, without touching the
  /// configuration, the storage or the network. Anything else is returned as the command to run.
  public func prepare(_ arguments: [String]) -> Invocation {
    guard let first = arguments.first else {
      console.err(Self.overview)
      return .finished(ExitCode.usage.rawValue)
    }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "-h", "--help":
      console.out(Self.overview)
      return .finished(ExitCode.success.rawValue)
    case "help":
      guard let name = rest.first else {
        console.out(Self.overview)
        return .finished(ExitCode.success.rawValue)
      }
      guard let command = CommandRegistry.command(named: name) else {
        console.printError("no command named '\(name)'", hint: "the commands are listed below")
        console.err("\n" + Self.overview)
        return .finished(ExitCode.usage.rawValue)
      }
      console.out(command.spec.helpText)
      return .finished(ExitCode.success.rawValue)
    case "--version":
      console.out(Self.versionLine + "\n")
      return .finished(ExitCode.success.rawValue)
    case "--man":
      console.out(ShellIntegration.manPage)
      return .finished(ExitCode.success.rawValue)
    case "--completions":
      guard rest.count == 1, let script = ShellIntegration.completionScript(for: rest[0]) else {
        return .finished(
          fail(
            CommandFailure(
              .usage, "which shell? usage: news --completions bash|zsh|fish",
              hint: "e.g. news --completions bash > ~/.local/share/bash-completion/completions/news"),
            on: console))
      }
      console.out(script)
      return .finished(ExitCode.success.rawValue)
    default:
      break
    }
    guard let command = CommandRegistry.command(named: first) else {
      return .finished(
        fail(
          CommandFailure(
            .usage, "unknown command '\(first)'",
            hint: (Self.meant(first).map { "did you mean 'news \($0)'? " } ?? "") + "run 'news --help' for the commands"
          ),
          on: console))
    }
    return prepare(command, rest)
  }

  /// The command a mistyped name likely meant: the nearest name (``NameHint/closest(to:among:)``), else the command
  /// that does what other readers call that (newsboat's `reload`, Miniflux's `refresh`, `subscribe`).
  static func meant(_ typed: String) -> String? {
    let names = CommandRegistry.commands.map { $0.name }
    if let near = NameHint.closest(to: typed, among: names) { return near }
    switch typed.lowercased() {
    case "subscribe", "follow": return "add"
    case "unsubscribe", "unfollow": return "remove"
    case "refresh", "reload", "update", "pull": return "fetch"
    case "feeds", "subscriptions": return "sources"
    case "ls": return "list"
    case "find", "grep": return "search"
    case "server": return "serve"
    default: return nil
    }
  }

  /// Parses the words after a command's name; help and usage errors are answered here.
  private func prepare<Command: NewsCommand>(_ command: Command.Type, _ words: [String]) -> Invocation {
    let parsed: ParsedArguments<Command.Option>
    let console: Console
    do {
      parsed = try Command.parse(words)
      if parsed.wantsHelp {
        self.console.out(Command.spec.helpText)
        return .finished(ExitCode.success.rawValue)
      }
      console = self.console.coloring(parsed.common.color)
    } catch {
      return .finished(fail(error, on: self.console))
    }
    return .command { await execute(command, parsed, console: console) }
  }

  /// Loads what the command needs and runs it; whatever it throws ends it with its message and exit status.
  private func execute<Command: NewsCommand>(
    _ command: Command.Type, _ arguments: ParsedArguments<Command.Option>, console: Console
  ) async -> Int32 {
    do {
      let use = Command.configurationUse(for: arguments) {
        LocalPath.resolved($0, relativeTo: currentDirectory, environment: environment)
      }
      let context = try makeContext(arguments.common, console: console, use: use)
      return try await Command(context: context, arguments: arguments).run().rawValue
    } catch {
      return fail(CommandFailure(error, currentDirectory: currentDirectory), on: console)
    }
  }

  private func fail(_ failure: CommandFailure, on console: Console) -> Int32 {
    console.printError(failure.message, hint: failure.hint)
    if let usage = failure.usage { console.err(usage + "\n") }
    return failure.code.rawValue
  }

  private func makeContext(_ arguments: CommonArguments, console: Console, use: ConfigurationUse)
    throws(CommandFailure) -> CommandContext
  {
    let configuration =
      use == .none
      ? Configuration()
      : try Configuration.load(
        explicitPath: arguments.configurationPath, environment: environment, currentDirectory: currentDirectory,
        creatable: use == .creatable, newFileAllowed: use == .newFileAllowed, note: { console.printNote($0) })
    return CommandContext(
      configuration: configuration, environment: environment, currentDirectory: currentDirectory, console: console,
      now: now, network: network, server: server, faults: faults, executor: executor)
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
  /// How HTTP servers are started (``ServerStack``).
  var server: ServerStack = .none
  var faults = CommandFaults()
  /// The executor of every connection of the storage context (``NewsCommandLine/runOnCallingThread(_:)``); `nil`:
  /// a dispatch queue each.
  var executor: CallingThreadExecutor?

  /// The URL under which a cached article is stored for a URL typed by the user: as typed, else as the importer
  /// stores URLs (`URL(string:)`, which percent-encodes non-ASCII characters: `?q=ü` is kept as `?q=%C3%BC`).
  /// The text as typed when neither is cached.
  /// The handle or URL typed for `command`, or the usage error that asks for one (`alternatives`: the rest of the
  /// usage line after `HANDLE|URL`, e.g. ` (or --all)`).
  func typedArticle(_ typed: String?, command: String, alternatives: String = "") throws(CommandFailure) -> String {
    guard let typed, !typed.isEmpty else {
      throw CommandFailure(
        .usage, "which article? usage: news \(command) HANDLE|URL\(alternatives)",
        hint: "'news list' shows each article's handle")
    }
    return typed
  }

  /// The cached article `text` names — a handle (or a prefix of one) as `news list` prints it, or a URL in any
  /// equivalent form — for the commands that act on one article.
  ///
  /// - Throws: ``CommandFailure``: `.noInput` (66) when nothing cached has it, `.usage` (64) for a handle prefix
  ///   several articles share (listing them); the repository's ``NewsRepositoryError`` when the store fails.
  func resolveArticle(_ text: String, in repository: NewsRepository, command: String) async throws -> Article {
    let lookup = try await repository.article(handleOrURL: text)
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
      // A URL has a scheme; anything else was meant as a handle, even one too short to be one ("39").
      let isHandle = ArticleIdentity.looksLikeHandle(text.lowercased())
      let what = isHandle || !text.contains(":") ? "the handle or URL" : "the URL"
      let shape = isHandle || text.contains(":") ? "" : "a handle is 4 to 16 hex digits; "
      throw CommandFailure(
        .noInput, "no cached article has \(what) \(OutputFormat.sanitized(text))",
        hint: shape + "'news list' shows each article's handle; news \(command) HANDLE")
    }
  }

  /// The cached article a command acts on (`news show`, `news open`, `news mark-read`, `news bookmark`): the handle
  /// or URL `typed` (``typedArticle(_:command:alternatives:)``), looked up (``resolveArticle(_:in:command:)``) in the
  /// repository of `arguments` (``makeRepository(_:timeout:entities:retrying:typedURL:reading:emptyWhenMissing:)``,
  /// `reading` as there), which is returned with it. The store is opened only once an article is typed.
  ///
  /// - Throws: ``CommandFailure`` 64 when none is typed or a handle prefix is ambiguous, 66 when no cached article
  ///   has it (or, `reading`, there is no database); the repository's ``NewsRepositoryError`` when the store fails.
  func article(
    _ typed: String?, command: String, alternatives: String = "", store arguments: CommonArguments,
    reading: Bool = false
  ) async throws -> (article: Article, repository: NewsRepository) {
    let text = try typedArticle(typed, command: command, alternatives: alternatives)
    let repository = try makeRepository(arguments, reading: reading)
    return (try await resolveArticle(text, in: repository, command: command), repository)
  }

  /// The time zone times of day are printed in: `TZ` of the command's environment when it names one, else the
  /// system's.
  var timeZone: TimeZone {
    environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) } ?? .current
  }

  /// The command that fetches `article`'s whole text: `news fetch --source NAME --full-text` when its source is
  /// configured, else `news fetch --full-text`.
  func fullTextCommand(for article: Article) -> String {
    let configuration = self.configuration
    guard let origin = article.source, let name = configuration.sourceName(matching: origin),
      configuration.sources[name] != nil || configuration.syncSources[name] != nil
    else { return "news fetch --full-text" }
    return "news fetch --source \(FetchCommand.quotedName(name)) --full-text"
  }

  /// Fetches the pages of `articles` for their whole text
  /// (``NewsRepository/fetchFullText(for:using:limits:retryFailed:)``) and says on standard error what it did; a
  /// page that fails is noted and tried again by a later fetch, never an error. Pages that failed recently are
  /// skipped, and the note says when they are retried, unless `retryFailed` (`--retry-failed`) tries them now.
  func fetchFullText(_ articles: [Article], _ repository: NewsRepository, timeout: Double?, retryFailed: Bool = false)
    async
  {
    guard network.reachesHTTP else { return noteNoNetworkForFullText() }
    let seconds = timeout ?? configuration.timeoutSeconds
    let transport = network.httpTransport(
      seconds, RetryPolicy(maxAttempts: 2, initialDelay: 0.25, maxDelay: 1, maxTotalTime: 2 * seconds), [])
    printFullText(await repository.fetchFullText(for: articles, using: transport, retryFailed: retryFailed))
  }

  /// A note for each subscription that took back its feed's articles from a name no source has now
  /// (``NewsRepository/adoptArticles(of:in:)``).
  func noteAdoptions(_ adoptions: [RefreshReport.Adoption]) {
    for adoption in adoptions where adoption.articles > 0 {
      console.printNote(
        "\(OutputFormat.sanitized(adoption.to)): \(adoption.articles) cached articles of its feed, saved under "
          + "\"\(OutputFormat.sanitized(NewsQuery.shown(adoption.from)))\" (no source has that name now), are its own again, read and "
          + "bookmarked as they were")
    }
  }

  /// Says on standard error which sources named by their feed's URL now have their feed's title as their name
  /// (``NewsRepository/nameUntitled(_:in:titles:)``), in the configuration file too.
  func noteNamings(_ namings: [RefreshReport.Naming]) {
    for naming in namings {
      console.printNote(
        "\(OutputFormat.sanitized(naming.from)) is named \"\(OutputFormat.sanitized(naming.to))\" after its feed's "
          + "title now (\(subscriptionFile.path)); its cached articles went with it")
    }
  }

  /// Says on standard error what a refresh's whole-text fetches did (``RefreshReport/fullText``), or that this
  /// `news` has no network to fetch them with.
  func reportFullText(_ report: RefreshReport) {
    if report.fullTextNeedsTransport { noteNoNetworkForFullText() }
    if let fullText = report.fullText { printFullText(fullText) }
  }

  private func noteNoNetworkForFullText() {
    let folder = NetworkProgram.executableFolder
    console.printNote(
      "full text: not fetched: this news has no network (\(NetworkProgram.name) is not in \(folder)); "
        + NetworkProgram.hint(folder: folder))
  }

  /// `full text: N fetched, M failed: …; K failed earlier …; images: …` on standard error; nothing when nothing was
  /// done or waits.
  private func printFullText(_ report: FullTextReport) {
    let done = report.fetched + report.failures.count + report.imagesStored + report.imageFailures.count
    guard done + report.waiting.count > 0 else { return }
    var line = "full text: \(report.fetched) fetched"
    if !report.failures.isEmpty {
      line += ", \(report.failures.count) failed: " + OutputFormat.reasonCounts(report.failures.map(\.reason))
      line += " (retried by a later fetch)"
    }
    if let first = report.waiting.first {
      // Pages that failed recently are not asked again yet: say so, and when (the soonest), rather than nothing.
      let now = self.now()
      line +=
        "; \(report.waiting.count) failed earlier ("
        + OutputFormat.reasonCounts(report.waiting.map(\.cause.description)) + "), retried after "
        + OutputFormat.clockTime(first.retryAfter, now: now, zone: timeZone) + ", or now with --retry-failed"
    }
    if report.imagesStored + report.imageFailures.count > 0 {
      line += "; images: \(report.imagesStored) offline"
      if !report.imageFailures.isEmpty {
        line +=
          ", \(report.imageFailures.count) failed: "
          + OutputFormat.reasonCounts(report.imageFailures.map(\.reason)) + " (retried by a later fetch)"
      }
    }
    console.printNote(line)
  }

  /// The short handles of articles about to be printed; the first 6 digits of each when the store cannot say (a
  /// read-only or damaged store: the listing still prints).
  func shortHandles(_ articles: some Collection<Article>, _ repository: NewsRepository) async -> [String: String] {
    (try? await repository.shortHandles(for: articles)) ?? [:]
  }

  /// Where the images of whole texts are kept: `DATABASE-images/` beside the database (`news.sqlite-images/`), one
  /// folder per database, as SQLite names its `-wal` and `-shm` files: a sweep of one database's unused images
  /// never touches another's.
  func imageFolder(_ arguments: CommonArguments) -> URL {
    URL(fileURLWithPath: databasePath(arguments) + "-images", isDirectory: true)
  }

  /// The hosts the NewsAPI key may be sent to: `newsapi.org`, the hosts of the configured NewsAPI sources (`"url"`),
  /// and the host of a `--url` typed on the command line when it has NewsAPI's `/v2/` path (a NewsAPI-compatible
  /// server); never a feed's, a page's or any other host.
  func newsAPIHosts(typedURL: URL?) -> Set<String> {
    var hosts: Set<String> = [NewsAPIKey.newsAPIHost]
    for source in configuration.sources.values where !source.url.isFileURL {
      if let host = source.url.host?.lowercased(), !host.isEmpty { hosts.insert(host) }
    }
    if let typedURL, typedURL.path.hasPrefix("/v2/"), let host = typedURL.host?.lowercased(), !host.isEmpty {
      hosts.insert(host)
    }
    return hosts
  }

  /// A path the user typed, made absolute: `~` and `~/…` expanded with `$HOME`, relative to the current folder
  /// (``resolvedPath(_:relativeTo:environment:)``).
  func resolvedPath(_ typed: String) -> String {
    LocalPath.resolved(typed, relativeTo: currentDirectory, environment: environment)
  }

  /// The database path: `--db`, else the configuration's, else the XDG default.
  func databasePath(_ arguments: CommonArguments) -> String {
    if let path = arguments.databasePath { return resolvedPath(path) }
    return configuration.databasePath ?? Configuration.defaultDatabasePath(environment: environment)
  }

  /// Fails with `.noInput` (66), "no database at PATH ('news fetch' or 'news import' creates it)", when the
  /// database file does not exist: a read command never creates a store (nor its folder) at a mistyped path.
  /// `:memory:` always exists.
  func requireExistingDatabase(_ arguments: CommonArguments) throws(CommandFailure) {
    let path = databasePath(arguments)
    guard path != ":memory:", !FileManager.default.fileExists(atPath: path) else { return }
    throw CommandFailure(
      .noInput, OutputFormat.sanitized("no database at \(path) ('news fetch' or 'news import' creates it)"))
  }

  /// The storage context of the configured store, as ``makeRepository(_:timeout:entities:retrying:typedURL:reading:emptyWhenMissing:)``
  /// opens it: what the commands about the generic store itself (`stats`, `entities`, `records`) read.
  func makeStorage(
    _ arguments: CommonArguments, entities: [EntityDescription] = [], reading: Bool = false,
    emptyWhenMissing: Bool = false
  ) throws(CommandFailure) -> StorageContext {
    var path = databasePath(arguments)
    if reading {
      do {
        try requireExistingDatabase(arguments)
      } catch {
        guard emptyWhenMissing else { throw error }
        path = ":memory:"
      }
    }
    let storage: StorageContext
    do {
      let console = self.console
      storage = try StorageContext(
        path: path, entities: entities, eviction: configuration.eviction, faults: faults.storage,
        executor: executor,
        willMigrate: { from, to in
          console.err(
            "news: updating the store from schema version \(from) to \(to), once…\n")
        })
    } catch {
      throw CommandFailure(.storage, error.description)
    }
    return storage
  }

  /// The composition: storage context + network → repository.
  /// The repository the commands read and write through: the configured store, and a network that reads every
  /// format a source may send (``articleDecoder``).
  ///
  /// - Parameters:
  ///   - timeout: seconds per attempt; the configuration's `timeoutSeconds` by default.
  ///   - retrying: retry failed attempts (3 attempts within twice the timeout) and serve the cache at the latest
  ///     0.5 s after that (`news fetch`); `false`: one attempt, no deadline.
  ///   - reading: a command that only reads the store (`list`, `show`, `stats`, …): a database that does not exist
  ///     fails with `.noInput` (66) and nothing is created (``requireExistingDatabase(_:)``); `false` (a write
  ///     command): the store and its folder are created when missing.
  ///   - emptyWhenMissing: with `reading`, a missing database reads as an empty one (a private in-memory store)
  ///     instead of failing: `news sources` lists the configured sources before the first fetch. Nothing is created.
  func makeRepository(
    _ arguments: CommonArguments, timeout: Double? = nil, entities: [EntityDescription] = [], retrying: Bool = false,
    typedURL: URL? = nil, reading: Bool = false, emptyWhenMissing: Bool = false
  ) throws(CommandFailure) -> NewsRepository {
    let storage = try makeStorage(arguments, entities: entities, reading: reading, emptyWhenMissing: emptyWhenMissing)
    let apiKey = (environment["NEWSAPI_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? configuration.apiKey).map {
      NewsAPIKey($0, hosts: newsAPIHosts(typedURL: typedURL))
    }
    let requested = timeout ?? configuration.timeoutSeconds
    let perAttempt = RequestTimeout.effective(requested)
    let retry =
      retrying ? RetryPolicy(maxAttempts: 3, initialDelay: 0.25, maxDelay: 2, maxTotalTime: 2 * perAttempt) : .none
    let stack = network
    let context = self
    let network = DeferredNetwork { stack.newsNetwork(apiKey, requested, retry, context.articleDecoder) }
    let now = self.now
    return NewsRepository(
      storage: storage, network: network, clock: { Timestamp(now()) }, deadline: retrying ? 2 * perAttempt + 0.5 : nil,
      imageFolder: imageFolder(arguments))
  }

  /// The decoder of every source format (NewsAPI, RSS, Atom, JSON Feed: ``ArticleDecoder``).
  var articleDecoder: ArticleDecoder { ArticleDecoder() }

  /// The folders where `--mapping NAME` (and a sync source's `mapping`) looks for `NAME.json`, in order:
  /// `mappings/` beside the configuration file; `Config/mappings/` in the current folder; `$XDG_CONFIG_HOME/news/
  /// mappings/` (default `~/.config/news/mappings/`). A name found in none of them is a shipped mapping
  /// (``ImportMapping/shippedNames``), compiled into the program, so that a `news` run from anywhere has them.
  var mappingFolders: [String] {
    var folders: [String] = []
    if let file = configuration.file {
      folders.append(URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("mappings").path)
    }
    folders.append(LocalPath.absolute("Config/mappings", relativeTo: currentDirectory))
    folders.append(
      Configuration.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config", environment: environment) + "/news/mappings")
    var seen = Set<String>()
    return folders.filter { seen.insert($0).inserted }
  }
}
