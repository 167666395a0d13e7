import Foundation
import OfflineNews

/// The `news` command line: the composition root that wires configuration → storage context + network →
/// repository → command, as an app's coordinator wires repository → view model → view controller.
///
/// For example (what `Sources/news/main.swift` does):
/// ```swift
/// let status = await NewsCommandLine(environment: ProcessInfo.processInfo.environment).run(["fetch", "--json"])
/// ```
public struct NewsCommandLine: Sendable {
  let environment: [String: String]
  let currentDirectory: String
  let console: Console
  let now: @Sendable () -> Date

  /// - Parameters:
  ///   - environment: the process environment (`NEWSAPI_KEY`, `NEWS_CONFIG`, `XDG_DATA_HOME`, `HOME`, …).
  ///   - currentDirectory: the folder relative paths are resolved against.
  ///   - console: where output goes; the process's standard output and error by default.
  ///   - now: the current time, for "3 h ago"; tests inject a fixed one.
  public init(
    environment: [String: String], currentDirectory: String = FileManager.default.currentDirectoryPath,
    console: Console? = nil, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.environment = environment
    self.currentDirectory = currentDirectory
    self.console = console ?? .standard(environment: environment)
    self.now = now
  }

  static let commands: [CommandSpec] = [
    FetchCommand.spec, ListCommand.spec, ImportCommand.spec, DeleteCommand.spec, LocalStateCommand.markReadSpec,
    LocalStateCommand.bookmarkSpec, StatsCommand.spec, EntitiesCommand.spec, RecordsCommand.spec,
    SourcesCommand.spec, SyncCommand.spec,
    SearchCommand.spec, ShowCommand.spec, ExtractCommand.spec,
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

      Run 'news <command> --help' for a command's options.
      Exit status: 0 articles served or done, 64 usage error, 65 bad input file, 66 no such article, 69 network
      failed and nothing cached, 74 storage error, 78 configuration error.
      """
    return text + "\n"
  }

  /// Runs one command line (without the program name) and returns the exit status.
  public func run(_ arguments: [String]) async -> Int32 {
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
      if let name = rest.first, let spec = Self.commands.first(where: { $0.name == name }) {
        console.out(spec.helpText)
      } else {
        console.out(Self.overview)
      }
      return ExitCode.success.rawValue
    case "--version":
      console.out("news \(Self.version)\n")
      return ExitCode.success.rawValue
    default:
      break
    }
    guard let spec = Self.commands.first(where: { $0.name == first }) else {
      return fail(CommandFailure(.usage, "unknown command '\(first)'", hint: "run 'news --help' for the commands"))
    }
    do {
      let parsed = try ArgumentParser.parse(rest, for: spec)
      if parsed.wantsHelp {
        console.out(spec.helpText)
        return ExitCode.success.rawValue
      }
      if spec.name == ExtractCommand.spec.name {
        // Reads only its file: no configuration to load.
        return try ExtractCommand(console: console, currentDirectory: currentDirectory, arguments: parsed).run()
          .rawValue
      }
      let context = try makeContext(parsed)
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
      case SourcesCommand.spec.name:
        return try await SourcesCommand(context: context, arguments: parsed).run().rawValue
      case SyncCommand.spec.name: return try await SyncCommand(context: context, arguments: parsed).run().rawValue
      case EntitiesCommand.spec.name:
        return try await EntitiesCommand(context: context, arguments: parsed).run().rawValue
      case RecordsCommand.spec.name: return try await RecordsCommand(context: context, arguments: parsed).run().rawValue
      default: return fail(CommandFailure(.usage, "unknown command '\(first)'"))
      }
    } catch {
      return fail(error)
    }
  }

  private func fail(_ failure: CommandFailure) -> Int32 {
    console.printError(failure.message, hint: failure.hint)
    return failure.code.rawValue
  }

  private func makeContext(_ arguments: ParsedArguments) throws(CommandFailure) -> CommandContext {
    let configuration = try Configuration.load(
      explicitPath: arguments.value("config"), environment: environment, currentDirectory: currentDirectory)
    return CommandContext(
      configuration: configuration, environment: environment, currentDirectory: currentDirectory, console: console,
      now: now)
  }
}

/// What every command gets: configuration, environment, console, clock; and the composition of the repository.
struct CommandContext: Sendable {
  var configuration: Configuration
  var environment: [String: String]
  var currentDirectory: String
  var console: Console
  var now: @Sendable () -> Date

  /// The URL under which a cached article is stored for a URL typed by the user: as typed, else as the importer
  /// stores URLs (`URL(string:)`, which percent-encodes non-ASCII characters: `?q=ü` is kept as `?q=%C3%BC`).
  /// The text as typed when neither is cached.
  func cachedURL(for text: String, in repository: NewsRepository) async throws(NewsRepositoryError) -> String {
    if try await repository.article(url: text) != nil { return text }
    if let normalized = URL(string: text)?.absoluteString, normalized != text,
      try await repository.article(url: normalized) != nil
    {
      return normalized
    }
    return text
  }

  /// The database path: `--db`, else the configuration's, else the XDG default.
  func databasePath(_ arguments: ParsedArguments) -> String {
    if let path = arguments.value("db") { return absolute(expandingTilde(path), relativeTo: currentDirectory) }
    return configuration.databasePath ?? Configuration.defaultDatabasePath(environment: environment)
  }

  /// The composition: storage context + network → repository.
  func makeRepository(
    _ arguments: ParsedArguments, timeout: Double? = nil, entities: [EntityDescription] = []
  ) throws(CommandFailure) -> NewsRepository {
    let storage: StorageContext
    do {
      storage = try StorageContext(
        path: databasePath(arguments), entities: entities, eviction: configuration.eviction)
    } catch {
      throw CommandFailure(.storage, error.description)
    }
    let apiKey = environment["NEWSAPI_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? configuration.apiKey
    let network = URLSessionNewsNetwork(apiKey: apiKey, timeout: timeout ?? configuration.timeoutSeconds)
    return NewsRepository(storage: storage, network: network, clock: { Timestamp(self.now()) })
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

  /// Maps a repository error to the command's failure and exit status.
  func failure(_ error: NewsRepositoryError) -> CommandFailure {
    switch error {
    case .networkFailedAndCacheEmpty(_, let network):
      let hint: String?
      switch network {
      case .api(let apiError) where apiError.code == .apiKeyMissing || apiError.code == .apiKeyInvalid:
        hint = "set NEWSAPI_KEY to your NewsAPI key (https://newsapi.org/register)"
      default: hint = "try again when the network is back; 'news list' shows everything cached"
      }
      return CommandFailure(.unavailable, "\(network); nothing is cached for this query", hint: hint)
    case .networkFailed(_, let network):
      return CommandFailure(.unavailable, "\(network)", hint: "without --policy network-only, the cache is served")
    case .storage(let storageError, _):
      return CommandFailure(.storage, storageError.description)
    }
  }
}
