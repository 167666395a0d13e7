import Foundation
import OfflineNews

/// `news fetch --all`, and `news fetch --source NAME` of a Parse source: every configured source refreshed through
/// the one repository — NewsAPI queries, files and feeds with their policies, max-ages, validators (a feed served
/// with an `ETag` or `Last-Modified` is asked conditionally) and offline fallback; Parse sources by their
/// incremental sync, their articles then read from the cache like any other source's.
///
/// Feeds and queries run concurrently, at most ``totalLimit`` at once and ``perHostLimit`` per host; one failing
/// source never stops the others, and an origin found unreachable (refused, not found, timed out) is not asked
/// again in the run: its other sources are served from the cache at once, with the error. One line per source: new, updated, unchanged, not modified, or failed and why
/// (with what the cache still serves). On a terminal, a progress line on standard error counts the sources done
/// meanwhile (not with `--quiet` or `--json`).
struct FetchAll {
  var context: CommandContext
  var arguments: ParsedArguments<FetchCommand.Option>

  /// Requests in flight at once, in all.
  static let totalLimit = 4
  /// Requests in flight at once to one host.
  static let perHostLimit = 2

  /// What one source's refresh did.
  struct Outcome: Encodable, Sendable {
    var source: String
    var kind: String
    var status: String  // "new", "unchanged", "notModified", "cache", "failed"
    var inserted = 0
    var updated = 0
    var unchanged = 0
    var cached = 0
    var ageSeconds: Double?
    var error: String?
    /// Records of the response with a value not read (kept, with a warning), for `news sync`'s report.
    var issues: [RecordError] = []

    enum CodingKeys: String, CodingKey {
      case source, kind, status, inserted, updated, unchanged, cached, ageSeconds, error
    }

    /// Every key always present, `null` for an absent value, as in every `--json` document (`fetch --json`'s
    /// `ageSeconds` included: seconds since the served rows were fetched, millisecond precision).
    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(source, forKey: .source)
      try c.encode(kind, forKey: .kind)
      try c.encode(status, forKey: .status)
      try c.encode(inserted, forKey: .inserted)
      try c.encode(updated, forKey: .updated)
      try c.encode(unchanged, forKey: .unchanged)
      try c.encode(cached, forKey: .cached)
      try c.encode(ageSeconds.map { ($0 * 1000).rounded() / 1000 }, forKey: .ageSeconds)
      try c.encode(error, forKey: .error)
    }
  }

  func run() async throws -> ExitCode {
    let configuration = context.configuration
    let policyOption = try FetchCommand.policy(arguments)
    let maxAgeOption = try FetchCommand.maxAge(arguments)
    let timeout = try arguments.seconds(.timeout)
    if arguments.value(.url) != nil || arguments.value(.source) != nil {
      throw CommandFailure(.usage, "--all refreshes every source: give --all, or --url / --source")
    }
    var queries: [(name: String, query: NewsQuery, policy: CachePolicy, maxAge: TimeInterval?)] = []
    for (name, source) in configuration.sources {
      queries.append(
        (
          name, NewsQuery(url: source.url, source: name), policyOption ?? source.policy ?? .networkFirst,
          maxAgeOption ?? source.maxAge
        ))
    }
    var parseSources: [Configuration.SyncSource] = []
    for (name, sync) in configuration.syncSources {
      switch sync.kind {
      case .feed(let url):
        queries.append(
          (name, NewsQuery(url: url, source: name), policyOption ?? .networkFirst, maxAgeOption ?? sync.maxAge))
      case .parse: parseSources.append(sync)
      }
    }
    guard !queries.isEmpty || !parseSources.isEmpty else {
      throw CommandFailure(
        .config, "no sources configured in \(configuration.file ?? "the configuration")",
        hint: "add one: news add URL (a feed or a page announcing one)")
    }
    queries.sort { $0.name < $1.name }
    try context.requireNetwork(
      for: queries.filter { $0.policy != .cacheOnly }.map(\.query.url) + parseSources.map(\.url),
      command: FetchCommand.name)
    let now = context.now
    let composed = try context.makeRepository(arguments.common, timeout: timeout, retrying: true)
    // One origin found unreachable is not asked again in this run (``UnreachableOrigins``).
    let repository = NewsRepository(
      storage: composed.storage, network: UnreachableOrigins(composed.network), clock: { Timestamp(now()) },
      deadline: composed.deadline, imageFolder: composed.imageFolder)
    let limiter = HostLimiter(total: Self.totalLimit, perHost: Self.perHostLimit)
    var outcomes: [Outcome] = []
    let progress = ProgressReporter(
      "refreshing", total: queries.count + parseSources.count, unit: "sources", console: context.console,
      quiet: arguments.flag(.quiet) || arguments.flag(.json))
    await withTaskGroup(of: Outcome.self) { group in
      for item in queries {
        group.addTask {
          let host = item.query.url.host ?? item.query.url.path
          await limiter.acquire(host)
          let outcome = await Self.refresh(
            item.name, item.query, policy: item.policy, maxAge: item.maxAge, repository: repository, now: now())
          await limiter.release(host)
          return outcome
        }
      }
      for await outcome in group {
        outcomes.append(outcome)
        progress.advance()
      }
    }
    do {
      defer { progress.finish() }
      for source in parseSources.sorted(by: { $0.name < $1.name }) {
        outcomes.append(try await syncParse(source, repository: repository))
        progress.advance()
      }
    }
    outcomes.sort { $0.source < $1.source }
    print(outcomes)
    // The whole text of the articles of the sources that ask for it (or of every source, with --full-text).
    let wantsFullText = { (name: String) in
      arguments.flag(.fullText) || configuration.sources[name]?.labels.fullText == true
        || configuration.syncSources[name]?.labels.fullText == true
    }
    for item in queries where wantsFullText(item.name) {
      guard let cached = try? await repository.cachedArticles(for: item.query), !cached.articles.isEmpty else {
        continue
      }
      await context.fetchFullText(
        cached.articles, repository, timeout: timeout, retryFailed: arguments.flag(.retryFailed))
    }
    return Self.exitCode(outcomes)
  }

  /// The run's exit status: 0 when every source refreshed or had a cache to serve; 75 (``ExitCode/someUnavailable``)
  /// when some source failed with nothing cached, while others served; 69 (``ExitCode/unavailable``) when no
  /// source served anything at all (offline with an empty cache, say).
  static func exitCode(_ outcomes: [Outcome]) -> ExitCode {
    let empty = outcomes.filter { $0.status == "failed" && $0.cached == 0 }
    if empty.isEmpty { return .success }
    return empty.count == outcomes.count ? .unavailable : .someUnavailable
  }

  /// `news fetch --source NAME` of a Parse source: its sync, then its cached articles as the offline fallback does.
  func runOne(_ source: Configuration.SyncSource) async throws -> ExitCode {
    try context.requireNetwork(for: [source.url], command: FetchCommand.name)
    let repository = try context.makeRepository(arguments.common)
    let outcome = try await syncParse(source, repository: repository)
    let query = Self.parseQuery(source.name)
    var result = try await repository.cachedArticles(for: query)
    if outcome.status == "failed" {
      result.networkError = .transport(.other, detail: outcome.error ?? "the sync failed")
    } else {
      result.origin = .network
    }
    let console = context.console
    if arguments.flag(.json) {
      console.out(OutputFormat.json(FetchCommand.Document(result: result, limit: nil)))
    } else {
      let now = context.now()
      console.out(FetchCommand.header(result, source: source.name, now: now, color: console.color) + "\n")
      let handles = await context.shortHandles(result.articles, repository)
      console.out(OutputFormat.lines(result.articles, handles: handles, now: now, console: console))
    }
    return result.articles.isEmpty && outcome.status == "failed" ? .unavailable : .success
  }

  /// The query a Parse source's articles are cached under (``ParseSyncEngine/articleQuery(source:)``).
  static func parseQuery(_ name: String) -> NewsQuery {
    let key = ParseSyncEngine.articleQuery(source: name)
    return NewsQuery(url: URL(string: key) ?? URL(fileURLWithPath: "/"), source: name)
  }

  private func syncParse(_ source: Configuration.SyncSource, repository: NewsRepository) async throws
    -> Outcome
  {
    // `news fetch` syncs as `news sync` does with the fetch's --timeout, --db and --verbose: an incremental sync.
    var syncArguments = ParsedArguments<SyncCommand.Option>(common: arguments.common, usageLine: arguments.usageLine)
    syncArguments.values[.timeout] = arguments.value(.timeout)
    let reports = try await SyncCommand(context: context, arguments: syncArguments).sync([source], quiet: true)
    let classes = reports.flatMap(\.classes)
    var outcome = Outcome(source: source.name, kind: "parse", status: "new")
    for part in classes {
      outcome.inserted += part.inserted
      outcome.updated += part.updated
      outcome.unchanged += part.unchanged
    }
    if let error = classes.compactMap(\.error).first {
      outcome.status = "failed"
      outcome.error = error
      let cached = try? await repository.cachedArticles(for: Self.parseQuery(source.name))
      outcome.cached = cached?.articles.count ?? 0
      outcome.ageSeconds = cached?.age
    } else if outcome.inserted == 0 && outcome.updated == 0 {
      outcome.status = "unchanged"
    }
    return outcome
  }

  /// One source through the repository; never throws (a failure is that source's outcome).
  static func refresh(
    _ name: String, _ query: NewsQuery, policy: CachePolicy, maxAge: TimeInterval?, repository: NewsRepository,
    now: Date
  ) async -> Outcome {
    let kind = query.url.isFileURL ? "file" : "feed"
    do {
      let result = try await repository.articles(for: query, policy: policy, maxAge: maxAge)
      var outcome = Outcome(source: name, kind: kind, status: "new", ageSeconds: result.age)
      if let error = result.networkError {
        outcome.status = "failed"
        outcome.error = error.description
        outcome.cached = result.articles.count
        outcome.ageSeconds = result.age
      } else if result.origin == .cache {
        outcome.status = "cache"
        outcome.cached = result.articles.count
        outcome.ageSeconds = result.age
      } else if result.revalidated {
        outcome.status = "notModified"
        outcome.cached = result.articles.count
      } else if let saved = result.saved {
        outcome.issues = result.issues.map {
          RecordError(entity: "article", identity: $0.url, keyPath: $0.keyPath, reason: $0.reason)
        }
        outcome.inserted = saved.inserted
        outcome.updated = saved.updated
        outcome.unchanged = saved.unchanged
        if saved.inserted == 0 && saved.updated == 0 { outcome.status = "unchanged" }
      }
      return outcome
    } catch {
      // The network's failure, not the repository's "network failed (…) and nothing is cached": the line says what
      // the cache serves itself ("; nothing cached"), and `cached` is 0.
      let network: NewsNetworkError? =
        switch error {
        case .networkFailedAndCacheEmpty(_, let network), .networkFailed(_, let network): network
        case .storage: nil
        }
      return Outcome(source: name, kind: kind, status: "failed", error: network?.description ?? error.description)
    }
  }

  private func print(_ outcomes: [Outcome]) {
    let console = context.console
    if arguments.flag(.json) {
      console.out(OutputFormat.json(["sources": outcomes]))
      return
    }
    for outcome in outcomes {
      let name = OutputFormat.sanitized(outcome.source)
      var line: String
      switch outcome.status {
      case "notModified": line = "not modified (\(outcome.cached) cached)"
      case "cache":
        line = "fresh in the cache: \(outcome.cached) articles" + age(outcome.ageSeconds)
      case "failed":
        line =
          "failed: \(OutputFormat.sanitized(outcome.error ?? "unknown error"))"
          + (outcome.cached > 0 ? "; serving \(outcome.cached) cached\(age(outcome.ageSeconds))" : "; nothing cached")
      default:
        line = "\(outcome.inserted) new, \(outcome.updated) updated, \(outcome.unchanged) unchanged"
      }
      let text = "\(name): \(line)"
      if outcome.status == "failed" { console.err(text + "\n") } else { console.out(text + "\n") }
    }
  }

  private func age(_ seconds: Double?) -> String {
    guard let seconds else { return "" }
    return seconds < 0
      ? " (fetched in the future: the clock was set back?)" : " from \(FetchCommand.duration(seconds)) ago"
  }
}
