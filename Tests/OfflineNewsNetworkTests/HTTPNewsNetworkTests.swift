import Foundation
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

/// `HTTPNewsNetwork` against a real HTTP server on 127.0.0.1 (``LoopbackHTTPServer``): real sockets, real
/// URLSession, no mocks.
@Suite struct HTTPNewsNetworkTests {
  /// A recognisable fake key: if it leaks into a URL or a message, a search for it finds it.
  static let apiKey = "FAKE-newsapi-key-0123456789abcdef"

  /// A NewsAPI-shaped body: a 7-digit fraction date and a `+00:00` date, a `null` author and an empty-string author.
  static let okBody = """
    {"status":"ok","totalResults":2,"articles":[
      {"source":{"id":"bbc-news","name":"BBC News"},"author":null,"title":"First headline",
       "description":"First summary","url":"https://example.com/news/a",
       "urlToImage":"https://example.com/img/a.jpg","publishedAt":"2021-08-29T06:52:24.2917287Z",
       "content":"First content [+120 chars]"},
      {"source":{"id":null,"name":"Example Daily"},"author":"","title":"Second headline",
       "description":null,"url":"https://example.com/news/b","urlToImage":null,
       "publishedAt":"2021-08-30T10:00:00+00:00","content":null}
    ]}
    """

  static let query = "/v2/top-headlines?country=us&category=technology"

  /// Runs one fetch and returns its error, or `nil` if it succeeded.
  func failure(_ network: HTTPNewsNetwork, _ url: URL) async -> NewsNetworkError? {
    do {
      _ = try await network.fetch(NewsQuery(url: url))
      return nil
    } catch {
      return error
    }
  }

  @Test func successDecodesExactValues() async throws {
    let server = try LoopbackHTTPServer(.json(Self.okBody))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let page = try await network.fetch(NewsQuery(url: server.url(Self.query)))

    #expect(page.totalResults == 2)
    #expect(page.issues.isEmpty)
    try #require(page.articles.count == 2)
    let first = page.articles[0]
    let second = page.articles[1]
    #expect(
      first
        == Article(
          url: URL(string: "https://example.com/news/a")!, title: "First headline", author: nil,
          summary: "First summary", imageURL: URL(string: "https://example.com/img/a.jpg")!,
          publishedAt: Timestamp(millisecondsSince1970: 1_630_219_944_291).date, content: "First content [+120 chars]",
          sourceID: "bbc-news", sourceName: "BBC News"))
    #expect(
      second
        == Article(
          url: URL(string: "https://example.com/news/b")!, title: "Second headline", author: nil, summary: nil,
          imageURL: nil, publishedAt: Timestamp(millisecondsSince1970: 1_630_317_600_000).date, content: nil,
          sourceID: nil, sourceName: "Example Daily"))
    // 2021-08-29T06:52:24.2917287Z keeps 291 ms (truncated, not rounded); +00:00 is UTC.
    #expect(Timestamp(first.publishedAt).millisecondsSince1970 == 1_630_219_944_291)
    #expect(Timestamp(second.publishedAt).millisecondsSince1970 == 1_630_317_600_000)
    #expect(Timestamp(first.publishedAt).rfc3339String == "2021-08-29T06:52:24.291Z")
    #expect(Timestamp(second.publishedAt).rfc3339String == "2021-08-30T10:00:00.000Z")
  }

  @Test func apiKeyIsSentAsHeaderAndNeverInTheURL() async throws {
    let server = try LoopbackHTTPServer(.json(Self.okBody))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    _ = try await network.fetch(NewsQuery(url: server.url(Self.query)))

    let requests = server.requests
    try #require(requests.count == 1)
    let request = requests[0]
    #expect(request.method == "GET")
    #expect(request.target == Self.query)
    #expect(request.header("X-Api-Key") == Self.apiKey)
    #expect(!request.target.contains(Self.apiKey))
    #expect(!request.target.lowercased().contains("apikey"))
    #expect(request.header("Accept")?.hasPrefix("application/json, application/feed+json") == true)
  }

  @Test func noKeySendsNoHeader() async throws {
    let server = try LoopbackHTTPServer(.json(Self.okBody))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: "", timeout: 5)

    _ = try await network.fetch(NewsQuery(url: server.url(Self.query)))

    #expect(server.requests.first?.header("X-Api-Key") == nil)
  }

  @Test("the key goes only to its hosts: newsapi.org by default, never to a feed's or any other host")
  func keyOnlyToItsHosts() async throws {
    let server = try LoopbackHTTPServer(.json(Self.okBody))
    defer { server.stop() }
    _ = try await HTTPNewsNetwork(apiKey: Self.apiKey, timeout: 5).fetch(NewsQuery(url: server.url(Self.query)))
    #expect(server.requests.first?.header("X-Api-Key") == nil, "127.0.0.1 is not newsapi.org")
    let key = NewsAPIKey(Self.apiKey, hosts: ["NewsAPI.org", "proxy.example"])
    #expect(key.isSent(to: try #require(URL(string: "https://newsapi.org/v2/everything?q=x"))))
    #expect(key.isSent(to: try #require(URL(string: "https://eu.proxy.example/v2/everything"))))
    #expect(!key.isSent(to: try #require(URL(string: "https://newsapi.org.evil.example/v2/everything"))))
    #expect(!key.isSent(to: try #require(URL(string: "https://evilnewsapi.org/v2/everything"))))
    #expect(!key.isSent(to: try #require(URL(string: "ftp://newsapi.org/v2/everything"))))
  }

  @Test func connectionRefusedIsTransportConnectionRefused() async throws {
    let port = try LoopbackHTTPServer.refusedPort()
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, URL(string: "http://127.0.0.1:\(port)\(Self.query)")!)

    guard case .transport(.connectionRefused, _) = error else {
      Issue.record("expected .transport(.connectionRefused, …), got \(String(describing: error))")
      return
    }
  }

  @Test func http500WithHTMLBodyIsHTTPStatus() async throws {
    let html = "<html>\n<head><title>500 Internal Server Error</title></head>\n<body>oops</body>\n</html>\n"
    let server = try LoopbackHTTPServer(
      .respond(status: 500, headers: ["Content-Type": "text/html"], body: Data(html.utf8)))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, server.url(Self.query))

    // A web page is summarised (what it is, its content type and size), not quoted.
    #expect(error == .httpStatus(500, bodyPrefix: "an HTML page (text/html, \(html.utf8.count) bytes)"))
  }

  @Test func http200WithNewsAPIErrorBodyIsAPIError() async throws {
    let server = try LoopbackHTTPServer(
      .json(
        #"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid or incorrect."}"#))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, server.url(Self.query))

    #expect(
      error
        == .api(
          NewsAPIError(code: .apiKeyInvalid, message: "Your API key is invalid or incorrect.", httpStatus: 200)))
  }

  @Test func http401WithUnknownCodeKeepsTheCode() async throws {
    let server = try LoopbackHTTPServer(
      .json(#"{"status":"error","code":"somethingNew","message":"A code this build does not know."}"#, status: 401))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, server.url(Self.query))

    #expect(
      error
        == .api(NewsAPIError(code: "somethingNew", message: "A code this build does not know.", httpStatus: 401)))
    if case .api(let apiError) = error { #expect(apiError.code.rawValue == "somethingNew") }
  }

  @Test func truncatedBodyIsAnError() async throws {
    let body = Data(Self.okBody.utf8)
    let server = try LoopbackHTTPServer(
      .truncated(status: 200, body: body.prefix(body.count / 2), declaredLength: body.count))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, server.url(Self.query))

    // Whatever the kind, it is an error and never a partial page.
    try #require(error != nil)
    // Darwin's URLSession says networkConnectionLost; Linux's (libcurl, CURLE_PARTIAL_FILE) says URLError.unknown,
    // "transfer closed with N bytes remaining to read". Both must read as a lost connection.
    #expect(error == .transport(.connectionLost, detail: "the response was cut short"))
  }

  @Test func connectionClosedWithoutAnAnswerIsATransportError() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = await failure(network, server.url(Self.query))

    // On Linux, libcurl's "Empty reply from server" is URLError.badServerResponse (-1011).
    #expect(error == .transport(.connectionLost, detail: "the server closed the connection without an answer"))
  }

  @Test func aKeyStraddlingTheBodyPrefixCutIsNotLeakedInPart() async throws {
    // The error keeps the first 200 characters of a non-JSON body; put the key across that cut.
    let body = String(repeating: "x", count: 190) + Self.apiKey + String(repeating: "y", count: 50)
    let server = try LoopbackHTTPServer(.respond(status: 502, headers: [:], body: Data(body.utf8)))
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 5)

    let error = try #require(await failure(network, server.url(Self.query)))

    guard case .httpStatus(502, let prefix) = error else {
      Issue.record("expected HTTP 502, got \(error)")
      return
    }
    #expect(prefix.hasPrefix(String(repeating: "x", count: 190) + "<redacted>"))
    #expect(!error.description.contains(String(Self.apiKey.prefix(6))))
  }

  @Test func hangingServerTimesOut() async throws {
    let server = try LoopbackHTTPServer(.hang)
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 1)

    let clock = ContinuousClock()
    let start = clock.now
    let error = await failure(network, server.url(Self.query))
    let elapsed = clock.now - start

    #expect(error == .transport(.timedOut, detail: "no complete answer within 1 s"))
    // A correctness bound (the timeout is honoured), not a benchmark.
    // A bound, not a benchmark (URLSession's own default would wait 60 s); loaded CI machines are slow.
    #expect(elapsed < .seconds(90), "took \(elapsed)")  // a bound: the whole suite shares 2 cores
    #expect(server.requests.count == 1)
  }

  @Test(.timeLimit(.minutes(5))) func stoppingTheServerEndsAHungRequest() async throws {
    let server = try LoopbackHTTPServer(.hang)
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 120)

    let clock = ContinuousClock()
    let start = clock.now
    async let error = failure(network, server.url(Self.query))
    // Once the request has arrived (slow on a loaded machine), well within the 30 s timeout.
    await server.waitForRequests()
    server.stop()
    let result = await error
    let elapsed = clock.now - start

    #expect(server.requests.count == 1)
    guard case .transport = result else {
      Issue.record("expected a transport error, got \(String(describing: result))")
      return
    }
    #expect(elapsed < .seconds(100), "took \(elapsed); the 120 s timeout should not have been reached")
  }

  @Test func apiKeyNeverAppearsInAnyErrorDescription() async throws {
    let server = try LoopbackHTTPServer()
    defer { server.stop() }
    let network = HTTPNewsNetwork(apiKey: Self.apiKey, apiKeyHosts: ["127.0.0.1"], timeout: 1)
    let refused = URL(string: "http://127.0.0.1:\(try LoopbackHTTPServer.refusedPort())\(Self.query)")!

    let behaviours: [LoopbackHTTPServer.Behaviour] = [
      // Bodies that echo the key, to prove it is redacted rather than merely absent.
      .respond(status: 500, headers: ["Content-Type": "text/plain"], body: Data("bad key \(Self.apiKey)".utf8)),
      .json(#"{"status":"error","code":"apiKeyInvalid","message":"Your API key \#(Self.apiKey) is invalid."}"#),
      .json(#"{"status":"error","code":"apiKeyDisabled","message":"\#(Self.apiKey)"}"#, status: 401),
      .json("<html>\(Self.apiKey)</html>"),
      .truncated(status: 200, body: Data(#"{"status":"ok","key":"\#(Self.apiKey)""#.utf8), declaredLength: 500),
      .closeImmediately,
      .hang,
    ]
    var errors: [NewsNetworkError] = []
    for behaviour in behaviours {
      server.behaviour = behaviour
      if let error = await failure(network, server.url(Self.query)) { errors.append(error) }
    }
    if let error = await failure(network, refused) { errors.append(error) }

    #expect(errors.count == behaviours.count + 1)
    for error in errors {
      for text in [error.description, String(describing: error), String(reflecting: error), error.localizedDescription]
      {
        #expect(!text.contains(Self.apiKey), "the key leaked: \(text)")
      }
    }
    // The echoed key was there, and was replaced.
    #expect(errors[0] == .httpStatus(500, bodyPrefix: "bad key <redacted>"))
    #expect(
      errors[1]
        == .api(NewsAPIError(code: .apiKeyInvalid, message: "Your API key <redacted> is invalid.", httpStatus: 200)))
    #expect(errors[2] == .api(NewsAPIError(code: .apiKeyDisabled, message: "<redacted>", httpStatus: 401)))
  }
}
