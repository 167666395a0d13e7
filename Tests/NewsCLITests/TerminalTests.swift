import Foundation
import TestSupport
import Testing

@testable import NewsCLI

/// `news` on a pseudo-terminal, as a person runs it: every line fits the terminal's width (headers included),
/// colour follows `--color` and `NO_COLOR`, and no field of the data can reorder or hide what follows it.
@Suite("news on a terminal", .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable"))
struct TerminalTests {
  /// Runs the built `news` with both streams on ptys `columns` wide, in a temporary folder (no Config/ there).
  static func run(
    _ arguments: [String], columns: Int = 80, environment extra: [String: String] = [:],
    in directory: TemporaryDirectory
  ) async throws -> PseudoTerminal.Outcome {
    let binary = try #require(CrashSafetyTests.newsBinary)
    var environment = ["HOME": directory.path("home"), "XDG_DATA_HOME": directory.path("data")]
    environment.merge(extra) { $1 }
    return try await PseudoTerminal.run(
      binary, arguments, environment: environment, columns: columns, currentDirectory: directory.url.path)
  }

  /// A NewsAPI response file holding `articles` (title, source name), published a minute apart.
  static func writeResponse(_ articles: [(title: String, source: String)], to path: String) throws {
    let records: [[String: Any]] = articles.enumerated().map { index, article in
      [
        "source": ["id": NSNull(), "name": article.source], "author": NSNull(), "title": article.title,
        "description": "Summary \(index)", "url": "https://example.com/\(index)", "urlToImage": NSNull(),
        "publishedAt": "2025-11-29T0\(index % 10):00:00Z", "content": NSNull(),
      ]
    }
    let document: [String: Any] = ["status": "ok", "totalResults": records.count, "articles": records]
    try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
  }

  /// `text` without SGR escape codes (`ESC [ … m`): what is left is what a reader sees.
  static func plain(_ text: String) -> String {
    text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
  }

  static let escape = "\u{1B}["

  // MARK: - Text that cannot spoof

  /// Titles and source names carrying bidi overrides, embeddings, isolates, stray closers, bidi marks, zero-width
  /// and invisible format characters, tag characters (outside and inside an emoji flag), and plain RTL text.
  static let hostile: [(title: String, source: String)] = [
    ("Breaking \u{202E}news from abroad", "Evil\u{2067}Source"),
    ("Bundes\u{AD}verfassungs\u{AD}gericht urteilt", "Zero\u{200B}Width\u{FEFF}"),
    ("الرئيس يفتتح مشروعات جديدة في العاصمة", "الجزيرة\u{200F}"),
    ("Tag\u{E0041}\u{E0042} smuggled \u{2066}isolate", "Flag 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"),
    ("Stray \u{202C}\u{2069}closers and \u{2067}עברית", "\u{202B}Embedded\u{202A}twice"),
  ]

  /// For each run of two or more spaces in `line` (a column gap) and at its end: how many bidi scopes are open
  /// there, counted by UAX #9's pairing rules (an independent count, not the code under test).
  static func openScopesAtColumnEnds(_ line: String) -> [Int] {
    var stack: [Character] = []
    var result: [Int] = []
    var previousWasSpace = false
    for scalar in line.unicodeScalars {
      switch scalar.value {
      case 0x202A, 0x202B, 0x202D, 0x202E: stack.append("e")
      case 0x2066, 0x2067, 0x2068: stack.append("i")
      case 0x202C: if stack.last == "e" { stack.removeLast() }
      case 0x2069: if let isolate = stack.lastIndex(of: "i") { stack.removeSubrange(isolate...) }
      case 0x20:
        if previousWasSpace { result.append(stack.count) }
      default: break
      }
      previousWasSpace = scalar == " "
    }
    result.append(stack.count)
    return result
  }

  @Test("no field can reorder or hide what follows it; RTL text is unchanged; --json is verbatim")
  func bidiAndInvisibleCharacters() async throws {
    let directory = TemporaryDirectory("news-pty")
    let file = directory.path("hostile.json")
    try Self.writeResponse(Self.hostile, to: file)
    let db = directory.path("news.sqlite")
    let fetched = try await Self.run(["fetch", "--url", file, "--db", db], columns: 120, in: directory)
    #expect(fetched.status == 0, "\(fetched.err)")
    let listed = try await Self.run(["list", "--db", db], columns: 120, in: directory)
    #expect(listed.status == 0, "\(listed.err)")

    for output in [fetched.out, listed.out] {
      let lines = output.split(separator: "\n").map(String.init)
      #expect(lines.count == Self.hostile.count + 1, "\(output)")
      for line in lines {
        #expect(
          Self.openScopesAtColumnEnds(line).allSatisfy { $0 == 0 }, "a scope is left open: \(line.debugDescription)")
      }
      let hidden: [Unicode.Scalar] = ["\u{AD}", "\u{200B}", "\u{FEFF}", "\u{E0041}", "\u{E0042}", "\u{200F}"]
      for scalar in hidden {
        #expect(!output.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16, uppercase: true))")
      }
      #expect(output.contains("Bundesverfassungsgericht urteilt"))
      #expect(output.contains("ZeroWidth"))
      #expect(output.contains("الرئيس يفتتح مشروعات جديدة في العاصمة"), "right-to-left text unchanged")
      #expect(Self.plain(output).contains("الجزيرة  "), "the trailing RLM is dropped, the name kept")
      #expect(output.contains("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"), "a flag keeps its tags")
      #expect(output.contains("Stray closers and \u{2067}עברית\u{2069}"), "stray closers dropped, the isolate closed")
      #expect(output.contains("Breaking \u{202E}news from abroad\u{202C}"), "the override closed at the title's end")
    }

    // Search as the reader sees the words: the title written with soft hyphens is found by the whole word.
    let searched = try await Self.run(["search", "Bundesverfassungsgericht", "--db", db], columns: 120, in: directory)
    #expect(searched.status == 0, "\(searched.err)")
    #expect(Self.plain(searched.out).hasPrefix("1 result for \"Bundesverfassungsgericht\""), "\(searched.out)")
    #expect(Self.plain(searched.out).contains("Bundesverfassungsgericht urteilt"), "\(searched.out)")
    let zeroWidth = try await Self.run(["search", "zerowidth", "--db", db, "--json"], in: directory)
    #expect(zeroWidth.out.contains("Zero\u{200B}Width"), "found by the folded source name; JSON verbatim")

    // --json: the data exactly as it came.
    let json = try await Self.run(["list", "--db", db, "--json"], columns: 120, in: directory)
    let document = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
    let articles = document?["articles"] as? [[String: Any]] ?? []
    #expect(Set(articles.compactMap { $0["title"] as? String }) == Set(Self.hostile.map(\.title)))
    #expect(Set(articles.compactMap { $0["sourceName"] as? String }) == Set(Self.hostile.map(\.source)))
  }

  @Test("an error quoting a hostile value closes it before the rest of the message")
  func hostileMessage() async throws {
    let directory = TemporaryDirectory("news-pty")
    let outcome = try await Self.run(
      ["fetch", "--source", "\u{202E}evil", "--db", directory.path("news.sqlite")], in: directory)
    #expect(outcome.status == 64)
    let line = try #require(outcome.err.split(separator: "\n").first.map(String.init))
    #expect(
      Self.plain(line) == "news: no source named \"\u{202E}evil\u{202C}\"",
      "closed before the quote: \(line.debugDescription)")
  }

  // MARK: - Width

  @Test("every line fits the terminal's width, headers included", arguments: [30, 44, 64])
  func linesFitWidth(columns: Int) async throws {
    let directory = TemporaryDirectory("news-pty")
    let folder = directory.path("a-folder-with-a-rather-long-name/and-another-one-inside-it")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let file = folder + "/top-headlines-with-a-long-file-name.json"
    try Self.writeResponse(
      [
        ("Storm Isolde: Gusts of 90mph forecast as ferries cancelled across the west coast", "BBC News"),
        ("東京株式市場、日経平均は続伸　半導体関連株に買い　円安も追い風に", "日本経済新聞"),
        ("A headline", "A publisher whose name is far too long for any column"),
      ], to: file)
    let db = directory.path("news.sqlite")
    let config = directory.path("news.json")
    try Data(
      #"{"sources": {"long-named-source-for-headlines": {"file": "\#(file)"}, "broken": {"file": "missing.json"}}}"#
        .utf8
    ).write(to: URL(fileURLWithPath: config))
    _ = try await Self.run(["fetch", "--source", "broken", "--config", config, "--db", db], in: directory)

    let runs: [[String]] = [
      ["fetch", "--url", file, "--db", db],
      ["fetch", "--source", "long-named-source-for-headlines", "--config", config, "--db", db],
      ["list", "--db", db],
      ["search", "storm OR headline", "--db", db],
      ["sources", "--config", config, "--db", db],
      ["stats", "--db", db],
      ["mark-read", "https://example.com/0", "--db", db],
    ]
    for arguments in runs {
      let outcome = try await Self.run(arguments, columns: columns, in: directory)
      #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
      if ["fetch", "list", "search", "sources"].contains(arguments[0]) {
        #expect(outcome.out.contains(Self.escape), "colour on a terminal by default: \(arguments)")
      }
      for line in outcome.out.split(separator: "\n") {
        let width = OutputFormat.displayWidth(Self.plain(String(line)))
        #expect(width <= columns, "\(arguments[0]) at \(columns) columns: \(width): \(Self.plain(String(line)))")
      }
    }
  }

  @Test("news sources has column headings")
  func sourcesHeadings() async throws {
    let directory = TemporaryDirectory("news-pty")
    let config = directory.path("news.json")
    try Data(#"{"sources": {"sample": {"file": "missing.json"}}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let outcome = try await Self.run(
      ["sources", "--config", config, "--db", directory.path("news.sqlite")], in: directory)
    let lines = Self.plain(outcome.out).split(separator: "\n")
    #expect(lines.first == "  SOURCE  LAST FETCH     FRESHNESS  CACHED      UNREAD", "\(outcome.out)")
    #expect(lines.count == 2)
  }

  // MARK: - Colour

  @Test("colour: on by default on a terminal; off with NO_COLOR, TERM=dumb or --color never; --color always wins")
  func color() async throws {
    let directory = TemporaryDirectory("news-pty")
    let db = directory.path("news.sqlite")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    _ = try await Self.run(["import", sample, "--db", db], in: directory)
    let cases: [(arguments: [String], environment: [String: String], colored: Bool)] = [
      ([], [:], true),
      ([], ["NO_COLOR": "1"], false),
      ([], ["NO_COLOR": ""], true),
      ([], ["TERM": "dumb"], false),
      (["--color", "never"], [:], false),
      (["--color", "auto"], ["NO_COLOR": "1"], false),
      (["--color", "always"], ["NO_COLOR": "1"], true),
      (["--color=always"], ["TERM": "dumb"], true),
    ]
    for (arguments, environment, colored) in cases {
      let listed = try await Self.run(
        ["list", "--db", db, "--limit", "2"] + arguments, environment: environment, in: directory)
      #expect(listed.out.contains(Self.escape) == colored, "list \(arguments) \(environment)")
      let failed = try await Self.run(
        ["show", "https://example.com/none", "--db", db] + arguments, environment: environment, in: directory)
      #expect(failed.status == 66)
      #expect(failed.err.contains(Self.escape) == colored, "errors follow the same rule: \(arguments) \(environment)")
      #expect(Self.plain(failed.err).hasPrefix("news: no cached article has the URL https://example.com/none\n"))
    }
    let bad = try await Self.run(["list", "--db", db, "--color", "sometimes"], in: directory)
    #expect(bad.status == 64)
    #expect(Self.plain(bad.err).hasPrefix("news: --color \"sometimes\" is not one of auto, always, never\n"))
  }

  @Test("--color always colours a pipe too; auto does not")
  func colorOnPipe() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    #expect(await cli.run("import", sample, "--db", cli.database).status == 0)
    #expect(await cli.run("list", "--db", cli.database, "--color", "always").out.contains(Self.escape))
    #expect(!(await cli.run("list", "--db", cli.database, "--color", "auto").out.contains(Self.escape)))
    let json = await cli.run("list", "--db", cli.database, "--color", "always", "--json")
    #expect(!json.out.contains(Self.escape), "--json is data: never coloured")
  }
}
