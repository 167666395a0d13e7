import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization

/// `news fetch --all`, and `news fetch --source NAME` of a Parse source: the configured sources refreshed by the
/// library (``NewsRepository/refresh(_:options:progress:)``), and one line per source printed — new, updated,
/// unchanged, not modified, or failed and why (with what the cache still serves). On a terminal, a progress line on
/// standard error counts the sources done meanwhile (not with `--quiet` or `--json`).
extension FetchCommand {
  /// One source's line of `fetch --all --json` (and a line of `--json-lines`): every key always present, `null` for
  /// an absent value, as in every `--json` document (`ageSeconds`: seconds since the served rows were fetched,
  /// millisecond precision). Decodable: `news read` reads a reload's lines back (``ReaderReload``).
  struct SourceLine: Codable, Equatable {
    var source: String
    var kind: String
    var status: String
    var inserted: Int
    var updated: Int
    var unchanged: Int
    var remembered: Int
    /// Of `remembered`, those the eviction policy removed (``SourceRefresh/rememberedEvicted``).
    var rememberedEvicted: Int
    /// Articles the eviction policy removed right after this source's save, of any source
    /// (``SourceRefresh/evicted``).
    var evicted: Int
    var cached: Int
    var ageSeconds: Double?
    var error: String?

    init(_ refresh: SourceRefresh) {
      source = refresh.source
      kind = refresh.kind
      status = refresh.status.rawValue
      inserted = refresh.inserted
      updated = refresh.updated
      unchanged = refresh.unchanged
      remembered = refresh.remembered
      rememberedEvicted = refresh.rememberedEvicted
      evicted = refresh.evicted
      cached = refresh.cached
      ageSeconds = refresh.age.map(OutputFormat.milliseconds)
      error = refresh.failure?.description
    }
  }

  /// `news fetch --all`, `news fetch --folder NAME` (the sources of a folder and the folders inside it), and
  /// `news fetch --source NAME --json-lines` (that one source, refreshed as `--all` refreshes it).
  func runAll() async throws -> ExitCode {
    let policyOption = Self.policy(arguments)
    let maxAgeOption = arguments.seconds(.maxAge)
    let timeout = arguments.seconds(.timeout)
    let jsonLines = arguments.flag(.jsonLines)
    if arguments.value(.url) != nil {
      throw CommandFailure(
        .usage,
        jsonLines
          ? "--json-lines reports configured sources: give --all, --folder or --source with it, not --url"
          : "--all refreshes every source: give --all, or --url / --source")
    }
    if arguments.value(.source) != nil, !jsonLines {
      throw CommandFailure(.usage, "--all refreshes every source: give --all, or --url / --source")
    }
    if arguments.flag(.all), arguments.value(.folder) != nil {
      throw CommandFailure(.usage, "--all refreshes every source, --folder those of one folder: give one of them")
    }
    if jsonLines, !arguments.flag(.all), arguments.value(.folder) == nil, arguments.value(.source) == nil {
      throw CommandFailure(
        .usage, "--json-lines reports a refresh of configured sources: give --all, --folder or --source with it")
    }
    var sources = try context.newsSources()
    if let typed = arguments.value(.source) {
      // The source as `--source` names it (any case), refreshed as `--all` refreshes each of its sources.
      let name = context.configuration.sourceName(matchingOrFeedURL: typed) ?? typed
      sources = sources.filter { $0.name == name }
      guard !sources.isEmpty else {
        throw CommandFailure(
          .usage, "no source named \"\(name)\"", hint: context.configuration.knownSourcesHint(typed: name))
      }
    }
    if let folder = arguments.value(.folder) {
      // The folder's sources, as `news list --folder` selects them (a usage error naming the folders there are).
      _ = try context.folderMatches(folder)
      let names = Set(context.configuration.sourceNames(inFolder: folder) ?? [])
      sources = sources.filter { names.contains($0.name) }
    }
    guard !sources.isEmpty else {
      throw CommandFailure(
        .config, "no sources configured in \(context.configuration.file ?? "the configuration")",
        hint: "add one: news add URL (a feed or a page announcing one)")
    }
    try context.requireNetwork(
      for: sources.filter { source in
        if case .parse = source.kind { return true }
        return (policyOption ?? source.policy ?? .networkFirst) != .cacheOnly
      }.map(\.url),
      command: Self.name)
    let repository = try context.makeRepository(
      arguments.common, timeout: timeout, entities: CommandContext.entities(of: sources), retrying: true)
    var options = context.refreshOptions(arguments.common, timeout: timeout)
    options.policy = policyOption
    options.maxAge = maxAgeOption
    options.fullText = arguments.flag(.fullText)
    options.retryFailed = arguments.flag(.retryFailed)
    let progress = ProgressReporter(
      "refreshing", total: sources.count, unit: "sources", console: context.console,
      quiet: arguments.flag(.quiet) || arguments.json || jsonLines)
    // `--json-lines`: each source's line as it finishes (from the refresh's tasks: one line written at a time).
    let lines = jsonLines ? LineWriter(context.console) : nil
    // Ctrl-C: the sources that finished are reported as they would have been, and nothing after (``interrupted``).
    // From the signal on (on its own queue, at once) the store's commits are gated: a save still running is rolled
    // back rather than made after the report of what finished, so that "their caches are as they were" is true.
    let gate = CommitGate()
    try? await repository.gateCommits(gate)
    let interruption = Interruption { _ = gate.close() }
    defer { interruption.remove() }
    let finished = Finished()
    let started = Date()
    let subscriptions = context.subscriptionFile
    let work = Task { [sources, options] in
      let report = await repository.refresh(sources, in: subscriptions, options: options) { refreshed in
        interruption.report {
          finished.append(refreshed)
          progress.advance()
          lines?.write(OutputFormat.json(SourceLine(refreshed)))
        }
      }
      interruption.settle()
      return report
    }
    await interruption.wait()
    if interruption.interrupted {
      return await interrupted(finished.sources, of: sources, since: started, repository, progress)
    }
    let report = await work.value
    progress.finish()
    if !jsonLines { print(report.sources) }
    noteRelinks(report, after: options.relinkAfter)
    context.noteAdoptions(report.adopted)
    context.noteNamings(report.named)
    context.reportFullText(report)
    return Self.exitCode(report)
  }

  /// The end of a run Ctrl-C (SIGINT) interrupted: the store is closed — a save running ends, its commit refused by
  /// the gate closed at the signal (``CommitGate``: rolled back), none begins — the progress line is cleared, the sources that finished are
  /// reported as a whole run reports them (their lines, `--json`'s document of them; `--json-lines` printed them
  /// already), a note says how many did not, and the status is 130 (``ExitCode/interrupted``).
  ///
  /// A source whose save had gone through the store's commit before the signal, but whose result had not been
  /// reported yet, is found in the store itself (its fetch record written since `started`, read once the store is
  /// closed and opened again) and said: `NAME: saved as Ctrl-C came (N cached)`.
  private func interrupted(
    _ finished: [SourceRefresh], of sources: [NewsSource], since started: Date, _ repository: NewsRepository,
    _ progress: ProgressReporter
  ) async -> ExitCode {
    await repository.storage.close()
    progress.finish()
    if !arguments.flag(.jsonLines) { print(finished) }
    let reported = Set(finished.map(\.source))
    var late: [(name: String, cached: Int)] = []
    if let store = try? context.makeRepository(arguments.common) {
      for source in sources where !reported.contains(source.name) {
        guard let health = try? await store.health(of: source), let fetched = health.lastFetched,
          fetched >= started
        else { continue }
        late.append((source.name, health.cachedCount))
      }
      // The finished feeds imported without a title take the titles their documents gave, as a whole run's do
      // (a later `304` gives none: they would keep their URLs).
      var titles: [String: String] = [:]
      for result in finished { if let title = result.feedTitle { titles[result.source] = title } }
      let named = sources.filter { titles[$0.name] != nil }
      context.noteNamings(await store.nameUntitled(named, in: context.subscriptionFile, titles: titles))
      await store.storage.close()
    }
    let lateLines = late.map { "\(OutputFormat.sanitized($0.name)): saved as Ctrl-C came (\($0.cached) cached)" }
    // Standard output is JSON with `--json` and `--json-lines`: those go with the note on standard error there.
    let json = arguments.json || arguments.flag(.jsonLines)
    if !json { for line in lateLines { context.console.out(line + "\n") } }
    let total = sources.count
    let done = finished.count + late.count
    var note = "interrupted: \(done) of \(total) source\(total == 1 ? "" : "s") refreshed"
    if done < total { note += "; \(total - done) not (their caches are as they were)" }
    if json, !lateLines.isEmpty { note += " (" + lateLines.joined(separator: "; ") + ")" }
    context.console.printNote(note)
    return .interrupted
  }

  /// Feeds that moved permanently (`301`, `308`) on consecutive refreshes are configured at their new address from
  /// now on (RFC 9110 §15.4.2): the library rewrote their `"feed"` in the configuration file, every other byte kept
  /// (``NewsRepository/refresh(_:in:options:progress:)``); a note says so, or why the file could not be changed. A
  /// move seen fewer times is noted as pending. A move onto another source's address is said once, when found.
  private func noteRelinks(_ report: RefreshReport, after needed: Int) {
    let file = context.subscriptionFile.path
    let relinked = Set(report.relinked.map(\.source)).union(report.relinkFailures.map(\.source))
      .union(report.sameFeeds.map(\.source))
    for result in report.sources where !relinked.contains(result.source) {
      guard let url = result.movedPermanently else { continue }
      context.console.printNote(
        "\(OutputFormat.sanitized(result.source)): moved permanently to \(OutputFormat.sanitized(NewsQuery.shown(url))) "
          + "(\(result.permanentRedirects) of \(needed) refreshes in a row); \(file) will say so once \(needed) "
          + "refreshes in a row are redirected there")
    }
    for result in report.relinked {
      guard let url = result.movedPermanently else { continue }
      context.console.printNote(
        "\(OutputFormat.sanitized(result.source)): moved permanently to \(OutputFormat.sanitized(NewsQuery.shown(url))); "
          + "\(file) now says so")
    }
    for same in report.sameFeeds where same.isNew {
      // Never re-linked (two sources of one address): said with what to do, in place of a move that never ends;
      // once, when it is found (``RefreshReport/SameFeed/isNew``), not at every refresh.
      context.console.printNote(
        "\(OutputFormat.sanitized(same.source)): moved permanently to \(OutputFormat.sanitized(NewsQuery.shown(same.url))), "
          + "the feed of \(OutputFormat.sanitized(same.sameAs)): the two sources are one feed, read twice by every "
          + "refresh; 'news remove \(Self.quotedName(same.source))' keeps \(OutputFormat.sanitized(same.sameAs)) "
          + "(the cached articles stay)")
    }
    for failure in report.relinkFailures {
      context.console.printNote(
        "\(OutputFormat.sanitized(failure.source)): moved permanently, but \(file) could not say so: "
          + OutputFormat.sanitized(failure.error.description))
    }
  }

  /// The results of the sources that finished, as they finish (from any thread).
  final class Finished: Sendable {
    private let list = Mutex<[SourceRefresh]>([])
    func append(_ result: SourceRefresh) { list.withLock { $0.append(result) } }
    /// Those so far, ordered by name.
    var sources: [SourceRefresh] { list.withLock { $0 }.sorted { $0.source < $1.source } }
  }

  /// Writes whole lines to standard output from any thread, one at a time (a line longer than a pipe's atomic
  /// write could otherwise interleave with another).
  final class LineWriter: Sendable {
    private let console: Console
    private let lock = Mutex(())
    init(_ console: Console) { self.console = console }
    func write(_ line: String) { lock.withLock { _ in console.out(line) } }
  }

  /// The run's exit status: 74 (``ExitCode/storage``) when the store failed a source (a read-only store, a full
  /// disk: not the network's doing, whatever the cache serves); else 0 when every source refreshed or had a cache to
  /// serve; 75 (``ExitCode/someUnavailable``) when some source failed with nothing cached, while others served; 69
  /// (``ExitCode/unavailable``) when no source served anything at all (offline with an empty cache, say).
  static func exitCode(_ report: RefreshReport) -> ExitCode {
    let storageFailed = report.sources.contains {
      if case .storage = $0.failure { true } else { false }
    }
    if storageFailed { return .storage }
    let empty = report.unavailable
    if empty.isEmpty { return .success }
    return empty.count == report.sources.count ? .unavailable : .someUnavailable
  }

  /// `news fetch --source NAME` of a Parse source: its sync, then its cached articles as the offline fallback does.
  func runParse(_ sync: Configuration.SyncSource) async throws -> ExitCode {
    try context.requireNetwork(for: [sync.url], command: Self.name)
    let source = try context.newsSource(sync)
    let timeout = arguments.seconds(.timeout)
    let repository = try context.makeRepository(
      arguments.common, timeout: timeout, entities: CommandContext.entities(of: [source]))
    let outcome = await repository.sync(source, options: context.refreshOptions(arguments.common, timeout: timeout))
    var result = try await repository.cachedArticles(for: source.query)
    if let failure = outcome.failure {
      result.networkError =
        if case .network(let error) = failure { error } else { .transport(.other, detail: failure.description) }
    } else {
      result.origin = .network
    }
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(Self.document(result, outcome, limit: nil)))
    } else {
      let now = context.now()
      console.out(
        Self.header(result, source: source.name, now: now, color: console.color)
          + context.evictionNote(evicted: result.saved?.evicted ?? 0, cached: nil) + "\n")
      let handles = await context.shortHandles(result.articles, repository)
      console.out(OutputFormat.lines(result.articles, handles: handles, now: now, console: console))
    }
    return result.articles.isEmpty && outcome.status == .failed ? .unavailable : .success
  }

  /// One line per source (failures on standard error); with `--quiet`, only the failures and ``summary(_:)``.
  private func print(_ results: [SourceRefresh]) {
    let console = context.console
    let quiet = arguments.flag(.quiet)
    if arguments.json {
      console.out(OutputFormat.json(["sources": results.map { SourceLine($0) }]))
      return
    }
    for result in results {
      let name = OutputFormat.sanitized(result.source)
      var line: String
      switch result.status {
      case .notModified:
        // A 304 keeps the list; an empty one was emptied by deletions or the eviction (a feed's page of no item is
        // refused, not saved): what brings them back is said (tester LOW).
        line =
          result.cached > 0
          ? "not modified (\(result.cached) cached)"
          : "not modified (0 cached: its articles were deleted or evicted; 'news delete --forget-deleted' lets them "
            + "back)"
      case .cache:
        line = "fresh in the cache: \(result.cached) articles" + age(result.age)
      case .failed:
        line =
          "failed: \(OutputFormat.sanitized(result.failure?.description ?? "unknown error"))"
          + (result.cached > 0 ? "; serving \(result.cached) cached\(age(result.age))" : "; nothing cached")
      case .gone:
        line =
          "gone (the server answered 410 Gone): no longer asked"
          + (result.cached > 0 ? ", serving \(result.cached) cached\(age(result.age))" : "")
          + "; news fetch --source \(Self.quotedName(result.source)) asks it again"
      case .new, .unchanged:
        line =
          "\(result.inserted) new, \(result.updated) updated, \(result.unchanged) unchanged"
          + OutputFormat.leftOut(result.remembered, evicted: result.rememberedEvicted)
          + context.evictionNote(evicted: result.evicted, cached: nil)
      }
      let text = "\(name): \(line)"
      if result.status == .failed || result.status == .gone {
        console.err(text + "\n")
      } else if !quiet {
        console.out(text + "\n")
      }
    }
    if quiet { console.out(Self.summary(results) + "\n") }
  }

  /// `--quiet`'s one line after the failures: `72 sources: 68 refreshed, 1 fresh in the cache, 2 failed, 1 gone;
  /// 15 new articles` (a count of 0 is left out, but for `refreshed`).
  static func summary(_ results: [SourceRefresh]) -> String {
    func count(_ statuses: Set<SourceRefresh.Status>) -> Int { results.filter { statuses.contains($0.status) }.count }
    var parts = ["\(count([.new, .unchanged, .notModified])) refreshed"]
    for (number, words) in [
      (count([.cache]), "fresh in the cache"), (count([.failed]), "failed"), (count([.gone]), "gone"),
    ] where number > 0 {
      parts.append("\(number) \(words)")
    }
    let new = results.reduce(0) { $0 + $1.inserted }
    let noun = results.count == 1 ? "source" : "sources"
    return "\(results.count) \(noun): " + parts.joined(separator: ", ") + "; \(new) new article\(new == 1 ? "" : "s")"
  }

  /// A source's name as typed in a command: bare when it is letters, digits, `-`, `_` and `.`; else in single quotes.
  static func quotedName(_ name: String) -> String {
    let shown = OutputFormat.sanitized(name, collapsingWhitespace: true)
    return shown.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } ? shown : "'\(shown)'"
  }

  private func age(_ seconds: Double?) -> String {
    guard let seconds else { return "" }
    return seconds < 0
      ? " (fetched in the future: the clock was set back?)" : " from \(Self.duration(seconds)) ago"
  }
}
