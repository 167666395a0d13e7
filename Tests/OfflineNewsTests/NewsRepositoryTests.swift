import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// `NewsRepository` end to end: a real `HTTPNewsNetwork` against ``LoopbackHTTPServer``, and a fresh on-disk
/// SQLite database in a ``TemporaryDirectory`` for every test. The clock is fixed, so `fetchedAt` is exact.
@Suite struct NewsRepositoryTests {
  static let apiKey = "FAKE-newsapi-key-repository-tests"
  static let path = "/v2/top-headlines?country=gb"
  /// The fixed clock of the first fetch: 2023-11-14T22:13:20.123Z.
  static let firstFetchedAt = Timestamp(millisecondsSince1970: 1_700_000_000_123)
  /// The fixed clock of a later fetch: 2023-11-15T08:00:00.456Z.
  static let laterFetchedAt = Timestamp(millisecondsSince1970: 1_700_035_200_456)

  /// Three articles, deliberately not in date order.
  static let firstBody = """
    {"status":"ok","totalResults":3,"articles":[
      {"source":{"id":null,"name":"Middle Times"},"author":"M. Author","title":"Middle",
       "description":"The middle one","url":"https://example.org/middle","urlToImage":null,
       "publishedAt":"2023-11-14T12:00:00Z","content":"Middle content"},
      {"source":{"id":"newest","name":"Newest Post"},"author":null,"title":"Newest",
       "description":null,"url":"https://example.org/newest","urlToImage":"https://example.org/newest.png",
       "publishedAt":"2023-11-14T18:30:00.1234567Z","content":null},
      {"source":{"id":null,"name":"Oldest Herald"},"author":"","title":"Oldest",
       "description":"The oldest one","url":"https://example.org/oldest","urlToImage":null,
       "publishedAt":"2023-11-13T09:15:00+00:00","content":null}
    ]}
    """

  /// A later response: `middle` again with a new title, and a new article; `newest` and `oldest` are gone.
  static let laterBody = """
    {"status":"ok","totalResults":2,"articles":[
      {"source":{"id":null,"name":"Middle Times"},"author":"M. Author","title":"Middle (updated)",
       "description":"The middle one, revised","url":"https://example.org/middle","urlToImage":null,
       "publishedAt":"2023-11-14T12:00:00Z","content":"Middle content"},
      {"source":{"id":null,"name":"Fresh Daily"},"author":"F. Writer","title":"Fresh",
       "description":null,"url":"https://example.org/fresh","urlToImage":null,
       "publishedAt":"2023-11-15T07:45:00Z","content":null}
    ]}
    """

  /// A fresh database, a server answering ``firstBody``, and a repository whose clock reads ``firstFetchedAt``.
  struct Setup {
    let directory: TemporaryDirectory
    let storage: StorageContext
    let server: LoopbackHTTPServer
    let repository: NewsRepository
    let query: NewsQuery

    init(timeout: TimeInterval = 1) throws {
      directory = TemporaryDirectory("repository-tests")
      storage = try StorageContext(path: directory.path("news.sqlite"))
      server = try LoopbackHTTPServer(.json(NewsRepositoryTests.firstBody))
      let fetchedAt = NewsRepositoryTests.firstFetchedAt
      repository = NewsRepository(
        storage: storage,
        network: HTTPNewsNetwork(
          apiKey: NewsRepositoryTests.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: timeout),
        clock: { fetchedAt })
      query = NewsQuery(url: server.url(NewsRepositoryTests.path))
    }
  }

  /// Every row of every table, in a fixed order, each value as text (`"NULL"` for NULL), plus the schema and its
  /// version.
  struct Dump: Equatable, CustomStringConvertible {
    var tables: [String: [[String]]]
    var description: String {
      tables.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }
  }

  static func dump(_ storage: StorageContext) async throws -> Dump {
    let selects = [
      "schema": "SELECT type, name, sql FROM sqlite_master ORDER BY type, name",
      "user_version": "PRAGMA user_version",
      "article":
        "SELECT url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName, fetchedAt, "
        + "fetchQuery FROM article ORDER BY url",
      "query_result": "SELECT query, url, position FROM query_result ORDER BY query, url",
      "query_fetch": "SELECT query, fetchedAt, articleCount FROM query_fetch ORDER BY query",
    ]
    var tables: [String: [[String]]] = [:]
    for (name, sql) in selects {
      tables[name] = try await storage.read { db in
        try db.makeStatement(sql).fetchAll { row in
          (0..<row.count).map { row.isNull($0) ? "NULL" : row.string($0) ?? "?" }
        }
      }
    }
    return Dump(tables: tables)
  }

  // MARK: - Success

  @Test func successfulFetchSavesAndReturnsRowsNewestFirst() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }

    let result = try await setup.repository.articles(for: setup.query)

    #expect(result.origin == .network)
    #expect(result.fetchedTimestamp == Self.firstFetchedAt)
    #expect(result.networkError == nil)
    #expect(result.issues.isEmpty)
    #expect(result.query == setup.query)
    #expect(result.articles.map(\.title) == ["Newest", "Middle", "Oldest"])
    #expect(
      result.articles.map { Timestamp($0.publishedAt).rfc3339String } == [
        "2023-11-14T18:30:00.123Z", "2023-11-14T12:00:00.000Z", "2023-11-13T09:15:00.000Z",
      ])
    #expect(
      result.articles[0]
        == Article(
          url: URL(string: "https://example.org/newest")!, title: "Newest", author: nil, summary: nil,
          imageURL: URL(string: "https://example.org/newest.png")!,
          publishedAt: Timestamp(millisecondsSince1970: 1_699_986_600_123).date, content: nil,
          sourceID: "newest", sourceName: "Newest Post", source: setup.query.cacheKey))
    #expect(result.articles[2].author == nil)  // "" is no author

    #expect(try await setup.storage.articleCount() == 3)
    let fetch = try await setup.storage.fetchRecord(forQuery: setup.query.cacheKey)
    #expect(fetch?.query == setup.query.cacheKey)
    #expect(fetch?.fetchedAt == Self.firstFetchedAt)
    #expect(fetch?.articleCount == 3)
    let dump = try await Self.dump(setup.storage)
    #expect(dump.tables["query_result"]?.count == 3)
    #expect(dump.tables["query_fetch"]?.count == 1)
    // The response order is kept as each article's position in the query's result.
    #expect(
      dump.tables["query_result"]?.map { [$0[1], $0[2]] } == [
        ["https://example.org/middle", "0"], ["https://example.org/newest", "1"], ["https://example.org/oldest", "2"],
      ])
    // The key went in the header, and reached neither the URL nor the database.
    #expect(setup.server.requests.first?.header("X-Api-Key") == Self.apiKey)
    #expect(!dump.description.contains(Self.apiKey))

    let limited = try await setup.repository.articles(for: setup.query, limit: 2)
    #expect(limited.articles.map(\.title) == ["Newest", "Middle"])
    #expect(try await setup.storage.articleCount() == 3)
  }

  // MARK: - Falling back to the cache

  enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case connectionRefused, http500HTML, newsAPIErrorBody, truncatedBody, invalidJSON, hangPastTimeout, zeroArticles

    var testDescription: String { rawValue }

    /// Makes the server fail this way for the next request to the same URL.
    func apply(to server: LoopbackHTTPServer) {
      switch self {
      case .connectionRefused:
        server.stop()
      case .http500HTML:
        server.behaviour = .respond(
          status: 500, headers: ["Content-Type": "text/html"],
          body: Data("<html><body>Internal error</body></html>".utf8))
      case .newsAPIErrorBody:
        server.behaviour = .json(
          #"{"status":"error","code":"rateLimited","message":"You have made too many requests recently."}"#)
      case .truncatedBody:
        let body = Data(NewsRepositoryTests.laterBody.utf8)
        server.behaviour = .truncated(status: 200, body: body.prefix(100), declaredLength: body.count)
      case .invalidJSON:
        server.behaviour = .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>".utf8))
      case .hangPastTimeout:
        server.behaviour = .hang
      case .zeroArticles:
        server.behaviour = .json(#"{"status":"ok","totalResults":0,"articles":[]}"#)
      }
    }

    /// Whether `error` is the network error this failure must produce.
    func matches(_ error: NewsNetworkError?) -> Bool {
      switch self {
      case .connectionRefused: return error == .transport(.connectionRefused, detail: "")
      case .http500HTML: return error == .httpStatus(500, bodyPrefix: "an HTML page (text/html, 40 bytes)")
      case .newsAPIErrorBody:
        return error
          == .api(
            NewsAPIError(code: .rateLimited, message: "You have made too many requests recently.", httpStatus: 200))
      case .truncatedBody:
        return error == .transport(.connectionLost, detail: "the response was cut short")
      case .invalidJSON:
        return error
          == .invalidResponse(
            BodyProblem(.htmlPageAnnouncingNoFeed, "an HTML page (text/html, 6 bytes) that announces no feed")
          )
      case .hangPastTimeout: return error == .transport(.timedOut, detail: "no complete answer within 1 s")
      case .zeroArticles: return error == .invalidResponse(BodyProblem(.noArticles, "the response held no articles"))
      }
    }
  }

  @Test(arguments: Failure.allCases)
  func networkFailureServesThePreviousRowsAndLeavesTheCacheUnchanged(_ failure: Failure) async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    let first = try await setup.repository.articles(for: setup.query)
    try #require(first.origin == .network)
    let before = try await Self.dump(setup.storage)

    failure.apply(to: setup.server)
    // A later clock: had anything been saved, its time would show.
    let later = NewsRepository(
      storage: setup.storage, network: setup.repository.network, clock: { NewsRepositoryTests.laterFetchedAt })
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await later.articles(for: setup.query)
    let elapsed = clock.now - start

    #expect(result.origin == .cache)
    #expect(result.fetchedTimestamp == Self.firstFetchedAt)
    #expect(result.articles == first.articles)
    #expect(result.articles.map(\.title) == ["Newest", "Middle", "Oldest"])
    #expect(result.issues.isEmpty)
    #expect(failure.matches(result.networkError), "network error: \(String(describing: result.networkError))")
    #expect(!(result.networkError?.description.contains(Self.apiKey) ?? false))
    #expect(elapsed < .seconds(20), "took \(elapsed)")  // the 1 s timeout is honoured (not 60 s); not a benchmark

    let after = try await Self.dump(setup.storage)
    #expect(after == before)
    if failure != .connectionRefused { #expect(setup.server.requests.count == 2) }
  }

  // MARK: - Network and cache both fail

  @Test(arguments: [Failure.connectionRefused, .http500HTML, .zeroArticles])
  func networkFailureWithAnEmptyCacheThrowsWithTheCause(_ failure: Failure) async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    failure.apply(to: setup.server)
    let before = try await Self.dump(setup.storage)

    do {
      let result = try await setup.repository.articles(for: setup.query)
      Issue.record("expected networkFailedAndCacheEmpty, got \(result.origin) with \(result.articles.count) rows")
    } catch {
      guard case .networkFailedAndCacheEmpty(let query, let cause) = error else {
        Issue.record("expected networkFailedAndCacheEmpty, got \(error)")
        return
      }
      #expect(query == setup.query)
      #expect(failure.matches(cause), "network error: \(cause)")
      #expect(failure.matches(error.networkError))
    }
    #expect(try await Self.dump(setup.storage) == before)
    #expect(try await setup.storage.articleCount() == 0)
  }

  // MARK: - A later successful fetch

  @Test func laterSuccessfulFetchReplacesTheResultListAndUpdatesArticlesInPlace() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)

    setup.server.behaviour = .json(Self.laterBody)
    let later = NewsRepository(
      storage: setup.storage, network: setup.repository.network, clock: { NewsRepositoryTests.laterFetchedAt })
    let result = try await later.articles(for: setup.query)

    #expect(result.origin == .network)
    #expect(result.fetchedTimestamp == Self.laterFetchedAt)
    #expect(result.networkError == nil)
    #expect(result.articles.map(\.title) == ["Fresh", "Middle (updated)"])
    #expect(result.articles.map(\.url.absoluteString) == ["https://example.org/fresh", "https://example.org/middle"])
    #expect(result.articles[1].summary == "The middle one, revised")

    // The query's result is exactly the later response; the cache agrees.
    let cached = try await later.cachedArticles(for: setup.query)
    #expect(cached.origin == .cache)
    #expect(cached.fetchedTimestamp == Self.laterFetchedAt)
    #expect(cached.articles == result.articles)

    let dump = try await Self.dump(setup.storage)
    let key = setup.query.cacheKey
    #expect(
      dump.tables["query_result"] == [
        [key, "https://example.org/fresh", "1"], [key, "https://example.org/middle", "0"],
      ])
    #expect(dump.tables["query_fetch"] == [[key, "1700035200456", "2"]])

    // Articles that left the response are still in the article table, untouched; `middle` is one row, updated.
    let articles = try #require(dump.tables["article"])
    #expect(
      articles.map { $0[0] } == [
        "https://example.org/fresh", "https://example.org/middle", "https://example.org/newest",
        "https://example.org/oldest",
      ])
    let byURL = Dictionary(uniqueKeysWithValues: articles.map { ($0[0], $0) })
    #expect(byURL["https://example.org/middle"]?[1] == "Middle (updated)")
    #expect(byURL["https://example.org/middle"]?[3] == "The middle one, revised")
    #expect(byURL["https://example.org/middle"]?[9] == "1700035200456")  // fetchedAt
    #expect(byURL["https://example.org/newest"]?[1] == "Newest")
    #expect(byURL["https://example.org/newest"]?[9] == "1700000000123")
    #expect(byURL["https://example.org/oldest"]?[9] == "1700000000123")
    #expect(try await setup.storage.articleCount() == 4)
    let all = try await later.read()
    #expect(all.filter { $0.url.absoluteString == "https://example.org/middle" }.map(\.title) == ["Middle (updated)"])
  }
}
