import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

/// Retries and fault injection: a loopback server misbehaving one way per case, a `HTTPNewsNetwork` with a
/// 3-attempt policy whose waits are recorded (never waited), and a repository with a good cached response. After
/// each case: the requests the server counted, the waits asked for, the error served, and the database unchanged.
@Suite("Retries with backoff, and a case per misbehaviour")
struct RetryTests {
  static let rateLimitedBody =
    #"{"status":"error","code":"rateLimited","message":"You have made too many requests recently."}"#
  static let apiKeyInvalidBody = #"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid."}"#

  enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case refused, resetMidBody, closedWithoutAnswer, http500, http502, http503, http429, http401NewsAPIError
    case http404HTML, status200Error, htmlInsteadOfJSON, emptyBody, truncatedJSON, truncatedTransfer

    var testDescription: String { rawValue }

    func apply(to server: LoopbackHTTPServer) {
      let body = Data(NewsRepositoryTests.laterBody.utf8)
      switch self {
      case .refused: server.stop()
      case .resetMidBody:
        server.behaviour = .resetMidBody(status: 200, body: body.prefix(60), declaredLength: body.count)
      case .closedWithoutAnswer: server.behaviour = .closeImmediately
      case .http500: server.behaviour = .respond(status: 500, body: Data("Internal error".utf8))
      case .http502: server.behaviour = .respond(status: 502, body: Data("<h1>Bad gateway</h1>".utf8))
      case .http503: server.behaviour = .respond(status: 503, headers: ["Retry-After": "0"], body: Data())
      case .http429:
        server.behaviour = .respond(
          status: 429, headers: ["Content-Type": "application/json", "Retry-After": "2"],
          body: Data(RetryTests.rateLimitedBody.utf8))
      case .http401NewsAPIError: server.behaviour = .json(RetryTests.apiKeyInvalidBody, status: 401)
      case .http404HTML:
        server.behaviour = .respond(status: 404, headers: ["Content-Type": "text/html"], body: Data("<p>no</p>".utf8))
      case .status200Error: server.behaviour = .json(RetryTests.rateLimitedBody)
      case .htmlInsteadOfJSON:
        server.behaviour = .respond(
          status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>maintenance</html>".utf8))
      case .emptyBody:
        server.behaviour = .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data())
      case .truncatedJSON: server.behaviour = .json(String(NewsRepositoryTests.laterBody.prefix(120)))
      case .truncatedTransfer:
        server.behaviour = .truncated(status: 200, body: body.prefix(100), declaredLength: body.count)
      }
    }

    /// Whether the failure is retried (3 attempts in all).
    var retried: Bool {
      switch self {
      case .refused, .resetMidBody, .closedWithoutAnswer, .http500, .http502, .http503, .http429, .truncatedTransfer:
        return true
      case .http401NewsAPIError, .http404HTML, .status200Error, .htmlInsteadOfJSON, .emptyBody, .truncatedJSON:
        return false
      }
    }

    /// The waits asked for before the 2nd and 3rd attempts (jitter takes the cap: 0.01 s, then 0.02 s).
    var waits: [TimeInterval] {
      switch self {
      case .http429: return [2, 2]  // Retry-After: 2
      case .http503: return [0, 0]  // Retry-After: 0
      default: return retried ? [0.01, 0.02] : []
      }
    }

    func matches(_ error: NewsNetworkError?) -> Bool {
      guard let error else { return false }
      switch self {
      case .refused: return error == .transport(.connectionRefused, detail: "")
      case .resetMidBody, .closedWithoutAnswer, .truncatedTransfer:
        if case .transport(.connectionLost, _) = error { return true }
        return false
      case .http500: return error == .httpStatus(500, bodyPrefix: "Internal error")
      case .http502: return error == .httpStatus(502, bodyPrefix: "an HTML page (20 bytes)")
      case .http503: return error == .httpStatus(503, bodyPrefix: "")
      case .http429:
        return error
          == .api(
            NewsAPIError(code: .rateLimited, message: "You have made too many requests recently.", httpStatus: 429))
      case .http401NewsAPIError:
        return error == .api(NewsAPIError(code: .apiKeyInvalid, message: "Your API key is invalid.", httpStatus: 401))
      case .http404HTML: return error == .httpStatus(404, bodyPrefix: "an HTML page (text/html, 9 bytes)")
      case .status200Error:
        return error
          == .api(
            NewsAPIError(code: .rateLimited, message: "You have made too many requests recently.", httpStatus: 200))
      case .htmlInsteadOfJSON:
        return error
          == .invalidResponse(
            BodyProblem(
              .htmlPageAnnouncingNoFeed, "an HTML page (text/html, 24 bytes) that announces no feed"))
      case .emptyBody: return error == .invalidResponse(BodyProblem(.empty, "empty (0 bytes)"))
      case .truncatedJSON:
        return error == .invalidResponse(BodyProblem(.truncated, NewsAPIDecoder.truncated(size: 120)))
      }
    }
  }

  @Test(arguments: Fault.allCases)
  func faultServesTheCacheWithTheCauseAfterTheRightRetries(_ fault: Fault) async throws {
    let setup = try PolicySetup(attempts: 3)
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    let before = try await setup.snapshot()

    fault.apply(to: setup.server)
    setup.clock.advance(seconds: 60)
    let started = ContinuousClock.now
    let result = try await setup.repository.articles(for: setup.query)
    let elapsed = ContinuousClock.now - started

    #expect(result.origin == .cache)
    #expect(result.articles.map(\.title) == CachePolicyTests.firstTitles)
    #expect(result.fetchedTimestamp == NewsRepositoryTests.firstFetchedAt)
    #expect(result.age == 60)
    #expect(fault.matches(result.networkError), "network error: \(String(describing: result.networkError))")
    #expect(!(result.networkError?.description.contains(NewsRepositoryTests.apiKey) ?? true))
    #expect(setup.sleeps.delays == fault.waits)
    if fault != .refused { #expect(setup.server.requests.count == 1 + (fault.retried ? 3 : 1)) }
    #expect(elapsed < .seconds(30), "\(elapsed)")  // no real waits: the backoff is recorded, not slept
    #expect(try await setup.snapshot() == before)
    #expect(try await setup.record()?.lastError == result.networkError?.description)
  }

  @Test("two 503s, then a good response: the third attempt is saved")
  func retriesUntilSuccess() async throws {
    let setup = try PolicySetup(attempts: 3)
    defer { setup.server.stop() }
    setup.server.enqueue(.respond(status: 503, body: Data()), .respond(status: 502, body: Data()))

    let result = try await setup.repository.articles(for: setup.query)

    #expect(result.origin == .network)
    #expect(result.articles.map(\.title) == CachePolicyTests.firstTitles)
    #expect(setup.server.requests.count == 3)
    #expect(setup.sleeps.delays == [0.01, 0.02])
    #expect(Set(setup.server.requests.map { $0.header("X-Api-Key") }) == [NewsRepositoryTests.apiKey])
  }

  @Test("429 with Retry-After as an HTTP-date waits until that date (by the policy's clock)")
  func retryAfterHTTPDate() async throws {
    let server = try LoopbackHTTPServer(.json(NewsRepositoryTests.firstBody))
    defer { server.stop() }
    let sleeps = SleepRecorder()
    let now = Date(timeIntervalSince1970: 784_111_747)  // 30 s before Sun, 06 Nov 1994 08:49:37 GMT
    let network = HTTPNewsNetwork(
      apiKey: nil, timeout: 5,
      retry: RetryPolicy(maxAttempts: 2, sleep: { try await sleeps.sleep($0) }, now: { now }))
    server.enqueue(
      .respond(
        status: 429, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"],
        body: Data(Self.rateLimitedBody.utf8)))

    let page = try await network.fetch(NewsQuery(url: server.url(NewsRepositoryTests.path)))

    #expect(page.articles.count == 3)
    #expect(server.requests.count == 2)
    #expect(sleeps.delays == [30])
  }

  @Test("a Retry-After longer than the policy allows is not waited for")
  func retryAfterTooLong() async throws {
    let setup = try PolicySetup(attempts: 3)
    defer { setup.server.stop() }
    setup.server.behaviour = .respond(status: 503, headers: ["Retry-After": "3600"], body: Data("later".utf8))

    let error = await repositoryError { () async throws(NewsRepositoryError) in
      try await setup.repository.articles(for: setup.query, policy: .networkOnly)
    }

    #expect(error?.networkError == .httpStatus(503, bodyPrefix: "later"))
    #expect(setup.server.requests.count == 1)
    #expect(setup.sleeps.delays.isEmpty)
  }

  @Test("a hung server: the attempt times out, and no retry starts that could not finish within maxTotalTime")
  func hangIsBoundedByTheTotalTime() async throws {
    let setup = try PolicySetup(.hang, timeout: 1, attempts: 3, maxTotalTime: 1.5)
    defer { setup.server.stop() }
    let started = ContinuousClock.now
    let error = await repositoryError { () async throws(NewsRepositoryError) in
      try await setup.repository.articles(for: setup.query)
    }
    let elapsed = ContinuousClock.now - started

    #expect(error?.networkError == .transport(.timedOut, detail: "no complete answer within 1 s"))
    guard case .networkFailedAndCacheEmpty? = error else {
      Issue.record("expected networkFailedAndCacheEmpty, got \(String(describing: error))")
      return
    }
    #expect(setup.server.requests.count == 1)
    #expect(setup.sleeps.delays.isEmpty)
    // A bound, not a benchmark: 1 s, plus a machine whose 2 cores the whole suite shares (a hang never ends).
    #expect(elapsed < .seconds(90), "\(elapsed)")
    #expect(try await setup.storage.articleCount() == 0)
  }

  @Test("a slow drip that does not finish within the timeout times out; one that does is saved")
  func slowDrip() async throws {
    let body = Data(NewsRepositoryTests.firstBody.utf8)
    // One byte every 100 ms: two minutes for the whole body, never idle long enough for an idle timeout.
    let setup = try PolicySetup(
      .slowDrip(
        status: 200, headers: ["Content-Type": "application/json"], body: body, chunkSize: 1, interval: 0.1),
      timeout: 1, attempts: 3, maxTotalTime: 1.5)
    defer { setup.server.stop() }
    let started = ContinuousClock.now
    let error = await repositoryError { () async throws(NewsRepositoryError) in
      try await setup.repository.articles(for: setup.query)
    }
    let elapsed = ContinuousClock.now - started
    guard case .transport(.timedOut, _)? = error?.networkError else {
      Issue.record("expected a timeout, got \(String(describing: error))")
      return
    }
    // A bound, not a benchmark: 1 s, plus a loaded machine; the whole body would take two minutes.
    #expect(elapsed < .seconds(90), "\(elapsed)")
    #expect(setup.server.requests.count == 1)
    #expect(try await setup.storage.articleCount() == 0)

    let steady = try PolicySetup(
      .slowDrip(
        status: 200, headers: ["Content-Type": "application/json"], body: body, chunkSize: body.count / 5 + 1,
        interval: 0.05),
      timeout: 5)
    defer { steady.server.stop() }
    let result = try await steady.repository.articles(for: steady.query)
    #expect(result.origin == .network)
    #expect(result.articles.map(\.title) == CachePolicyTests.firstTitles)
  }

  @Test("a wrong Content-Type does not matter when the body is a valid NewsAPI response")
  func wrongContentType() async throws {
    let setup = try PolicySetup(
      .respond(
        status: 200, headers: ["Content-Type": "text/plain; charset=iso-8859-1"],
        body: Data(NewsRepositoryTests.firstBody.utf8)))
    defer { setup.server.stop() }
    let result = try await setup.repository.articles(for: setup.query)
    #expect(result.origin == .network)
    #expect(result.articles.map(\.title) == CachePolicyTests.firstTitles)
    #expect(try await setup.storage.articleCount() == 3)
  }

  // MARK: - The policy itself

  @Test("backoff: exponential caps (initialDelay × 2^(n−1), at most maxDelay), full jitter from 0")
  func backoff() {
    let top = RetryPolicy(maxAttempts: 9, initialDelay: 0.25, maxDelay: 2, random: { $0.upperBound })
    #expect((1...6).map { top.backoff(beforeRetry: $0) } == [0.25, 0.5, 1, 2, 2, 2])
    let bottom = RetryPolicy(maxAttempts: 9, initialDelay: 0.25, maxDelay: 2, random: { $0.lowerBound })
    #expect((1...6).map { bottom.backoff(beforeRetry: $0) } == [0, 0, 0, 0, 0, 0])
    let real = RetryPolicy(initialDelay: 0.25, maxDelay: 2)
    for retry in 1...20 { #expect((0...2).contains(real.backoff(beforeRetry: retry))) }
    #expect(real.delay(beforeRetry: 1, retryAfter: 7) == 7)
    #expect(real.delay(beforeRetry: 1, retryAfter: 61) == nil)
  }

  @Test("what is retried: transport failures, 5xx, 429; never other 4xx or bad 2xx bodies")
  func retryable() {
    #expect(RetryPolicy.isRetryable(.transport(.connectionRefused, detail: "")))
    #expect(RetryPolicy.isRetryable(.transport(.timedOut, detail: "")))
    #expect(RetryPolicy.isRetryable(.transport(.connectionLost, detail: "")))
    #expect(!RetryPolicy.isRetryable(.transport(.secureConnectionFailed, detail: "")))
    #expect(!RetryPolicy.isRetryable(.transport(.other, detail: "cancelled")))
    for status in [429, 500, 502, 503, 504, 599] {
      #expect(RetryPolicy.isRetryable(.httpStatus(status, bodyPrefix: "")))
      #expect(RetryPolicy.isRetryable(.api(NewsAPIError(code: .unexpectedError, message: "", httpStatus: status))))
    }
    for status in [400, 401, 403, 404, 410, 426] {
      #expect(!RetryPolicy.isRetryable(.httpStatus(status, bodyPrefix: "")))
      #expect(!RetryPolicy.isRetryable(.api(NewsAPIError(code: .apiKeyInvalid, message: "", httpStatus: status))))
    }
    #expect(!RetryPolicy.isRetryable(.api(NewsAPIError(code: .rateLimited, message: "", httpStatus: 200))))
    #expect(!RetryPolicy.isRetryable(.invalidResponse(BodyProblem(.invalidJSON, "x"))))
    #expect(!RetryPolicy.isRetryable(.unreadableFile(path: "/x", reason: "no such file")))
    #expect(!RetryPolicy.isRetryable(.unsupportedURL("ftp://x")))
  }

  @Test("Retry-After: delay-seconds and the three HTTP-date forms of RFC 9110; anything else is ignored")
  func retryAfterParsing() {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
    #expect(RetryPolicy.retryAfter("120", now: now) == 120)
    #expect(RetryPolicy.retryAfter(" 0 ", now: now) == 0)
    #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == 30)
    #expect(RetryPolicy.retryAfter("Sunday, 06-Nov-94 08:51:37 GMT", now: now) == 120)
    #expect(RetryPolicy.retryAfter("Sun Nov  6 08:49:47 1994", now: now) == 10)
    #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)  // in the past
    for junk in ["", "-5", "1.5", "soon", "12abc", "Sun, 06 Nov 1994"] {
      #expect(RetryPolicy.retryAfter(junk, now: now) == nil, "\(junk)")
    }
  }

  @Test("maxTotalTime: no retry starts unless its wait and a whole attempt fit in the time left")
  func totalTime() async {
    let clock = TestClock(Timestamp(millisecondsSince1970: 0))
    let sleeps = SleepRecorder()
    let policy = RetryPolicy(
      maxAttempts: 10, initialDelay: 1, maxDelay: 1, maxTotalTime: 10,
      sleep: { seconds in
        try await sleeps.sleep(seconds)
        clock.advance(seconds: seconds)
      }, now: { clock.now.date }, random: { $0.upperBound })
    var attempts = 0
    do {
      _ = try await policy.run(attemptTimeout: 2) { (_: Int) throws(RetryPolicy.Failure) -> Int in
        attempts += 1
        clock.advance(seconds: 2)  // each attempt takes its whole timeout
        throw RetryPolicy.Failure(.transport(.timedOut, detail: "attempt \(attempts)"))
      }
      Issue.record("expected a failure")
    } catch {
      #expect(error == .transport(.timedOut, detail: "attempt 3"))
    }
    // 2 s + 1 + 2 s + 1 + 2 s = 8 s; a fourth would end at 11 s > 10 s.
    #expect(attempts == 3)
    #expect(sleeps.delays == [1, 1])
  }
}
