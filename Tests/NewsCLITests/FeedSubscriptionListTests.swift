import Foundation
import OfflineNews
import OfflineNewsCurl
import TestSupport
import Testing

@testable import NewsCLI

/// A subscription list at the scale people have: every real XML feed served by a loopback server under six paths
/// (72 URLs, each with its own `ETag`), configured as 72 `{"feed": URL}` sources. `news fetch --all` stores every
/// item; a second run is answered `304` for each; with the server gone, each source is served from the cache with
/// its age and the error.
@Suite("fetch --all of a 72-feed subscription list over loopback")
struct FeedSubscriptionListTests {
  static let copies = 6

  /// One subscription: its source name, the served path, the file it serves, its entity tag.
  struct Subscription: Sendable {
    var name: String
    var path: String
    var file: String
    var etag: String
  }

  static func subscriptions() -> [Subscription] {
    RealFeeds.xmlFeeds.flatMap { file in
      (1...copies).map { copy in
        Subscription(name: "\(copy)-\(file)", path: "/\(copy)/\(file)", file: file, etag: "\"\(file)-\(copy)\"")
      }
    }
  }

  /// A server answering each subscription's path conditionally, and `404` for anything else.
  static func server(_ subscriptions: [Subscription]) throws -> LoopbackHTTPServer {
    var routes: [String: LoopbackHTTPServer.Behaviour] = [:]
    for subscription in subscriptions {
      let body = try Data(contentsOf: RealFeeds.url(subscription.file))
      routes[subscription.path] = .conditional(etag: subscription.etag, lastModified: nil, body: body)
    }
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data("no such feed".utf8)))
    let table = routes
    server.router = { table[$0.target] }
    return server
  }

  static func writeConfiguration(_ subscriptions: [Subscription], server: LoopbackHTTPServer, to path: String) throws {
    var sources: [String: Any] = [:]
    for subscription in subscriptions {
      sources[subscription.name] = ["feed": server.url(subscription.path).absoluteString]
    }
    let document: [String: Any] = ["sources": sources, "timeoutSeconds": 5]
    try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
  }

  @Test(
    "72 feeds: fetch --all stores every item, the second run is 304 for each, offline each is served from the cache",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func subscriptionList() async throws {
    let subscriptions = Self.subscriptions()
    #expect(subscriptions.count >= 70)
    var expected: [String: [FeedImportTests.ExpectedItem]] = [:]
    for file in RealFeeds.xmlFeeds { expected[file] = try FeedImportTests.expected(file).items }
    let server = try Self.server(subscriptions)
    var cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Self.writeConfiguration(subscriptions, server: server, to: config)

    // The first run: every source fetched once, every item saved.
    let first = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    #expect(first.status == 0, "\(first.err)")
    let firstOutcomes = try #require(try first.json()["sources"] as? [[String: Any]])
    #expect(firstOutcomes.count == subscriptions.count)
    for subscription in subscriptions {
      let outcome = firstOutcomes.first { $0["source"] as? String == subscription.name }
      let count = expected[subscription.file]?.count ?? -1
      let saved = ["inserted", "updated", "unchanged"].map { outcome?[$0] as? Int ?? 0 }.reduce(0, +)
      #expect(["new", "unchanged"].contains(outcome?["status"] as? String), "\(subscription.name): \(outcome ?? [:])")
      #expect(saved == count, "\(subscription.name): \(outcome ?? [:])")
    }
    #expect(server.requests.count == subscriptions.count)
    #expect(Set(server.requests.map(\.target)) == Set(subscriptions.map(\.path)))
    // Every source's items are in the cache under its own query, links and all (no network: cache-only).
    for subscription in subscriptions {
      let cached = await cli.run(
        "fetch", "--source", subscription.name, "--policy", "cache-only", "--config", config, "--db", cli.database,
        "--json")
      let rows = articles(try cached.json())
      let items = expected[subscription.file] ?? []
      #expect(rows.count == items.count, "\(subscription.name)")
      #expect(
        Set(rows.compactMap { $0["url"] as? String }) == Set(items.compactMap(\.link)), "\(subscription.name)")
    }
    #expect(server.requests.count == subscriptions.count)

    // The second run: each asked with its entity tag and answered 304.
    let second = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    #expect(second.status == 0, "\(second.err)")
    let secondOutcomes = try #require(try second.json()["sources"] as? [[String: Any]])
    #expect(secondOutcomes.count == subscriptions.count)
    #expect(
      secondOutcomes.allSatisfy { $0["status"] as? String == "notModified" },
      "\(secondOutcomes.filter { $0["status"] as? String != "notModified" })")
    let again = server.requests.dropFirst(subscriptions.count)
    #expect(again.count == subscriptions.count)
    for subscription in subscriptions {
      let asked = again.filter { $0.target == subscription.path }
      #expect(asked.count == 1, "\(subscription.name)")
      #expect(asked.first?.header("If-None-Match") == subscription.etag, "\(subscription.name)")
    }

    // Offline: every source served from the cache, with its age and the error, exit 0.
    server.stop()
    cli.now = cli.now.addingTimeInterval(3600)
    let offline = cli
    var results: [String: CLIHarness.Outcome] = [:]
    await withTaskGroup(of: (String, CLIHarness.Outcome).self) { group in
      for (index, subscription) in subscriptions.enumerated() {
        if index >= 8, let done = await group.next() { results[done.0] = done.1 }  // 8 at once
        group.addTask {
          let outcome = await offline.run(
            "fetch", "--source", subscription.name, "--config", config, "--db", offline.database, "--json")
          return (subscription.name, outcome)
        }
      }
      for await done in group { results[done.0] = done.1 }
    }
    for subscription in subscriptions {
      let outcome = try #require(results[subscription.name])
      #expect(outcome.status == 0, "\(subscription.name): \(outcome.err)")
      let document = try outcome.json()
      #expect(document["origin"] as? String == "cache", "\(subscription.name)")
      #expect((document["ageSeconds"] as? Double).map { $0 >= 3600 } == true, "\(subscription.name)")
      #expect((document["networkError"] as? String)?.isEmpty == false, "\(subscription.name)")
      #expect(articles(document).count == expected[subscription.file]?.count, "\(subscription.name)")
    }
    // And fetch --all offline: one line per source, each serving its cache (exit 0).
    let all = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(all.status == 0, "\(all.err)")
    let lines = all.err.split(separator: "\n")
    #expect(lines.count == subscriptions.count, "\(all.err)")
    #expect(lines.allSatisfy { $0.contains("failed:") && $0.contains("cached from 1 h ago") }, "\(all.err)")
    // The origin refused: asked by the first sources only (2 at once per host), the others served at once.
    let asked = lines.filter { !$0.contains("(not asked: http://127.0.0.1:\(server.port) failed earlier in this run)") }
    #expect(asked.count <= RefreshOptions().perHostLimit, "\(asked)")
  }

  @Test("fetch --all on a terminal draws a progress line of sources on standard error, then clears it")
  func progressLine() async throws {
    // Six small feeds of our own, so that the test runs without ../shared too (a fresh clone).
    var routes: [String: LoopbackHTTPServer.Behaviour] = [:]
    var subscriptions: [Subscription] = []
    for index in 1...6 {
      let path = "/\(index)/feed.xml"
      let body = Data(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <rss version="2.0"><channel><title>Feed \(index)</title><link>https://example.org/\(index)/</link>
        <item><title>Post \(index)</title><link>https://example.org/\(index)/post</link>
        <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>
        """.utf8)
      routes[path] = .conditional(etag: "\"feed-\(index)\"", lastModified: nil, body: body)
      subscriptions.append(Subscription(name: "feed-\(index)", path: path, file: "feed.xml", etag: "\"feed-\(index)\""))
    }
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data("no such feed".utf8)))
    let table = routes
    server.router = { table[$0.target] }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Self.writeConfiguration(subscriptions, server: server, to: config)
    let fixed = cli.now
    for quiet in [false, true] {
      let (console, captured) = Console.capturing(errorIsTerminal: true, errorWidth: 80)
      let command = NewsCommandLine(
        environment: cli.environment, currentDirectory: cli.directory.url.path, console: console, now: { fixed },
        network: .curl)
      let status = await command.run(
        ["fetch", "--all", "--config", config, "--db", cli.database] + (quiet ? ["--quiet"] : []))
      #expect(status == 0, "\(captured.err)")
      if quiet {
        #expect(captured.err.isEmpty, "\(captured.err.debugDescription)")
      } else {
        #expect(captured.err.hasPrefix("\rrefreshing  "), "\(captured.err.debugDescription)")
        #expect(captured.err.contains("6/6 sources  100%"), "\(captured.err.debugDescription)")
        #expect(captured.err.hasSuffix("\r"), "\(captured.err.debugDescription)")  // cleared
      }
      // --quiet: no line for a source that did not fail, one summary line.
      #expect(captured.out.split(separator: "\n").count == (quiet ? 1 : 6), "\(captured.out)")
      if quiet { #expect(captured.out.hasPrefix("6 sources: 6 refreshed; "), "\(captured.out)") }
    }
  }
}
