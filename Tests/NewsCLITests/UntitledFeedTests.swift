import Foundation
import TestSupport
import Testing

/// A feed subscribed without a title — a newsboat `urls` line without `~TITLE`, an OPML outline without `text` or
/// `title` — is named by its URL until a refresh reads the feed, and by the feed's own title from then on, as
/// newsboat shows it; a title the person gave is never replaced (tester report: imported feeds kept their URLs).
@Suite("untitled feeds take their feed's title")
struct UntitledFeedTests {
  /// Two loopback feeds, "Alpha feed" and "Beta feed", and a third also titled "Alpha feed".
  static func server() throws -> LoopbackHTTPServer {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let home = server.url("/").absoluteString
    let feeds = [
      "/alpha.xml": NewsboatMigrationTests.feed(
        "Alpha feed", home: home, [("A1", "https://site.example/a1", nil), ("A2", "https://site.example/a2", nil)]),
      "/beta.xml": NewsboatMigrationTests.feed(
        "  Beta\n feed ", home: home, [("B1", "https://site.example/b1", nil), ("B2", "https://site.example/b2", nil)]),
      "/gamma.xml": NewsboatMigrationTests.feed("Alpha feed", home: home, [("G1", "https://site.example/g1", nil)]),
    ]
    server.router = { request in
      guard let body = feeds[request.target] else { return .respond(status: 404, body: Data()) }
      return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: body)
    }
    return server
  }

  @Test("newsboat urls: after fetch --all the untitled feeds have their feed's titles; ~TITLE stays; articles follow")
  func newsboatURLs() async throws {
    let server = try Self.server()
    let alpha = server.url("/alpha.xml").absoluteString
    let beta = server.url("/beta.xml").absoluteString
    let gamma = server.url("/gamma.xml").absoluteString
    let cli = CLIHarness()
    let urls = cli.directory.path("urls")
    try "\(alpha) tech \"~My own name\"\n\(beta) world\n\(gamma)\n".write(
      toFile: urls, atomically: true, encoding: .utf8)
    let config = cli.directory.path("news.json")
    #expect(await cli.run("import", urls, "--config", config).status == 0)
    #expect(try SubscriptionCommandTests.sources(config).keys.sorted() == [beta, gamma, "My own name"].sorted())

    let fetched = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    let sources = try SubscriptionCommandTests.sources(config)
    // The feed's title, one line; a title another source has gets " (2)"; the given name stays, though its feed
    // is titled "Alpha feed" too.
    #expect(sources.keys.sorted() == ["Alpha feed", "Beta feed", "My own name"], "\(sources.keys)")
    #expect(sources["Beta feed"]?["feed"] as? String == beta)
    #expect(sources["Beta feed"]?["folder"] as? String == "world")
    #expect(sources["Alpha feed"]?["feed"] as? String == gamma)
    #expect(sources["My own name"]?["feed"] as? String == alpha)
    #expect(fetched.err.contains("is named \"Beta feed\" after its feed's title"), "\(fetched.err)")

    // The articles are the source's under its new name (list, sources), and a second refresh renames nothing.
    let listed = await cli.run("list", "--source", "Beta feed", "--config", config, "--db", cli.database, "--json")
    #expect(Set(articles(try listed.json()).compactMap { $0["title"] as? String }) == ["B1", "B2"], "\(listed.err)")
    let report = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    let entries = try #require(try report.json()["sources"] as? [[String: Any]])
    #expect(entries.first { $0["name"] as? String == "Beta feed" }?["articles"] as? Int == 2, "\(entries)")
    let again = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(again.status == 0 && !again.err.contains("is named"), "\(again.err)")
    #expect(try SubscriptionCommandTests.sources(config).keys.sorted() == ["Alpha feed", "Beta feed", "My own name"])
    // The URL it was named by still refreshes it (news read's row of before the rename reloads so).
    let byURL = await cli.run("fetch", "--source", beta, "--json-lines", "--config", config, "--db", cli.database)
    #expect(byURL.status == 0, "\(byURL.err)")
    #expect(byURL.out.contains(#""source":"Beta feed""#), "\(byURL.out)")
  }

  @Test("two untitled feeds sharing an item: each named after its own document's title, not the last saver's")
  func sharedItems() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let home = server.url("/").absoluteString
    let main = NewsboatMigrationTests.feed(
      "Main feed", home: home, [("Shared", "https://site.example/shared", nil), ("M2", "https://site.example/m2", nil)])
    let category = NewsboatMigrationTests.feed(
      "Category feed", home: home, [("Shared", "https://site.example/shared", nil)])
    server.router = { request in
      let feed: Data? = request.target == "/main.xml" ? main : request.target == "/category.xml" ? category : nil
      guard let feed else { return .respond(status: 404, body: Data()) }
      let answer = LoopbackHTTPServer.Behaviour.respond(
        status: 200, headers: ["Content-Type": "application/rss+xml"], body: feed)
      // The main feed answers last, so its save of the shared item is the last one.
      return request.target == "/main.xml" ? .delayed(0.5, then: answer) : answer
    }
    defer { server.stop() }
    let cli = CLIHarness()
    let urls = cli.directory.path("urls")
    let mainURL = server.url("/main.xml").absoluteString
    let categoryURL = server.url("/category.xml").absoluteString
    try "\(mainURL)\n\(categoryURL)\n".write(toFile: urls, atomically: true, encoding: .utf8)
    let config = cli.directory.path("news.json")
    #expect(await cli.run("import", urls, "--config", config).status == 0)
    let fetched = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    let sources = try SubscriptionCommandTests.sources(config)
    #expect(sources.keys.sorted() == ["Category feed", "Main feed"], "\(sources.keys)")
    #expect(sources["Category feed"]?["feed"] as? String == categoryURL)
    #expect(sources["Main feed"]?["feed"] as? String == mainURL)
  }

  @Test("OPML without titles: news fetch --source URL names the source after its feed, its articles with it")
  func opmlAndOneSource() async throws {
    let server = try Self.server()
    let beta = server.url("/beta.xml").absoluteString
    let cli = CLIHarness()
    let opml = cli.directory.path("list.opml")
    try """
    <?xml version="1.0"?><opml version="2.0"><head/><body><outline type="rss" xmlUrl="\(beta)"/></body></opml>
    """.write(toFile: opml, atomically: true, encoding: .utf8)
    let config = cli.directory.path("news.json")
    #expect(await cli.run("import", opml, "--config", config).status == 0)
    #expect(try SubscriptionCommandTests.sources(config).keys.sorted() == [beta])

    let fetched = await cli.run("fetch", "--source", beta, "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(try SubscriptionCommandTests.sources(config).keys.sorted() == ["Beta feed"])
    let listed = await cli.run("list", "--source", "Beta feed", "--config", config, "--db", cli.database, "--json")
    #expect(Set(articles(try listed.json()).compactMap { $0["title"] as? String }) == ["B1", "B2"], "\(listed.err)")
  }

  @Test(
    "a feed saved before it had a subscription is read whole, not conditionally, until it is named",
    arguments: [["fetch", "--all"], ["fetch", "--source"]])
  func namedThoughNotModified(_ command: [String]) async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let home = server.url("/").absoluteString
    let body = NewsboatMigrationTests.feed("Delta feed", home: home, [("D1", "https://site.example/d1", nil)])
    server.router = { request in
      // A 304 to the validator it gave: a conditional read brings no document, so no title.
      if request.header("If-None-Match") == #""v1""# {
        return .respond(status: 304, headers: ["ETag": #""v1""#], body: Data())
      }
      return .respond(status: 200, headers: ["Content-Type": "application/rss+xml", "ETag": #""v1""#], body: body)
    }
    defer { server.stop() }
    let delta = server.url("/delta.xml").absoluteString
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try #"{"sources": {}}"#.write(toFile: config, atomically: true, encoding: .utf8)
    // Read once by its address: saved with the feed's validators, named by nothing (as a first read whose naming
    // could not be written, or was cut short by Ctrl-C, leaves it).
    let first = await cli.run("fetch", "--url", delta, "--config", config, "--db", cli.database)
    #expect(first.status == 0, "\(first.err)")
    let urls = cli.directory.path("urls")
    try "\(delta)\n".write(toFile: urls, atomically: true, encoding: .utf8)
    #expect(await cli.run("import", urls, "--config", config).status == 0)
    let arguments = command + (command.last == "--source" ? [delta] : [])
    let fetched = await cli.run(arguments + ["--config", config, "--db", cli.database])
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(try SubscriptionCommandTests.sources(config).keys.sorted() == ["Delta feed"], "\(fetched.err)")
    #expect(server.requests.last?.header("If-None-Match") == nil)
    // Named: its reads are conditional again.
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)
    #expect(server.requests.last?.header("If-None-Match") == #""v1""#)
  }
}
