import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync

/// `news sources`: each configured source with its last fetch, age, freshness, cached articles and last error.
struct SourcesCommand: NewsCommand {
  static let name = "sources"
  static let summary = "List the configured sources: last fetch, age, freshness and last error of each."
  static let details = """
    Freshness is judged against the source's maxAge, else the max-age stored with its last fetch: fresh, stale,
    no-max-age, or never-fetched. The last error is that of the last failed refresh since the last good fetch,
    or of the last attempt of a source never fetched successfully; this holds for every source fetched through
    the cache (NewsAPI, file and feed). Parse sources show their last sync as the fetch time (policy "sync"),
    their cached articles and the last error of any of their classes.
    Nothing is fetched.
    """

  static let storeOptions = StoreOptions<Option>(
    json:
      "{sources: [{name, kind, default, url, policy, maxAgeSeconds, fetchedAt, ageSeconds, freshness, stale, "
      + "articles, unread, fullTextFailed, folder, failingSince, lastError, lastErrorAt}], "
      + "folders: [{folder, articles, unread}], alsoCached: [{query, fetchedAt, articles}]}", jsonExcludes: [.opml])

  enum Option: CommandOption {
    case opml
    var spec: OptionSpec {
      switch self {
      case .opml:
        OptionSpec(name: "opml", help: "Print the feed sources as an OPML 2.0 subscription list, with their folders.")
      }
    }
  }

  /// One source in `--json` output. Times are RFC 3339 UTC with milliseconds; durations are seconds.
  struct Entry: Encodable {
    var name: String
    /// `newsapi`, `file`, `parse` or `feed`.
    var kind = "newsapi"
    var isDefault: Bool
    var url: String
    var policy: String
    var maxAgeSeconds: Double?
    var fetchedAt: String?
    var ageSeconds: Double?
    var freshness: String
    var stale: Bool
    var articles: Int
    var lastError: String?
    var lastErrorAt: String?
    /// Cached articles of the source (as `news list --source` selects them) not marked read.
    var unread = 0
    /// Cached articles of the source whose whole text failed (``ArticleCounts/fullTextFailed``).
    var fullTextFailed = 0
    /// The source's folder (`"Tech/Swift"`), or `nil`.
    var folder: String?
    /// The last good fetch of a source whose every refresh since failed, when that is over ``failingFlagged`` ago.
    var failingSince: String?

    enum CodingKeys: String, CodingKey {
      case name, kind
      case isDefault = "default"
      case url, policy, maxAgeSeconds, fetchedAt, ageSeconds, freshness, stale, articles, unread, fullTextFailed, folder
      case failingSince
      case lastError, lastErrorAt
    }

  }

  /// One folder in `--json` output: its sources' articles and those not marked read, folders below it included.
  struct FolderEntry: Encodable {
    /// `"Tech/Swift"`.
    var folder: String
    var articles: Int
    var unread: Int
  }

  struct Report: Encodable {
    var sources: [Entry]
    var folders: [FolderEntry]
    /// The queries cached from no configured source (`news import FILE`, `news fetch --url`, a source removed since).
    var alsoCached: [OutputFormat.FetchDocument]
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let configuration = context.configuration
    if arguments.flag(.opml) {
      if arguments.json { throw CommandFailure(.usage, "--opml and --json exclude each other") }
      return try await printOPML()
    }
    let repository = try context.makeRepository(
      arguments.common, entities: SyncBookkeeping.entities, reading: true, emptyWhenMissing: true)
    let now = Timestamp(context.now())
    var entries: [Entry] = []
    // Every source fetched through the repository (NewsAPI, file, feed): its health, from its fetch record.
    var fetched = configuration.sources.map { (source: $0.value, kind: $0.value.url.isFileURL ? "file" : "newsapi") }
    for sync in configuration.syncSources.values {
      guard let source = sync.feedEntry else { continue }
      fetched.append((source, kind: "feed"))
    }
    for (source, kind) in fetched {
      let newsSource = context.newsSource(source)
      let health = try await repository.health(of: newsSource)
      var entry = Self.entry(name: source.name, source: source, health: health, configuration: configuration, now: now)
      entry.kind = kind
      if health.isFailing(for: Self.failingFlagged, now: context.now()), let since = health.failingSince {
        entry.failingSince = Timestamp(since).rfc3339String
      }
      entries.append(entry)
    }
    for (name, source) in configuration.syncSources {
      guard case .parse = source.kind else { continue }
      // Its health is its classes' sync bookkeeping's; its mapping is not needed for that (nor loaded).
      var entry = Self.syncEntry(
        name: name, source: source, health: try await repository.health(ofParseSource: name), now: now)
      entry.isDefault = configuration.defaultSource == name
      entries.append(entry)
    }
    entries.sort { $0.name < $1.name }
    // Article and unread counts of one set, per source and per folder (a folder's include those of the folders
    // below it): the articles `news list --source NAME` lists — those the source saved and those of its last fetch —
    // not only its last fetch's (the cache entry), so that UNREAD never exceeds CACHED.
    for index in entries.indices {
      let name = entries[index].name
      let counts = try await repository.counts(matching: ArticleFilter(anyOfSources: [context.sourceMatch(name)]))
      entries[index].articles = counts.total
      entries[index].unread = counts.unread
      entries[index].fullTextFailed = counts.fullTextFailed
      let folder = configuration.folder(ofSource: name)
      entries[index].folder = folder.isEmpty ? nil : SubscriptionFile.folderText(folder)
    }
    var folders: [FolderEntry] = []
    for folder in configuration.folders {
      let text = SubscriptionFile.folderText(folder)
      let matches = try context.folderMatches(text)
      let counts = try await repository.counts(matching: ArticleFilter(anyOfSources: matches))
      folders.append(FolderEntry(folder: text, articles: counts.total, unread: counts.unread))
    }
    // What the cache holds from no configured source: a user who imported files sees them here too.
    let alsoCached = try await context.alsoCached(in: repository).map { cached in
      OutputFormat.FetchDocument(
        query: cached.name, fetchedAt: Timestamp(cached.query.fetchedAt), articles: cached.query.cachedCount)
    }
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(Report(sources: entries, folders: folders, alsoCached: alsoCached)))
      return .success
    }
    if entries.isEmpty {
      let file = configuration.file.map { " in \($0)" } ?? " (no configuration file found)"
      console.err("no sources configured\(file)\n")
    } else {
      console.printLines(Self.lines(entries, now: now.date, width: console.width, color: console.color))
    }
    if !folders.isEmpty { console.printLines(Self.folderLines(folders)) }
    if !alsoCached.isEmpty { console.printLines(Self.alsoCachedLines(alsoCached, now: now.date)) }
    return .success
  }

  /// After the sources and folders, what the cache holds from no configured source, newest first:
  /// `also cached (news import, fetch --url; news list --source PATH shows them):` then `  PATH  3 articles, 5 min ago`.
  static func alsoCachedLines(_ cached: [OutputFormat.FetchDocument], now: Date) -> String {
    let names = cached.map { OutputFormat.sanitized($0.query, collapsingWhitespace: true) }
    let width = names.map(\.count).max() ?? 0
    var lines = "also cached, from no configured source (news list --source PATH shows them):\n"
    for (entry, name) in zip(cached, names) {
      let articles = entry.articles == 1 ? "1 article" : "\(entry.articles) articles"
      let when = entry.fetched(now: now)
      lines += "  \(name)\(String(repeating: " ", count: width - name.count))  \(articles), \(when)\n"
    }
    return lines
  }

  /// `--opml`: every feed subscription the library knows — the configuration file's, in its order, then those an
  /// older `news serve` kept in the store (``NewsRepository/exportOPML(besides:title:)``) — as OPML 2.0
  /// (`text`/`title` the source's name, `xmlUrl`, `htmlUrl` its `homePage`, nested outlines its `folder`). Other
  /// kinds are left out, with a note.
  private func printOPML() async throws -> ExitCode {
    let listed = try await context.subscriptionFile.sources()
    let repository = try context.makeRepository(
      arguments.common, entities: SyncBookkeeping.entities, reading: true, emptyWhenMissing: true)
    let every = try await repository.everySubscription(besides: listed)
    let others = every.filter { !$0.isFeed }.map(\.name)
    context.console.out(
      String(decoding: NewsSource.opmlDocument(of: every, title: "news subscriptions"), as: UTF8.self))
    if !others.isEmpty {
      context.console.printNote(
        "not feeds, so not in the OPML: " + others.map { "\"\($0)\"" }.joined(separator: ", "))
    }
    return .success
  }

  /// How long a source fails, every refresh, before `news sources` flags it: a week.
  static let failingFlagged: TimeInterval = 7 * 86_400

  static func entry(
    name: String, source: Configuration.Source, health: SourceHealth, configuration: Configuration, now: Timestamp
  ) -> Entry {
    let maxAge = source.maxAge ?? health.serverMaxAge
    let age = health.lastFetched.map { max(0, now.date.timeIntervalSince($0)) }
    let freshness: String
    let stale: Bool
    switch (age, maxAge) {
    case _ where health.isGone:
      (freshness, stale) = ("gone", true)
    case (nil, _):
      (freshness, stale) = ("never-fetched", true)
    case (let age?, let maxAge?):
      (freshness, stale) = age >= maxAge ? ("stale", true) : ("fresh", false)
    case (_, nil):
      (freshness, stale) = ("no-max-age", false)
    }
    let query = NewsQuery(url: source.url)
    return Entry(
      name: name, kind: source.url.isFileURL ? "file" : "newsapi", isDefault: configuration.defaultSource == name,
      url: source.url.isFileURL ? source.url.path : query.description,
      policy: (source.policy ?? .networkFirst).name, maxAgeSeconds: maxAge,
      fetchedAt: health.lastFetched.map { Timestamp($0).rfc3339String }, ageSeconds: age, freshness: freshness,
      stale: stale, articles: health.cachedCount, lastError: health.lastError,
      lastErrorAt: health.lastErrorAt.map { Timestamp($0).rfc3339String })
  }

  /// A sync source's entry, from its health (``NewsRepository/health(ofParseSource:)``): its last sync (the latest
  /// `syncedAt` of its classes) and the latest error of any class.
  static func syncEntry(name: String, source: Configuration.SyncSource, health: SourceHealth, now: Timestamp) -> Entry {
    let age = health.lastFetched.map { max(0, now.date.timeIntervalSince($0)) }
    let freshness: String
    switch (age, source.maxAge) {
    case (nil, _): freshness = "never-fetched"
    case (let age?, let maxAge?): freshness = age >= maxAge ? "stale" : "fresh"
    case (_, nil): freshness = "synced"
    }
    return Entry(
      name: name, kind: source.kindName, isDefault: false, url: NewsQuery.shown(source.location), policy: "sync",
      maxAgeSeconds: source.maxAge, fetchedAt: health.lastFetched.map { Timestamp($0).rfc3339String }, ageSeconds: age,
      freshness: freshness, stale: freshness == "stale", articles: health.cachedCount, lastError: health.lastError,
      lastErrorAt: health.lastErrorAt.map { Timestamp($0).rfc3339String })
  }

  /// A line of column headings, then one line per source, in aligned columns: name (`*` marks the default), last
  /// fetch, freshness, articles, unread, folder and full-text failures (when any source has one), last error (the flexible column, clipped to `width` when given; see
  /// ``OutputFormat/table(_:width:color:indent:gap:flexibleMinimum:headings:)``).
  static func lines(_ entries: [Entry], now: Date, width: Int?, color: Bool = false) -> String {
    func ago(_ text: String?) -> String? {
      text.flatMap { Timestamp(rfc3339: $0) }.map { OutputFormat.relative($0.date, now: now) }
    }
    var names: [String] = []
    var fetches: [String] = []
    var states: [String] = []
    var contents: [String] = []
    var unread: [String] = []
    var folders: [String] = []
    var fullTexts: [String] = []
    var errors: [String] = []
    for entry in entries {
      var state = entry.freshness == "no-max-age" ? "no max age" : entry.freshness
      if let maxAge = entry.maxAgeSeconds { state += " (max age \(FetchCommand.duration(maxAge)))" }
      if let since = entry.failingSince.flatMap({ Timestamp(rfc3339: $0) }) {
        state += ", failing for \(FetchCommand.duration(max(0, now.timeIntervalSince(since.date))))"
      }
      var error = ""
      if let lastError = entry.lastError {
        error =
          "last error" + (ago(entry.lastErrorAt).map { " \($0)" } ?? "") + ": "
          + OutputFormat.sanitized(lastError, collapsingWhitespace: true)
      }
      names.append(OutputFormat.sanitized(entry.name, collapsingWhitespace: true) + (entry.isDefault ? " *" : ""))
      fetches.append(
        ago(entry.fetchedAt).map { (entry.policy == "sync" ? "synced " : "fetched ") + $0 }
          ?? (entry.policy == "sync" ? "never synced" : "never fetched"))
      states.append(entry.fetchedAt == nil || entry.policy == "sync" ? "—" : state)
      contents.append(entry.articles == 1 ? "1 article" : "\(entry.articles) articles")
      unread.append("\(entry.unread)")
      folders.append(entry.folder.map { OutputFormat.sanitized($0, collapsingWhitespace: true) } ?? "")
      fullTexts.append(entry.fullTextFailed == 0 ? "" : "\(entry.fullTextFailed) failed")
      errors.append(error)
    }
    var columns = [
      Column(cells: names, maxWidth: 28, minWidth: 8),
      Column(cells: fetches, minWidth: 8),
      Column(cells: states, minWidth: 5, droppable: true),
      Column(cells: contents, minWidth: 8, droppable: true),
      Column(cells: unread, minWidth: 6, droppable: true),
    ]
    var headings = ["SOURCE", "LAST FETCH", "FRESHNESS", "CACHED", "UNREAD"]
    if folders.contains(where: { !$0.isEmpty }) {
      columns.append(Column(cells: folders, minWidth: 6, droppable: true))
      headings.append("FOLDER")
    }
    // Articles whose whole text failed (`news fetch --full-text --retry-failed` tries them now), when any has.
    if fullTexts.contains(where: { !$0.isEmpty }) {
      columns.append(Column(cells: fullTexts, minWidth: 6, droppable: true))
      headings.append("FULL TEXT")
    }
    columns.append(Column(cells: errors))
    headings.append(errors.contains { !$0.isEmpty } ? "LAST ERROR" : "")
    return OutputFormat.table(columns, width: width, color: color, flexibleMinimum: 20, headings: headings)
  }

  /// After the sources, the folders: `folders:` then one line per folder (its whole path, the names aligned), with
  /// its articles and unread count, folders below it included: `  Tech/Swift  12 articles, 3 unread`.
  static func folderLines(_ folders: [FolderEntry]) -> String {
    let names = folders.map { OutputFormat.sanitized($0.folder, collapsingWhitespace: true) }
    let width = names.map(\.count).max() ?? 0
    var lines = "folders:\n"
    for (folder, name) in zip(folders, names) {
      let articles = folder.articles == 1 ? "1 article" : "\(folder.articles) articles"
      let padding = String(repeating: " ", count: width - name.count)
      lines += "  \(name)\(padding)  \(articles), \(folder.unread) unread\n"
    }
    return lines
  }

  private typealias Column = OutputFormat.Column
}
