import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

@testable import OfflineNews

/// Concurrent reads of the same query share one request.
@Suite("De-duplication of concurrent reads")
struct DeduplicationTests {
  /// Runs `count` reads at once and returns their results.
  static func concurrently(
    _ count: Int, _ read: @escaping @Sendable (Int) async throws(NewsRepositoryError) -> NewsResult
  ) async throws -> [NewsResult] {
    try await withThrowingTaskGroup(of: NewsResult.self) { group in
      for index in 0..<count { group.addTask { try await read(index) } }
      var results: [NewsResult] = []
      for try await result in group { results.append(result) }
      return results
    }
  }

  @Test("eight concurrent reads of one query: one request at the server, the same rows for all")
  func concurrentReadsShareOneRequest() async throws {
    let setup = try PolicySetup(.delayed(1, then: .json(NewsRepositoryTests.firstBody)), timeout: 5)
    defer { setup.server.stop() }
    let repository = setup.repository
    let query = setup.query

    let results = try await Self.concurrently(8) { _ throws(NewsRepositoryError) in
      try await repository.articles(for: query)
    }

    #expect(setup.server.requests.count == 1)
    #expect(results.count == 8)
    #expect(results.allSatisfy { $0.origin == .network })
    #expect(Set(results.map { $0.articles.map(\.title) }) == [CachePolicyTests.firstTitles])
    #expect(try await setup.storage.articleCount() == 3)
  }

  @Test("reads by different policies share the refresh in flight")
  func policiesShare() async throws {
    let setup = try PolicySetup(.delayed(1, then: .json(NewsRepositoryTests.firstBody)), timeout: 5)
    defer { setup.server.stop() }
    let repository = setup.repository
    let query = setup.query
    let policies: [CachePolicy] = [.networkFirst, .networkOnly, .cacheFirst, .cacheThenNetwork]

    let results = try await Self.concurrently(policies.count) { index throws(NewsRepositoryError) in
      try await repository.articles(for: query, policy: policies[index])
    }

    #expect(setup.server.requests.count == 1)
    #expect(results.allSatisfy { $0.origin == .network && $0.articles.count == 3 })
  }

  @Test("a failure is shared too: one request, every read gets the cache with the same cause")
  func failureShared() async throws {
    let setup = try PolicySetup(timeout: 5, attempts: 3)
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.server.behaviour = .respond(status: 500, body: Data("boom".utf8))
    setup.server.enqueue(.delayed(1, then: .respond(status: 500, body: Data("boom".utf8))))
    let repository = setup.repository
    let query = setup.query

    let results = try await Self.concurrently(5) { _ throws(NewsRepositoryError) in
      try await repository.articles(for: query)
    }

    #expect(setup.server.requests.count == 1 + 3)  // one refresh, retried twice
    #expect(results.allSatisfy { $0.origin == .cache && $0.networkError == .httpStatus(500, bodyPrefix: "boom") })
  }

  @Test("different queries are not merged; a read after a refresh ended makes a new request")
  func distinctAndSequential() async throws {
    let setup = try PolicySetup(.delayed(0.2, then: .json(NewsRepositoryTests.firstBody)), timeout: 5)
    defer { setup.server.stop() }
    let repository = setup.repository
    let queries = [setup.query, NewsQuery(url: setup.server.url("/v2/top-headlines?country=fr"))]

    _ = try await Self.concurrently(2) { index throws(NewsRepositoryError) in
      try await repository.articles(for: queries[index])
    }
    #expect(setup.server.requests.count == 2)
    #expect(
      Set(setup.server.requests.map(\.target)) == ["/v2/top-headlines?country=gb", "/v2/top-headlines?country=fr"])

    _ = try await repository.articles(for: queries[0])
    #expect(setup.server.requests.count == 3)
  }

  @Test("a read arriving after another read's deadline joins the request still in flight")
  func lateJoinerAfterDeadline() async throws {
    let setup = try PolicySetup(timeout: 10, deadline: 0.2)
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.server.behaviour = .delayed(3, then: .json(NewsRepositoryTests.laterBody))

    let early = try await setup.repository.articles(for: setup.query)
    #expect(early.origin == .cache)
    let late = try await setup.repository.articles(for: setup.query, policy: .networkOnly)

    #expect(late.origin == .network)
    #expect(late.articles.map(\.title) == CachePolicyTests.laterTitles)
    #expect(setup.server.requests.count == 2)
  }

  /// A network that counts its calls and answers only when released.
  final class GatedNetwork: NewsNetwork {
    private let state = Mutex<(calls: Int, waiting: [CheckedContinuation<Void, Never>], open: Bool)>((0, [], false))
    let page: NewsPage

    init(page: NewsPage) { self.page = page }

    var calls: Int { state.withLock { $0.calls } }

    var isReleased: Bool { state.withLock { $0.open } }

    func release() {
      let waiting = state.withLock { state in
        state.open = true
        defer { state.waiting = [] }
        return state.waiting
      }
      for continuation in waiting { continuation.resume() }
    }

    func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let open = state.withLock { state in
          state.calls += 1
          if !state.open { state.waiting.append(continuation) }
          return state.open
        }
        if open { continuation.resume() }
      }
      return page
    }
  }

  @Test("with an injected network held open: 20 concurrent reads, one call", .timeLimit(.minutes(5)))
  func injectedNetworkCalledOnce() async throws {
    let directory = TemporaryDirectory("dedup-injected")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let article = Article(
      url: try #require(URL(string: "https://example.org/a")), title: "A", author: nil, summary: nil, imageURL: nil,
      publishedAt: Date(timeIntervalSince1970: 1_700_000_000), content: nil, sourceID: nil, sourceName: nil)
    let network = GatedNetwork(page: NewsPage(articles: [article]))
    let repository = NewsRepository(storage: storage, network: network)
    let query = NewsQuery(url: try #require(URL(string: "https://newsapi.invalid/v2/top-headlines")))

    async let results = Self.concurrently(20) { _ throws(NewsRepositoryError) in
      try await repository.articles(for: query)
    }
    // The network does not answer until every read has joined the one refresh.
    await repository.waitForReaders(20, of: query)
    network.release()

    #expect(try await results.allSatisfy { $0.articles.map(\.title) == ["A"] })
    #expect(network.calls == 1)
  }
}
