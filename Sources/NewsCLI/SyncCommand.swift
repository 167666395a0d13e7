import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsStorage
import OfflineNewsSync
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

  static let storeOptions = StoreOptions<Option>(
    json: "{sources: [{name, kind, classes: [{className, entity, pages, resumedPages, objects, inserted, updated, "
      + "unchanged, deleted, failed, errors, warnings, filesDownloaded, filesPresent, fileErrors, cursor, error, "
      + "errorKind}]}]}")

  enum Option: CommandOption {
    case source, full, deleteMissing, force, timeout
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
      case .timeout: SharedOption.timeout(per: "request")
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
    let json = arguments.json
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

  /// Syncs `sources` one after the other through the library (``NewsRepository/sync(_:options:progress:)``); prints
  /// a summary line per source unless `quiet`.
  func sync(_ sources: [Configuration.SyncSource], quiet json: Bool) async throws -> [SourceReport] {
    let configuration = context.configuration
    let timeout = arguments.seconds(.timeout) ?? configuration.timeoutSeconds
    try context.requireNetwork(for: sources.map(\.url), command: Self.name)
    var newsSources: [NewsSource] = []
    for source in sources { newsSources.append(try context.newsSource(source)) }
    let repository = try context.makeRepository(
      arguments.common, timeout: timeout, entities: CommandContext.entities(of: newsSources), retrying: true)
    var options = context.refreshOptions(arguments.common, timeout: timeout)
    options.fromTheBeginning = arguments.flag(.full)
    options.deleteMissing = arguments.flag(.deleteMissing)
    options.force = arguments.flag(.force)
    let console = context.console
    var reports: [SourceReport] = []
    for source in newsSources {
      let progress = SyncProgressLine(source: source.name, console: console, quiet: json)
      // Ctrl-C: a Parse class's pages each commit with its cursor, a feed's save is one transaction: stopped, the
      // store keeps what was committed, and the next sync goes on from there; said so.
      let options = options
      // A feed's save is one transaction: whole or nothing, every commit counted (one of the store's set-up lets it
      // finish); a Parse class's pages each commit with its cursor.
      let isParse: Bool
      if case .parse = source.kind { isParse = true } else { isParse = false }
      let outcome = await Interruption.endingAtOnce(isParse ? .afterCommitsMade : .wholeOrNothing, through: repository)
      { interruption, gate in
        gate.count()
        return await repository.sync(source, options: options) { update in
          interruption.report { progress.update(update) }
        }
      } ending: {
        progress.finish()
        console.printNote(Self.interruptedNote(source))
      }
      progress.finish()
      if case .configuration(let message) = outcome.failure {
        throw CommandFailure(.config, "\(configuration.file ?? "the configuration"): sources.\(source.name).\(message)")
      }
      let classes: [SyncReport.ClassReport]
      if let report = outcome.sync {
        classes = report.classes
      } else if outcome.status == .cache, case .parse = source.kind {
        if !json, let maxAge = source.maxAge {
          console.printLines(
            "\(OutputFormat.sanitized(source.name)): fresh (synced \(FetchCommand.duration(outcome.age ?? 0)) ago, max "
              + "age \(FetchCommand.duration(maxAge))): skipped; --force syncs it\n")
        }
        reports.append(SourceReport(name: source.name, kind: source.kindName, classes: []))
        continue
      } else {
        classes = [Self.feedReport(outcome)]
      }
      reports.append(
        SourceReport(name: source.name, kind: source.kindName == "parse" ? "parse" : "feed", classes: classes))
      if !json {
        console.printLines(Self.summary(source: source.name, classes))
        reportProblems(source: source.name, classes)
      }
    }
    return reports
  }

  /// The note of a sync Ctrl-C ended while it synced `source`; the sources before it were reported.
  static func interruptedNote(_ source: NewsSource) -> String {
    let name = OutputFormat.sanitized(source.name)
    if case .parse = source.kind {
      return "interrupted: \(name) stopped; the pages it saved are kept, and the next 'news sync' goes on from there"
    }
    return "interrupted: \(name) stopped; its cache is as it was"
  }

  /// A feed source's refresh as the one "class" of its sync report.
  static func feedReport(_ outcome: SourceRefresh) -> SyncReport.ClassReport {
    var part = SyncReport.ClassReport(className: "feed", entity: EntityDescription.article.name)
    part.pages = outcome.status == .failed ? 0 : 1
    // `cached` is what the cache serves after any refresh: the objects of an answer that was not a page.
    let answered = outcome.status == .new || outcome.status == .unchanged
    part.objects = answered ? outcome.inserted + outcome.updated + outcome.unchanged : outcome.cached
    part.inserted = outcome.inserted
    part.updated = outcome.updated
    part.unchanged = outcome.status == .notModified ? outcome.cached : outcome.unchanged
    part.remembered = outcome.remembered
    part.rememberedEvicted = outcome.rememberedEvicted
    part.warnings = outcome.issues.map {
      RecordError(entity: "article", identity: $0.url, keyPath: $0.keyPath, reason: $0.reason)
    }
    if let failure = outcome.failure {
      part.error = failure.description
      part.errorKind = .network
    }
    return part
  }

  private func selectedSources() throws(CommandFailure) -> [Configuration.SyncSource] {
    let configuration = context.configuration
    if let typed = arguments.value(.source) {
      let name = configuration.sourceName(matching: typed) ?? typed
      guard let source = configuration.syncSources[name] else {
        if configuration.sources[name] != nil {
          throw CommandFailure(.usage, "\"\(name)\" is a NewsAPI source", hint: "run: news fetch --source \(name)")
        }
        let known = NameHint.text(
          "sync sources", configuration.syncSources.keys, typed: name, more: "'news sources' lists them")
        throw CommandFailure(.usage, "no sync source named \"\(name)\"", hint: known.isEmpty ? nil : known)
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

  /// Three attempts for transport errors, 429 and 5xx, within twice the timeout per request.
  static func retry(_ timeout: Double) -> RetryPolicy {
    RetryPolicy(
      maxAttempts: 3, initialDelay: 0.25, maxDelay: 2,
      maxTotalTime: 2 * RequestTimeout.effective(timeout)
    )
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
      text += OutputFormat.leftOut(part.remembered, evicted: part.rememberedEvicted).replacingOccurrences(
        of: "; ", with: ", ", options: .anchored)
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
