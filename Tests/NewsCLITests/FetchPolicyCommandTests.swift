import Foundation
import TestSupport
import Testing

@testable import NewsCLI

/// `news fetch --policy/--max-age`, sources' `policy` and `maxAge`, `--json`'s `stale` and `ageSeconds`, and
/// `news sources`, against a loopback NewsAPI.
@Suite("news fetch policies and max-age, news sources")
struct FetchPolicyCommandTests {
  static let body = NewsCommandLineNetworkTests.body

  /// A harness with a configuration naming the loopback server's sources.
  static func harness(_ server: LoopbackHTTPServer, sources: String? = nil) throws -> (CLIHarness, String) {
    let cli = CLIHarness()
    let url = server.url("/v2/top-headlines").absoluteString
    let config = cli.directory.path("news.json")
    let text =
      sources ?? """
        {"headlines": {"url": "\(url)", "query": {"country": "us"}, "maxAge": 3600, "policy": "cache-first"},
         "plain": {"url": "\(url)", "query": {"country": "fr"}},
         "never": {"url": "\(url)", "query": {"country": "de"}, "maxAge": 60}}
        """
    try Data(#"{"defaultSource": "plain", "timeoutSeconds": 5, "sources": "#.utf8 + Data(text.utf8) + Data("}".utf8))
      .write(to: URL(fileURLWithPath: config))
    return (cli, config)
  }

  @Test("cache-only never asks the network: nothing cached is exit 0 with a note, and an empty --json result")
  func cacheOnlyEmpty() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let (cli, config) = try Self.harness(server)

    let human = await cli.run("fetch", "--config", config, "--db", cli.database, "--policy", "cache-only")
    #expect(human.status == 0, "\(human.err)")
    #expect(human.out.isEmpty)
    #expect(human.err.hasPrefix("nothing cached for plain ("), "\(human.err)")

    let json = await cli.run("fetch", "--config", config, "--db", cli.database, "--policy", "cache-only", "--json")
    #expect(json.status == 0)
    let document = try json.json()
    #expect(document["origin"] as? String == "cache")
    #expect(document["fetchedAt"] is NSNull)
    #expect(document["ageSeconds"] is NSNull)
    #expect(document["stale"] as? Bool == true)
    #expect(articles(document).isEmpty)
    #expect(server.requests.isEmpty)
  }

  @Test("--json adds stale and ageSeconds; cache-first with --max-age serves fresh rows without a request")
  func cacheFirstWithMaxAge() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    var (cli, config) = try Self.harness(server)

    let first = await cli.run("fetch", "--config", config, "--db", cli.database, "--json")
    #expect(first.status == 0, "\(first.err)")
    let document = try first.json()
    #expect(document["origin"] as? String == "network")
    #expect(document["stale"] as? Bool == false)
    #expect(document["ageSeconds"] as? Double == 0)

    cli.now += 90
    let cached = await cli.run(
      "fetch", "--config", config, "--db", cli.database, "--policy", "cache-first", "--max-age", "3600", "--json")
    let hit = try cached.json()
    #expect(hit["origin"] as? String == "cache")
    #expect(hit["networkError"] is NSNull)
    #expect(hit["ageSeconds"] as? Double == 90)
    #expect(hit["stale"] as? Bool == false)
    #expect(articles(hit).count == 2)
    #expect(server.requests.count == 1)

    let human = await cli.run(
      "fetch", "--config", config, "--db", cli.database, "--policy", "cache-first", "--max-age", "3600")
    #expect(human.out.hasPrefix("cached — 2 articles from 1 min ago — fresh, max age 1 h\n"), "\(human.out)")

    let stale = await cli.run(
      "fetch", "--config", config, "--db", cli.database, "--policy", "cache-first", "--max-age", "60", "--json")
    #expect(try stale.json()["origin"] as? String == "network")
    #expect(server.requests.count == 2)
  }

  @Test("a source's policy and maxAge apply; --policy overrides them")
  func sourcePolicy() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    var (cli, config) = try Self.harness(server)

    #expect(await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "headlines").status == 0)
    cli.now += 1800
    let fresh = await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "headlines", "--json")
    #expect(try fresh.json()["origin"] as? String == "cache")
    #expect(server.requests.count == 1)

    let forced = await cli.run(
      "fetch", "--config", config, "--db", cli.database, "--source", "headlines", "--policy", "network-first",
      "--json")
    #expect(try forced.json()["origin"] as? String == "network")
    #expect(server.requests.count == 2)

    cli.now += 3600
    let expired = await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "headlines", "--json")
    #expect(try expired.json()["origin"] as? String == "network")
    #expect(server.requests.count == 3)
  }

  @Test("network-only: the network's cause and exit 69 even with rows cached; 401 is not retried")
  func networkOnlyFailure() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let (cli, config) = try Self.harness(server)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database).status == 0)

    server.behaviour = .json(
      #"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid."}"#, status: 401)
    let outcome = await cli.run("fetch", "--config", config, "--db", cli.database, "--policy", "network-only")
    #expect(outcome.status == 69)
    #expect(outcome.out.isEmpty)
    #expect(
      outcome.err.hasPrefix(
        "news: \(server.url("/v2/top-headlines?country=fr").absoluteString): NewsAPI error apiKeyInvalid (HTTP 401): "
          + "Your API key is invalid.\n"), "\(outcome.err)")
    #expect(outcome.err.contains("hint: set NEWSAPI_KEY"), "\(outcome.err)")
    #expect(server.requests.count == 2)
  }

  @Test("the CLI retries a 503 (three attempts in all) and then serves the cache with the cause")
  func retries503() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let (cli, config) = try Self.harness(server)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database).status == 0)

    server.behaviour = .respond(status: 503, headers: ["Retry-After": "0"], body: Data("busy".utf8))
    let outcome = await cli.run("fetch", "--config", config, "--db", cli.database, "--json")
    #expect(outcome.status == 0)
    let document = try outcome.json()
    #expect(document["origin"] as? String == "cache")
    #expect(document["networkError"] as? String == "HTTP 503 Service Unavailable: busy")
    #expect(server.requests.count == 4)
  }

  @Test("a second fetch sends If-None-Match; the 304 is shown as not modified")
  func conditional() async throws {
    let server = try LoopbackHTTPServer(.conditional(etag: #""abc""#, lastModified: nil, body: Data(Self.body.utf8)))
    defer { server.stop() }
    let (cli, config) = try Self.harness(server)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database).status == 0)
    let second = await cli.run("fetch", "--config", config, "--db", cli.database)
    #expect(second.status == 0)
    #expect(server.requests.last?.header("If-None-Match") == #""abc""#)
    #expect(second.out.hasPrefix("online — 2 articles from plain ("), "\(second.out)")
    #expect(second.out.components(separatedBy: "\n").first?.hasSuffix(" (not modified)") == true, "\(second.out)")
  }

  @Test("bad --policy and --max-age values are usage errors; bad source keys are configuration errors")
  func invalidValues() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    let (cli, config) = try Self.harness(server)

    let policy = await cli.run("fetch", "--config", config, "--db", cli.database, "--policy", "cache-then-network")
    #expect(policy.status == 64)
    #expect(
      policy.err.contains(
        "--policy \"cache-then-network\" is not one of network-first, cache-first, network-only, cache-only"))
    let maxAge = await cli.run("fetch", "--config", config, "--db", cli.database, "--max-age", "-1")
    #expect(maxAge.status == 64)
    #expect(maxAge.err.contains("--max-age \"-1\" is not a number of seconds ≥ 0"))

    let url = server.url("/v2/top-headlines").absoluteString
    for (entry, message) in [
      (#"{"x": {"url": "\#(url)", "policy": "sometimes"}}"#, "sources.x.policy must be one of"),
      (#"{"x": {"url": "\#(url)", "maxAge": "1h"}}"#, "sources.x.maxAge must be a number of seconds"),
      (#"{"x": {"url": "\#(url)", "ttl": 5}}"#, "sources.x: unknown key \"ttl\""),
    ] {
      let (bad, badConfig) = try Self.harness(server, sources: entry)
      let outcome = await bad.run("fetch", "--config", badConfig, "--db", bad.database, "--source", "x")
      #expect(outcome.status == 78, "\(entry)")
      #expect(outcome.err.contains(message), "\(outcome.err)")
    }
    #expect(server.requests.isEmpty)
  }

  @Test("news sources: last fetch, age, freshness, articles and last error of each source")
  func sources() async throws {
    let server = try LoopbackHTTPServer(.json(Self.body))
    defer { server.stop() }
    var (cli, config) = try Self.harness(server)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "headlines").status == 0)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "plain").status == 0)
    cli.now += 7200
    server.behaviour = .json(#"{"status":"error","code":"apiKeyInvalid","message":"Bad key."}"#, status: 401)
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "plain").status == 0)
    // A source whose every fetch failed keeps its last error too (migration 5, query_failure).
    #expect(await cli.run("fetch", "--config", config, "--db", cli.database, "--source", "never").status == 69)
    let requests = server.requests.count

    let json = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    #expect(json.status == 0, "\(json.err)")
    let entries = try #require(try json.json()["sources"] as? [[String: Any]])
    #expect(entries.map { $0["name"] as? String } == ["headlines", "never", "plain"])
    let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0["name"] as? String ?? "", $0) })
    let headlines = try #require(byName["headlines"])
    #expect(headlines["policy"] as? String == "cache-first")
    #expect(headlines["maxAgeSeconds"] as? Double == 3600)
    #expect(headlines["ageSeconds"] as? Double == 7200)
    #expect(headlines["freshness"] as? String == "stale")
    #expect(headlines["stale"] as? Bool == true)
    #expect(headlines["articles"] as? Int == 2)
    #expect(headlines["lastError"] is NSNull)
    #expect(headlines["default"] as? Bool == false)
    let never = try #require(byName["never"])
    #expect(never["freshness"] as? String == "never-fetched")
    #expect(never["fetchedAt"] is NSNull)
    #expect(never["articles"] as? Int == 0)
    #expect(never["lastError"] as? String == "NewsAPI error apiKeyInvalid (HTTP 401): Bad key.")
    #expect(never["kind"] as? String == "newsapi")
    let plain = try #require(byName["plain"])
    #expect(plain["default"] as? Bool == true)
    #expect(plain["policy"] as? String == "network-first")
    #expect(plain["freshness"] as? String == "no-max-age")
    #expect(plain["lastError"] as? String == "NewsAPI error apiKeyInvalid (HTTP 401): Bad key.")
    #expect(plain["lastErrorAt"] as? String == "2025-11-29T09:06:40.000Z")
    #expect(plain["url"] as? String == server.url("/v2/top-headlines?country=fr").absoluteString)

    let human = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(human.status == 0)
    let lines = human.out.components(separatedBy: "\n").filter { !$0.isEmpty }
    #expect(lines.count == 4, "headings and three sources:\n\(human.out)")
    #expect(
      lines[0] == "  SOURCE     LAST FETCH       FRESHNESS            CACHED      UNREAD  LAST ERROR", "\(human.out)")
    #expect(lines[1].hasPrefix("  headlines  fetched 2 h ago  stale (max age 1 h)  2 articles"), "\(human.out)")
    #expect(lines[2].contains("never fetched"))
    #expect(lines[2].hasSuffix("last error just now: NewsAPI error apiKeyInvalid (HTTP 401): Bad key."), "\(lines[2])")
    #expect(lines[3].contains("plain *"))
    #expect(lines[3].hasSuffix("last error just now: NewsAPI error apiKeyInvalid (HTTP 401): Bad key."), "\(lines[3])")
    #expect(server.requests.count == requests, "news sources fetches nothing")

    let overview = await cli.run("--help")
    #expect(overview.out.contains("  sources   "))
  }
}
