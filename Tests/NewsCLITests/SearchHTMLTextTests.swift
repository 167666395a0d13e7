import Foundation
import TestSupport
import Testing

/// Search indexes the text a reader sees of a feed's HTML summary and content, not its markup (RELIABILITY.md, bug
/// 31): our feed `Tests/Fixtures/feeds/html-text.rss`, whose words are listed in its opening comment.
@Suite("news search: the text of HTML summaries and contents, not their markup")
struct SearchHTMLTextTests {
  private static let feed = Fixtures.own("feeds/html-text.rss")

  /// The URLs a search finds, and its snippets.
  private func search(_ cli: CLIHarness, _ query: String) async throws -> (urls: [String], snippets: [String]) {
    let outcome = await cli.run("search", query, "--db", cli.database, "--json")
    #expect(outcome.status == 0, "\(query): \(outcome.err)")
    let results = try outcome.json()["results"] as? [[String: Any]] ?? []
    return (results.compactMap { $0["url"] as? String }, results.compactMap { $0["snippet"] as? String })
  }

  private func importFeed(_ cli: CLIHarness, _ path: String) async {
    let imported = await cli.run("import", path, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
  }

  @Test("markup words (href, tag and attribute names and values) find nothing; the text's words are found")
  func markupIsNotSearched() async throws {
    let cli = CLIHarness()
    await importFeed(cli, Self.feed.path)
    for word in [
      "href", "class", "marmot", "pelican", "walrus", "crimson", "style", "width", "img", "src", "div", "strong", "p",
    ] {
      #expect(try await search(cli, word).urls.isEmpty, "\(word)")
    }
    let log = "https://harbour.example/log/1"
    for word in ["lighthouse", "seventeen", "gulls", "breakwater", "ferries", "fog"] {
      let found = try await search(cli, word)
      #expect(found.urls == [log], "\(word)")
      for snippet in found.snippets {
        #expect(!snippet.contains("<") && !snippet.contains(">"), "\(word): \(snippet)")
        #expect(snippet.lowercased().contains("\u{27E8}\(word)\u{27E9}"), "\(word): \(snippet)")
      }
    }
    // A plain-text description is searched as it is.
    #expect(try await search(cli, "tide").urls == ["https://harbour.example/log/2"])
    // The stored fields stay as the feed gave them (HTML, for `news show`).
    let listed = await cli.run("list", "--db", cli.database, "--json")
    let first = try #require(articles(try listed.json()).first { $0["url"] as? String == log })
    #expect((first["summary"] as? String)?.contains("<a href=\"https://pelican.example/nest\"") == true)
    #expect((first["content"] as? String)?.contains("<div class=\"walrus\">") == true)
    // A title-only match prints the summary's text under the title, not its markup.
    let human = await cli.run("search", "log", "--db", cli.database)
    #expect(human.status == 0, "\(human.err)")
    #expect(human.out.contains("The lighthouse keeper counted seventeen gulls."), "\(human.out)")
    #expect(!human.out.contains("<"), "\(human.out)")
  }

  @Test("a JSON Feed's content_html is searched by its text; content_text as it is")
  func jsonFeedContentHTML() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("harbour.json")
    let json = #"""
      {"version": "https://jsonfeed.org/version/1.1", "title": "Harbour", "home_page_url": "https://harbour.example/",
       "items": [
        {"id": "1", "url": "https://harbour.example/j/1", "title": "Log one",
         "content_html": "<p>The <a href=\"https://pelican.example/\">lighthouse</a> keeper</p>"},
        {"id": "2", "url": "https://harbour.example/j/2", "title": "Log two", "content_text": "href in plain text"}]}
      """#
    try Data(json.utf8).write(to: URL(fileURLWithPath: feed))
    await importFeed(cli, feed)
    #expect(try await search(cli, "pelican").urls.isEmpty)
    #expect(try await search(cli, "lighthouse").urls == ["https://harbour.example/j/1"])
    #expect(try await search(cli, "href").urls == ["https://harbour.example/j/2"])
  }

  @Test(
    "a JSON Feed summary that is HTML is searched, and its snippet cut, by its text (issue 30)",
    arguments: [[], ["--mapping", "jsonfeed"]])
  func jsonFeedSummaryHTML(_ mapping: [String]) async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("zh.json")
    let json = #"""
      {"version": "https://jsonfeed.org/version/1.1", "title": "新闻", "home_page_url": "https://zh.example/",
       "items": [
        {"id": "1", "url": "https://zh.example/1", "title": "今日",
         "summary": "<br/><b>港口</b> 灯塔 lighthouse<img title=\"pelican\" src=\"https://zh.example/a.png\"/>",
         "content_text": "walrus"}]}
      """#
    try Data(json.utf8).write(to: URL(fileURLWithPath: feed))
    let imported = await cli.run(["import", feed, "--db", cli.database] + mapping)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(try await search(cli, "pelican").urls.isEmpty)
    let found = try await search(cli, "lighthouse")
    #expect(found.urls == ["https://zh.example/1"])
    for snippet in found.snippets { #expect(!snippet.contains("<"), "\(snippet)") }
    let human = await cli.run("search", "今日", "--db", cli.database)
    #expect(human.status == 0, "\(human.err)")
    #expect(!human.out.contains("<"), "\(human.out)")
  }

  @Test("an item fetched again with changed HTML is indexed again: the old words leave, the new ones are found")
  func changedHTMLReindexes() async throws {
    let cli = CLIHarness()
    await importFeed(cli, Self.feed.path)
    #expect(try await search(cli, "lighthouse").urls.count == 1)
    let original = try String(contentsOf: Self.feed, encoding: .utf8)
    let changed =
      original
      .replacingOccurrences(of: "&gt;lighthouse&lt;", with: "&gt;windmill&lt;")
      .replacingOccurrences(of: "break<em>water</em>", with: "sea<em>wall</em> <a href=\"https://otter.example/\">")
    #expect(changed != original)
    let path = cli.directory.path("html-text-changed.rss")
    try changed.write(toFile: path, atomically: true, encoding: .utf8)
    await importFeed(cli, path)
    #expect(try await search(cli, "lighthouse").urls.isEmpty)
    #expect(try await search(cli, "breakwater").urls.isEmpty)
    #expect(try await search(cli, "otter").urls.isEmpty, "a new attribute value is markup too")
    #expect(try await search(cli, "windmill").urls == ["https://harbour.example/log/1"])
    #expect(try await search(cli, "seawall").urls == ["https://harbour.example/log/1"])
  }

  /// Each item's HTML texts as Foundation's `XMLParser` reads them (RSS `description`, `content:encoded`; Atom
  /// `summary`, `content`; RDF `description`): the oracle, sharing no code with the feed parser or the renderer.
  private static func htmlTexts(_ item: OracleElement) -> [String] {
    let names = ["description", "encoded", "summary", "content"]
    return item.children.filter { names.contains($0.name) }.map(\.text)
  }

  @Test(
    "real feeds: an item whose HTML holds href is not found by href, unless its text says it",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"), arguments: RealFeeds.xmlFeeds)
  func realFeedsMarkup(name: String) async throws {
    let root = try XMLOracle.read(RealFeeds.url(name))
    let items = FeedOracle.items(root)
    // The items whose markup has an href attribute, and those whose words a reader sees (tags taken out by a
    // regular expression, entities left as written: the word survives either way) or whose title hold "href".
    let withHref = items.filter {
      Self.htmlTexts($0).contains { $0.range(of: "href", options: .caseInsensitive) != nil }
    }
    let saysHref = items.filter { item in
      let visible = Self.htmlTexts(item).map {
        $0.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
      }
      return (visible + [item.first("title", .any)?.text ?? ""]).contains {
        $0.range(of: "\\bhref\\b", options: [.regularExpression, .caseInsensitive]) != nil
      }
    }
    let cli = CLIHarness()
    await importFeed(cli, RealFeeds.url(name).path)
    let found = try await search(cli, "href")
    if saysHref.isEmpty {
      #expect(found.urls.isEmpty, "\(name): \(withHref.count) items with href in their HTML, found \(found.urls)")
    } else {
      #expect(found.urls.count <= saysHref.count, "\(name)")
    }
    for snippet in found.snippets { #expect(!snippet.contains("href="), "\(name): \(snippet)") }
  }
}
