import Foundation
import OfflineNews
import OfflineNewsModel
import TestSupport
import Testing

/// Feeds that die: `410 Gone` (RFC 9110 §15.5.11: removed on purpose, "the server desires that remote links to that
/// resource be removed") stops the polling of that source — later `fetch --all` runs serve its cache without asking
/// — and `news sources` marks it, until `news fetch --source NAME` asks again; a source that has failed every refresh
/// for a week is flagged in `news sources`. Issue 29, item 5.
@Suite("Feeds that die: 410 Gone stops polling; a week of failures is flagged")
struct GoneFeedTests {
  static func configuration(_ server: LoopbackHTTPServer, in cli: CLIHarness) throws -> String {
    let config = cli.directory.path("news.json")
    let text = """
      { "sources": { "Dead": { "feed": "\(server.url("/feed.xml").absoluteString)" } }, "timeoutSeconds": 5 }
      """
    try text.write(toFile: config, atomically: true, encoding: .utf8)
    return config
  }

  @Test("410: the next fetch --all does not ask; sources says gone; fetch --source asks again and clears it")
  func gone() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: MovedFeedTests.rss("dead")))
    defer { server.stop() }
    var cli = CLIHarness()
    let config = try Self.configuration(server, in: cli)
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)

    server.behaviour = .respond(status: 410, body: Data("gone".utf8))
    cli.now += 3600
    let first = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(first.status == 0, "the cache serves: \(first.err)")
    #expect(first.err.contains("Dead: failed: HTTP 410 Gone"), "\(first.err)")
    let asked = server.requests.count

    cli.now += 3600
    let second = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    #expect(server.requests.count == asked, "a gone feed is not asked again")
    let line = try #require((try second.json()["sources"] as? [[String: Any]])?.first)
    #expect(line["status"] as? String == "gone")
    #expect(line["cached"] as? Int == 1)
    let text = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(
      text.err.contains("Dead: gone (the server answered 410 Gone): no longer asked, serving 1 cached"), "\(text.err)")
    #expect(text.err.contains("news fetch --source Dead asks it again"), "\(text.err)")

    let sources = try await cli.run("sources", "--config", config, "--db", cli.database, "--json").json()
    #expect((sources["sources"] as? [[String: Any]])?.first?["freshness"] as? String == "gone")

    // The feed is back: asking it by name clears the mark, and fetch --all asks it again.
    server.behaviour = .respond(
      status: 200, headers: ["Content-Type": "application/rss+xml"], body: MovedFeedTests.rss("alive"))
    cli.now += 3600
    let again = await cli.run("fetch", "--source", "dead", "--config", config, "--db", cli.database)
    #expect(again.status == 0, "\(again.err)")
    let before = server.requests.count
    cli.now += 3600
    let all = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(server.requests.count == before + 1, "asked again")
    #expect(all.out.contains("Dead: "), "\(all.out)")
    #expect(!all.err.contains("gone"), "\(all.err)")
  }

  @Test("a source failing every refresh for more than a week is flagged in news sources; less is not")
  func failingForAWeek() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: MovedFeedTests.rss("flaky")))
    defer { server.stop() }
    var cli = CLIHarness()
    let config = try Self.configuration(server, in: cli)
    let good = cli.now
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)
    server.behaviour = .respond(status: 503, body: Data("down".utf8))
    for days in [3.0, 8.0] {
      cli.now = good + days * 86_400
      _ = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      let sources = try await cli.run("sources", "--config", config, "--db", cli.database, "--json").json()
      let entry = try #require((sources["sources"] as? [[String: Any]])?.first)
      if days < 7 {
        #expect(entry["failingSince"] is NSNull, "\(days) days: \(entry)")
      } else {
        #expect(entry["failingSince"] as? String == Timestamp(good).rfc3339String, "\(entry)")
        let text = await cli.run("sources", "--config", config, "--db", cli.database)
        #expect(text.out.contains("failing for 8 d"), "\(text.out)")
      }
    }
  }
}

/// `news fetch --folder NAME`: the refresh of one folder's sources (and its subfolders'), as `--all` refreshes every
/// source (issue 27: "refresh one / a folder / all").
@Suite("news fetch --folder: one folder's sources")
struct FetchFolderTests {
  @Test("only the folder's sources are asked, subfolders included, any case; an unknown folder names the folders")
  func folder() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: MovedFeedTests.rss("x")))
    defer { server.stop() }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let feed = { (path: String) in server.url(path).absoluteString }
    try """
    { "sources": {
        "Swift": { "feed": "\(feed("/swift"))", "folder": "Tech/Swift" },
        "Ruby": { "feed": "\(feed("/ruby"))", "folder": "Tech" },
        "ATP": { "feed": "\(feed("/atp"))", "folder": "Podcasts" } } }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let tech = await cli.run("fetch", "--folder", "tech", "--config", config, "--db", cli.database)
    #expect(tech.status == 0, "\(tech.err)")
    #expect(Set(server.requests.map(\.target)) == ["/swift", "/ruby"])
    #expect(tech.out.split(separator: "\n").map { $0.split(separator: ":")[0] } == ["Ruby", "Swift"])
    let unknown = await cli.run("fetch", "--folder", "Music", "--config", config, "--db", cli.database)
    #expect(unknown.status == 64)
    #expect(unknown.err.contains("folders: Tech, Podcasts, Tech/Swift"), "\(unknown.err)")
    let both = await cli.run("fetch", "--all", "--folder", "Tech", "--config", config, "--db", cli.database)
    #expect(both.status == 64)
  }
}
