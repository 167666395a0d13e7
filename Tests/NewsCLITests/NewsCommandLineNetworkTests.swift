import Foundation
import TestSupport
import Testing

@testable import NewsCLI

@Suite("news CLI over a loopback NewsAPI")
struct NewsCommandLineNetworkTests {
  static let body = """
    {"status":"ok","totalResults":3,"articles":[
      {"source":{"id":null,"name":"Local Gazette"},"author":"","title":"Tram line reopens",
       "description":null,"url":"https://gazette.example/tram","urlToImage":null,
       "publishedAt":"2024-03-01T08:00:00.1234567Z","content":null},
      {"source":{"id":"wire","name":"Wire"},"author":null,"title":"Markets steady",
       "description":"Quiet day.","url":"https://wire.example/markets","urlToImage":"https://wire.example/m.jpg",
       "publishedAt":"2024-03-01T09:30:00+00:00","content":"Stocks… [+120 chars]"},
      {"source":{"id":null,"name":"[Removed]"},"author":null,"title":"[Removed]","description":"[Removed]",
       "url":"https://removed.com","urlToImage":null,"publishedAt":"1970-01-01T00:00:00Z","content":"[Removed]"}
    ]}
    """

  @Test("NEWSAPI_KEY goes to NewsAPI only: a URL without NewsAPI's /v2/ path on another host gets no key")
  func keyNotSentToFeeds() async throws {
    let key = "cli-test-key-7f3a9c"
    let cli = CLIHarness(environment: ["NEWSAPI_KEY": key])
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let fetched = await cli.run("fetch", "--url", server.url("/feed.json").absoluteString, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(server.requests.count == 1)
    #expect(server.requests.first?.header("X-Api-Key") == nil)
  }

  @Test("fetch from the network, then the same command offline serves the same rows from the cache")
  func fetchThenOffline() async throws {
    let key = "cli-test-key-7f3a9c"
    let cli = CLIHarness(environment: ["NEWSAPI_KEY": key])
    let server = try LoopbackHTTPServer(.json(Self.body))
    let url = server.url("/v2/top-headlines?country=us").absoluteString

    let online = await cli.run("fetch", "--url", url, "--db", cli.database, "--json")
    #expect(online.status == 0, "\(online.err)")
    let first = try online.json()
    #expect(first["origin"] as? String == "network")
    #expect(server.requests.first?.header("X-Api-Key") == key)
    let rows = articles(first)
    #expect(rows.map { $0["url"] as? String } == ["https://wire.example/markets", "https://gazette.example/tram"])
    #expect(rows.map { $0["publishedAt"] as? String } == ["2024-03-01T09:30:00.000Z", "2024-03-01T08:00:00.123Z"])
    #expect(rows.last?["author"] is NSNull, "an empty author is null")
    #expect(rows.last?["summary"] is NSNull)

    server.stop()
    let offline = await cli.run("fetch", "--url", url, "--db", cli.database, "--json")
    #expect(offline.status == 0, "\(offline.err)")
    let second = try offline.json()
    #expect(second["origin"] as? String == "cache")
    #expect(second["fetchedAt"] as? String == first["fetchedAt"] as? String)
    #expect(second["networkError"] as? String == "connection refused")
    #expect(NSArray(array: articles(second)).isEqual(to: rows), "the same articles, field for field")

    let human = await cli.run("fetch", "--url", url, "--db", cli.database)
    #expect(human.status == 0)
    #expect(
      human.out.hasPrefix("offline — 2 cached articles from just now (network: connection refused)\n"), "\(human.out)")

    for outcome in [online, offline, human] { #expect(!(outcome.out + outcome.err).contains(key)) }
  }

  @Test("network down and nothing cached: exit 69 with the network's cause")
  func emptyCacheUnavailable() async throws {
    let cli = CLIHarness()
    let port = try LoopbackHTTPServer.refusedPort()
    let outcome = await cli.run("fetch", "--url", "http://127.0.0.1:\(port)/v2/top-headlines", "--db", cli.database)
    #expect(outcome.status == 69)
    #expect(outcome.out.isEmpty)
    #expect(
      outcome.err.hasPrefix(
        "news: http://127.0.0.1:\(port)/v2/top-headlines: connection refused; nothing is cached for it\n"),
      "\(outcome.err)")
    #expect(outcome.err.contains("hint: try again when the network is back"), "\(outcome.err)")
  }

  @Test("a NewsAPI error with nothing cached says what to do about the key")
  func apiKeyMissing() async throws {
    let cli = CLIHarness()
    let server = try LoopbackHTTPServer(
      .json(
        #"{"status":"error","code":"apiKeyMissing","message":"Your API key is missing."}"#, status: 401))
    defer { server.stop() }
    let outcome = await cli.run("fetch", "--url", server.url("/v2/everything?q=x").absoluteString, "--db", cli.database)
    #expect(outcome.status == 69)
    #expect(outcome.err.contains("NewsAPI error apiKeyMissing (HTTP 401): Your API key is missing."))
    #expect(outcome.err.contains("hint: set NEWSAPI_KEY"))
  }

  @Test("--timeout bounds a server that never answers, and the cache is served")
  func timeout() async throws {
    let cli = CLIHarness()
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let url = server.url("/v2/top-headlines").absoluteString
    #expect(await cli.run("fetch", "--url", url, "--db", cli.database).status == 0)
    server.behaviour = .hang
    let started = ContinuousClock.now
    let outcome = await cli.run("fetch", "--url", url, "--db", cli.database, "--timeout", "0.5", "--json")
    let elapsed = ContinuousClock.now - started
    #expect(elapsed > .milliseconds(400) && elapsed < .seconds(20), "\(elapsed)")
    #expect(outcome.status == 0)
    #expect(try outcome.json()["origin"] as? String == "cache")
    // The timeout is in force to the millisecond (libcurl's CURLOPT_TIMEOUT_MS). On a busy machine the fetch's own
    // deadline (twice the timeout + 0.5 s) may come first: the cache is then served with that cause (the attempt
    // ends with the process). Either way the cause is a timeout.
    let error = try #require(try outcome.json()["networkError"] as? String)
    #expect(
      error == "timed out (no complete answer within 0.5 s)"
        || error == "timed out (no answer within the 1.5 s deadline)", "\(error)")
  }
}
