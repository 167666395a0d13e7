import Foundation
import NewsCLI
import OfflineNewsCurl
import OfflineNewsFeeds
import OfflineNewsHTML
import TestSupport
import Testing

/// `news extract` on a page written for the tests, and `news show` rendering stored HTML.
@Suite("news extract, news show's HTML")
struct ExtractCommandTests {
  static let page = Fixtures.own("html/article-page.html").path
  /// A link longer than a 40-column terminal.
  static let longLink = "https://data.news.example/2024/05/growth/tables/full-year-figures.csv"

  /// Runs `news` on a simulated terminal of `width` columns (no colour).
  static func runOnTerminal(_ cli: CLIHarness, width: Int, _ arguments: [String]) async -> CLIHarness.Outcome {
    let (console, captured) = Console.capturing(isTerminal: true, width: width)
    let now = cli.now
    let status = await NewsCommandLine(
      environment: cli.environment, currentDirectory: cli.directory.url.path, console: console, now: { now },
      network: .curl
    ).run(arguments)
    return CLIHarness.Outcome(status: status, out: captured.out, err: captured.err)
  }

  @Test("prints the metadata as labelled lines, then the article wrapped to the terminal's width")
  func human() async throws {
    let outcome = await Self.runOnTerminal(CLIHarness(), width: 60, ["extract", Self.page])
    #expect(outcome.status == 0, "\(outcome.err)")
    let lines = outcome.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.prefix(2) == ["title      Rivers rise across the valley after a week of", "           rain"])
    #expect(lines.contains("byline     Ana Rivera"))
    #expect(lines.contains("site       Valley Gazette"))
    #expect(lines.contains("language   en-GB"))
    #expect(lines.contains { $0.hasPrefix("excerpt    Flood warnings are in force for three towns & two") })
    #expect(!lines.contains { $0.hasPrefix("published") || $0.hasPrefix("direction") })  // absent: left out
    #expect(outcome.out.contains("The river Wend rose by two metres overnight"))
    #expect(outcome.out.contains("[image: The old bridge under water]"))
    #expect(!outcome.out.contains("Most read"))
    #expect(lines.allSatisfy { TerminalColumns.width(of: $0) <= 60 })
    #expect(outcome.err.isEmpty)
  }

  @Test("--json prints exactly the reader view's fields, absent ones null; --url makes links absolute")
  func json() async throws {
    let cli = CLIHarness()
    let outcome = await cli.run("extract", Self.page, "--url", "https://gazette.example/2024/05/rivers", "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let document = try outcome.json()
    #expect(
      Set(document.keys)
        == ["title", "byline", "publishedTime", "siteName", "excerpt", "lang", "dir", "content", "text"])
    #expect(document["title"] as? String == "Rivers rise across the valley after a week of rain")
    #expect(document["byline"] as? String == "Ana Rivera")
    #expect(document["publishedTime"] is NSNull)
    #expect(document["dir"] is NSNull)
    let content = try #require(document["content"] as? String)
    #expect(content.contains("href=\"https://gazette.example/news/warnings.html\""))
    #expect((document["text"] as? String)?.contains("More rain is forecast for Thursday.") == true)
  }

  @Test("a missing file exits 66, a folder or a file without an article 65, a bad --url 64")
  func failures() async throws {
    let cli = CLIHarness()
    let missing = await cli.run("extract", cli.directory.path("nope.html"))
    #expect(missing.status == 66)
    #expect(missing.err.contains("no such file: \(cli.directory.path("nope.html"))"))
    #expect(await cli.run("extract", cli.directory.url.path).status == 65)
    let empty = cli.directory.path("empty.html")
    try Data().write(to: URL(fileURLWithPath: empty))
    let none = await cli.run("extract", empty)
    #expect(none.status == 65)
    // Said to be empty, as 'news import' says it; not "no <body>" (issue 30).
    #expect(none.err.contains("\(empty) is empty (0 bytes), not an HTML page"), "\(none.err)")
    #expect(!none.err.contains("<body>"), "\(none.err)")
    // Binary data is called so by both commands (one rule), never "text that does not start with markup".
    let binary = cli.directory.path("photo.html")
    try Data([0x00, 0x01, 0x02, 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00]).write(
      to: URL(fileURLWithPath: binary))
    let extracted = await cli.run("extract", binary)
    #expect(extracted.status == 65)
    #expect(extracted.err.contains("\(binary) is binary data, not text (12 bytes)"), "\(extracted.err)")
    #expect(!extracted.err.contains("does not start with markup"), "\(extracted.err)")
    let imported = await cli.run("import", binary, "--db", cli.database)
    #expect(imported.err.contains("binary data, not text (12 bytes)"), "\(imported.err)")
    let badURL = await cli.run("extract", Self.page, "--url", "not a url")
    #expect(badURL.status == 64)
    #expect(badURL.err.contains("--url needs an absolute http(s) or file URL"))
    #expect(await cli.run("extract").status == 64)
  }

  @Test("a file that is not HTML — JSON, a feed, an OPML list, plain text — is refused (65), named with what it is")
  func notHTML() async throws {
    let cli = CLIHarness()
    let text = cli.directory.path("notes.html")
    try Data("Just some notes, no markup at all.\n".utf8).write(to: URL(fileURLWithPath: text))
    let cases = [
      (Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path, "is JSON, not an HTML page"),
      (Fixtures.own("feeds/encodings/euc-kr.xml").path, "is a feed (RSS, Atom or RDF), not an HTML page"),
      (Fixtures.own("feeds/subscriptions.opml").path, "is an OPML subscription list, not an HTML page"),
      (text, "is text that does not start with markup, not an HTML page"),
    ]
    for (path, message) in cases {
      let outcome = await cli.run("extract", path)
      #expect(outcome.status == 65, "\(path): \(outcome.err)")
      #expect(outcome.err.contains("\(path) \(message)"), "\(outcome.err)")
      #expect(outcome.err.contains("hint: "), "\(outcome.err)")
      #expect(outcome.out.isEmpty, "nothing printed as an article: \(outcome.out)")
    }
    #expect(await cli.run("extract", Self.page).status == 0, "a page is still read")
  }

  @Test("needs no configuration: a broken one does not stop it")
  func noConfiguration() async throws {
    let cli = CLIHarness(environment: ["NEWS_CONFIG": "/nonexistent/news.json"])
    #expect(await cli.run("extract", Self.page, "--json").status == 0)
  }

  @Test("news show renders stored HTML as text, wrapped; --json keeps the stored values unchanged")
  func show() async throws {
    let cli = CLIHarness()
    let response: [String: Any] = [
      "status": "ok", "totalResults": 1,
      "articles": [
        [
          "source": ["id": NSNull(), "name": "Example"], "author": "A. Writer",
          "title": "Growth figures", "url": "https://news.example/2024/growth",
          "description": "India&#039;s <b>impressive</b> upward trajectory",
          "content":
            "<p>First paragraph of the story, long enough to be wrapped on a narrow terminal.</p>"
            + "<ul><li>one point</li><li>another</li></ul><script>alert(1)</script>"
            + "<p>Read the <a href=\"/report\">report</a> and the <a href=\"\(Self.longLink)\">data</a>.</p>",
          "urlToImage": NSNull(), "publishedAt": "2024-05-01T08:00:00Z",
        ]
      ],
    ]
    let file = cli.directory.path("response.json")
    try JSONSerialization.data(withJSONObject: response).write(to: URL(fileURLWithPath: file))
    #expect(await cli.run("import", file, "--db", cli.database).status == 0)

    let shown = await Self.runOnTerminal(
      cli, width: 40, ["show", "https://news.example/2024/growth", "--db", cli.database])
    #expect(shown.status == 0, "\(shown.err)")
    let out = shown.out
    #expect(out.contains("India's impressive upward trajectory"))
    #expect(out.contains("• one point\n• another"))
    #expect(out.contains("Read the report[1] and the data[2]."))
    #expect(out.contains("[1] https://news.example/report"))
    // A URL is never wrapped: the long one is whole on its line, to be copied, as the source's path is; every other
    // line fits.
    #expect(out.split(separator: "\n").contains("[2] \(Self.longLink)"), "\(out)")
    #expect(out.split(separator: "\n").contains("source \(file)"), "\(out)")
    #expect(!out.contains("alert") && !out.contains("<p>") && !out.contains("&#039;"))
    #expect(
      out.split(separator: "\n").allSatisfy {
        TerminalColumns.width(of: $0) <= 40 || $0 == "[2] \(Self.longLink)" || $0 == "source \(file)"
      }, "\(out)")

    let json = try await cli.run("show", "https://news.example/2024/growth", "--db", cli.database, "--json").json()
    #expect(json["summary"] as? String == "India&#039;s <b>impressive</b> upward trajectory")
    #expect((json["content"] as? String)?.hasPrefix("<p>First paragraph") == true)
  }
}
