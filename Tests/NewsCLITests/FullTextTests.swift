import Foundation
import OfflineNews
import OfflineNewsHTML
import Synchronization
import TestSupport
import Testing

@testable import NewsCLI

/// News readable offline (issue 18, point 2 and 4): `news fetch --full-text` downloads each new article's page,
/// extracts its readable article, and stores it beside the article; offline, `news show` prints the whole article.
@Suite("Full text for offline reading")
struct FullTextTests {
  static let pages = ["lemonde-1", "heise"]

  /// A feed whose items link to pages served by the same loopback server, and the page bodies.
  static func serve(_ server: LoopbackHTTPServer, pages: [String: Data]) {
    let items = pages.keys.sorted().enumerated().map { index, name in
      """
      <item><title>Page \(name)</title><link>\(server.url("/\(name).html").absoluteString)</link>
      <guid>\(name)</guid><pubDate>Mon, 0\(index + 1) Jan 2024 10:00:00 GMT</pubDate>
      <description>A teaser of \(name).</description></item>
      """
    }
    let feed = Data(
      "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Loop</title><link>\(server.url("/").absoluteString)</link>\(items.joined())</channel></rss>"
        .utf8)
    server.router = { request in
      if request.target == "/feed.xml" {
        return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: feed)
      }
      let name = String(request.target.dropFirst().dropLast(".html".count))
      if let page = pages[name] {
        return .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
      }
      return .respond(status: 404, body: Data("not here".utf8))
    }
  }

  @Test(
    "pages fetched with --full-text are read offline by show and found by search; a missing page is retried later",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real/pages"))
  func fullTextOffline() async throws {
    var bodies: [String: Data] = [:]
    for name in Self.pages {
      bodies[name] = try Data(
        contentsOf: Fixtures.sharedRealDirectory.appendingPathComponent("pages/\(name)/source.html"))
    }
    let server = try LoopbackHTTPServer(.closeImmediately)
    Self.serve(server, pages: bodies)
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(
      #"{"sources": {"loop": {"feed": "\#(server.url("/feed.xml").absoluteString)"}}, "timeoutSeconds": 5}"#.utf8
    ).write(to: URL(fileURLWithPath: config))

    let fetched = await cli.run("fetch", "--source", "loop", "--full-text", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.err.contains("full text: 2 fetched"), "\(fetched.err)")
    let rows = articles(try await cli.run("list", "--db", cli.database, "--json").json())
    #expect(rows.count == 2)

    server.stop()
    for name in Self.pages {
      // A sentence of the page's expected readable text (Mozilla Readability's expected.html), read with our own
      // HTML text function as the test's oracle of words.
      let expected = try String(
        contentsOf: Fixtures.sharedRealDirectory.appendingPathComponent("pages/\(name)/expected.html"), encoding: .utf8)
      let words = HTMLTextRenderer.text(of: expected).split(whereSeparator: \.isWhitespace).map(String.init)
      let probe = try #require(words.dropFirst(40).first { $0.count >= 8 && $0.allSatisfy(\.isLetter) })
      let row = try #require(rows.first { ($0["title"] as? String) == "Page \(name)" })
      let handle = try #require(row["handle"] as? String)
      let shown = await cli.run("show", handle, "--db", cli.database)
      #expect(shown.status == 0, "\(shown.err)")
      #expect(shown.out.contains(probe), "\(name): \(probe) not in the shown article")
      #expect(shown.out.contains("the whole article, fetched"), "\(shown.out.suffix(300))")
      let found = await cli.run("search", probe, "--db", cli.database, "--json")
      let hits = (try found.json()["results"] as? [[String: Any]]) ?? []
      #expect(hits.contains { $0["handle"] as? String == handle }, "\(name): search for \(probe)")
    }
  }

  @Test("a page that fails is noted, never fails the fetch, and show says only the teaser is cached")
  func failedPage() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    Self.serve(server, pages: [:])  // every page is a 404
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(
      #"{"sources": {"loop": {"feed": "\#(server.url("/feed.xml").absoluteString)", "fullText": true}}}"#.utf8
    ).write(to: URL(fileURLWithPath: config))
    // The feed has no items without pages; serve one item whose page is missing.
    Self.serve(server, pages: ["gone": Data()])
    server.router = { request in
      if request.target == "/feed.xml" {
        let body =
          "<rss version=\"2.0\"><channel><title>L</title><item><title>Gone</title><link>\(server.url("/gone.html").absoluteString)</link><description>Teaser.</description></item></channel></rss>"
        return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(body.utf8))
      }
      return .respond(status: 404, body: Data("not here".utf8))
    }
    let fetched = await cli.run("fetch", "--source", "loop", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.err.contains("full text: 0 fetched, 1 failed: HTTP 404"), "\(fetched.err)")
    let again = await cli.run("fetch", "--source", "loop", "--config", config, "--db", cli.database)
    #expect(
      again.err.contains("full text: 0 fetched; 1 failed earlier (HTTP 404), retried after"),
      "a failed page waits before it is tried again, and the fetch says so: \(again.err)")
    #expect(server.requests.filter { $0.target == "/gone.html" }.count == 1)
    let row = try #require(articles(try await cli.run("list", "--db", cli.database, "--json").json()).first)
    let shown = await cli.run("show", try #require(row["handle"] as? String), "--db", cli.database, "--config", config)
    #expect(shown.out.contains("Teaser."))
    #expect(shown.out.contains("the whole article could not be fetched (HTTP 404"), "\(shown.out)")
  }

  /// A feed of one item whose page is missing until `fixed` is on, and a configuration naming it `loop` (without
  /// `"fullText"`), at 2025-11-29 07:06:40 UTC (the harness's clock) in the UTC time zone.
  static func missingPage(_ fixed: Switch) throws -> (LoopbackHTTPServer, CLIHarness, config: String) {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let page = server.url("/story.html").absoluteString
    server.router = { request in
      if request.target == "/feed.xml" {
        let body =
          "<rss version=\"2.0\"><channel><title>L</title><item><title>Story</title><link>\(page)</link><description>Teaser.</description></item></channel></rss>"
        return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(body.utf8))
      }
      if request.target == "/story.html", fixed.isOn {
        let sentence = "The council met on Tuesday and decided to publish every document online for residents. "
        let paragraphs = (0..<5).map { _ in "<p>\(String(repeating: sentence, count: 4))</p>" }.joined()
        let html =
          "<html><head><title>Story</title></head><body><article><h1>Story</h1>\(paragraphs)</article></body></html>"
        return .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
      }
      return .respond(status: 404, body: Data("not here".utf8))
    }
    let cli = CLIHarness(environment: ["TZ": "UTC"])
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {"loop": {"feed": "\#(server.url("/feed.xml").absoluteString)"}}}"#.utf8)
      .write(to: URL(fileURLWithPath: config))
    return (server, cli, config)
  }

  @Test(
    "a failed page: show says what failed and when it is retried, sources counts it, --retry-failed retries it now")
  func retryFailed() async throws {
    let fixed = Switch()
    let (server, harness, config) = try Self.missingPage(fixed)
    var cli = harness
    let common = ["--config", config, "--db", cli.database]
    let fetched = await cli.run(["fetch", "--source", "loop", "--full-text"] + common)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.err.contains("full text: 0 fetched, 1 failed: HTTP 404"), "\(fetched.err)")
    let handle = try #require(
      articles(try await cli.run(["list", "--json"] + common).json()).first?["handle"] as? String)

    // Three minutes later, show says what failed, when, and how to retry it (07:06:40 + 1 h).
    cli.now += 180
    let shown = await cli.run(["show", handle] + common)
    #expect(shown.status == 0, "\(shown.err)")
    #expect(
      shown.out.contains(
        "the whole article could not be fetched (HTTP 404, 3 min ago); news fetch --source loop --full-text "
          + "retries it after 08:06, or now with --retry-failed"), "\(shown.out)")
    #expect(!shown.out.contains("only what the source sent is cached"))
    let json = try await cli.run(["show", handle, "--json"] + common).json()
    let failure = try #require(json["fullTextFailure"] as? [String: Any])
    #expect(failure["reason"] as? String == "HTTP 404")
    #expect(failure["httpStatus"] as? Int == 404)
    #expect(failure["failedAt"] as? String == "2025-11-29T07:06:40.000Z")
    #expect(failure["retryAfter"] as? String == "2025-11-29T08:06:40.000Z")

    // sources counts the failure, in the table and in --json.
    let sources = await cli.run(["sources"] + common)
    #expect(sources.out.contains("FULL TEXT") && sources.out.contains("1 failed"), "\(sources.out)")
    let sourcesJSON = try await cli.run(["sources", "--json"] + common).json()
    let entry = try #require((sourcesJSON["sources"] as? [[String: Any]])?.first)
    #expect(entry["fullTextFailed"] as? Int == 1)

    // A plain fetch waits; --retry-failed needs --full-text; with it, the page is asked now and stored.
    let waiting = await cli.run(["fetch", "--source", "loop", "--full-text"] + common)
    #expect(
      waiting.err.contains("1 failed earlier (HTTP 404), retried after 08:06, or now with --retry-failed"),
      "\(waiting.err)")
    #expect(server.requests.filter { $0.target == "/story.html" }.count == 1)
    let bare = await cli.run(["fetch", "--source", "loop", "--retry-failed"] + common)
    #expect(bare.status == 64, "\(bare.err)")
    #expect(bare.err.contains("give it with --full-text"), "\(bare.err)")
    fixed.turnOn()
    let retried = await cli.run(["fetch", "--source", "loop", "--full-text", "--retry-failed"] + common)
    #expect(retried.status == 0, "\(retried.err)")
    #expect(retried.err.contains("full text: 1 fetched"), "\(retried.err)")
    #expect(server.requests.filter { $0.target == "/story.html" }.count == 2)
    let whole = await cli.run(["show", handle] + common)
    #expect(whole.out.contains("the whole article, fetched"), "\(whole.out)")
    #expect(whole.out.contains("decided to publish every document"))
    let after = try await cli.run(["sources", "--json"] + common).json()
    #expect((after["sources"] as? [[String: Any]])?.first?["fullTextFailed"] as? Int == 0)
    #expect(!(await cli.run(["sources"] + common)).out.contains("FULL TEXT"))
  }

  @Test("fetch --all --full-text --retry-failed retries every source's failed pages now")
  func retryFailedAll() async throws {
    let fixed = Switch()
    let (server, cli, config) = try Self.missingPage(fixed)
    let common = ["--config", config, "--db", cli.database, "--quiet"]
    let first = await cli.run(["fetch", "--all", "--full-text"] + common)
    #expect(first.err.contains("1 failed: HTTP 404"), "\(first.err)")
    let waiting = await cli.run(["fetch", "--all", "--full-text"] + common)
    #expect(waiting.err.contains("1 failed earlier (HTTP 404)"), "\(waiting.err)")
    #expect(server.requests.filter { $0.target == "/story.html" }.count == 1)
    let bare = await cli.run(["fetch", "--all", "--retry-failed"] + common)
    #expect(bare.status == 64, "\(bare.err)")
    fixed.turnOn()
    let retried = await cli.run(["fetch", "--all", "--full-text", "--retry-failed"] + common)
    #expect(retried.status == 0, "\(retried.err)")
    #expect(retried.err.contains("full text: 1 fetched"), "\(retried.err)")
    #expect(server.requests.filter { $0.target == "/story.html" }.count == 2)
  }
}

@Suite("The note on a failed full-text page")
struct FullTextFailureNoteTests {
  static let now = Date(timeIntervalSince1970: 1_764_400_000)  // 2025-11-29 07:06:40 UTC
  static let utc = TimeZone(identifier: "UTC") ?? .current

  func failure(failedAgo: TimeInterval, wait: TimeInterval = 3600) -> FullTextFailure {
    let failedAt = Self.now.addingTimeInterval(-failedAgo)
    return FullTextFailure(
      key: "https://example.com/a", cause: .httpStatus(410), failedAt: failedAt,
      retryAfter: failedAt.addingTimeInterval(wait))
  }

  @Test("the time of day to wait for; a date when it is another day; the zone's time; no wait once it is over")
  func note() {
    #expect(
      OutputFormat.fullTextFailureNote(
        failure(failedAgo: 600), fetch: "news fetch --full-text", now: Self.now, zone: Self.utc)
        == "the whole article could not be fetched (HTTP 410, 10 min ago); news fetch --full-text retries it after "
        + "07:56, or now with --retry-failed")
    let tomorrow = failure(failedAgo: 60, wait: 86_400)
    #expect(OutputFormat.clockTime(tomorrow.retryAfter, now: Self.now, zone: Self.utc) == "2025-11-30 07:05")
    let paris = TimeZone(identifier: "Europe/Paris") ?? Self.utc
    #expect(OutputFormat.clockTime(Self.now, now: Self.now, zone: paris) == "08:06")
    #expect(
      OutputFormat.fullTextFailureNote(failure(failedAgo: 7200), fetch: "news fetch", now: Self.now, zone: Self.utc)
        == "the whole article could not be fetched (HTTP 410, 2 h ago); news fetch retries it")
  }
}

/// A switch a test flips while a server's router reads it.
final class Switch: Sendable {
  private let state = Mutex(false)
  var isOn: Bool { state.withLock { $0 } }
  func turnOn() { state.withLock { $0 = true } }
}
