import Foundation
import OfflineNews
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `news sync [--source NAME]`: incremental sync of the configured Parse Server and JSON Feed sources.
struct SyncCommand: NewsCommand {
  static let name = "sync"
  static let summary =
    "Sync the configured Parse Server classes into the database (incremental); feeds refresh as fetch does."
  static let details = """
    A Parse source ("parse" in the configuration) is synced class by class, pointed-to classes first: only the
    objects changed since the last sync (updatedAt after the stored cursor), page by page. Each page is stored
    in the database before it is imported, and imported with the cursor's move in one transaction, so an
    interrupted sync loses nothing and the next one finishes the job without duplicates. Files marked "eager"
    are downloaded next to the database (files/<source>/), within their size cap and content types.
    A "feed" source (JSON Feed) is downloaded whole and imported with its mapping.
    Secrets come from the environment: PARSE_REST_API_KEY, or the variables the source names.
    Exit status: 0 every source synced, 69 a source failed on the network or the server, 65 a bad response or
    mapping, 74 a storage error. What was imported before a failure stays imported.
    """

  enum Option: CommandOption {
    case source, full, deleteMissing, force, timeout, db, config, json
    var spec: OptionSpec {
      switch self {
      case .source:
        OptionSpec(name: "source", valueName: "NAME", help: "Sync only this source (default: every sync source).")
      case .full:
        OptionSpec(
          name: "full", help: "Ask for every object again, not only those changed since the last sync (a re-sync).")
      case .force:
        OptionSpec(name: "force", help: "Sync sources whose policy is cache-first even while their last sync is fresh.")
      case .deleteMissing:
        OptionSpec(
          name: "delete-missing",
          help: "With --full: delete the rows of each class that the server no longer lists (deleted there).")
      case .timeout:
        OptionSpec(
          name: "timeout", valueName: "SECONDS", help: "Time allowed per request (default: the configuration's, 5).")
      case .db: SharedOption.database
      case .config: SharedOption.configuration
      case .json:
        SharedOption.json(
          "{sources: [{name, kind, classes: [{className, entity, pages, resumedPages, objects, inserted, updated, "
            + "unchanged, deleted, failed, errors, warnings, filesDownloaded, filesPresent, fileErrors, cursor, error, "
            + "errorKind}]}]}")
      }
    }
  }

  struct SourceReport: Encodable {
    var name: String
    var kind: String
    var classes: [SyncReport.ClassReport]
  }

  struct Report: Encodable {
    var sources: [SourceReport]
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    if arguments.flag(.deleteMissing), !arguments.flag(.full) {
      throw CommandFailure(.usage, "--delete-missing needs --full", hint: "news sync --full --delete-missing")
    }
    let json = arguments.flag(.json)
    _ = try arguments.seconds(.timeout)  // a bad --timeout is a usage error before anything else
    let reports = try await sync(try selectedSources(), quiet: json)
    let console = context.console
    if json { console.out(OutputFormat.json(Report(sources: reports))) }
    if !json {
      for report in reports {
        for failure in report.classes.compactMap(\.error) {
          // A Parse class's failure starts with its class ("Article: connection refused": "demo/Article: …"); a
          // feed's is the error alone, which the source's name introduces ("sixcolors: host not found").
          let separator = report.kind == "feed" ? ": " : "/"
          console.printError(
            "\(OutputFormat.sanitized(report.name))\(separator)\(OutputFormat.sanitized(failure))", hint: nil)
        }
      }
    }
    return Self.exitCode(reports.flatMap(\.classes))
  }

  /// Syncs `sources` one after the other; prints a summary line per source unless `quiet`.
  func sync(_ sources: [Configuration.SyncSource], quiet json: Bool) async throws -> [SourceReport] {
    let configuration = context.configuration
    let timeout = try arguments.seconds(.timeout) ?? configuration.timeoutSeconds
    try context.requireNetwork(for: sources.map(\.url), command: Self.name)
    var mappings: [String: ImportMapping] = [:]
    var entities = SyncBookkeeping.entities
    for source in sources where mappings[source.mapping] == nil {
      let mapping: ImportMapping
      do {
        mapping = try context.loadMapping(source.mapping)
      } catch {
        let file = configuration.file ?? "the configuration"
        throw CommandFailure(.config, "\(file): sources.\(source.name).mapping: \(error.message)", hint: error.hint)
      }
      mappings[source.mapping] = mapping
      entities += mapping.entityDescriptions
    }
    let composed = try context.makeRepository(arguments.common, entities: entities)
    let storage = composed.storage
    let databaseFolder = URL(fileURLWithPath: context.databasePath(arguments.common)).deletingLastPathComponent()
    let console = context.console
    var reports: [SourceReport] = []
    for source in sources {
      guard let mapping = mappings[source.mapping] else { continue }
      if source.skipsWhileFresh, let maxAge = source.maxAge, !arguments.flag(.force), !arguments.flag(.full),
        let synced = try await lastCompleteSync(source, storage: storage),
        context.now().timeIntervalSince(synced.date) < maxAge
      {
        let age = max(0, context.now().timeIntervalSince(synced.date))
        if !json {
          console.printLines(
            "\(OutputFormat.sanitized(source.name)): fresh (synced \(FetchCommand.duration(age)) ago, max age "
              + "\(FetchCommand.duration(maxAge))): skipped; --force syncs it\n")
        }
        reports.append(SourceReport(name: source.name, kind: source.kindName, classes: []))
        continue
      }
      let report: SyncReport
      let kind: String
      switch source.kind {
      case .parse(let settings):
        kind = "parse"
        let server = ParseServer(
          serverURL: settings.serverURL, applicationID: settings.applicationID,
          restAPIKey: context.environment[settings.restAPIKeyEnvironment],
          sessionToken: settings.sessionTokenEnvironment.flatMap { context.environment[$0] })
        var classes: [ParseClassSync] = []
        for parseClass in settings.classes {
          let selected: ImportMapping
          do {
            selected = mapping.roots.isEmpty ? mapping : try mapping.selecting(root: parseClass.name)
          } catch {
            throw CommandFailure(
              .config,
              "\(configuration.file ?? "the configuration"): sources.\(source.name).classes: \(parseClass.name): \(error)",
              hint: "the mapping's roots: \(mapping.roots.keys.sorted().joined(separator: ", "))")
          }
          classes.append(
            ParseClassSync(
              className: parseClass.name, mapping: selected, pageSize: parseClass.pageSize ?? settings.pageSize,
              files: parseClass.files, relations: parseClass.relations))
        }
        var engine = ParseSyncEngine(
          source: source.name, server: server, classes: classes, storage: storage,
          transport: context.network.httpTransport(timeout, Self.retry(timeout), []),
          fileFolder: databaseFolder.appendingPathComponent("files").appendingPathComponent(
            Self.folderName(source.name)))
        engine.now = context.now
        engine.fromTheBeginning = arguments.flag(.full)
        engine.deleteMissing = arguments.flag(.deleteMissing)
        if let afterPageStaged = context.faults.afterPageStaged { engine.pageStaged = { _ in afterPageStaged() } }
        let progress = SyncProgressLine(source: source.name, console: console, quiet: json)
        report = await engine.sync { progress.update($0) }
        progress.finish()
      case .feed(let url):
        // A feed refreshes as every news source does: through the repository (conditional GET, any format).
        kind = "feed"
        let repository = try context.makeRepository(arguments.common, timeout: timeout, retrying: true)
        let outcome = await FetchAll.refresh(
          source.name, NewsQuery(url: url, source: source.name), policy: .networkOnly, maxAge: source.maxAge,
          repository: repository, now: context.now())
        var part = SyncReport.ClassReport(className: "feed", entity: EntityDescription.article.name)
        part.pages = outcome.status == "failed" ? 0 : 1
        part.objects = outcome.inserted + outcome.updated + outcome.unchanged + outcome.cached
        part.inserted = outcome.inserted
        part.updated = outcome.updated
        part.unchanged = outcome.status == "notModified" ? outcome.cached : outcome.unchanged
        part.warnings = outcome.issues
        if outcome.status == "failed" {
          part.error = outcome.error
          part.errorKind = .network
        }
        var feedReport = SyncReport()
        feedReport.classes = [part]
        report = feedReport
      }
      reports.append(SourceReport(name: source.name, kind: kind, classes: report.classes))
      // A sync may delete (--delete-missing) or evict articles: their image files go with them.
      await composed.removeUnusedImages()
      if !json {
        console.printLines(Self.summary(source: source.name, report.classes))
        reportProblems(source: source.name, report.classes)
      }
    }
    return reports
  }

  private func selectedSources() throws(CommandFailure) -> [Configuration.SyncSource] {
    let configuration = context.configuration
    if let typed = arguments.value(.source) {
      let name = configuration.sourceName(matching: typed) ?? typed
      guard let source = configuration.syncSources[name] else {
        if configuration.sources[name] != nil {
          throw CommandFailure(.usage, "\"\(name)\" is a NewsAPI source", hint: "run: news fetch --source \(name)")
        }
        let known = configuration.syncSources.keys.sorted().joined(separator: ", ")
        throw CommandFailure(
          .usage, "no sync source named \"\(name)\"", hint: known.isEmpty ? nil : "sync sources: \(known)")
      }
      return [source]
    }
    guard !configuration.syncSources.isEmpty else {
      let file = configuration.file.map { " in \($0)" } ?? " (no configuration file found)"
      throw CommandFailure(
        .config, "no sync sources configured\(file)",
        hint: "add a source with \"parse\" or \"feed\" (see docs/CLI.md, news sync)")
    }
    return configuration.syncSources.values.sorted { $0.name < $1.name }
  }

  /// When every class of a source was last brought up to date: the oldest `syncedAt` of its classes (`nil` when one
  /// never was, or has an error since).
  func lastCompleteSync(_ source: Configuration.SyncSource, storage: StorageContext)
    async throws -> Timestamp?
  {
    let classes: [SyncBookkeeping.ClassStatus]
    classes = try await SyncBookkeeping.status(source: source.name, in: storage)
      .filter { source.classNames.contains($0.className) }
    guard Set(classes.map(\.className)) == Set(source.classNames),
      classes.allSatisfy({ $0.lastError == nil })
    else { return nil }
    let times = classes.compactMap(\.syncedAt)
    return times.count == classes.count ? times.min() : nil
  }

  /// Three attempts for transport errors, 429 and 5xx, within twice the timeout per request.
  static func retry(_ timeout: Double) -> RetryPolicy {
    RetryPolicy(
      maxAttempts: 3, initialDelay: 0.25, maxDelay: 2,
      maxTotalTime: 2 * RequestTimeout.effective(timeout)
    )
  }

  /// A folder name for a source: its name with anything but letters, digits, `-` and `_` replaced by `_`.
  static func folderName(_ name: String) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
    let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
    return cleaned.isEmpty ? "_" : cleaned
  }

  /// The exit status of a sync: the worst failure among its classes decides (storage, then bad input, then
  /// the network; ``ExitCode/init(_:)``).
  static func exitCode(_ classes: [SyncReport.ClassReport]) -> ExitCode {
    let statuses = Set(classes.compactMap(\.errorKind).map(ExitCode.init))
    return [ExitCode.storage, .badInput, .unavailable].first(where: statuses.contains) ?? .success
  }

  /// One line per class: `source/Class → entity: N pages (M resumed), K objects: a inserted, …`.
  static func summary(source: String, _ classes: [SyncReport.ClassReport]) -> String {
    var text = ""
    for part in classes {
      let resumed = part.resumedPages > 0 ? " (+\(part.resumedPages) resumed)" : ""
      text += "\(OutputFormat.sanitized(source))/\(OutputFormat.sanitized(part.className)) → "
      text += "\(OutputFormat.sanitized(part.entity)): "
      text += "\(part.pages) page\(part.pages == 1 ? "" : "s")\(resumed), "
      text += "\(part.objects) object\(part.objects == 1 ? "" : "s"): "
      text += "\(part.inserted) inserted, \(part.updated) updated, \(part.unchanged) unchanged, \(part.failed) failed"
      if part.deleted > 0 { text += ", \(part.deleted) deleted" }
      if !part.warnings.isEmpty { text += ", \(part.warnings.count) warning\(part.warnings.count == 1 ? "" : "s")" }
      if part.filesDownloaded + part.filesPresent + part.fileErrors.count > 0 {
        text += "; files: \(part.filesDownloaded) downloaded, \(part.filesPresent) present, "
        text += "\(part.fileErrors.count) failed"
      }
      text += part.error == nil ? "\n" : " (stopped)\n"
    }
    return text
  }

  /// The records and files of each class that could not be taken, on standard error (messages, not data):
  /// counted by reason, listed with `--verbose`.
  private func reportProblems(source: String, _ classes: [SyncReport.ClassReport]) {
    for part in classes {
      let label = "\(source)/\(part.className): "
      context.reportRecordErrors(part.errors, label: label, arguments.common)
      if !part.warnings.isEmpty {
        let count = part.warnings.count
        context.console.printNote(
          "\(label)\(count) value\(count == 1 ? "" : "s") not read (the records were kept): "
            + OutputFormat.reasonCounts(part.warnings.map(\.reason))
            + (arguments.verbose ? "" : " (--verbose lists \(count == 1 ? "it" : "them"))"))
        if arguments.verbose {
          for warning in part.warnings { context.console.printNote("  \(label)warning: \(warning)") }
        }
      }
      guard !part.fileErrors.isEmpty else { continue }
      let verbose = arguments.verbose
      let count = part.fileErrors.count
      context.console.printNote(
        "\(label)\(count) file\(count == 1 ? "" : "s") not downloaded"
          + (verbose ? "" : " (--verbose lists \(count == 1 ? "it" : "them"))"))
      if verbose { for error in part.fileErrors { context.console.printNote("  \(label)file: \(error)") } }
    }
  }
}

/// The progress line of `news sync` on a terminal: a ``ProgressReporter`` per class (`source/Class  N objects`),
/// redrawn after each page.
final class SyncProgressLine: Sendable {
  private let source: String
  private let console: Console
  private let quiet: Bool
  private let current = Mutex<(className: String, reporter: ProgressReporter)?>(nil)

  init(source: String, console: Console, quiet: Bool) {
    self.source = source
    self.console = console
    self.quiet = quiet
  }

  func update(_ progress: SyncProgress) {
    let reporter = current.withLock { current in
      if let current, current.className == progress.className { return current.reporter }
      current?.reporter.finish()
      let label = "\(OutputFormat.sanitized(source))/\(OutputFormat.sanitized(progress.className))"
      let reporter = ProgressReporter(label, unit: "objects", console: console, quiet: quiet)
      current = (progress.className, reporter)
      return reporter
    }
    reporter.update(completed: progress.objects)
  }

  func finish() {
    current.withLock { $0?.reporter.finish() }
  }
}
