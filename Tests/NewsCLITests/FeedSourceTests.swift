import Foundation
import TestSupport
import Testing

/// Feed sources as a new user meets them (the follow-up of issues 12 and 17): a feed or Parse source as the default
/// source, undated items, `news sources` for feeds, one article for one item whichever path saved it.
@Suite("Feed sources, as a new user meets them")
struct FeedSourceTests {
  /// Writes `news.json` in the harness's folder; returns its path.
  static func writeConfig(_ cli: CLIHarness, _ text: String) throws -> String {
    let path = cli.directory.path("news.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// A loopback server answering every request with `fixture` (one of ours, `Tests/Fixtures/feeds/`).
  static func serve(_ fixture: String, type: String = "application/rss+xml") throws -> LoopbackHTTPServer {
    let body = try Data(contentsOf: Fixtures.own("feeds/\(fixture)"))
    return try LoopbackHTTPServer(.respond(status: 200, headers: ["Content-Type": type], body: body))
  }

  /// The `news sources --json` entry of `name`.
  static func sourceEntry(_ cli: CLIHarness, config: String, _ name: String) async throws -> [String: Any] {
    let outcome = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let sources = try outcome.json()["sources"] as? [[String: Any]] ?? []
    return try #require(sources.first { $0["name"] as? String == name }, "\(outcome.out)")
  }

  // MARK: 1. Every source kind `fetch --source` reads works as the default source

  @Test("a feed as defaultSource: news fetch and news list work (they exited 78), news sources marks it default")
  func feedAsDefaultSource() async throws {
    let server = try Self.serve("undated.rss")
    defer { server.stop() }
    let cli = CLIHarness()
    let config = try Self.writeConfig(
      cli, #"{"defaultSource": "notes", "sources": {"notes": {"feed": "\#(server.url("/notes.rss"))"}}}"#)
    let fetched = await cli.run("fetch", "--config", config, "--db", cli.database, "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    let document = try fetched.json()
    #expect(document["origin"] as? String == "network")
    #expect(articles(document).count == 2)
    #expect(articles(document).allSatisfy { $0["source"] as? String == "notes" })

    let listed = await cli.run("list", "--config", config, "--db", cli.database, "--json")
    #expect(listed.status == 0, "\(listed.err)")
    #expect(articles(try listed.json()).count == 2)
    let human = await cli.run("fetch", "--config", config, "--db", cli.database)
    #expect(human.status == 0, "\(human.err)")
    #expect(human.out.contains("notes"), "\(human.out)")

    #expect(try await Self.sourceEntry(cli, config: config, "notes")["default"] as? Bool == true)
    // The default source still cannot be removed.
    #expect(await cli.run("remove", "notes", "--config", config).status == 64)
  }

  @Test("a Parse source as defaultSource: news fetch syncs it (here unreachable: 69, not 78), news list reads")
  func parseAsDefaultSource() async throws {
    let port = try LoopbackHTTPServer.refusedPort()
    let cli = CLIHarness()
    let mapping = Fixtures.configDirectory.appendingPathComponent("mappings/parse-server.json").path
    let config = try Self.writeConfig(
      cli,
      """
      {"defaultSource": "demo", "timeoutSeconds": 2, "sources": {"demo": {
        "parse": {"serverURL": "http://127.0.0.1:\(port)/parse", "applicationId": "a", "classes": ["Article"]},
        "mapping": "\(mapping)"}}}
      """)
    let fetched = await cli.run("fetch", "--config", config, "--db", cli.database)
    #expect(fetched.status == 69, "\(fetched.out) \(fetched.err)")
    #expect((fetched.out + fetched.err).contains("connection refused"), "\(fetched.out) \(fetched.err)")
    let listed = await cli.run("list", "--config", config, "--db", cli.database)
    #expect(listed.status == 0, "\(listed.err)")
    #expect(try await Self.sourceEntry(cli, config: config, "demo")["default"] as? Bool == true)
  }

  @Test("a defaultSource naming no source is still a configuration error naming the key")
  func unknownDefaultSource() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, #"{"defaultSource": "nope", "sources": {}}"#)
    let listed = await cli.run("list", "--config", config, "--db", cli.database)
    #expect(listed.status == 78)
    #expect(listed.err.contains("\"defaultSource\" names \"nope\""), "\(listed.err)")
  }

  // MARK: 2. An undated item keeps the time it was first seen

  /// Our fixtures: one dated item (2026-11-20T10:00:00Z, in each format's own date syntax) and one undated.
  static let undatedFixtures = [
    ("undated.rss", "application/rss+xml"), ("undated.atom", "application/atom+xml"),
    ("undated.rdf", "application/rdf+xml"), ("undated.json", "application/feed+json"),
  ]
  static let datedAt = "2026-11-20T10:00:00.000Z"

  /// `publishedAt` by title, from `news list --json`.
  static func dates(_ cli: CLIHarness) async throws -> [String: String] {
    let listed = await cli.run("list", "--db", cli.database, "--json")
    var dates: [String: String] = [:]
    for row in articles(try listed.json()) {
      if let title = row["title"] as? String { dates[title] = row["publishedAt"] as? String }
    }
    return dates
  }

  @Test(
    "a fetched feed's undated item keeps the time it was first seen; its dated item the feed's date",
    arguments: undatedFixtures)
  func undatedFetched(_ fixture: String, _ type: String) async throws {
    let server = try Self.serve(fixture, type: type)
    defer { server.stop() }
    var cli = CLIHarness()
    let firstSeen = cli.now
    let url = server.url("/" + fixture).absoluteString
    #expect(await cli.run("fetch", "--url", url, "--db", cli.database).status == 0)
    cli.now = firstSeen.addingTimeInterval(3600)
    let again = await cli.run("fetch", "--url", url, "--db", cli.database, "--json")
    #expect(again.status == 0, "\(again.err)")
    #expect(try again.json()["origin"] as? String == "network")
    let dates = try await Self.dates(cli)
    #expect(dates["An undated note"] == "2025-11-29T07:06:40.000Z", "\(fixture): \(dates)")
    #expect(dates["A dated note"] == Self.datedAt, "\(fixture): \(dates)")
  }

  @Test(
    "an imported feed file's undated item keeps the time of its first import (news import, no mapping)",
    arguments: undatedFixtures.map(\.0))
  func undatedImported(_ fixture: String) async throws {
    var cli = CLIHarness()
    let file = Fixtures.own("feeds/\(fixture)").path
    #expect(await cli.run("import", file, "--db", cli.database, "--config", cli.bundledConfig).status == 0)
    cli.now = cli.now.addingTimeInterval(86_400)
    let again = await cli.run("import", file, "--db", cli.database, "--config", cli.bundledConfig)
    #expect(again.status == 0, "\(again.err)")
    let dates = try await Self.dates(cli)
    #expect(dates["An undated note"] == "2025-11-29T07:06:40.000Z", "\(fixture): \(dates)")
    #expect(dates["A dated note"] == Self.datedAt, "\(fixture): \(dates)")
  }

  @Test("a JSON Feed imported with --mapping jsonfeed: the undated item keeps the time of its first import")
  func undatedMapped() async throws {
    var cli = CLIHarness()
    let file = Fixtures.own("feeds/undated.json").path
    let arguments = ["import", file, "--mapping", "jsonfeed", "--db", cli.database, "--config", cli.bundledConfig]
    let first = await cli.run(arguments)
    #expect(first.status == 0, "\(first.err)")
    cli.now = cli.now.addingTimeInterval(86_400)
    #expect(await cli.run(arguments).status == 0)
    let dates = try await Self.dates(cli)
    #expect(dates["An undated note"] == "2025-11-29T07:06:40.000Z", "\(dates)")
    #expect(dates["A dated note"] == Self.datedAt, "\(dates)")
  }

  // MARK: 3. news sources shows a feed's fetches

  @Test("news sources shows a feed source's last fetch, articles and last error; fetch --source nope lists it")
  func feedSourceState() async throws {
    let server = try Self.serve("undated.rss")
    defer { server.stop() }
    var cli = CLIHarness()
    let config = try Self.writeConfig(
      cli,
      """
      {"timeoutSeconds": 1, "sources": {"notes": {"feed": "\(server.url("/notes.rss"))"},
        "api": {"url": "https://newsapi.org/v2/top-headlines"}}}
      """)
    let before = try await Self.sourceEntry(cli, config: config, "notes")
    #expect(before["kind"] as? String == "feed")
    #expect(before["fetchedAt"] is NSNull)
    #expect(before["freshness"] as? String == "never-fetched")

    #expect(await cli.run("fetch", "--source", "notes", "--config", config, "--db", cli.database).status == 0)
    let fetched = try await Self.sourceEntry(cli, config: config, "notes")
    #expect(fetched["fetchedAt"] as? String == "2025-11-29T07:06:40.000Z", "\(fetched)")
    #expect(fetched["articles"] as? Int == 2)
    #expect(fetched["policy"] as? String == "network-first")
    #expect(fetched["lastError"] is NSNull)
    let human = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(human.out.contains("fetched just now") && human.out.contains("2 articles"), "\(human.out)")
    #expect(!human.out.contains("news sync"), "\(human.out)")

    server.behaviour = .respond(status: 404, headers: [:], body: Data("gone".utf8))
    cli.now = cli.now.addingTimeInterval(60)
    let served = await cli.run("fetch", "--source", "notes", "--config", config, "--db", cli.database)
    #expect(served.status == 0, "the cache is served: \(served.err)")
    let failed = try await Self.sourceEntry(cli, config: config, "notes")
    #expect((failed["lastError"] as? String)?.contains("404") == true, "\(failed)")
    #expect(failed["lastErrorAt"] as? String == "2025-11-29T07:07:40.000Z", "\(failed)")
    #expect(failed["fetchedAt"] as? String == "2025-11-29T07:06:40.000Z")
    #expect(failed["articles"] as? Int == 2)

    let unknown = await cli.run("fetch", "--source", "nope", "--config", config, "--db", cli.database)
    #expect(unknown.status == 64)
    #expect(unknown.err.contains("configured: notes, api"), "\(unknown.err)")
  }

  // MARK: 4. One feed, one identity and one source, from a file or from its URL

  /// `news list --json` of the harness's database, with `extra` arguments.
  static func listed(_ cli: CLIHarness, _ extra: String...) async throws -> [[String: Any]] {
    let outcome = await cli.run(["list", "--db", cli.database, "--json"] + extra)
    #expect(outcome.status == 0, "\(outcome.err)")
    return articles(try outcome.json())
  }

  /// Imports `file` (copied into the harness's folder as `name`) as `./name`, then fetches the same bytes as the
  /// configured source `configured` from a loopback server; returns the configuration's path.
  static func importThenFetch(_ cli: CLIHarness, file: URL, name: String, configured: String, type: String)
    async throws -> (config: String, server: LoopbackHTTPServer)
  {
    let body = try Data(contentsOf: file)
    try body.write(to: cli.directory.url.appendingPathComponent(name))
    let server = try LoopbackHTTPServer(.respond(status: 200, headers: ["Content-Type": type], body: body))
    let config = try Self.writeConfig(
      cli, #"{"sources": {"\#(configured)": {"feed": "\#(server.url("/feed/" + name))"}}}"#)
    let imported = await cli.run("import", "./" + name, "--db", cli.database, "--config", config)
    #expect(imported.status == 0, "\(imported.err)")
    let fetched = await cli.run("fetch", "--source", configured, "--db", cli.database, "--config", config)
    #expect(fetched.status == 0, "\(fetched.err)")
    return (config, server)
  }

  @Test(
    "natasha.xml imported from a file and fetched as the source natasha: 10 articles, each listed by either name",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func fileAndFetchOneFeed() async throws {
    let cli = CLIHarness()
    let file = try Fixtures.sharedReal("feeds/natasha.xml")
    let (config, server) = try await Self.importThenFetch(
      cli, file: file, name: "natasha.xml", configured: "natasha", type: "application/rss+xml")
    defer { server.stop() }
    // The items, counted by XMLParser: distinct links.
    let links = Set(FeedOracle.items(try XMLOracle.read(file)).compactMap { $0.first("link")?.text })
    let all = try await Self.listed(cli)
    #expect(all.count == links.count && links.count == 10, "\(all.count)")
    let byName = try await Self.listed(cli, "--source", "natasha", "--config", config)
    #expect(byName.count == links.count, "list --source natasha missed the articles the file import saved first")
    let byFile = try await Self.listed(cli, "--source", "./natasha.xml", "--config", config)
    #expect(byFile.count == links.count)
    // A file in the current folder named without `./` is the file too (a fresh user's `--source FILE.json`).
    let byBareName = try await Self.listed(cli, "--source", "natasha.xml", "--config", config)
    #expect(byBareName.count == links.count)
    let found = await cli.run(
      "search", "protocols", "--source", "natasha", "--config", config, "--db", cli.database, "--json")
    #expect(((try found.json()["results"] as? [Any]) ?? []).count >= 1, "\(found.out)")
  }

  @Test(
    "an item without a link has one identity whether its feed was imported from a file or fetched from its URL",
    arguments: [
      ("guid-only.rss", "application/rss+xml", 3), ("ids-only.json", "application/feed+json", 2),
    ])
  func linklessItemsOneIdentity(_ fixture: String, _ type: String, _ count: Int) async throws {
    let cli = CLIHarness()
    let (_, server) = try await Self.importThenFetch(
      cli, file: Fixtures.own("feeds/\(fixture)"), name: fixture, configured: "notes", type: type)
    defer { server.stop() }
    let all = try await Self.listed(cli)
    #expect(all.count == count, "\(all.map { $0["id"] ?? "" })")
    #expect(all.allSatisfy { ($0["id"] as? String)?.hasPrefix("news-item:") == true })
  }

  @Test("ids-only.json through --mapping jsonfeed keys its items as the fetch does")
  func linklessMappedOneIdentity() async throws {
    let cli = CLIHarness()
    let file = Fixtures.own("feeds/ids-only.json")
    let (_, server) = try await Self.importThenFetch(
      cli, file: file, name: "ids-only.json", configured: "notes", type: "application/feed+json")
    defer { server.stop() }
    let mapped = await cli.run(
      "import", file.path, "--mapping", "jsonfeed", "--db", cli.database, "--config", cli.bundledConfig)
    #expect(mapped.status == 0, "\(mapped.err)")
    #expect(try await Self.listed(cli).count == 2)
  }

  @Test(
    "a real feed of guid-keyed items (Scripting News, Daring Fireball) imported and fetched is saved once",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"),
    arguments: [("scriptingNews.rss", "application/rss+xml"), ("DaringFireball.atom", "application/atom+xml")])
  func realFeedSavedOnce(_ name: String, _ type: String) async throws {
    let once = CLIHarness()
    let file = try Fixtures.sharedReal("feeds/\(name)")
    #expect(await once.run("import", file.path, "--db", once.database, "--config", once.bundledConfig).status == 0)
    let expected = try await Self.listed(once).count
    let cli = CLIHarness()
    let (_, server) = try await Self.importThenFetch(cli, file: file, name: name, configured: "feed", type: type)
    defer { server.stop() }
    #expect(try await Self.listed(cli).count == expected, "\(name): saved twice")
  }

  // MARK: 6. The publisher of an imported feed is the feed's title

  /// The feed's title by an independent reader: JSONSerialization, or XMLParser.
  static func feedTitle(_ url: URL) throws -> String? {
    if url.pathExtension == "json" {
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
      return object?["title"] as? String
    }
    let root = try XMLOracle.read(url)
    let title: OracleElement?
    switch FeedOracle.kind(root) {
    case "rss": title = root.first("channel")?.first("title")
    case "rdf": title = root.first("channel", FeedOracle.rss10)?.first("title", FeedOracle.rss10)
    default: title = root.first("title", .uri(root.namespace ?? ""))
    }
    return title?.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test(
    "news import FILE (no mapping): every item's publisher is the feed's title, not the file's name",
    arguments: undatedFixtures.map(\.0) + ["ids-only.json"])
  func publisherIsFeedTitle(_ fixture: String) async throws {
    let cli = CLIHarness()
    let file = Fixtures.own("feeds/\(fixture)")
    #expect(await cli.run("import", file.path, "--db", cli.database, "--config", cli.bundledConfig).status == 0)
    let title = try #require(try Self.feedTitle(file))
    let rows = try await Self.listed(cli)
    #expect(!rows.isEmpty && rows.allSatisfy { $0["sourceName"] as? String == title }, "\(fixture): \(rows)")
  }

  @Test(
    "the real feeds imported without and with a mapping: the publisher is the feed's title",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"),
    arguments: ["3960.json", "inessential.json", "natasha.xml", "DaringFireball.atom", "bio.rdf"])
  func realPublisherIsFeedTitle(_ name: String) async throws {
    let file = try Fixtures.sharedReal("feeds/\(name)")
    let title = try #require(try Self.feedTitle(file))
    var runs = [[String]()]
    if name.hasSuffix(".json") { runs.append(["--mapping", "jsonfeed"]) }
    for extra in runs {
      let cli = CLIHarness()
      let imported = await cli.run(
        ["import", file.path, "--db", cli.database, "--config", cli.bundledConfig] + extra)
      #expect(imported.status == 0, "\(imported.err)")
      let rows = try await Self.listed(cli)
      #expect(!rows.isEmpty && rows.allSatisfy { $0["sourceName"] as? String == title }, "\(name) \(extra)")
      let shown = await cli.run("list", "--db", cli.database)
      #expect(!shown.out.contains(name), "\(name) \(extra): the file name shown as publisher")
    }
  }
}
