import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// Everything at once on one database, a fixed number of calls each (not a time window: on a loaded machine a
/// window can pass before a task runs): network-first reads of one query whose server
/// alternates between two answers, cache reads of the same query, reads of the newest rows, and a writer saving
/// large pages of another query. Nothing fails, every result is exactly one whole answer, refreshes in flight are
/// shared, and the file is intact at the end.
@Suite("Stress: readers, a writer and repository calls on the same query")
struct StressTests {
  static let titlesA = Set(["Middle", "Newest", "Oldest"])
  static let titlesB = Set(["Middle (updated)", "Fresh"])

  static func bulkPage(_ round: Int) -> [Article] {
    (0..<500).map { index in
      Article(
        url: URL(fileURLWithPath: "/bulk/\(index)"), title: "Bulk \(index) round \(round)",
        publishedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
    }
  }

  @Test("network-first and cache reads of one query, newest-rows reads and a bulk writer, concurrently")
  func everythingAtOnce() async throws {
    let directory = TemporaryDirectory("stress")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let server = try LoopbackHTTPServer()
    defer { server.stop() }
    let served = Atomic(0)
    server.router = { _ in
      let body =
        served.add(1, ordering: .relaxed).newValue.isMultiple(of: 2)
        ? NewsRepositoryTests.laterBody : NewsRepositoryTests.firstBody
      return .delayed(0.02, then: .json(body))
    }
    let repository = NewsRepository(storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 10))
    let query = NewsQuery(url: server.url("/v2/top-headlines?country=us"))
    let bulkQuery = "bulk-query"

    let (networkCalls, observed) = try await withThrowingTaskGroup(of: (Int, [Set<String>]).self) { group in
      for _ in 0..<6 {
        group.addTask {
          var seen: [Set<String>] = []
          var calls = 0
          for _ in 0..<25 {
            let result = try await repository.articles(for: query)
            calls += 1
            seen.append(Set(result.articles.map(\.title)))
          }
          return (calls, seen)
        }
      }
      for _ in 0..<4 {
        group.addTask {
          var seen: [Set<String>] = []
          for _ in 0..<100 {
            let result = try await repository.cachedArticles(for: query)
            if !result.articles.isEmpty { seen.append(Set(result.articles.map(\.title))) }
            _ = try await storage.articles(limit: 50)
          }
          return (0, seen)
        }
      }
      group.addTask {
        for round in 1...8 {
          _ = try await storage.saveArticles(Self.bulkPage(round), forQuery: bulkQuery, fetchedAt: .now())
        }
        return (0, [])
      }
      var calls = 0
      var observed: [Set<String>] = []
      for try await (count, seen) in group {
        calls += count
        observed += seen
      }
      return (calls, observed)
    }

    #expect(networkCalls == 6 * 25)
    #expect(!observed.isEmpty)
    let torn = observed.filter { $0 != Self.titlesA && $0 != Self.titlesB }
    #expect(torn.isEmpty, "results that were not one whole answer: \(torn.prefix(3))")
    // Concurrent network-first reads share refreshes: fewer requests than calls.
    #expect(server.requests.count < networkCalls, "\(server.requests.count) requests for \(networkCalls) calls")
    let integrity = try await storage.read { db in try db.scalarString("PRAGMA integrity_check") }
    #expect(integrity == "ok")
    #expect(try await storage.articleCount() == 500 + 4)
    print(
      "◇ stress: \(networkCalls) network-first calls, \(server.requests.count) requests, \(observed.count) reads checked"
    )
  }
}
