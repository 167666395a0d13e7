import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

// MARK: - Shared support for the policy, retry, conditional-request and de-duplication suites

/// A clock the test moves by hand.
final class TestClock: Sendable {
  private let current: Mutex<Timestamp>

  init(_ start: Timestamp = NewsRepositoryTests.firstFetchedAt) {
    current = Mutex(start)
  }

  var now: Timestamp { current.withLock { $0 } }

  func advance(seconds: Double) {
    current.withLock { $0 = Timestamp(millisecondsSince1970: $0.millisecondsSince1970 + Int64(seconds * 1000)) }
  }
}

/// Records the waits a ``RetryPolicy`` asks for, and returns at once: tests never wait for a backoff.
final class SleepRecorder: Sendable {
  private let recorded = Mutex<[TimeInterval]>([])

  var delays: [TimeInterval] { recorded.withLock { $0 } }

  func sleep(_ seconds: TimeInterval) async throws {
    recorded.withLock { $0.append(seconds) }
  }

  /// A policy of `attempts` attempts whose waits are recorded, not waited; jitter takes the cap.
  func policy(attempts: Int = 3, maxTotalTime: TimeInterval? = nil) -> RetryPolicy {
    RetryPolicy(
      maxAttempts: attempts, initialDelay: 0.01, maxDelay: 0.04, maxTotalTime: maxTotalTime,
      sleep: { try await self.sleep($0) }, random: { $0.upperBound })
  }
}

/// A fresh database, a loopback server answering ``NewsRepositoryTests/firstBody``, a network with a recorded retry
/// policy, and a repository on a hand-moved clock.
struct PolicySetup {
  let directory = TemporaryDirectory("policy-tests")
  let storage: StorageContext
  let server: LoopbackHTTPServer
  let clock = TestClock()
  let sleeps = SleepRecorder()
  let network: HTTPNewsNetwork
  let repository: NewsRepository
  let query: NewsQuery

  init(
    _ behaviour: LoopbackHTTPServer.Behaviour = .json(NewsRepositoryTests.firstBody), timeout: TimeInterval = 1,
    attempts: Int = 1, maxTotalTime: TimeInterval? = nil, deadline: TimeInterval? = nil,
    path: String = NewsRepositoryTests.path
  ) throws {
    storage = try StorageContext(path: directory.path("news.sqlite"))
    server = try LoopbackHTTPServer(behaviour)
    network = HTTPNewsNetwork(
      apiKey: NewsRepositoryTests.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: timeout,
      retry: sleeps.policy(attempts: attempts, maxTotalTime: maxTotalTime))
    let clock = self.clock
    repository = NewsRepository(storage: storage, network: network, clock: { clock.now }, deadline: deadline)
    query = NewsQuery(url: server.url(path))
  }

  /// Every stored row that a refresh may change, except the last-error columns: articles, result lists, and the
  /// fetch log with its max-age and validators.
  func snapshot() async throws -> [String: [[String]]] {
    let selects = [
      "article":
        "SELECT url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName, fetchedAt, "
        + "fetchQuery FROM article ORDER BY url",
      "query_result": "SELECT query, url, position FROM query_result ORDER BY query, url",
      "query_fetch":
        "SELECT query, fetchedAt, articleCount, maxAge, etag, lastModified FROM query_fetch ORDER BY query",
    ]
    var tables: [String: [[String]]] = [:]
    for (name, sql) in selects {
      tables[name] = try await storage.read { db in
        try db.makeStatement(sql).fetchAll { row in
          (0..<row.count).map { row.isNull($0) ? "NULL" : row.string($0) ?? "?" }
        }
      }
    }
    return tables
  }

  /// The query's fetch record.
  func record() async throws -> FetchRecord? {
    try await storage.fetchRecord(forQuery: query.cacheKey)
  }
}

/// Runs a read expected to throw, and returns its error.
func repositoryError(_ body: () async throws(NewsRepositoryError) -> NewsResult) async -> NewsRepositoryError? {
  do {
    let result = try await body()
    Issue.record("expected an error, got \(result.origin) with \(result.articles.count) rows")
    return nil
  } catch {
    return error
  }
}

// MARK: - The policies

@Suite("Cache policies and freshness")
struct CachePolicyTests {
  static let firstTitles = ["Newest", "Middle", "Oldest"]
  static let laterTitles = ["Fresh", "Middle (updated)"]

  @Test("network-first is articles(for:)'s policy: saved, origin network, age 0, fresh")
  func networkFirstIsTheDefault() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }

    let plain = try await setup.repository.articles(for: setup.query)
    let named = try await setup.repository.articles(for: setup.query, policy: .networkFirst)

    for result in [plain, named] {
      #expect(result.origin == .network)
      #expect(result.articles.map(\.title) == Self.firstTitles)
      #expect(result.age == 0)
      #expect(result.maxAge == nil)
      #expect(!result.isStale)
      #expect(!result.revalidated)
    }
    #expect(setup.server.requests.count == 2)
  }

  @Test("cache-first serves fresh rows without a request, with their age; stale rows are fetched again")
  func cacheFirstFreshThenStale() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query, policy: .networkFirst, maxAge: 600)
    #expect(try await setup.record()?.maxAge == 600)

    setup.clock.advance(seconds: 599.5)
    let fresh = try await setup.repository.articles(for: setup.query, policy: .cacheFirst)
    #expect(fresh.origin == .cache)
    #expect(fresh.networkError == nil)
    #expect(fresh.age == 599.5)
    #expect(fresh.maxAge == 600)  // the stored one
    #expect(!fresh.isStale)
    #expect(fresh.articles.map(\.title) == Self.firstTitles)
    #expect(setup.server.requests.count == 1)

    // A shorter max-age given to the call makes the same rows stale.
    setup.server.behaviour = .json(NewsRepositoryTests.laterBody)
    let refetched = try await setup.repository.articles(for: setup.query, policy: .cacheFirst, maxAge: 60)
    #expect(refetched.origin == .network)
    #expect(refetched.articles.map(\.title) == Self.laterTitles)
    #expect(refetched.fetchedTimestamp == setup.clock.now)
    #expect(refetched.maxAge == 60)
    #expect(setup.server.requests.count == 2)
    #expect(try await setup.record()?.maxAge == 60)
  }

  @Test("cache-first with stale rows and a failing network serves the stale rows with the cause; cache unchanged")
  func cacheFirstStaleFallback() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query, policy: .cacheFirst, maxAge: 60)
    let before = try await setup.snapshot()

    setup.clock.advance(seconds: 3600)
    setup.server.behaviour = .respond(status: 500, headers: ["Content-Type": "text/plain"], body: Data("down".utf8))
    let result = try await setup.repository.articles(for: setup.query, policy: .cacheFirst)

    #expect(result.origin == .cache)
    #expect(result.isStale)
    #expect(result.age == 3600)
    #expect(result.networkError == .httpStatus(500, bodyPrefix: "down"))
    #expect(result.articles.map(\.title) == Self.firstTitles)
    #expect(try await setup.snapshot() == before)
    let record = try await setup.record()
    #expect(record?.lastError == "HTTP 500 Internal Server Error: down")
    #expect(record?.lastErrorAt == setup.clock.now)
  }

  @Test("the max-age is stored with the fetch: a new storage context and repository still know it")
  func maxAgeSurvivesReopening() async throws {
    let directory = TemporaryDirectory("policy-reopen")
    let server = try LoopbackHTTPServer(.json(NewsRepositoryTests.firstBody))
    defer { server.stop() }
    let query = NewsQuery(url: server.url(NewsRepositoryTests.path))
    let path = directory.path("news.sqlite")
    do {
      let storage = try StorageContext(path: path)
      let repository = NewsRepository(
        storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 1),
        clock: { NewsRepositoryTests.firstFetchedAt })
      _ = try await repository.articles(for: query, policy: .networkFirst, maxAge: 900)
    }
    let storage = try StorageContext(path: path)
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    let later = Timestamp(millisecondsSince1970: NewsRepositoryTests.firstFetchedAt.millisecondsSince1970 + 901_000)
    let repository = NewsRepository(
      storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 1), clock: { later })

    let cached = try await repository.articles(for: query, policy: .cacheOnly)
    #expect(cached.maxAge == 900)
    #expect(cached.age == 901)
    #expect(cached.isStale)
    #expect(try await storage.fetchRecord(forQuery: query.cacheKey)?.maxAge == 900)
    #expect(server.requests.count == 1)
  }

  @Test("cache-only never asks the network; nothing cached is an empty result, not an error")
  func cacheOnly() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }

    let miss = try await setup.repository.articles(for: setup.query, policy: .cacheOnly)
    #expect(miss.isCacheMiss)
    #expect(miss.origin == .cache)
    #expect(miss.articles.isEmpty)
    #expect(miss.fetchedTimestamp == nil)
    #expect(miss.age == nil)
    #expect(miss.isStale)
    #expect(miss.networkError == nil)
    #expect(setup.server.requests.isEmpty)

    _ = try await setup.repository.articles(for: setup.query)
    setup.server.stop()
    setup.clock.advance(seconds: 30)
    let hit = try await setup.repository.articles(for: setup.query, policy: .cacheOnly, limit: 2)
    #expect(!hit.isCacheMiss)
    #expect(hit.articles.map(\.title) == ["Newest", "Middle"])
    #expect(hit.age == 30)
    #expect(hit.networkError == nil)
    #expect(setup.server.requests.count == 1)
  }

  @Test("network-only saves a good response, and on failure throws the cause without serving or changing the cache")
  func networkOnly() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    let saved = try await setup.repository.articles(for: setup.query, policy: .networkOnly, maxAge: 120)
    #expect(saved.origin == .network)
    #expect(saved.articles.map(\.title) == Self.firstTitles)
    #expect(try await setup.record()?.maxAge == 120)
    let before = try await setup.snapshot()

    setup.server.behaviour = .json(
      #"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid."}"#, status: 401)
    let error = await repositoryError { () async throws(NewsRepositoryError) in
      try await setup.repository.articles(for: setup.query, policy: .networkOnly)
    }
    let cause = NewsNetworkError.api(
      NewsAPIError(code: .apiKeyInvalid, message: "Your API key is invalid.", httpStatus: 401))
    guard case .networkFailed(let query, let network)? = error else {
      Issue.record("expected networkFailed, got \(String(describing: error))")
      return
    }
    #expect(query == setup.query)
    #expect(network == cause)
    #expect(error?.networkError == cause)
    #expect(error?.description == "network failed (NewsAPI error apiKeyInvalid (HTTP 401): Your API key is invalid.)")
    #expect(try await setup.snapshot() == before)
    #expect(setup.server.requests.count == 2)
  }

  @Test("cache-then-network yields the cached rows at once, then the network's")
  func cacheThenNetwork() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.clock.advance(seconds: 60)
    setup.server.behaviour = .json(NewsRepositoryTests.laterBody)

    var results: [NewsResult] = []
    for try await result in setup.repository.results(for: setup.query, policy: .cacheThenNetwork) {
      results.append(result)
    }

    #expect(results.map(\.origin) == [.cache, .network])
    #expect(results.first?.articles.map(\.title) == Self.firstTitles)
    #expect(results.first?.age == 60)
    #expect(results.last?.articles.map(\.title) == Self.laterTitles)
    #expect(results.last?.age == 0)
    #expect(setup.server.requests.count == 2)
  }

  @Test("cache-then-network: the cached result comes while the network has not answered")
  func cacheThenNetworkCacheFirst() async throws {
    let directory = TemporaryDirectory("policy-gated")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let article = Article(
      url: try #require(URL(string: "https://example.org/a")), title: "A", author: nil, summary: nil, imageURL: nil,
      publishedAt: Date(timeIntervalSince1970: 1_700_000_000), content: nil, sourceID: nil, sourceName: nil)
    let query = NewsQuery(url: try #require(URL(string: "https://newsapi.invalid/v2/top-headlines")))
    try await storage.saveArticles([article], forQuery: query.cacheKey, fetchedAt: NewsRepositoryTests.firstFetchedAt)
    let network = DeduplicationTests.GatedNetwork(page: NewsPage(articles: [article]))
    let repository = NewsRepository(storage: storage, network: network)

    var origins: [Origin] = []
    for try await result in repository.results(for: query) {
      if origins.isEmpty {
        #expect(result.origin == .cache)
        #expect(!network.isReleased, "the network is still held: the cache did not wait for it")
        network.release()
      }
      origins.append(result.origin)
    }
    #expect(origins == [.cache, .network])
  }

  @Test("cache-then-network with a failing network yields the cache, then the cache again with the cause")
  func cacheThenNetworkFailing() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.server.behaviour = .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<p>".utf8))

    var results: [NewsResult] = []
    for try await result in setup.repository.results(for: setup.query) { results.append(result) }

    #expect(results.map(\.origin) == [.cache, .cache])
    #expect(results.map { $0.networkError == nil } == [true, false])
    #expect(
      results.last?.networkError
        == .invalidResponse(
          BodyProblem(.htmlPageAnnouncingNoFeed, "an HTML page (text/html, 3 bytes) that announces no feed")))
  }

  @Test("cache-then-network with nothing cached yields only the network's rows, or throws its cause")
  func cacheThenNetworkEmptyCache() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    var results: [NewsResult] = []
    for try await result in setup.repository.results(for: setup.query) { results.append(result) }
    #expect(results.map(\.origin) == [.network])

    let other = NewsQuery(url: setup.server.url("/v2/everything?q=nothing"))
    setup.server.behaviour = .json(#"{"status":"ok","totalResults":0,"articles":[]}"#)
    do {
      for try await result in setup.repository.results(for: other) { results.append(result) }
      Issue.record("expected networkFailedAndCacheEmpty")
    } catch let error as NewsRepositoryError {
      #expect(error.networkError == .invalidResponse(BodyProblem(.noArticles, "the response held no articles")))
    }
    #expect(results.count == 1)
  }

  @Test("past the deadline the cache is served; the request finishes in the background and refreshes the cache")
  func deadlineServesTheCacheThenTheBackgroundRefreshSaves() async throws {
    let setup = try PolicySetup(timeout: 30, deadline: 0.3)
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    let before = try await setup.snapshot()
    // Late enough that the cache is read back before the answer arrives, even on a busy machine.
    setup.server.behaviour = .delayed(8, then: .json(NewsRepositoryTests.laterBody))
    setup.clock.advance(seconds: 10)

    let started = ContinuousClock.now
    let result = try await setup.repository.articles(for: setup.query)
    let elapsed = ContinuousClock.now - started

    #expect(result.origin == .cache)
    #expect(result.articles.map(\.title) == Self.firstTitles)
    #expect(result.age == 10)
    #expect(
      result.networkError
        == .transport(.timedOut, detail: "no answer within the 0.3 s deadline"))
    #expect(result.refreshContinues)
    #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(15), "\(elapsed)")
    #expect(try await setup.snapshot() == before)

    await setup.repository.waitForRefreshes()
    let refreshed = try await setup.repository.articles(for: setup.query, policy: .cacheOnly)
    #expect(refreshed.articles.map(\.title) == Self.laterTitles)
    #expect(refreshed.fetchedTimestamp == setup.clock.now)
    #expect(setup.server.requests.count == 2)
  }

  @Test("with nothing cached, the deadline does not apply: the read waits for the network")
  func deadlineWithEmptyCacheWaits() async throws {
    let setup = try PolicySetup(.delayed(0.5, then: .json(NewsRepositoryTests.firstBody)), timeout: 5, deadline: 0.1)
    defer { setup.server.stop() }
    let result = try await setup.repository.articles(for: setup.query)
    #expect(result.origin == .network)
    #expect(result.articles.map(\.title) == Self.firstTitles)
  }

  @Test("a failed refresh is noted in the fetch record, and the next good fetch clears it")
  func lastError() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    #expect(try await setup.record()?.lastError == nil)

    setup.clock.advance(seconds: 5)
    setup.server.behaviour = .json(#"{"status":"ok","totalResults":0,"articles":[]}"#)
    _ = try await setup.repository.articles(for: setup.query)
    var record = try await setup.record()
    #expect(record?.lastError == "invalid response: the response held no articles")
    #expect(record?.lastErrorAt == setup.clock.now)
    #expect(record?.fetchedAt == NewsRepositoryTests.firstFetchedAt)
    #expect(record?.cachedCount == 3)

    setup.server.behaviour = .json(NewsRepositoryTests.laterBody)
    _ = try await setup.repository.articles(for: setup.query)
    record = try await setup.record()
    #expect(record?.lastError == nil)
    #expect(record?.lastErrorAt == nil)
    #expect(record?.fetchedAt == setup.clock.now)
  }

  // MARK: - Pagination

  /// A page of `count` articles numbered from `first`, with NewsAPI's `totalResults`.
  static func page(_ first: Int, count: Int, total: Int) -> String {
    let records = (first..<(first + count)).map { n in
      """
      {"source":{"id":null,"name":"Pager"},"author":null,"title":"Story \(n)","description":null,
       "url":"https://example.org/story/\(n)","urlToImage":null,"publishedAt":"2024-01-01T00:00:\(10 + n)Z",
       "content":null}
      """
    }
    return #"{"status":"ok","totalResults":\#(total),"articles":["# + records.joined(separator: ",") + "]}"
  }

  static let maximumResultsReached =
    #"{"status":"error","code":"maximumResultsReached","message":"You have requested too many results."}"#

  @Test("pages 1…n are fetched with page=, saved as one result; maximumResultsReached keeps the rows fetched")
  func pagesUntilMaximumResultsReached() async throws {
    let setup = try PolicySetup(path: "/v2/everything?q=pager&pageSize=2")
    defer { setup.server.stop() }
    setup.server.enqueue(
      .json(Self.page(1, count: 2, total: 9)), .json(Self.page(3, count: 2, total: 9)),
      .json(Self.maximumResultsReached, status: 426))

    let result = try await setup.repository.articles(for: setup.query, policy: .networkFirst, pages: 5)

    #expect(result.origin == .network)
    #expect(result.articles.map(\.title) == ["Story 4", "Story 3", "Story 2", "Story 1"])
    #expect(
      setup.server.requests.map(\.target) == [
        "/v2/everything?q=pager&pageSize=2&page=1", "/v2/everything?q=pager&pageSize=2&page=2",
        "/v2/everything?q=pager&pageSize=2&page=3",
      ])
    #expect(try await setup.record()?.articleCount == 4)
  }

  @Test("paging stops at totalResults")
  func pagesStopAtTotalResults() async throws {
    let setup = try PolicySetup(path: "/v2/everything?q=pager&pageSize=2&page=7")
    defer { setup.server.stop() }
    setup.server.enqueue(.json(Self.page(1, count: 2, total: 3)), .json(Self.page(3, count: 1, total: 3)))

    let result = try await setup.repository.articles(for: setup.query, policy: .networkOnly, pages: 10)

    #expect(result.articles.count == 3)
    #expect(setup.server.requests.map(\.target).map { $0.components(separatedBy: "&").last } == ["page=1", "page=2"])
  }

  @Test("a failure on a later page (other than maximumResultsReached) fails the fetch; the cache is unchanged")
  func laterPageFailureLeavesTheCache() async throws {
    let setup = try PolicySetup(path: "/v2/everything?q=pager&pageSize=2")
    defer { setup.server.stop() }
    setup.server.enqueue(.json(Self.page(10, count: 2, total: 2)))
    _ = try await setup.repository.articles(for: setup.query)
    let before = try await setup.snapshot()

    setup.server.enqueue(.json(Self.page(1, count: 2, total: 6)), .closeImmediately)
    let result = try await setup.repository.articles(for: setup.query, policy: .networkFirst, pages: 3)

    #expect(result.origin == .cache)
    #expect(result.articles.map(\.title) == ["Story 11", "Story 10"])
    #expect(result.networkError?.description.hasPrefix("connection lost") == true)
    #expect(try await setup.snapshot() == before)
    #expect(setup.server.requests.count == 3)
  }

  @Test("NewsQuery.page sets or adds the page item and keeps the others as encoded")
  func pageQuery() throws {
    let query = NewsQuery(url: try #require(URL(string: "https://newsapi.org/v2/everything?q=a%2Bb&page=3&pageSize=5")))
    #expect(query.page(1).url.absoluteString == "https://newsapi.org/v2/everything?q=a%2Bb&pageSize=5&page=1")
    #expect(query.queryItem("q") == "a+b")
    #expect(query.queryItem("pageSize") == "5")
    #expect(query.queryItem("missing") == nil)
  }
}
