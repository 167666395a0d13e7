/// The command line of `news-bench`.
struct Options: Sendable {
  var articles = 100_000
  var runs = 3
  var seed: UInt64 = 20_240_517
  var workFolder: String?
  var json = false
  var scaling = false
  var million = false
  var readCalls = 1000
  var networkCalls = 200
  var extraction = false
  var pagesFolder = "../shared/fixtures/real/pages"
  var runsGiven = false
  var quick = false
  var feeds = false
  var feedsFrom: String?
  /// Spawns of each command for the command-line latencies.
  var latencyRuns = 50
  /// `--cli DB`: only the command-line latencies, on this database.
  var cliDatabase: String?
  /// `--serve`: `news serve` under load (``ServeBench``).
  var serve = false
  /// With `--serve`: concurrent clients.
  var serveClients = 100
  /// With `--serve`: requests of each client (half Miniflux, half Reader).
  var serveRequests = 200
  /// `--read`: `news read`'s first screen and key latencies beside newsboat's (``ReaderBench``).
  var read = false
  /// With `--serve`: the open-loop steps' rates, requests per second of each client; `nil`: 1/s and fractions of
  /// the closed loop's throughput (``ServeBench/defaultRates(saturation:clients:)``).
  var serveRates: [Double]?
  /// With `--serve`: seconds of each open-loop step.
  var serveStepSeconds = 10.0

  static let usage = """
    usage: news-bench [--articles N] [--runs R] [--seed S] [--work DIR] [--quick] [--json]
           news-bench --scaling [--million] [--runs R] [--seed S] [--work DIR] [--json]
           news-bench --extraction [--pages DIR] [--runs R] [--json]
           news-bench --feeds [--feeds-from DIR] [--runs R] [--work DIR] [--json]
           news-bench --cli DB [--latency-runs N] [--json]
           news-bench --serve [--articles N] [--clients C] [--requests R] [--rates R1,R2…] [--step-seconds S]
                              [--quick] [--json]
           news-bench --read [--articles N] [--runs R] [--quick] [--json]

    Generates a NewsAPI-shaped payload of N articles and times, side by side on the same file and fresh databases
    (median of R runs; each import in its own process):
      ours       the `news import` path: read, NewsAPIDecoder.decode, StorageContext.saveArticles (one transaction)
      json_each  the limit: the sqlite3 CLI upserting the file with json_each in one statement
      python     the peer: Python's json + sqlite3 executemany upsert
      sqlite-utils  upsert_all into its own table, then enable_fts once, as its documentation shows (if installed)
    then re-import into the filled databases, the newest-50 read through NewsRepository, network-first with the
    server refusing connections versus a pure cache read, the peak memory of each import, and the command-line
    latencies (`news --help`, `news list --limit 20`, `news search` of a selective pair of words and of the pair
    found together in the most articles, spawn to exit, each beside `sqlite3` answering the same query; needs `news`
    built beside news-bench: swift build -c release).

      --articles N   articles in the payload (default 100000)
      --runs R       runs of each import; the median is reported (default 3)
      --seed S       the generator's seed (default 20240517)
      --work DIR     where the payload and databases go (default: a temporary folder, removed at the end)
      --quick        N = 2000, R = 1, fewer read calls, and the feed refresh without its peers: a smoke run for CI
      --json         print the results as JSON on stdout (progress still goes to stderr)
      --extraction   instead: readable-article extraction, pages per second over the folder's NAME/source.html
                     (ReadabilityExtractor, in this process), against Python's readability-lxml and trafilatura
                     when importable (each in its own python3); R rounds (default 5), median
      --pages DIR    with --extraction: the folder of pages (default ../shared/fixtures/real/pages)
      --feeds        instead: a subscription list refreshed from a loopback HTTP server into a fresh database,
                     then again (304s): `news fetch --all` (the `news` built beside news-bench) against
                     `newsboat -x reload` and a Python feedparser + sqlite3 script; R runs of each, taking turns,
                     the median reported (default 3)
      --feeds-from DIR  the feeds to serve, each under 6 paths (default ../shared/fixtures/real/feeds)
      --latency-runs N  spawns of each command for the command-line latencies (default 50)
      --scaling      instead: ours and json_each at N = 1k, 10k, 100k, time per article, and the command-line
                     latencies at 100k
      --million      with --scaling: also N = 1M (a ~600 MB file; one run), with the command-line latencies at 1M
      --cli DB       instead: only the command-line latencies, on the database DB
      --serve        instead: `news serve` under load: a store of N articles over 50 sources served (NewsServer on
                     libmicrohttpd, in a child process) on loopback to C concurrent keep-alive clients (default 100),
                     R requests each (default 200), alternating GET /v1/entries?limit=100 and the Reader reading
                     list (n=50): errors, p50/p99 of each beside the same selection run directly on the store,
                     requests/s and the server's peak RSS. First closed loop (each client sends its next request
                     when the last answer arrives: the saturation throughput), then open loop (each client sends
                     at a fixed rate, latency counted from each request's scheduled time) at each rate of a
                     sweep; with --quick: N = 2000, C = 10, R = 20, steps of 2 s
      --read         instead: `news read` (the `news` built beside news-bench) on N articles (default 100000) in
                     50 generated RSS feeds fetched from loopback, beside newsboat on the same feeds (its cache filled
                     by `newsboat -x reload`): each spawned R times (default 5; --quick: N = 2000, R = 2) on a 100×30
                     pty, spawn to first screen (the sources with their counts), and ↓/↑, ENTER, ↓/↑ in a list: key
                     written to the update read back
      --clients C    with --serve: concurrent clients
      --requests R   with --serve: requests of each client in the closed loop
      --rates R1,…   with --serve: the open-loop steps, requests per second of each client (default: 1, then
                     0.25, 0.5, 0.75 and 0.9 of the closed loop's throughput shared among the clients)
      --step-seconds S  with --serve: seconds of each open-loop step (default 10)
    """

  static func parse(_ arguments: [String]) throws -> Options {
    var options = Options()
    var rest = arguments[...]
    func value(_ flag: String) throws -> String {
      guard let next = rest.popFirst() else { throw BenchError("\(flag) needs a value\n\n\(usage)") }
      return next
    }
    func number(_ flag: String) throws -> Int {
      let text = try value(flag)
      guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 else {
        throw BenchError("\(flag): expected a positive whole number, got \"\(text)\"")
      }
      return number
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--articles": options.articles = try number(argument)
      case "--runs":
        options.runs = try number(argument)
        options.runsGiven = true
      case "--seed":
        let text = try value(argument)
        guard let seed = UInt64(text) else { throw BenchError("--seed: expected a whole number, got \"\(text)\"") }
        options.seed = seed
      case "--work": options.workFolder = try value(argument)
      case "--quick":
        options.quick = true
        options.articles = 2000
        options.runs = 1
        options.readCalls = 200
        options.networkCalls = 20
        options.latencyRuns = 10
        options.quick = true
      case "--json": options.json = true
      case "--scaling": options.scaling = true
      case "--million": options.million = true
      case "--extraction": options.extraction = true
      case "--pages": options.pagesFolder = try value(argument)
      case "--feeds": options.feeds = true
      case "--feeds-from": options.feedsFrom = try value(argument)
      case "--latency-runs": options.latencyRuns = try number(argument)
      case "--cli": options.cliDatabase = try value(argument)
      case "--serve": options.serve = true
      case "--read": options.read = true
      case "--clients": options.serveClients = try number(argument)
      case "--requests": options.serveRequests = try number(argument)
      case "--rates":
        let text = try value(argument)
        let rates = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !rates.isEmpty, rates.allSatisfy({ ($0 ?? 0) > 0 }) else {
          throw BenchError("--rates: expected positive numbers separated by commas, got \"\(text)\"")
        }
        options.serveRates = rates.compactMap { $0 }
      case "--step-seconds":
        let text = try value(argument)
        guard let seconds = Double(text), seconds > 0 else {
          throw BenchError("--step-seconds: expected a positive number, got \"\(text)\"")
        }
        options.serveStepSeconds = seconds
      case "--help", "-h": throw HelpRequested()
      default: throw BenchError("unknown argument \"\(argument)\"\n\n\(usage)")
      }
    }
    if options.million && !options.scaling { throw BenchError("--million goes with --scaling") }
    if options.extraction && options.scaling { throw BenchError("--extraction and --scaling are separate runs") }
    if arguments.contains("--pages") && !options.extraction { throw BenchError("--pages goes with --extraction") }
    if options.extraction && !options.runsGiven { options.runs = options.quick ? 1 : 5 }
    if options.feeds && options.scaling { throw BenchError("--feeds and --scaling are separate runs") }
    if options.serve && (options.scaling || options.feeds || options.extraction) {
      throw BenchError("--serve is a separate run")
    }
    if options.read && (options.serve || options.scaling || options.feeds || options.extraction) {
      throw BenchError("--read is a separate run")
    }
    if options.serve && options.quick {
      if !arguments.contains("--clients") { options.serveClients = 10 }
      if !arguments.contains("--requests") { options.serveRequests = 20 }
      if !arguments.contains("--step-seconds") { options.serveStepSeconds = 2 }
    }
    return options
  }
}

struct HelpRequested: Error {}
