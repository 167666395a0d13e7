import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsServer
import OfflineNewsStorage

#if canImport(Glibc)
  import Glibc
#endif

/// `news-bench --serve`: `news serve` under load (issue 28's "Load").
///
/// A store of N articles spread over ``sourceCount`` sources is served by ``NewsServer`` on libmicrohttpd in a
/// child process (`news-bench --serve-child DB`), so that its peak memory is the server's alone; C client threads
/// of this process, each on one keep-alive connection (blocking sockets), log in (`/accounts/ClientLogin`) and then
/// alternate `GET /v1/entries?limit=100` (Miniflux) and the Reader reading list (`n=50`): first in a closed loop (R
/// requests each, the next sent when the last answer arrives: the saturation throughput), then in an open loop at
/// each rate of a sweep (each client sends at a fixed rate, as polling readers do; a request's latency counts from
/// its scheduled time, so that a late answer delays the next and counts in it). The same two selections are then run
/// directly on the store through `NewsRepository`, one call at a time.
enum ServeBench {
  /// Sources the articles are spread over.
  static let sourceCount = 50
  /// The Miniflux request.
  static let minifluxPath = "/v1/entries?limit=100"
  /// The Google Reader request.
  static let readerPath = "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=50"

  /// The issue's targets.
  static let targetP50 = 0.005
  static let targetP99 = 0.050
  static let targetMemoryKiB = 100 * 1024

  struct Endpoint: Codable, Sendable {
    var path: String
    /// Over HTTP, seconds, from the request's send to its body's last byte.
    var served: Latency
    /// The repository calls of the handler, directly, one at a time.
    var direct: Latency
    /// Bytes of one response's body.
    var responseBytes: Int
    /// Miniflux only: `count(selecting:)` alone, the `total` of the page.
    var directCount: Latency?
  }

  /// What the server child reports when its standard input closes.
  struct ChildReport: Codable, Sendable {
    /// `VmRSS` once the server listens, before any request.
    var startRSSKiB: Int
    /// `VmHWM` at the end: the peak resident set, with the file pages mapped (the store, read through SQLite's map).
    var peakKiB: Int
    /// The highest `RssAnon` sampled while listening (``AnonymousPeakSampler``): the server's own memory.
    var peakAnonymousKiB: Int
    /// The child's CPU seconds during the load.
    var loadCPUSeconds: Double
  }

  /// One rate of the open loop.
  struct OpenLoopStep: Codable, Sendable {
    /// Requests per second each client sends.
    var ratePerClient: Double
    /// All of them: clients × rate.
    var offered: Double
    /// Answers per second, over the step (its last answers included).
    var achieved: Double
    var seconds: Double
    var errors: Int
    var firstError: String?
    /// From each request's scheduled time to its body's last byte, seconds.
    var miniflux: Latency
    var reader: Latency
    /// Requests sent more than 1 ms after their time, because the client's previous answer was late.
    var lateSends: Int
    /// CPU seconds of the server per request, during the step.
    var serverCPUPerRequest: Double
  }

  struct Results: Codable, Sendable {
    var date: String
    var load: String
    var articles: Int
    var sources: Int
    var clients: Int
    var requestsPerClient: Int
    var errors: Int
    var firstError: String?
    var seconds: Double
    var requestsPerSecond: Double
    var miniflux: Endpoint
    var reader: Endpoint
    var server: ChildReport
    /// CPU seconds of this process (the clients) per request, during the load.
    var clientCPUPerRequest: Double
    /// CPU seconds of the server per request, during the closed loop.
    var serverCPUPerRequest: Double
    /// The open loop, one step per rate.
    var openLoop: [OpenLoopStep]
  }

  /// The open loop's rates per client when none are given: 1 request/s each (a reader polling every second), then
  /// 0.25, 0.5, 0.75 and 0.9 of the closed loop's throughput (`saturation`, requests/s) shared among the clients;
  /// rates within 10% of a lower one are left out.
  static func defaultRates(saturation: Double, clients: Int) -> [Double] {
    let candidates = ([1.0] + [0.25, 0.5, 0.75, 0.9].map { $0 * saturation / Double(max(1, clients)) }).sorted()
    var rates: [Double] = []
    for rate in candidates where rate > 0 && rates.last.map({ rate > $0 * 1.1 }) ?? true { rates.append(rate) }
    return rates
  }

  /// The served sources: `Source 01` … with a folder per ten.
  static func sources() -> [NewsSource] {
    (1...sourceCount).map { index in
      let number = index < 10 ? "0\(index)" : "\(index)"
      let url = URL(string: "https://source-\(number).bench.invalid/feed") ?? URL(fileURLWithPath: "/")
      return NewsSource(name: "Source \(number)", url: url, folder: ["Folder \((index - 1) / 10 + 1)"])
    }
  }

  /// Generates the payload (``PayloadGenerator``) and imports it into `database` as `news import` does, each
  /// article's source renamed to one of ``sources()`` in turn.
  static func buildStore(articles: Int, seed: UInt64, folder: String, database: String) async throws {
    let file = folder + "/serve-payload.json"
    _ = try PayloadGenerator(count: articles, seed: seed).write(to: file)
    defer { try? FileManager.default.removeItem(atPath: file) }
    let names = sources().map(\.name)
    let counter = Counter()
    let rename: @Sendable ([Article]) -> [Article] = { batch in
      let start = counter.advance(by: batch.count)
      return batch.enumerated().map { offset, article in
        var article = article
        article.source = names[(start + offset) % names.count]
        return article
      }
    }
    let storage = try StorageContext(path: database)
    let url = URL(fileURLWithPath: file)
    if let stream = try NewsAPIFileStream(path: file) {
      defer { stream.cancel() }
      _ = try await storage.saveArticles(
        forQuery: NewsQuery(url: url).cacheKey, fetchedAt: .now(), batches: { try stream.next().map(rename) })
    } else {
      let page = try NewsAPIDecoder().decode(try Data(contentsOf: url))
      _ = try await storage.saveArticles(
        rename(page.articles), forQuery: NewsQuery(url: url).cacheKey, fetchedAt: .now())
    }
  }

  /// `news-bench --serve-child DB`: serves `DB` on 127.0.0.1 (a free port), prints `port N`, answers each `cpu`
  /// line of its standard input with `cpu S` (its CPU seconds since it listened) and, once that input closes, stops
  /// and prints a ``ChildReport`` as one JSON line.
  static func child(database: String) async -> Int32 {
    do {
      let storage = try StorageContext(path: database)
      let repository = NewsRepository(storage: storage, network: FileNewsNetwork())
      let served = sources()
      let library = ServedLibrary(repository: repository, sources: { served })
      let server = NewsServer(library: library, settings: NewsServer.Settings(listenHost: "127.0.0.1"))
      let running = try MicroHTTPDServer.start(host: "127.0.0.1", port: 0, handler: server.handler)
      let startRSS = statusKiB("VmRSS") ?? 0
      let anonymous = AnonymousPeakSampler()
      FileHandle.standardOutput.write(Data("port \(running.port)\n".utf8))
      let cpuStart = processCPUSeconds()
      // Blocks this thread only; libmicrohttpd's thread and the cooperative pool answer. A line `cpu` asks for the
      // CPU seconds spent so far (`cpu S`); the end of the input stops the server.
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
          while let line = readLine() {
            guard line == "cpu" else { continue }
            FileHandle.standardOutput.write(Data("cpu \(processCPUSeconds() - cpuStart)\n".utf8))
          }
          done.resume()
        }
      }
      let cpu = processCPUSeconds() - cpuStart
      await running.stop()
      let report = ChildReport(
        startRSSKiB: startRSS, peakKiB: peakResidentKiB() ?? 0, peakAnonymousKiB: anonymous.stop(),
        loadCPUSeconds: cpu)
      try printJSONLine(report)
      return 0
    } catch {
      FileHandle.standardError.write(Data("news-bench --serve-child: \(error)\n".utf8))
      return 1
    }
  }

  /// The whole run.
  static func run(options: Options, folder: String, selfPath: String) async throws -> Results {
    let clients = options.serveClients
    let requests = options.serveRequests
    let database = folder + "/serve.sqlite"
    try? FileManager.default.removeItem(atPath: database)
    progress("serve: building a store of \(options.articles) articles over \(sourceCount) sources")
    try await buildStore(articles: options.articles, seed: options.seed, folder: folder, database: database)

    let child = Process()
    child.executableURL = URL(fileURLWithPath: selfPath)
    child.arguments = ["--serve-child", database]
    let input = Pipe()
    let output = Pipe()
    child.standardInput = input
    child.standardOutput = output
    try child.run()
    var closed = false
    defer {
      if !closed {
        try? input.fileHandleForWriting.close()
        child.waitUntilExit()
      }
    }
    let reader = LineReader(output.fileHandleForReading)
    guard let line = reader.line(), line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
      throw BenchError("the server child did not start")
    }
    func serverCPU() throws -> Double {
      input.fileHandleForWriting.write(Data("cpu\n".utf8))
      guard let line = reader.line(), line.hasPrefix("cpu "), let seconds = Double(line.dropFirst(4)) else {
        throw BenchError("the server child did not report its CPU time")
      }
      return seconds
    }
    progress("serve: closed loop, \(clients) clients × \(requests) requests on 127.0.0.1:\(port)")

    // Warm-up: one client, a few of each.
    let warm = LoadClient.run(port: port, requests: 10)
    if let error = warm.error { throw BenchError("warm-up: \(error)") }

    let cpuStart = processCPUSeconds()
    let serverCPUStart = try serverCPU()
    let start = monotonicSeconds()
    let outcomes = LoadClient.concurrent(port: port, clients: clients, requests: requests)
    let seconds = monotonicSeconds() - start
    let clientCPU = processCPUSeconds() - cpuStart
    let serverCPUClosed = try serverCPU() - serverCPUStart
    let total = outcomes.answered

    var steps: [OpenLoopStep] = []
    let rates = options.serveRates ?? defaultRates(saturation: Double(total) / seconds, clients: clients)
    for rate in rates {
      progress(
        "serve: open loop, \(clients) clients × \(String(format: "%.2f", rate)) requests/s for "
          + "\(String(format: "%.0f", options.serveStepSeconds)) s")
      let cpuBefore = try serverCPU()
      let stepStart = monotonicSeconds()
      let stepOutcomes = LoadClient.openLoop(
        port: port, clients: clients, rate: rate, seconds: options.serveStepSeconds)
      let stepSeconds = monotonicSeconds() - stepStart
      let answered = stepOutcomes.answered
      steps.append(
        OpenLoopStep(
          ratePerClient: rate, offered: rate * Double(clients), achieved: Double(answered) / stepSeconds,
          seconds: stepSeconds, errors: stepOutcomes.errors, firstError: stepOutcomes.firstError,
          miniflux: stepOutcomes.latency(\.miniflux), reader: stepOutcomes.latency(\.reader),
          lateSends: stepOutcomes.reduce(0) { $0 + $1.late },
          serverCPUPerRequest: (try serverCPU() - cpuBefore) / Double(max(1, answered))))
    }

    try input.fileHandleForWriting.close()
    guard let reportLine = reader.line() else { throw BenchError("the server child reported nothing") }
    child.waitUntilExit()
    closed = true
    let report = try JSONDecoder().decode(ChildReport.self, from: Data(reportLine.utf8))

    progress("serve: the same selections directly on the store")
    let direct = try await directCalls(database: database, calls: options.quick ? 50 : 300)
    let date = ISO8601DateFormatter().string(from: Date())
    return Results(
      date: date, load: loadAverage(), articles: options.articles, sources: sourceCount, clients: clients,
      requestsPerClient: requests, errors: outcomes.errors, firstError: outcomes.firstError,
      seconds: seconds, requestsPerSecond: Double(total) / seconds,
      miniflux: Endpoint(
        path: minifluxPath, served: outcomes.latency(\.miniflux), direct: direct.miniflux,
        responseBytes: warm.minifluxBytes, directCount: direct.count),
      reader: Endpoint(
        path: readerPath, served: outcomes.latency(\.reader), direct: direct.reader,
        responseBytes: warm.readerBytes),
      server: report, clientCPUPerRequest: clientCPU / Double(max(1, total)),
      serverCPUPerRequest: serverCPUClosed / Double(max(1, total)), openLoop: steps)
  }

  /// The handlers' repository calls, one at a time: Miniflux's page of 100 with its count (concurrently, as the
  /// handler makes them), and Reader's 51 (`n` + 1, for the continuation), both newest first over every source.
  static func directCalls(database: String, calls: Int) async throws -> (
    miniflux: Latency, reader: Latency, count: Latency
  ) {
    let storage = try StorageContext(path: database)
    let repository = NewsRepository(storage: storage, network: FileNewsNetwork())
    let everything = ArticleSelection(sources: sources().map(\.match), sourceLookup: .scan)
    var miniflux = everything
    miniflux.limit = 100
    var reader = everything
    reader.limit = 51
    var minifluxSamples: [Double] = []
    var readerSamples: [Double] = []
    var countSamples: [Double] = []
    for round in 0..<(calls + 20) {
      var start = monotonicSeconds()
      async let page = repository.articles(selecting: miniflux)
      async let count = repository.count(selecting: miniflux)
      let (articles, _) = try await (page, count)
      let minifluxSeconds = monotonicSeconds() - start
      start = monotonicSeconds()
      let readerArticles = try await repository.articles(selecting: reader)
      let readerSeconds = monotonicSeconds() - start
      start = monotonicSeconds()
      _ = try await repository.count(selecting: miniflux)
      let countSeconds = monotonicSeconds() - start
      guard !articles.isEmpty, !readerArticles.isEmpty else { throw BenchError("the direct selections are empty") }
      if round >= 20 {
        minifluxSamples.append(minifluxSeconds)
        readerSamples.append(readerSeconds)
        countSamples.append(countSeconds)
      }
    }
    return (Latency(minifluxSamples), Latency(readerSamples), Latency(countSamples))
  }

  /// The text report.
  static func report(_ results: Results) -> String {
    let ms = Report.milli
    func ratio(_ served: Double, _ direct: Double) -> String {
      direct > 0 ? String(format: "%.1f×", served / direct) : "–"
    }
    func met(_ yes: Bool) -> String { yes ? "met" : "NOT met" }
    var text = """
      news serve under load (\(results.date), load average \(results.load))
        store: \(results.articles) articles over \(results.sources) sources; \(results.clients) keep-alive clients \
      over loopback
        closed loop (each client sends its next request when the last answer arrives), \(results.clients) × \
      \(results.requestsPerClient) requests:
        errors: \(results.errors)\(results.firstError.map { " (first: \($0))" } ?? "")
        requests/s: \(String(format: "%.0f", results.requestsPerSecond)) (\(String(format: "%.2f", results.seconds)) s): \
      the saturation throughput; p50 ≈ clients / throughput = \
      \(ms(Double(results.clients) / max(results.requestsPerSecond, 1e-9)))

      """
    for (name, endpoint) in [("Miniflux", results.miniflux), ("Reader", results.reader)] {
      let served = endpoint.served
      text += """
          \(name) GET \(endpoint.path) (\(endpoint.responseBytes) bytes)
            served  p50 \(ms(served.median))  p99 \(ms(served.p99))  max \(ms(served.max))  (\(served.calls) requests)
            direct  p50 \(ms(endpoint.direct.median))  p99 \(ms(endpoint.direct.p99))  (the repository calls, one at a time)\
        \(endpoint.directCount.map { "\n      of which count(selecting:) alone p50 \(ms($0.median))  p99 \(ms($0.p99))" } ?? "")
            served/direct  p50 \(ratio(served.median, endpoint.direct.median))  p99 \
        \(ratio(served.p99, endpoint.direct.p99))
            closed loop against the targets p50 ≤ 5 ms: \(met(served.median <= targetP50)); p99 ≤ 50 ms: \(met(served.p99 <= targetP99))

        """
    }
    let peak = results.server.peakKiB
    let own = results.server.peakAnonymousKiB
    text += """
        server memory: peak anonymous (RssAnon, sampled) \(own / 1024) MB; peak RSS (VmHWM) \(peak / 1024) MB, the \
      store's pages mapped read-only (SQLite's mmap, the kernel's page cache) included; \
      \(results.server.startRSSKiB / 1024) MB once listening; target ≤ 100 MB of its own: \(met(own <= targetMemoryKiB))
        CPU per request: server \(String(format: "%.0f", results.serverCPUPerRequest * 1e6)) µs, clients \
      \(String(format: "%.0f", results.clientCPUPerRequest * 1e6)) µs

        open loop (each client sends at a fixed rate; latency from each request's scheduled time):
          rate/client  offered/s  answered/s  errors  late  Miniflux p50 / p99   Reader p50 / p99     server CPU/req  \
      targets

      """
    for step in results.openLoop {
      let targets = [step.miniflux, step.reader].allSatisfy { $0.median <= targetP50 && $0.p99 <= targetP99 }
      text +=
        "    "
        + Report.pad(String(format: "%.2f/s", step.ratePerClient), 13)
        + Report.pad(String(format: "%.0f", step.offered), 11)
        + Report.pad(String(format: "%.0f", step.achieved), 12) + Report.pad("\(step.errors)", 8)
        + Report.pad("\(step.lateSends)", 6)
        + Report.pad("\(ms(step.miniflux.median)) / \(ms(step.miniflux.p99))", 21)
        + Report.pad("\(ms(step.reader.median)) / \(ms(step.reader.p99))", 21)
        + Report.pad(String(format: "%.0f µs", step.serverCPUPerRequest * 1e6), 16)
        + (step.errors == 0 && targets ? "met" : "NOT met")
        + (step.firstError.map { " (first error: \($0))" } ?? "") + "\n"
    }
    return text
  }
}

/// A thread-safe running count.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  /// Adds `count`, returning the value before.
  func advance(by count: Int) -> Int {
    lock.withLock {
      defer { value += count }
      return value
    }
  }
}

/// Reads lines from a pipe.
private final class LineReader {
  private let handle: FileHandle
  private var buffer = Data()
  init(_ handle: FileHandle) { self.handle = handle }

  func line() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer = Data(buffer[(newline + 1)...])
        return line
      }
      let more = handle.availableData
      if more.isEmpty { return nil }
      buffer.append(more)
    }
  }
}

/// One client: a keep-alive connection of blocking sockets, logging in through `/accounts/ClientLogin` and then
/// alternating the Miniflux and the Reader requests, in a closed loop (``concurrent(port:clients:requests:)``) or an
/// open one (``openLoop(port:clients:rate:seconds:)``).
private struct LoadClient {
  struct Outcome: Sendable {
    var miniflux: [Double] = []
    var reader: [Double] = []
    var errors = 0
    var error: String?
    var minifluxBytes = 0
    var readerBytes = 0
    /// Open loop: requests sent more than 1 ms after their scheduled time.
    var late = 0
  }

  /// A logged-in connection and its two requests.
  struct Session {
    let connection: Connection
    let minifluxRequest: String
    let readerRequest: String

    init(port: Int) throws {
      connection = try Connection(port: port)
      let login = try connection.exchange(
        "POST /accounts/ClientLogin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
          + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 25\r\n\r\n"
          + "Email=bench&Passwd=bench1")
      let body = String(decoding: login.body, as: UTF8.self)
      guard login.status == 200,
        let auth = body.split(separator: "\n").first(where: { $0.hasPrefix("Auth=") })?.dropFirst(5)
      else {
        connection.close()
        throw BenchError("ClientLogin: \(login.status)")
      }
      let host = "Host: 127.0.0.1:\(port)\r\n"
      minifluxRequest = "GET \(ServeBench.minifluxPath) HTTP/1.1\r\n\(host)\r\n"
      readerRequest =
        "GET \(ServeBench.readerPath) HTTP/1.1\r\n\(host)Authorization: GoogleLogin auth=\(auth)\r\n\r\n"
    }

    /// Sends one request and records its latency from `start` (monotonic seconds) in `outcome`, or an error for a
    /// status other than 200.
    ///
    /// - Throws: ``BenchError`` when the connection fails.
    func send(miniflux isMiniflux: Bool, since start: Double, into outcome: inout Outcome) throws {
      let response = try connection.exchange(isMiniflux ? minifluxRequest : readerRequest)
      let seconds = monotonicSeconds() - start
      guard response.status == 200 else {
        outcome.errors += 1
        outcome.error = outcome.error ?? "status \(response.status) for \(isMiniflux ? "Miniflux" : "Reader")"
        return
      }
      if isMiniflux {
        outcome.miniflux.append(seconds)
        outcome.minifluxBytes = response.body.count
      } else {
        outcome.reader.append(seconds)
        outcome.readerBytes = response.body.count
      }
    }
  }

  /// `clients` threads, started together.
  static func concurrent(port: Int, clients: Int, requests: Int) -> [Outcome] {
    let results = Outcomes(count: clients)
    let group = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    for index in 0..<clients {
      group.enter()
      Thread.detachNewThread {
        gate.wait()
        results.set(index, run(port: port, requests: requests))
        group.leave()
      }
    }
    for _ in 0..<clients { gate.signal() }
    group.wait()
    return results.all
  }

  /// One closed-loop client: `requests` requests, each sent when the last answer has arrived.
  static func run(port: Int, requests: Int) -> Outcome {
    var outcome = Outcome()
    do {
      let session = try Session(port: port)
      defer { session.connection.close() }
      outcome.miniflux.reserveCapacity(requests / 2 + 1)
      outcome.reader.reserveCapacity(requests / 2 + 1)
      for index in 0..<requests {
        try session.send(miniflux: index % 2 == 0, since: monotonicSeconds(), into: &outcome)
      }
    } catch {
      outcome.errors += max(1, requests - outcome.miniflux.count - outcome.reader.count)
      outcome.error = "\(error)"
    }
    return outcome
  }

  /// `clients` threads, each logged in on its connection and then sending `rate` requests a second for `seconds`,
  /// whatever the answers do: request k of client i is due at `start + (i / clients + k) / rate` (the clients
  /// spread evenly over one interval) and its latency counts from then, so that an answer that comes late delays the
  /// next request and counts in its latency too (no coordinated omission). Client i starts with Miniflux when i is
  /// even, Reader when odd, and alternates.
  static func openLoop(port: Int, clients: Int, rate: Double, seconds: Double) -> [Outcome] {
    let results = Outcomes(count: clients)
    let group = DispatchGroup()
    let ready = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let start = StartTime()
    let interval = 1 / rate
    let count = max(1, Int((seconds * rate).rounded()))
    for index in 0..<clients {
      group.enter()
      Thread.detachNewThread {
        var outcome = Outcome()
        var session: Session?
        do {
          session = try Session(port: port)
        } catch {
          outcome.errors += count
          outcome.error = "\(error)"
        }
        ready.signal()
        gate.wait()
        if let session {
          let first = start.value + interval * Double(index) / Double(clients)
          var sent = 0
          do {
            for k in 0..<count {
              let due = first + Double(k) * interval
              let wait = due - monotonicSeconds()
              if wait > 0 { Thread.sleep(forTimeInterval: wait) } else if wait < -0.001 { outcome.late += 1 }
              try session.send(miniflux: (index + k) % 2 == 0, since: due, into: &outcome)
              sent += 1
            }
          } catch {
            outcome.errors += count - sent
            outcome.error = "\(error)"
          }
          session.connection.close()
        }
        results.set(index, outcome)
        group.leave()
      }
    }
    for _ in 0..<clients { ready.wait() }
    start.value = monotonicSeconds() + 0.05
    for _ in 0..<clients { gate.signal() }
    group.wait()
    return results.all
  }
}

/// The figures of a loop over all its clients.
extension [LoadClient.Outcome] {
  /// Requests answered `200`.
  fileprivate var answered: Int { reduce(0) { $0 + $1.miniflux.count + $1.reader.count } }
  /// Requests not answered `200`.
  fileprivate var errors: Int { reduce(0) { $0 + $1.errors } }
  /// The first error of the first client that had one.
  fileprivate var firstError: String? { lazy.compactMap(\.error).first }

  /// The latency of one of the two requests (`\.miniflux`, `\.reader`) over all the clients.
  fileprivate func latency(_ request: KeyPath<LoadClient.Outcome, [Double]>) -> Latency {
    Latency(flatMap { $0[keyPath: request] })
  }
}

/// The open loop's common start, set once every client has logged in.
private final class StartTime: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds = 0.0
  var value: Double {
    get { lock.withLock { seconds } }
    set { lock.withLock { seconds = newValue } }
  }
}

private final class Outcomes: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [LoadClient.Outcome]
  init(count: Int) { values = Array(repeating: LoadClient.Outcome(), count: count) }
  func set(_ index: Int, _ value: LoadClient.Outcome) { lock.withLock { values[index] = value } }
  var all: [LoadClient.Outcome] { lock.withLock { values } }
}

/// A blocking TCP connection to 127.0.0.1 that sends a request and reads one `Content-Length` response.
private final class Connection {
  private let socketFD: Int32
  private var buffer: [UInt8] = []
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

  init(port: Int) throws {
    socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    let connected = withLoopbackAddress(port: UInt16(port)) { address, length in
      Glibc.connect(socketFD, address, length) == 0
    }.result
    guard connected else {
      let message = String(cString: strerror(errno))
      Glibc.close(socketFD)
      throw BenchError("connect 127.0.0.1:\(port): \(message)")
    }
  }

  func close() { Glibc.close(socketFD) }

  func exchange(_ request: String) throws -> (status: Int, body: [UInt8]) {
    var bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeMutableBytes { raw in
        send(socketFD, raw.baseAddress.map { $0 + sent }, raw.count - sent, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { throw BenchError("send: \(String(cString: strerror(errno)))") }
      sent += count
    }
    bytes.removeAll()
    var headerEnd: Int?
    while headerEnd == nil {
      headerEnd = Self.headerEnd(buffer)
      if headerEnd == nil { try receive() }
    }
    guard let end = headerEnd else { throw BenchError("no header") }
    let head = String(decoding: buffer[0..<end], as: UTF8.self)
    let lines = head.split(separator: "\r\n")
    let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
    var length = 0
    for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
      length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    if lines.contains(where: { $0.lowercased().hasPrefix("transfer-encoding:") }) {
      throw BenchError("a response without Content-Length")
    }
    let bodyStart = end + 4
    while buffer.count < bodyStart + length { try receive() }
    let body = Array(buffer[bodyStart..<(bodyStart + length)])
    buffer.removeFirst(bodyStart + length)
    return (status, body)
  }

  private func receive() throws {
    let count = chunk.withUnsafeMutableBytes { raw in recv(socketFD, raw.baseAddress, raw.count, 0) }
    guard count > 0 else { throw BenchError(count == 0 ? "connection closed" : String(cString: strerror(errno))) }
    buffer.append(contentsOf: chunk[0..<count])
  }

  private static func headerEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4)
    where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
      return index
    }
    return nil
  }
}
