import Foundation
import OfflineNews
import OfflineNewsHTML
import TestSupport
import Testing

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
    #expect(!again.err.contains("full text"), "a failed page waits before it is tried again: \(again.err)")
    let row = try #require(articles(try await cli.run("list", "--db", cli.database, "--json").json()).first)
    let shown = await cli.run("show", try #require(row["handle"] as? String), "--db", cli.database)
    #expect(shown.out.contains("Teaser."))
    #expect(shown.out.contains("only what the source sent is cached"), "\(shown.out)")
  }
}
