import Foundation
import OfflineNews
import OfflineNewsStorage

/// Command-line latency (issue 17): a command spawned and waited for, the median of many runs, beside the `sqlite3`
/// CLI answering the same query on the same database, spawned alike and interleaved run by run.
struct CommandLatency: Codable, Sendable {
  /// One program's runs.
  struct Runs: Codable, Sendable {
    var command: [String]
    var runs: Int
    /// Wall-clock seconds from just before `posix_spawn` to the return of `wait4`: median, 90th percentile, least.
    var median: Double
    var p90: Double
    var min: Double
    /// Median user + system CPU seconds (`wait4`).
    var cpuMedian: Double
    /// The last run's standard output, its line count (to check that it answered).
    var outputLines: Int
    /// Every run's wall-clock seconds and user + system CPU seconds, in the order run (for the latency plots,
    /// `scripts/plot-bench.sh`).
    var samples: [Double]
    var cpuSamples: [Double]

    init(command: [String], samples: [ChildRun]) {
      self.command = command
      runs = samples.count
      let sorted = samples.map(\.seconds).sorted()
      median = news_bench.median(sorted)
      p90 = percentile(sorted, 90)
      min = sorted.first ?? 0
      cpuMedian = news_bench.median(samples.map(\.cpuSeconds))
      outputLines = samples.last.map { $0.standardOutput.split(separator: "\n").count } ?? 0
      self.samples = samples.map(\.seconds)
      cpuSamples = samples.map(\.cpuSeconds)
    }
  }

  /// What is measured, e.g. `news list --limit 20`.
  var name: String
  /// The database's articles (0 for a command that reads none).
  var rows: Int
  var ours: Runs
  /// The `sqlite3` CLI on the same query; `nil` when there is none (`--help`) or `sqlite3` is missing.
  var sqlite: Runs?
  /// A search: the articles its text matches (every match is ranked, 20 shown).
  var matches: Int? = nil
  /// The target, seconds of median wall time from spawn to exit; `nil`: issue 17's for the command.
  var target: Double? = nil

  /// Runs `ours` and `sqlite` alternately, `runs` times each after 5 warm-up runs each, in `folder` (as the
  /// current folder) with `environment`; every run must exit 0 and print something.
  static func measure(
    name: String, rows: Int, ours: [String], sqlite: [String]?, runs: Int, folder: String,
    environment: [String: String]
  ) throws -> CommandLatency {
    // In `folder`, where no Config/news.json is (the package folder has one).
    let previous = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(folder) else { throw BenchError("cannot enter \(folder)") }
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
    var oursRuns: [ChildRun] = []
    var sqliteRuns: [ChildRun] = []
    for index in 0..<(runs + 5) {
      let mine = try checked(runChild(ours, outputFolder: folder, environment: environment), ours)
      if index >= 5 { oursRuns.append(mine) }
      if let sqlite {
        let theirs = try checked(runChild(sqlite, outputFolder: folder, environment: environment), sqlite)
        if index >= 5 { sqliteRuns.append(theirs) }
      }
    }
    return CommandLatency(
      name: name, rows: rows, ours: Runs(command: ours, samples: oursRuns),
      sqlite: sqlite.map { Runs(command: $0, samples: sqliteRuns) })
  }

  private static func checked(_ run: ChildRun, _ command: [String]) throws -> ChildRun {
    guard run.exitStatus == 0, !run.standardOutput.isEmpty else {
      throw BenchError(
        "\(command.joined(separator: " ")) exited \(run.exitStatus) with \(run.standardOutput.count) bytes out: "
          + run.standardError.prefix(500))
    }
    return run
  }
}

/// The command-line latencies of one database: `news --help`, `news list --limit 20`, `news search` of a selective
/// pair of words and of the most common pair (``mostCommonPair(database:)``), each beside `sqlite3` (but `--help`).
enum CommandLatencyBench {
  /// The selective query (issue 17's): two words of the generator's English pool, each in about 14 % of the
  /// articles, both in about 4 %.
  static let searchText = "storm forecast"

  /// `news` runs in `folder` with no configuration file (an empty `XDG_CONFIG_HOME`, no `NEWS_CONFIG`), so that it
  /// reads only the database named by `--db`.
  static func environment(folder: String) throws -> [String: String] {
    let empty = folder + "/empty-config"
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    // Added to (or replacing) this process's environment; an empty NEWS_CONFIG is none.
    return ["NEWS_CONFIG": "", "XDG_CONFIG_HOME": empty, "XDG_DATA_HOME": empty, "NO_COLOR": "1"]
  }

  static func help(news: String, runs: Int, folder: String) throws -> CommandLatency {
    try CommandLatency.measure(
      name: "news --help", rows: 0, ours: [news, "--help"], sqlite: nil, runs: runs, folder: folder,
      environment: environment(folder: folder))
  }

  /// `news list --limit 20` and the query it makes (`StorageContext.articles`, then the last fetch time).
  static func list(news: String, database: String, rows: Int, runs: Int, folder: String) throws -> CommandLatency {
    let sql =
      "SELECT \(articleColumns) FROM article a ORDER BY a.publishedAt DESC, a.url LIMIT 20; "
      + "SELECT max(fetchedAt) FROM query_fetch;"
    return try CommandLatency.measure(
      name: "news list --limit 20", rows: rows, ours: [news, "list", "--limit", "20", "--db", database],
      sqlite: which("sqlite3").map { [$0, "-readonly", database, sql] }, runs: runs, folder: folder,
      environment: environment(folder: folder))
  }

  /// `news search TEXT` (20 results shown, 21 asked for) and what it asks SQLite: the page ranked by `bm25()`, then
  /// the articles and three snippets of each. `matches` is how many articles the text matches.
  static func search(
    news: String, database: String, text: String, matches: Int?, target: Double?, rows: Int, runs: Int,
    folder: String
  ) throws -> CommandLatency {
    let match = "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    let snippet = { (column: Int) in "snippet(article_fts, \(column), '⟨', '⟩', '…', 16)" }
    let sql = """
      WITH page AS (
        SELECT a.rowid AS id, bm25(article_fts, 10, 2, 1, 3, 3) AS score
        FROM article_fts JOIN article a ON a.rowid = article_fts.rowid
        WHERE article_fts MATCH \(match) ORDER BY score, a.publishedAt DESC, a.url LIMIT 21)
      SELECT \(articleColumns), \(snippet(1)), \(snippet(2)), \(snippet(-1))
      FROM page JOIN article_fts ON article_fts.rowid = page.id JOIN article a ON a.rowid = page.id
      WHERE article_fts MATCH \(match) ORDER BY page.score, a.publishedAt DESC, a.url;
      """
    var latency = try CommandLatency.measure(
      name: "news search \"\(text)\"", rows: rows, ours: [news, "search", text, "--db", database],
      sqlite: which("sqlite3").map { [$0, "-readonly", database, sql] }, runs: runs, folder: folder,
      environment: environment(folder: folder))
    latency.matches = matches
    latency.target = target
    return latency
  }

  /// The articles of `database` that `text` matches (an FTS5 expression of plain words).
  static func matchCount(database: String, text: String) throws -> Int {
    let db = try Connection(path: database, readOnly: true)
    return try db.makeStatement("SELECT count(*) FROM article_fts WHERE article_fts MATCH ?1").fetchOne([.text(text)]) {
      Int($0.int64(0) ?? 0)
    } ?? 0
  }

  /// The two words found together in the most articles of `database`, among the 12 words in the most articles
  /// (words of letters only, as the index folds them: `fts5vocab`), with the articles they match; `nil` when the
  /// index holds fewer than two such words.
  static func mostCommonPair(database: String) throws -> (text: String, matches: Int)? {
    // A connection of its own, read-only: the temporary table is its own.
    let db = try Connection(path: database, readOnly: true)
    try db.execute("CREATE VIRTUAL TABLE temp.bench_vocabulary USING fts5vocab(main, article_fts, row)")
    let words = try db.makeStatement(
      "SELECT term FROM temp.bench_vocabulary WHERE term NOT GLOB '*[^a-z]*' ORDER BY doc DESC, term LIMIT 12"
    ).fetchAll { $0.string(0) ?? "" }
    let count = try db.makeStatement("SELECT count(*) FROM article_fts WHERE article_fts MATCH ?1")
    var best: (text: String, matches: Int)?
    for (index, first) in words.enumerated() {
      for second in words[(index + 1)...] {
        let text = first + " " + second
        let matches = try count.fetchOne([.text(text)]) { Int($0.int64(0) ?? 0) } ?? 0
        if matches > (best?.matches ?? -1) { best = (text, matches) }
      }
    }
    return best
  }

  /// The columns `StorageContext` reads for an article.
  static let articleColumns =
    "a.url, a.title, a.author, a.summary, a.imageURL, a.publishedAt, a.content, a.sourceID, a.sourceName, "
    + "a.isRead, a.bookmarkedAt, a.link, a.source, a.tags, a.enclosures, a.fullTextHTML, a.fullText, a.fullTextAt, "
    + "a.summaryText, a.contentText"
}
