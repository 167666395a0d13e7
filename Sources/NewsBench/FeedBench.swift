import Foundation

/// The feed benchmark (`news-bench --feeds`, issue 13): a subscription list refreshed from a loopback HTTP server
/// into a fresh database, by `news fetch --all` and by the peers a person would use instead, each a child process
/// timed from spawn to exit, one run each, side by side.
///
/// The list: every XML feed of the feeds folder (by default `../shared/fixtures/real/feeds`) served under
/// ``copies`` paths each (`/1/bio.rdf` … `/6/bio.rdf`), every path with its own `ETag`. Then each method refreshes
/// again: every feed is answered `304 Not Modified` to a client that asks conditionally.
///
/// The copies are not the same work for every method: newsboat keeps one item per guid across all its feeds, so it
/// stores each feed's items once where ours stores them for every copy. So the items each method stored are counted
/// per feed, and when newsboat runs, newsboat and ours run again on **equal work**: each feed that newsboat read
/// served once (the feeds it stored nothing from are listed and left out of that comparison).
///
/// Each method runs ``runs`` times (`--runs R`), the methods taking turns (ours, newsboat, ours, …) so that a change
/// of the machine's load meets them alike; the run of median wall time is reported, with every run's wall and CPU
/// time beside it.
struct FeedBench {
  /// The feeds served, and where each method writes.
  var feedsFolder: String
  var folder: String
  /// The `news` executable measured: the installed copy of the one beside `news-bench` (``InstalledNews``).
  var news: String
  /// Each feed is served under this many paths.
  var copies = 6
  /// Whether the peers run (off for `--quick`).
  var peers = true
  /// Only these files of the feeds folder (`nil`: all), and only ours and newsboat: the equal-work run.
  var only: [String]? = nil
  /// Runs of each method, first refresh and conditional one each time (`--runs R`).
  var runs = 1
  /// Whether every feed is answered after ``FeedServer/slowSeconds`` (paths under `/slow/`): the waiting run, first
  /// refreshes only.
  var slow = false

  /// One method's figures.
  struct Run: Codable, Sendable {
    var method: String
    var label: String
    /// Wall-clock seconds from spawn to exit.
    var seconds: Double
    /// User + system CPU seconds of the child.
    var cpuSeconds: Double
    var exitStatus: Int32
    /// Items stored, counted in the method's own database (ours: each feed's items, the `query_result` rows).
    var items: Int?
    /// Requests the server received during the run, and how many it answered `304`.
    var requests: Int
    var notModified: Int
    /// This run's seconds over ours' (the same phase).
    var timesOurs: Double?
    /// Every run's wall-clock and CPU seconds, in the order they ran (this run is their median by wall time).
    var allSeconds: [Double] = []
    var allCPUSeconds: [Double] = []

    /// The run of median wall time among `runs` (the lower middle one of an even count), with every run's times.
    static func median(_ runs: [Run]) -> Run {
      var median = runs.sorted { $0.seconds < $1.seconds }[(runs.count - 1) / 2]
      median.allSeconds = runs.map(\.seconds)
      median.allCPUSeconds = runs.map(\.cpuSeconds)
      return median
    }
  }

  /// The items each method stored from one feed file.
  struct FeedItems: Codable, Sendable {
    var file: String
    /// Ours: the `query_result` rows of one of the feed's URLs (every copy holds the same).
    var ours: Int?
    /// newsboat: the `rss_item` rows of any of the feed's URLs (it keeps one row per guid across all feeds, so the
    /// copies share them); `nil` when newsboat did not run.
    var newsboat: Int?
  }

  struct Results: Codable, Sendable {
    var date: String
    var urls: Int
    var feeds: Int
    var bytes: Int
    /// Runs of each method.
    var runs = 1
    var refresh: [Run]
    var again: [Run]
    /// Items stored per feed file, after the first refresh.
    var perFeed: [FeedItems] = []
    /// The equal-work run (each feed newsboat read, served once; ours and newsboat only), when newsboat ran.
    var equalWork: EqualWork? = nil
    /// One feed answered after ``FeedServer/slowSeconds``: what waiting for a slow server costs each method.
    var slowServer: SlowServer? = nil
    var targets: [Target]
    var notes: [String]
  }

  /// Ours and newsboat on the same feeds, each served once.
  struct EqualWork: Codable, Sendable {
    /// The feed files served; and those left out because newsboat stored nothing from them.
    var files: [String]
    var leftOut: [String]
    var refresh: [Run]
    var again: [Run]
    var perFeed: [FeedItems]
  }

  /// One feed from a server that answers after ``FeedServer/slowSeconds``, first refreshes (ours and newsboat).
  struct SlowServer: Codable, Sendable {
    var file: String
    var waitSeconds: Double
    var refresh: [Run]
  }

  /// What a peer needs to run, and whether it is there.
  enum Method: String, CaseIterable {
    case ours, newsboat, feedparser

    var label: String {
      switch self {
      case .ours: "ours: news fetch --all"
      case .newsboat: "newsboat -x reload"
      case .feedparser: "python3 feedparser + sqlite3"
      }
    }
  }

  /// The feeds folder: `--feeds-from DIR`, else `../shared/fixtures/real/feeds` beside the current folder or beside
  /// the package `news-bench` was built in; `nil` when there is none.
  static func locateFeeds(_ option: String?, selfPath: String) -> String? {
    if let option { return URL(fileURLWithPath: option).standardizedFileURL.path }
    var package = URL(fileURLWithPath: selfPath)
    for _ in 0..<4 { package.deleteLastPathComponent() }  // <package>/.build/<triple>/release/news-bench
    let candidates = [
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath), package,
    ].map { $0.appendingPathComponent("../shared/fixtures/real/feeds").standardizedFileURL.path }
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
  }

  /// The benchmark the options ask for, in `folder`.
  ///
  /// - Throws: ``BenchError`` when there is no feeds folder or no `news` beside `news-bench`.
  static func feeds(_ options: Options, folder: String, selfPath: String) throws -> FeedBench {
    guard let feeds = locateFeeds(options.feedsFrom, selfPath: selfPath) else {
      throw BenchError("no feeds to serve: ../shared/fixtures/real/feeds is not there; give --feeds-from DIR")
    }
    let work = "\(folder)/feeds"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    return FeedBench(
      feedsFolder: feeds, folder: work, news: try InstalledNews.path(besides: selfPath, folder: folder),
      peers: !options.quick, runs: max(1, options.runs))
  }

  /// The XML feeds of a folder: every file that is not JSON, HTML or OPML, by name.
  static func feedFiles(in folder: String) throws -> [String] {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder)
    return names.filter { name in ![".json", ".html", ".opml", ".md"].contains { name.hasSuffix($0) } }.sorted()
  }

  func run() throws -> Results {
    let files = try Self.feedFiles(in: feedsFolder).filter { only?.contains($0) ?? true }
    guard !files.isEmpty else { throw BenchError("no feeds in \(feedsFolder)") }
    var resources: [String: FeedServer.Resource] = [:]
    var paths: [String] = []
    /// The file each path serves.
    var fileOfPath: [String: String] = [:]
    var bytes = 0
    for file in files {
      let body = try Data(contentsOf: URL(fileURLWithPath: feedsFolder).appendingPathComponent(file))
      for copy in 1...copies {
        let path = (slow ? "/slow" : "") + "/\(copy)/\(file)"
        paths.append(path)
        fileOfPath[path] = file
        bytes += body.count
        resources[path] = .init(body: body, etag: "\"\(file)-\(copy)\"", contentType: "application/xml")
      }
    }
    let server = try FeedServer(resources: resources)
    defer { server.stop() }
    let urls = paths.map(server.url)
    try (urls.joined(separator: "\n") + "\n").write(toFile: "\(folder)/urls", atomically: true, encoding: .utf8)
    progress("serving \(urls.count) feed URLs (\(files.count) feeds × \(copies)) on 127.0.0.1:\(server.port)")

    var notes: [String] = []
    var methods: [Method] = [.ours]
    if peers {
      if which("newsboat") != nil {
        methods.append(.newsboat)
      } else {
        notes.append("newsboat: skipped, not in PATH (Debian: apt-get install -y newsboat)")
      }
      if only != nil {
        // The equal-work run: ours and newsboat only.
      } else if commandOutput(["python3", "-c", "import feedparser"], outputFolder: folder) != nil {
        methods.append(.feedparser)
      } else {
        notes.append("feedparser: skipped, python3 cannot import it (pip install feedparser)")
      }
    } else {
      notes.append("--quick: the peers (newsboat, feedparser) are not run")
    }
    var firstRuns: [Method: [Run]] = [:]
    var againRuns: [Method: [Run]] = [:]
    for _ in 0..<runs {
      for method in methods {
        let first = try measure(method, server: server, fresh: true)
        firstRuns[method, default: []].append(first)
        progress(
          String(
            format: "%@: %.3f s (CPU %.3f s), %d items", method.label, first.seconds, first.cpuSeconds,
            first.items ?? -1))
        // feedparser's script asks unconditionally, as such scripts do: no second run; nor for the waiting run.
        guard method != .feedparser, !slow else { continue }
        let second = try measure(method, server: server, fresh: false)
        againRuns[method, default: []].append(second)
        progress(
          String(
            format: "%@ again: %.3f s (CPU %.3f s), %d of %d answered 304", method.label, second.seconds,
            second.cpuSeconds, second.notModified, second.requests))
      }
    }
    let refresh = methods.compactMap { firstRuns[$0].map(Run.median) }
    let again = methods.compactMap { againRuns[$0].map(Run.median) }
    func withRatios(_ runs: [Run]) -> [Run] {
      guard let ours = runs.first(where: { $0.method == Method.ours.rawValue })?.seconds, ours > 0 else { return runs }
      return runs.map { run in
        var run = run
        run.timesOurs = run.seconds / ours
        return run
      }
    }
    // Items per feed file, as each method's own database holds them after its last run.
    let ours = itemsByURL(.ours)
    let newsboat = methods.contains(.newsboat) ? itemsByURL(.newsboat) : nil
    let perFeed = files.map { file in
      let urls = paths.filter { fileOfPath[$0] == file }.map(server.url)
      return FeedItems(
        file: file, ours: urls.first.map { ours[$0] ?? 0 },
        newsboat: newsboat.map { counts in urls.reduce(0) { $0 + (counts[$1] ?? 0) } })
    }
    var results = Results(
      date: ISO8601DateFormatter().string(from: Date()), urls: urls.count, feeds: files.count, bytes: bytes,
      runs: runs, refresh: withRatios(refresh), again: withRatios(again), perFeed: perFeed, targets: [], notes: notes)
    if only == nil, newsboat != nil {
      let read = perFeed.filter { ($0.newsboat ?? 0) > 0 }.map(\.file)
      let leftOut = perFeed.filter { ($0.newsboat ?? 0) == 0 }.map(\.file)
      if !read.isEmpty {
        progress("equal work: the \(read.count) feeds newsboat read, each served once, ours and newsboat")
        var equal = self
        equal.folder = "\(folder)/equal-work"
        equal.copies = 1
        equal.only = read
        try FileManager.default.createDirectory(atPath: equal.folder, withIntermediateDirectories: true)
        let run = try equal.run()
        results.equalWork = EqualWork(
          files: read, leftOut: leftOut, refresh: run.refresh, again: run.again, perFeed: run.perFeed)
      }
    }
    if only == nil, newsboat != nil, let file = perFeed.first(where: { ($0.newsboat ?? 0) > 0 })?.file {
      progress("a slow server: \(file) answered after \(FeedServer.slowSeconds) s, ours and newsboat")
      var waiting = self
      waiting.folder = "\(folder)/slow"
      waiting.copies = 1
      waiting.only = [file]
      waiting.slow = true
      try FileManager.default.createDirectory(atPath: waiting.folder, withIntermediateDirectories: true)
      let run = try waiting.run()
      results.slowServer = SlowServer(file: file, waitSeconds: FeedServer.slowSeconds, refresh: run.refresh)
    }
    results.targets = Self.targets(results)
    return results
  }

  /// The items each URL's feed stored in `method`'s database from its last run (ours: `query_result` rows per
  /// query, which is the feed's URL; newsboat: `rss_item` rows per `feedurl`); empty when it cannot be read.
  private func itemsByURL(_ method: Method) -> [String: Int] {
    let work = "\(folder)/\(method.rawValue)"
    let query: String
    switch method {
    case .ours: query = "SELECT query, count(*) FROM query_result GROUP BY query;"
    case .newsboat: query = "SELECT feedurl, count(*) FROM rss_item GROUP BY feedurl;"
    case .feedparser: return [:]
    }
    let database = method == .ours ? "\(work)/news.sqlite" : "\(work)/cache.db"
    guard let output = commandOutput(["sqlite3", "-readonly", database, query], outputFolder: work) else { return [:] }
    var counts: [String: Int] = [:]
    for line in output.split(separator: "\n") {
      guard let bar = line.lastIndex(of: "|"), let count = Int(line[line.index(after: bar)...]) else { continue }
      counts[String(line[..<bar]), default: 0] += count
    }
    return counts
  }

  /// One run of a method against the server, into a fresh database (`fresh`) or the one its last run filled.
  private func measure(_ method: Method, server: FeedServer, fresh: Bool) throws -> Run {
    let work = "\(folder)/\(method.rawValue)"
    if fresh { try freshFolder(work) }
    // Every method gets its own HOME and XDG folders, so no configuration of the machine's user is read.
    let environment = ownHome(work).merging(["NO_COLOR": "1"]) { $1 }
    let arguments: [String]
    let database: String
    let count: String
    switch method {
    case .ours:
      database = "\(work)/news.sqlite"
      if fresh { try writeConfiguration(to: "\(work)/news.json") }
      arguments = [news, "fetch", "--all", "--quiet", "--config", "\(work)/news.json", "--db", database]
      count = "SELECT count(*) FROM query_result;"
    case .newsboat:
      database = "\(work)/cache.db"
      if fresh { try "".write(toFile: "\(work)/newsboat.config", atomically: true, encoding: .utf8) }
      arguments = [
        "newsboat", "-x", "reload", "-u", "\(folder)/urls", "-c", database, "-C", "\(work)/newsboat.config",
      ]
      count = "SELECT count(*) FROM rss_item;"
    case .feedparser:
      database = "\(work)/feeds.sqlite"
      try Self.feedparserScript.write(toFile: "\(work)/refresh.py", atomically: true, encoding: .utf8)
      arguments = ["python3", "\(work)/refresh.py", "\(folder)/urls", database]
      count = "SELECT count(*) FROM item;"
    }
    let before = server.served
    let child = try runChild(arguments, outputFolder: work, environment: environment)
    let after = server.served
    if child.exitStatus != 0 {
      progress("\(method.label) exited \(child.exitStatus): \(child.standardError.suffix(600))")
    }
    let items = sqliteCount(database, count, outputFolder: work)
    return Run(
      method: method.rawValue, label: method.label, seconds: child.seconds, cpuSeconds: child.cpuSeconds,
      exitStatus: child.exitStatus, items: items, requests: after.requests - before.requests,
      notModified: after.notModified - before.notModified)
  }

  /// Ours' configuration: one `{"feed": URL}` source per URL, as `news add` writes them.
  private func writeConfiguration(to path: String) throws {
    let urls = try String(contentsOfFile: "\(folder)/urls", encoding: .utf8).split(separator: "\n")
    var sources: [String: Any] = [:]
    for (index, url) in urls.enumerated() { sources["feed-\(index + 1)"] = ["feed": String(url)] }
    let document: [String: Any] = ["sources": sources, "timeoutSeconds": 5]
    try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
  }

  /// The peer a person would write: each URL fetched with urllib, parsed by feedparser, its entries upserted into
  /// SQLite (one transaction per feed, WAL, `synchronous=NORMAL` as ours), dates as UTC milliseconds.
  static let feedparserScript = #"""
    import calendar, sqlite3, sys, urllib.request
    import feedparser

    urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    db = sqlite3.connect(sys.argv[2])
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("""CREATE TABLE IF NOT EXISTS item (feed TEXT NOT NULL, id TEXT NOT NULL, link TEXT, title TEXT,
        author TEXT, published INTEGER, summary TEXT, content TEXT, PRIMARY KEY (feed, id))""")
    for url in urls:
        with urllib.request.urlopen(url, timeout=5) as response:
            body = response.read()
            headers = {"content-type": response.headers.get("Content-Type", "")}
        parsed = feedparser.parse(body, response_headers=headers)
        rows = []
        for entry in parsed.entries:
            when = entry.get("published_parsed") or entry.get("updated_parsed")
            content = entry.content[0].value if entry.get("content") else None
            key = entry.get("id") or entry.get("link") or entry.get("title") or entry.get("summary", "")
            rows.append((url, key, entry.get("link"), entry.get("title"), entry.get("author"),
                         calendar.timegm(when) * 1000 if when else None, entry.get("summary"), content))
        with db:
            db.executemany("""INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (feed, id) DO UPDATE SET
                link = excluded.link, title = excluded.title, author = excluded.author,
                published = excluded.published, summary = excluded.summary, content = excluded.content""", rows)
    db.close()
    """#

  static func targets(_ results: Results) -> [Target] {
    var targets: [Target] = []
    let runs = results.refresh
    guard let ours = runs.first(where: { $0.method == Method.ours.rawValue }) else { return [] }
    if let newsboat = runs.first(where: { $0.method == Method.newsboat.rawValue }) {
      targets.append(faster("refresh faster than newsboat", ours, than: newsboat))
    }
    if let equal = results.equalWork,
      let ours = equal.refresh.first(where: { $0.method == Method.ours.rawValue }),
      let newsboat = equal.refresh.first(where: { $0.method == Method.newsboat.rawValue })
    {
      targets.append(
        faster(
          "refresh faster than newsboat on equal work (\(equal.files.count) feeds, each once)", ours, than: newsboat,
          detail: "; \(ours.items ?? -1) items vs \(newsboat.items ?? -1)"))
      if let oursAgain = equal.again.first(where: { $0.method == Method.ours.rawValue }),
        let newsboatAgain = equal.again.first(where: { $0.method == Method.newsboat.rawValue })
      {
        targets.append(faster("conditional refresh faster than newsboat on equal work", oursAgain, than: newsboatAgain))
      }
    }
    if let waiting = results.slowServer, let ours = waiting.refresh.first(where: { $0.method == Method.ours.rawValue })
    {
      // A process that waits for its socket spends no CPU meanwhile: what it spends is its own work (a fresh
      // store, one feed), a few hundredths, whatever the wait. URLSession's Linux port spun while it waited.
      let share = ours.cpuSeconds / waiting.waitSeconds
      let newsboat = waiting.refresh.first { $0.method == Method.newsboat.rawValue }
      targets.append(
        Target(
          goal: "CPU while a server takes \(Int(waiting.waitSeconds)) s to answer ≤ 5 % of the wait",
          measured: String(format: "%.3f s, %.1f %% of the wait", ours.cpuSeconds, share * 100)
            + (newsboat.map { String(format: "; newsboat %.3f s", $0.cpuSeconds) } ?? ""),
          met: share <= 0.05))
    }
    if let feedparser = runs.first(where: { $0.method == Method.feedparser.rawValue }) {
      let speedup = feedparser.seconds / ours.seconds
      targets.append(
        Target(
          goal: "refresh ≥ 5× faster than feedparser",
          measured: String(format: "%.1f× faster (%.3f s vs %.3f s)", speedup, ours.seconds, feedparser.seconds),
          met: speedup >= 5))
    }
    return targets
  }

  /// The target `goal`: our run took less time than `rival`'s (`2.10× faster (0.120 s vs 0.252 s)`, then `detail`).
  static func faster(_ goal: String, _ ours: Run, than rival: Run, detail: String = "") -> Target {
    Target(
      goal: goal,
      measured: String(
        format: "%.2f× faster (%.3f s vs %.3f s", rival.seconds / ours.seconds, ours.seconds, rival.seconds)
        + detail + ")",
      met: ours.seconds < rival.seconds)
  }

  static func report(_ results: Results) -> String {
    var out = """
      feed refresh: \(results.urls) URLs (\(results.feeds) real feeds × \(results.urls / max(1, results.feeds)) \
      paths, \(Report.megabytes(results.bytes))) from a loopback HTTP server with ETags; each method's run of \
      median wall time (of \(results.runs)), every run's below it
      items: those stored (ours: each feed's, query_result rows; newsboat: rss_item rows, one per guid
      across all feeds; python: one row per feed and entry id)


      """
    func table(_ title: String, _ runs: [Run]) {
      out += title + "\n"
      out += "  " + Report.pad("", 36) + Report.pad("time", 10, right: true) + Report.pad("× ours", 9, right: true)
      out += Report.pad("cpu", 10, right: true) + Report.pad("items", 8, right: true)
      out += Report.pad("requests", 10, right: true) + Report.pad("304", 6, right: true) + "\n"
      for (index, run) in runs.enumerated() {
        out += "  " + Report.pad("\(index + 1). \(run.label)", 36)
        out += Report.pad(String(format: "%.3f s", run.seconds), 10, right: true)
        out += Report.pad(run.timesOurs.map { String(format: "%.2f×", $0) } ?? "–", 9, right: true)
        out += Report.pad(String(format: "%.3f s", run.cpuSeconds), 10, right: true)
        out += Report.pad(run.items.map(String.init) ?? "?", 8, right: true)
        out += Report.pad("\(run.requests)", 10, right: true) + Report.pad("\(run.notModified)", 6, right: true)
        out += run.exitStatus == 0 ? "\n" : "  (exit \(run.exitStatus))\n"
        if run.allSeconds.count > 1 {
          let each = zip(run.allSeconds, run.allCPUSeconds).map { String(format: "%.3f (%.3f)", $0, $1) }
          out += "     runs, wall (CPU) s: " + each.joined(separator: ", ") + "\n"
        }
      }
    }
    func items(_ perFeed: [FeedItems]) {
      guard perFeed.contains(where: { $0.newsboat != nil }) else { return }
      out += "items stored per feed (ours: one URL's; newsboat: all its URLs', one row per guid)\n"
      for feed in perFeed {
        let differs = feed.ours != feed.newsboat ? "  differs" : ""
        out += "  " + Report.pad(feed.file, 36) + Report.pad(feed.ours.map(String.init) ?? "?", 8, right: true)
        out += Report.pad(feed.newsboat.map(String.init) ?? "–", 10, right: true) + differs + "\n"
      }
    }
    // One set of feeds (all, or the equal work): the first refreshes, the conditional ones if any, items per feed.
    func phases(_ refresh: [Run], _ again: [Run], _ perFeed: [FeedItems]) {
      table("into a fresh database", refresh)
      if !again.isEmpty {
        out += "\n"
        table("again, into the filled database (conditional GET)", again)
      }
      out += "\n"
      items(perFeed)
    }
    phases(results.refresh, results.again, results.perFeed)
    if let equal = results.equalWork {
      out += "\nequal work: \(equal.files.count) feeds newsboat read, each served once"
      out +=
        equal.leftOut.isEmpty
        ? "\n" : "; left out (newsboat stored nothing): \(equal.leftOut.joined(separator: ", "))\n"
      phases(equal.refresh, equal.again, equal.perFeed)
    }
    if let waiting = results.slowServer {
      out += "\n"
      table(
        "one feed (\(waiting.file)) answered after \(Int(waiting.waitSeconds)) s, into a fresh database",
        waiting.refresh)
    }
    return out + "\n" + Report.targets(results.targets, notes: results.notes)
  }
}
