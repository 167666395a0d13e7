import Foundation
import OfflineNews
import OfflineNewsModel

/// `news fetch`: a read of a source through the repository, by a cache policy (network-first by default), saved to
/// the cache; the cache when the network fails.
struct FetchCommand: NewsCommand {
  static let name = "fetch"
  static let summary = "Fetch articles (network first; the cache when the network fails) and save them."
  static let groups: [(options: [Option], required: Bool)] = [
    ([.url, .source, .all, .folder], false)
  ]
  static let details = """
    Without --url or --source, fetches the configuration's default source; a source's "policy" and "maxAge"
    apply unless --policy or --max-age is given. The NewsAPI key is read from NEWSAPI_KEY (or the
    configuration's apiKey) and sent in the X-Api-Key header, to newsapi.org and the hosts of configured
    NewsAPI sources only (and a --url with NewsAPI's /v2/ path), never to a feed or another host.
    Policies: network-first asks the network and serves the cache if it fails; cache-first serves fresh cached
    rows without asking, else acts as network-first; network-only fails rather than serve the cache; cache-only
    never asks the network.
    Time: connection failures, 5xx and 429 are retried (up to 3 attempts, honouring Retry-After) as long as they
    can finish within twice the timeout; cached rows are served at the latest 0.5 s after that.
    Exit status: 0 articles served (from the network or the cache; cache-only also when nothing is cached),
    69 network failed and nothing cached (or network-only failed), 74 storage error. With --all: 0 when every
    source refreshed or served its cache, 75 when some source has neither, 69 when none served anything;
    --folder as --all, for the sources of that folder. --json-lines reports each source as it finishes (news read
    reloads through it); with --source, that source is refreshed as --all refreshes it.
    """

  static let storeOptions = StoreOptions<Option>(
    json:
      "{origin, fetchedAt, stale, networkError, articles, source, kind, status, inserted, updated, unchanged, "
      + "remembered, rememberedEvicted, cached, ageSeconds, error}", jsonExcludes: [.jsonLines])

  enum Option: CommandOption {
    case url, source, all, folder, fullText, retryFailed, policy, maxAge, limit, timeout, jsonLines
    case quiet
    var spec: OptionSpec {
      switch self {
      case .url:
        OptionSpec(name: "url", valueName: "URL", help: "A NewsAPI v2 URL, or a file (path or file: URL) to read.")
      case .source:
        OptionSpec(
          name: "source", valueName: "NAME",
          help: "A source named in the configuration: NewsAPI, file, feed (any format) or Parse.")
      case .all:
        OptionSpec(
          name: "all",
          help: "Refresh every configured source, concurrently (\(RefreshOptions().totalLimit) at once, "
            + "\(RefreshOptions().perHostLimit) per host).")
      case .folder:
        OptionSpec(
          name: "folder", valueName: "FOLDER",
          help:
            "Refresh the sources of a folder and of the folders inside it, as --all does (\"Tech\", \"Tech/Swift\").")
      case .fullText:
        OptionSpec(
          name: "full-text",
          help:
            "Then fetch each article's page for its whole text and its images (DATABASE-images/ beside the database), "
            + "to read offline (a source's \"fullText\": true).")
      case .retryFailed:
        OptionSpec(
          name: "retry-failed",
          help:
            "With --full-text (or a source's \"fullText\": true): try the pages that failed again now, not an hour "
            + "after they failed.")
      case .policy:
        OptionSpec(
          name: "policy", valueName: "POLICY",
          help: "network-first (default), cache-first, network-only or cache-only.",
          type: .choice(CachePolicy.names))
      case .maxAge:
        OptionSpec(
          name: "max-age", valueName: "SECONDS",
          help: "Rows younger than this are fresh (default: the source's maxAge, else the stored one).", type: .duration
        )
      case .limit:
        OptionSpec(
          name: "limit", valueName: "N", help: "Show at most N articles (all are saved).", type: .integer(minimum: 0))
      case .timeout: SharedOption.timeout(per: "attempt")
      case .jsonLines:
        OptionSpec(
          name: "json-lines",
          help:
            "With --all, --folder or --source: one line of JSON per source as it finishes ({source, kind, status, "
            + "inserted, updated, unchanged, remembered, rememberedEvicted, cached, ageSeconds, error}), no document "
            + "at the end.")
      case .quiet:
        OptionSpec(
          name: "quiet",
          help: "With --all or --folder: print only the sources that failed and one summary line; no progress line.")
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    if arguments.json, arguments.flag(.jsonLines) {
      throw CommandFailure(
        .usage, "give --json (one document at the end) or --json-lines (a line per source), not both")
    }
    if arguments.flag(.all) || arguments.value(.folder) != nil || arguments.flag(.jsonLines) {
      let configuration = context.configuration
      try checkRetryFailed(
        wantsFullText: configuration.sources.values.contains { $0.labels.fullText }
          || configuration.syncSources.values.contains { $0.labels.fullText })
      return try await runAll()
    }
    // A Parse source (named by --source, or the default source) is read by its sync.
    if arguments.value(.url) == nil, let typed = arguments.value(.source) ?? context.configuration.defaultSource,
      case let name = context.configuration.sourceName(matching: typed) ?? typed,
      context.configuration.sources[name] == nil, let sync = context.configuration.syncSources[name],
      case .parse = sync.kind
    {
      try checkRetryFailed(wantsFullText: false)
      return try await runParse(sync)
    }
    let limit = arguments.integer(.limit)
    let timeout = arguments.seconds(.timeout)
    let maxAgeOption = arguments.seconds(.maxAge)
    let policyOption = Self.policy(arguments)
    let (query, sourceName, source) = try resolveQuery()
    try checkRetryFailed(wantsFullText: source?.labels.fullText == true)
    let policy = policyOption ?? source?.policy ?? .networkFirst
    let maxAge = maxAgeOption ?? source?.maxAge
    if policy != .cacheOnly { try context.requireNetwork(for: [query.url], command: Self.name) }
    let typed = arguments.value(.url) == nil ? nil : query.url
    let repository = try context.makeRepository(arguments.common, timeout: timeout, retrying: true, typedURL: typed)
    // The configured source by its name (`sourceName` is what the header prints: a feed's is "NAME (URL)").
    var subscription: NewsSource?
    if let name = source?.name { subscription = try? await context.subscriptionFile.source(named: name) }
    if let subscription {
      context.noteAdoptions(await repository.adoptArticles(of: [subscription], in: context.subscriptionFile))
      await repository.readUntitledWhole([subscription])
    }
    // The name the result is reported under: the subscription's, else the header's.
    let reportedName = source?.name ?? sourceName
    let result: NewsResult
    do {
      // Ctrl-C: the fetch's save is one transaction: stopped before its commit, the store is as it was, and said so;
      // once its commit has begun, the fetch ends and is reported as usual (as `--all` and `news import` do).
      result = try await Interruption.endingAtOnce(.wholeOrNothing, through: repository) {
        (_, gate) async throws(NewsRepositoryError) -> NewsResult in
        gate.count()
        return try await repository.articles(for: query, policy: policy, maxAge: maxAge)
      } ending: {
        context.console.printNote(Self.interruptedNote(reportedName))
      }
    } catch {
      // `--json` prints its document for a failure too (no articles, the source's record `failed` with its error),
      // as `--json-lines` and `--all --json` print the record; the error and status follow as without it.
      if arguments.json, case .networkFailedAndCacheEmpty(let failed, let network) = error {
        let empty = NewsResult(query: failed, articles: [], origin: .cache, fetchedAt: nil, networkError: network)
        let refresh = SourceRefresh(
          source: reportedName, kind: query.url.isFileURL ? "file" : "feed", result: empty)
        context.console.out(OutputFormat.json(Self.document(empty, refresh, limit: limit)))
      }
      // The store could not save (read-only, full disk): what it already holds is still served, offline-first, as
      // `--all` says "serving N cached" (tester LOW); the error and its status follow.
      if !arguments.json, case .storage = error,
        let cached = try? await repository.cachedArticles(for: query), !cached.articles.isEmpty
      {
        let now = context.now()
        let console = context.console
        console.printLines(Self.header(cached, source: sourceName, now: now, color: console.color) + "\n")
        let shown = cached.articles.prefix(limit ?? .max)
        let handles = await context.shortHandles(shown, repository)
        console.printLines(OutputFormat.lines(shown, handles: handles, now: now, console: console))
      }
      throw error
    }
    if let subscription {  // a source named by its feed's URL takes the title the feed gave (as --all does)
      let titles = result.feedTitle.map { [subscription.name: $0] } ?? [:]
      context.noteNamings(
        await repository.nameUntitled([subscription], in: context.subscriptionFile, titles: titles))
    }
    let console = context.console
    if arguments.flag(.fullText) || source?.labels.fullText == true, result.origin == .network {
      await context.fetchFullText(
        result.articles, repository, timeout: timeout, retryFailed: arguments.flag(.retryFailed))
    }
    if arguments.json {
      let refresh = SourceRefresh(
        source: reportedName, kind: query.url.isFileURL ? "file" : "feed", result: result)
      console.out(OutputFormat.json(Self.document(result, refresh, limit: limit)))
      return .success
    }
    if result.isCacheMiss, result.networkError == nil {
      console.err(
        "nothing cached for \(OutputFormat.sanitized(sourceName, collapsingWhitespace: true)) (cache-only: the network was not asked)\n"
      )
      return .success
    }
    let now = context.now()
    console.printLines(
      Self.header(result, source: sourceName, now: now, color: console.color)
        + context.evictionNote(evicted: result.saved?.evicted ?? 0, cached: nil) + "\n")
    let shown = result.articles.prefix(limit ?? .max)
    let handles = await context.shortHandles(shown, repository)
    console.printLines(OutputFormat.lines(shown, handles: handles, now: now, console: console))
    context.reportIssues(result.issues, arguments.common)
    return .success
  }

  /// `--retry-failed` retries full-text pages: a usage error unless whole texts are fetched (`--full-text`, or a
  /// source read has `"fullText": true`).
  private func checkRetryFailed(wantsFullText: Bool) throws(CommandFailure) {
    guard arguments.flag(.retryFailed), !arguments.flag(.fullText), !wantsFullText else { return }
    throw CommandFailure(
      .usage, "--retry-failed retries the pages whose whole text failed: give it with --full-text",
      hint: "news fetch --full-text --retry-failed (with --source NAME or --all)")
  }

  /// `--policy NAME` (one of ``CachePolicy/names``, as the parser checked), or `nil`.
  static func policy(_ arguments: ParsedArguments<Option>) -> CachePolicy? {
    arguments.value(.policy).flatMap(CachePolicy.init(name:))
  }

  /// The first line of the human output: `online — …`, `offline — …` (the network failed), or `cached — …` (the
  /// policy served the cache), with the freshness when a max-age is known.
  /// What `news fetch --source`/`--url` says when Ctrl-C stopped it before its save was committed.
  static func interruptedNote(_ source: String) -> String {
    "interrupted: nothing of \(OutputFormat.sanitized(source, collapsingWhitespace: true)) was saved; the store is as "
      + "it was"
  }

  static func header(_ result: NewsResult, source: String, now: Date, color: Bool = false) -> String {
    var line: String
    if result.origin == .cache, result.networkError == nil {
      let count = result.articles.count
      let age = result.fetchedTimestamp.map { OutputFormat.relative($0.date, now: now) } ?? "an unknown time"
      line = "cached — \(count) \(count == 1 ? "article" : "articles") from \(age)"
    } else {
      line = OutputFormat.header(result, source: source, now: now, color: color)
    }
    if result.revalidated { line += " (not modified)" }
    line += OutputFormat.leftOut(result.saved?.remembered ?? 0, evicted: result.saved?.rememberedEvicted ?? 0)
    if let maxAge = result.maxAge, result.fetchedTimestamp != nil {
      line += " — \(result.isStale ? "stale" : "fresh"), max age \(duration(maxAge))"
    }
    return line
  }

  /// `45 s`, `15 min`, `2 h`, `3 d`.
  static func duration(_ seconds: TimeInterval) -> String {
    switch seconds {
    case ..<60: return "\(Int(seconds.rounded())) s"
    case ..<3600: return "\(Int((seconds / 60).rounded())) min"
    case ..<86_400: return "\(Int((seconds / 3600).rounded())) h"
    default: return "\(Int((seconds / 86_400).rounded())) d"
    }
  }

  /// The `--json` document: the result document of `news list`/`fetch`, plus `stale`, plus the source's record as
  /// `fetch --all --json` and `--json-lines` give it (``SourceLine``: `source`, `kind`, `status`, the counts with
  /// `remembered` and `cached`, `ageSeconds` — seconds since the rows were fetched, millisecond precision, `null`
  /// when nothing is cached — and `error`): one record of a source's result in every format.
  static func document(_ result: NewsResult, _ refresh: SourceRefresh, limit: Int?) -> some Encodable {
    Merged(OutputFormat.document(result, limit: limit), Merged(SourceLine(refresh), Freshness(stale: result.isStale)))
  }

  /// `stale` of ``document(_:_:limit:)``.
  private struct Freshness: Encodable {
    var stale: Bool
  }

  /// The query to fetch, a name for it, and its configured source: `--url`, else `--source`, else the default
  /// source.
  private func resolveQuery() throws(CommandFailure) -> (NewsQuery, String, Configuration.Source?) {
    if arguments.value(.url) != nil, arguments.value(.source) != nil {
      throw CommandFailure(.usage, "give --url or --source, not both")
    }
    if let text = arguments.value(.url) {
      guard !text.isEmpty else { throw arguments.badValue("--url needs a URL or a file path") }
      if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
        guard ["http", "https", "file"].contains(scheme) else {
          throw arguments.badValue("--url \(NewsQuery.shown(url)): use an http(s) URL or a file")
        }
        let query = NewsQuery(url: url)
        return (query, NewsQuery.shown(query.cacheKey), nil)
      }
      let path = context.resolvedPath(text)
      return (NewsQuery(url: URL(fileURLWithPath: path)), path, nil)
    }
    let configuration = context.configuration
    let typed = arguments.value(.source) ?? configuration.defaultSource
    guard let typed else {
      let count = Set(configuration.sources.keys).union(configuration.syncSources.keys).count
      // With subscriptions, say how to fetch them; the package folder's sample configuration helps no one then.
      let hint =
        count > 0
        ? "'news fetch --all' fetches the \(count) configured sources, 'news fetch --source NAME' one of them "
          + "(\(configuration.knownSourcesHint())); \"defaultSource\" in the configuration names the one to fetch by default"
        : "'news add URL' subscribes to a feed; or pass --url FILE|URL, or --config PATH"
      throw CommandFailure(
        .usage, "nothing to fetch: no --url, no --source, and no defaultSource in the configuration", hint: hint)
    }
    // Source names match without regard to case (an exact match first); a feed source by its URL too.
    let name = configuration.sourceName(matchingOrFeedURL: typed) ?? typed
    if let source = configuration.syncSources[name]?.feedEntry {
      let query = NewsQuery(url: source.url, source: name)
      return (query, "\(name) (\(query))", source)
    }
    guard let source = configuration.sources[name] else {
      throw CommandFailure(.usage, "no source named \"\(name)\"", hint: configuration.knownSourcesHint(typed: name))
    }
    let query = NewsQuery(url: source.url, source: name)
    let shown = source.url.isFileURL ? "\(name) (\(source.url.path))" : "\(name) (\(query))"
    return (query, shown, source)
  }
}
