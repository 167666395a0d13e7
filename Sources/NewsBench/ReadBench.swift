import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

#if canImport(Glibc)
  import Glibc
#endif

/// Latency of one kind of call, over many calls.
struct Latency: Codable, Sendable {
  var calls: Int
  var median: Double
  var p99: Double
  var min: Double
  var max: Double

  /// `samples` in seconds; the figures are kept in seconds too.
  init(_ samples: [Double]) {
    let sorted = samples.sorted()
    calls = sorted.count
    median = sorted.isEmpty ? 0 : percentile(sorted, 50)
    p99 = sorted.isEmpty ? 0 : percentile(sorted, 99)
    min = sorted.first ?? 0
    max = sorted.last ?? 0
  }
}

/// The nearest-rank percentile of sorted samples (`p` in 0…100).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
  guard !sorted.isEmpty else { return 0 }
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
  return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
}

/// The median of unsorted samples (the lower middle for an even count is not used: the mean of the two middles is).
func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// In-process reads through `NewsRepository`, on a database an import filled.
enum ReadBench {
  /// `repository.read(limit: 50)`, the newest 50 of the whole cache, `calls` times after a warm-up.
  static func newest50(database: String, calls: Int) async throws -> (rows: Int, latency: Latency) {
    let storage = try StorageContext(path: database)
    let repository = NewsRepository(storage: storage, network: FileNewsNetwork())
    let rows = try await storage.articleCount()
    for _ in 0..<100 { _ = try await repository.read(limit: 50) }
    var samples: [Double] = []
    samples.reserveCapacity(calls)
    for _ in 0..<calls {
      let start = monotonicSeconds()
      let articles = try await repository.read(limit: 50)
      samples.append(monotonicSeconds() - start)
      guard articles.count == Swift.min(50, rows) else { throw BenchError("read(limit: 50) gave \(articles.count)") }
    }
    return (rows, Latency(samples))
  }

  struct Refused: Codable, Sendable {
    var cachedRows: Int
    var cacheRead: Latency
    var networkFirst: Latency
    /// `networkFirst.median - cacheRead.median`, seconds.
    var difference: Double
    var networkError: String
  }

  /// Network-first (`articles(for:)`) against a port that refuses connections, versus the pure cache read
  /// (`cachedArticles(for:)`) of the same query, interleaved call by call so that drift hits both alike.
  ///
  /// The query's cache holds one NewsAPI page (100 articles) in the big database.
  static func refused(database: String, calls: Int) async throws -> Refused {
    let storage = try StorageContext(path: database)
    let port = try closedPort()
    guard let url = URL(string: "http://127.0.0.1:\(port)/v2/top-headlines?country=us&pageSize=100") else {
      throw BenchError("bad loopback URL")
    }
    let query = NewsQuery(url: url)
    let page = try await storage.articles(limit: 100)
    try await storage.saveArticles(page, forQuery: query.cacheKey, fetchedAt: .now())
    let repository = NewsRepository(
      storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 5))

    var firstError = ""
    for _ in 0..<10 {
      _ = try await repository.cachedArticles(for: query)
      firstError = try await repository.articles(for: query).networkError?.description ?? "none"
    }
    var cacheSamples: [Double] = []
    var networkSamples: [Double] = []
    for _ in 0..<calls {
      var start = monotonicSeconds()
      let cached = try await repository.cachedArticles(for: query)
      cacheSamples.append(monotonicSeconds() - start)
      start = monotonicSeconds()
      let result = try await repository.articles(for: query)
      networkSamples.append(monotonicSeconds() - start)
      guard result.origin == .cache, result.networkError != nil, result.articles.count == cached.articles.count else {
        throw BenchError("network-first did not fall back to the cache: \(result.origin), \(result.articles.count)")
      }
    }
    let cacheRead = Latency(cacheSamples)
    let networkFirst = Latency(networkSamples)
    return Refused(
      cachedRows: page.count, cacheRead: cacheRead, networkFirst: networkFirst,
      difference: networkFirst.median - cacheRead.median, networkError: firstError)
  }

  /// A loopback port nothing listens on: bind an ephemeral port, read its number, close it.
  static func closedPort() throws -> UInt16 {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    defer { close(socketFD) }
    let (bound, port) = withLoopbackAddress(port: 0) { address, length in
      bind(socketFD, address, length) == 0 && getsockname(socketFD, address, &length) == 0
    }
    guard bound else { throw BenchError("bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
    return port
  }
}
