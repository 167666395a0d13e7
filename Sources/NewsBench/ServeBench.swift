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
/// alternate `GET /v1/entries?limit=100` (Miniflux) and the Reader reading list (`n=50`), R requests each. The same
/// two selections are then run directly on the store through `NewsRepository`, one call at a time.
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
    /// `VmHWM` at the end.
    var peakKiB: Int
    /// The child's CPU seconds during the load.
    var loadCPUSeconds: Double
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
    /// CPU seconds of the server per request, during the load.
    var serverCPUPerRequest: Double
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

  /// `news-bench --serve-child DB`: serves `DB` on 127.0.0.1 (a free port), prints `port N` and, once its standard
  /// input closes, stops and prints a ``ChildReport`` as one JSON line.
  static func child(database: String) async -> Int32 {
    do {
      let storage = try StorageContext(path: database)
      let repository = NewsRepository(storage: storage, network: FileNewsNetwork())
      let served = sources()
      let library = ServedLibrary(repository: repository, sources: { served })
      let server = NewsServer(library: library, settings: NewsServer.Settings(listenHost: "127.0.0.1"))
      let running = try MicroHTTPDServer.start(host: "127.0.0.1", port: 0, handler: server.handler)
      let startRSS = residentKiB() ?? 0
      FileHandle.standardOutput.write(Data("port \(running.port)\n".utf8))
      let cpuStart = processCPUSeconds()
      // Blocks this thread only; libmicrohttpd's thread and the cooperative pool answer.
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
          _ = FileHandle.standardInput.readDataToEndOfFile()
          done.resume()
        }
      }
      let cpu = processCPUSeconds() - cpuStart
      await running.stop()
      let report = ChildReport(startRSSKiB: startRSS, peakKiB: peakResidentKiB() ?? 0, loadCPUSeconds: cpu)
      FileHandle.standardOutput.write(try JSONEncoder().encode(report) + Data("\n".utf8))
      return 0
    } catch {
      FileHandle.standardError.write(Data("news-bench --serve-child: \(error)\n".utf8))
      return 1
    }
  }

  /// `VmRSS` of this process, KiB.
  static func residentKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return Int(line.dropFirst("VmRSS:".count).filter(\.isNumber))
    }
    return nil
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
    progress("serve: \(clients) clients × \(requests) requests on 127.0.0.1:\(port)")

    // Warm-up: one client, a few of each.
    let warm = LoadClient.run(port: port, requests: 10)
    if let error = warm.error { throw BenchError("warm-up: \(error)") }

    let cpuStart = processCPUSeconds()
    let start = monotonicSeconds()
    let outcomes = LoadClient.concurrent(port: port, clients: clients, requests: requests)
    let seconds = monotonicSeconds() - start
    let clientCPU = processCPUSeconds() - cpuStart

    try input.fileHandleForWriting.close()
    guard let reportLine = reader.line() else { throw BenchError("the server child reported nothing") }
    child.waitUntilExit()
    closed = true
    let report = try JSONDecoder().decode(ChildReport.self, from: Data(reportLine.utf8))

    progress("serve: the same selections directly on the store")
    let direct = try await directCalls(database: database, calls: options.quick ? 50 : 300)
    let total = outcomes.reduce(0) { $0 + $1.miniflux.count + $1.reader.count }
    let errors = outcomes.reduce(0) { $0 + $1.errors }
    let date = ISO8601DateFormatter().string(from: Date())
    return Results(
      date: date, load: loadAverage(), articles: options.articles, sources: sourceCount, clients: clients,
      requestsPerClient: requests, errors: errors, firstError: outcomes.lazy.compactMap(\.error).first,
      seconds: seconds, requestsPerSecond: Double(total) / seconds,
      miniflux: Endpoint(
        path: minifluxPath, served: Latency(outcomes.flatMap(\.miniflux)), direct: direct.miniflux,
        responseBytes: warm.minifluxBytes, directCount: direct.count),
      reader: Endpoint(
        path: readerPath, served: Latency(outcomes.flatMap(\.reader)), direct: direct.reader,
        responseBytes: warm.readerBytes),
      server: report, clientCPUPerRequest: clientCPU / Double(max(1, total)),
      serverCPUPerRequest: report.loadCPUSeconds / Double(max(1, total)))
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

  static func progress(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// The text report.
  static func report(_ results: Results) -> String {
    func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    func ratio(_ served: Double, _ direct: Double) -> String {
      direct > 0 ? String(format: "%.1f×", served / direct) : "–"
    }
    func met(_ yes: Bool) -> String { yes ? "met" : "NOT met" }
    var text = """
      news serve under load (\(results.date), load average \(results.load))
        store: \(results.articles) articles over \(results.sources) sources; \(results.clients) clients × \
      \(results.requestsPerClient) requests, keep-alive, over loopback
        errors: \(results.errors)\(results.firstError.map { " (first: \($0))" } ?? "")
        requests/s: \(String(format: "%.0f", results.requestsPerSecond)) (\(String(format: "%.2f", results.seconds)) s)

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
            target p50 ≤ 5 ms: \(met(served.median <= targetP50)); p99 ≤ 50 ms: \(met(served.p99 <= targetP99))

        """
    }
    let peak = results.server.peakKiB
    text += """
        server memory: peak RSS (VmHWM) \(peak / 1024) MB, \(results.server.startRSSKiB / 1024) MB once listening; \
      target ≤ 100 MB: \(met(peak <= targetMemoryKiB))
        CPU per request: server \(String(format: "%.0f", results.serverCPUPerRequest * 1e6)) µs, clients \
      \(String(format: "%.0f", results.clientCPUPerRequest * 1e6)) µs

      """
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
/// alternating the Miniflux and the Reader requests.
private struct LoadClient {
  struct Outcome: Sendable {
    var miniflux: [Double] = []
    var reader: [Double] = []
    var errors = 0
    var error: String?
    var minifluxBytes = 0
    var readerBytes = 0
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

  static func run(port: Int, requests: Int) -> Outcome {
    var outcome = Outcome()
    do {
      let connection = try Connection(port: port)
      defer { connection.close() }
      let login = try connection.exchange(
        "POST /accounts/ClientLogin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
          + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 25\r\n\r\n"
          + "Email=bench&Passwd=bench1")
      let body = String(decoding: login.body, as: UTF8.self)
      guard login.status == 200,
        let auth = body.split(separator: "\n").first(where: { $0.hasPrefix("Auth=") })?.dropFirst(5)
      else {
        throw BenchError("ClientLogin: \(login.status)")
      }
      let host = "Host: 127.0.0.1:\(port)\r\n"
      let minifluxRequest = "GET \(ServeBench.minifluxPath) HTTP/1.1\r\n\(host)\r\n"
      let readerRequest =
        "GET \(ServeBench.readerPath) HTTP/1.1\r\n\(host)Authorization: GoogleLogin auth=\(auth)\r\n\r\n"
      outcome.miniflux.reserveCapacity(requests / 2 + 1)
      outcome.reader.reserveCapacity(requests / 2 + 1)
      for index in 0..<requests {
        let isMiniflux = index % 2 == 0
        let start = monotonicSeconds()
        let response = try connection.exchange(isMiniflux ? minifluxRequest : readerRequest)
        let seconds = monotonicSeconds() - start
        guard response.status == 200 else {
          outcome.errors += 1
          outcome.error = outcome.error ?? "status \(response.status) for \(isMiniflux ? "Miniflux" : "Reader")"
          continue
        }
        if isMiniflux {
          outcome.miniflux.append(seconds)
          outcome.minifluxBytes = response.body.count
        } else {
          outcome.reader.append(seconds)
          outcome.readerBytes = response.body.count
        }
      }
    } catch {
      outcome.errors += max(1, requests - outcome.miniflux.count - outcome.reader.count)
      outcome.error = "\(error)"
    }
    return outcome
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
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        Glibc.connect(socketFD, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
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
