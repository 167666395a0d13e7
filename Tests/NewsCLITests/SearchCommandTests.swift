import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@testable import NewsCLI

@Suite("news search, news show")
struct SearchCommandTests {
  /// A NewsAPI-format response with articles in several scripts, imported into the harness's database.
  private func importedHarness() async throws -> CLIHarness {
    let cli = CLIHarness()
    func record(_ slug: String, _ title: String, _ source: String, _ date: String, summary: String? = nil) -> [String:
      Any]
    {
      [
        "source": ["id": NSNull(), "name": source], "author": "Desk \(slug)", "title": title,
        "description": summary ?? NSNull(), "url": "https://example.com/\(slug)",
        "urlToImage": "https://example.com/\(slug).jpg", "publishedAt": date,
        "content": "Full text of \(slug)… [+100 chars]",
      ]
    }
    let response: [String: Any] = [
      "status": "ok", "totalResults": 6,
      "articles": [
        record(
          "storm", "Storm Isolde brings gales to the west", "BBC News", "2024-03-12T22:41:07Z",
          summary: "Ferry operators cancelled sailings as the storm approached."),
        record(
          "climate", "Summit ends without a deal", "The Guardian", "2024-03-11T10:00:00Z",
          summary: "Delegates argued over climate change funding until dawn."),
        record("election", "Election results due tonight", "Reuters", "2024-03-10T08:00:00Z"),
        record("electric", "Electric cars outsell diesel", "Reuters", "2024-02-01T08:00:00Z"),
        record("koeln", "Müller gewinnt in Köln", "Süddeutsche Zeitung", "2024-03-09T08:00:00Z"),
        record("quake", "東京都で大きな地震が発生", "NHK", "2024-03-08T08:00:00Z", summary: "津波の心配はない"),
      ],
    ]
    let file = cli.directory.path("response.json")
    try JSONSerialization.data(withJSONObject: response).write(to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    return cli
  }

  private func urls(_ outcome: CLIHarness.Outcome) throws -> [String] {
    let results = try outcome.json()["results"] as? [[String: Any]] ?? []
    return results.compactMap { ($0["url"] as? String)?.replacingOccurrences(of: "https://example.com/", with: "") }
  }

  @Test("search prints ranked results with snippets; --json has the query and the results with rank and snippet")
  func search() async throws {
    let cli = try await importedHarness()
    let human = await cli.run("search", "storm OR elect*", "--db", cli.database)
    #expect(human.status == 0, "\(human.err)")
    #expect(human.out.hasPrefix("3 results for \"storm OR elect*\", best first\n"), "\(human.out)")
    #expect(human.out.contains("Storm Isolde brings gales to the west"))
    // A snippet of the body (summary or content) where it matches, so not a copy of the title above it.
    #expect(
      human.out.contains("\n          Ferry operators cancelled sailings as the \u{27E8}storm\u{27E9} approached.\n"))
    #expect(
      human.out.contains(
        "Election results due tonight\n          Full text of \u{27E8}election\u{27E9}… [+100 chars]\n"))
    #expect(human.out.components(separatedBy: "\n").count == 8, "\(human.out)")
    #expect(!human.out.contains("\u{1B}["), "no colour when not a terminal")

    let outcome = await cli.run("search", "storm OR elect*", "--db", cli.database, "--json")
    #expect(outcome.status == 0)
    let document = try outcome.json()
    #expect(document["query"] as? String == "storm OR elect*")
    let results = try #require(document["results"] as? [[String: Any]])
    #expect(results.count == 3)
    let first = try #require(results.first)
    for key in ["url", "title", "author", "summary", "imageURL", "publishedAt", "sourceID", "sourceName", "content"] {
      #expect(first.keys.contains(key), "missing \(key)")
    }
    #expect(first["rank"] is Double)
    #expect((first["snippet"] as? String)?.contains("\u{27E8}") == true)
    let ranks = results.compactMap { $0["rank"] as? Double }
    #expect(ranks == ranks.sorted())
    #expect(Set(try urls(outcome)) == ["storm", "election", "electric"])
  }

  @Test("phrases, non-Latin text and filters: --source, --since, --until, --unread, --bookmarked, --limit")
  func filters() async throws {
    let cli = try await importedHarness()
    func found(_ arguments: String...) async throws -> [String] {
      let outcome = await cli.run(["search"] + arguments + ["--db", cli.database, "--json"])
      #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
      return try urls(outcome)
    }
    #expect(try await found("\"climate change\"") == ["climate"])
    #expect(try await found("muller koln") == ["koeln"])
    #expect(try await found("地震") == ["quake"])
    #expect(try await found("津波") == ["quake"])
    let all = "storm OR climate OR elect* OR Müller OR 地震"
    #expect(try await found(all).count == 6)
    #expect(Set(try await found(all, "--source", "reuters")) == ["election", "electric"])
    #expect(try await found(all, "--source", "SÜDDEUTSCHE ZEITUNG") == ["koeln"])
    // list selects a publisher as search does: without regard to case beyond ASCII.
    let listed = await cli.run("list", "--source", "SÜDDEUTSCHE ZEITUNG", "--db", cli.database, "--json")
    #expect(listed.status == 0, "\(listed.err)")
    let listedURLs = (try listed.json()["articles"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
    #expect(listedURLs == ["https://example.com/koeln"], "\(listed.out)")
    #expect(Set(try await found(all, "--since", "2024-03-10")) == ["storm", "climate", "election"])
    #expect(try await found(all, "--since", "2024-03-10", "--until", "2024-03-10") == ["election"])  // that day
    #expect(try await found(all, "--until", "2024-03-10T00:00:00Z").count == 3)
    #expect(try await found(all, "--limit", "2").count == 2)
    #expect(try await found(all, "--limit", "\(Int.max)").count == 6)

    #expect(await cli.run("mark-read", "https://example.com/storm", "--db", cli.database).status == 0)
    #expect(await cli.run("bookmark", "https://example.com/quake", "--db", cli.database).status == 0)
    #expect(!(try await found(all, "--unread")).contains("storm"))
    #expect(try await found(all, "--bookmarked") == ["quake"])

    let more = await cli.run("search", all, "--limit", "2", "--db", cli.database)
    #expect(more.out.hasPrefix("2 results for"))
    #expect(more.out.contains("more with --limit"))
  }

  @Test("hostile queries are words: exit 0, or 64 with a clear message when nothing is left to look for")
  func hostileQueries() async throws {
    let cli = try await importedHarness()
    let searchable = [
      "\"storm", "storm\"", "(storm", "title:storm", "NEAR(storm gales)", "storm OR", "NOT", "AND", "storm AND AND x",
      "'); DROP TABLE article;--", "storm*gales", "^storm", "{storm}", "-- storm",
    ]
    for query in searchable {
      // After `--`, so that "-- storm" is the query, not an option.
      let outcome = await cli.run("search", "--db", cli.database, "--json", "--", query)
      #expect(outcome.status == 0, "\(query): \(outcome.err)")
      #expect((try? outcome.json()["results"]) != nil, "\(query)")
    }
    for query in ["", "\"", "*", "()", "'); --", "   "] {
      let outcome = await cli.run("search", query, "--db", cli.database)
      #expect(outcome.status == 64, "\(query)")
      #expect(outcome.err.contains("the search text"), "\(query): \(outcome.err)")
    }
    let list = await cli.run("list", "--db", cli.database, "--json")
    #expect(articles(try list.json()).count == 6, "the table is intact")
    #expect(await cli.run("search", "--db", cli.database).status == 64)
    #expect(await cli.run("search", "storm", "--since", "yesterday", "--db", cli.database).status == 64)
    #expect(await cli.run("search", "storm", "--limit", "0", "--db", cli.database).status == 64)
    #expect(
      await cli.run("search", "storm", "--since", "2024-03-12", "--until", "2024-03-01", "--db", cli.database).status
        == 64)
  }

  @Test("no result is not an error")
  func noResult() async throws {
    let cli = try await importedHarness()
    let outcome = await cli.run("search", "unicorn", "--db", cli.database)
    #expect(outcome.status == 0)
    #expect(outcome.out.isEmpty)
    #expect(outcome.err.contains("no cached article matches \"unicorn\""))
    let json = await cli.run("search", "unicorn", "--db", cli.database, "--json")
    #expect(try json.json()["results"] as? [Any] != nil)
    #expect((try json.json()["results"] as? [Any])?.isEmpty == true)
  }

  @Test("a quote in the search text is escaped where the text is echoed, so the echo reads as the text")
  func quotesEchoed() async throws {
    let cli = try await importedHarness()
    let lone = await cli.run("search", "\"", "--db", cli.database)
    #expect(lone.status == 64)
    #expect(lone.err.contains(#"the search text "\"" has no word to look for"#), "\(lone.err)")
    let unclosed = await cli.run("search", "\"unicorn", "--db", cli.database)
    #expect(unclosed.status == 0)
    #expect(unclosed.err.contains(#"no cached article matches "\"unicorn""#), "\(unclosed.err)")
    let phrase = await cli.run("search", "\"storm\"", "--db", cli.database)
    #expect(phrase.out.contains(#" for "\"storm\"", best first"#), "\(phrase.out)")
    // An apostrophe is no quote of the echo's: it stays as typed (Swift's debugDescription wrote `it\'s`).
    let apostrophe = await cli.run("search", "it's unicorns", "--db", cli.database)
    #expect(apostrophe.err.contains(#"no cached article matches "it's unicorns""#), "\(apostrophe.err)")
    let loneApostrophe = await cli.run("search", "'", "--db", cli.database)
    #expect(loneApostrophe.err.contains(#"the search text "'" has no word to look for"#), "\(loneApostrophe.err)")
  }

  @Test("show prints the whole article and marks it read; --json; an unknown URL exits 66")
  func show() async throws {
    let cli = try await importedHarness()
    let url = "https://example.com/storm"
    let outcome = await cli.run("show", url, "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    for part in [
      "Storm Isolde brings gales to the west", "BBC News", "Desk storm", "2024-03-12T22:41:07.000Z",
      "Ferry operators cancelled sailings", "Full text of storm", "image  https://example.com/storm.jpg",
      "link   https://example.com/storm",
    ] {
      #expect(outcome.out.contains(part), "missing \(part) in\n\(outcome.out)")
    }
    let unread = try articles(await cli.run("list", "--unread", "--db", cli.database, "--json").json())
    #expect(!unread.contains { $0["url"] as? String == url })

    let json = try await cli.run("show", "https://example.com/quake", "--db", cli.database, "--json").json()
    #expect(json["title"] as? String == "東京都で大きな地震が発生")
    #expect(json["isRead"] as? Bool == true)
    #expect(json["bookmarked"] as? Bool == false)
    #expect(json["url"] as? String == "https://example.com/quake")

    let missing = await cli.run("show", "https://example.com/nope", "--db", cli.database)
    #expect(missing.status == 66)
    #expect(missing.err.contains("no cached article has the URL https://example.com/nope"))
    #expect(await cli.run("show", "--db", cli.database).status == 64)
  }

  @Test("search and show are listed in the overview and have help")
  func help() async throws {
    let cli = CLIHarness()
    let overview = await cli.run("--help")
    #expect(overview.out.contains("search"))
    #expect(overview.out.contains("show"))
    let help = await cli.run("search", "--help")
    #expect(help.status == 0)
    #expect(help.out.contains("--source NAME"))
    #expect(help.out.contains("--until DATE"))
    #expect(await cli.run("show", "--help").out.contains("mark it read"))
  }

  @Test("snippets are fitted to the width, and bold instead of marked on a colour terminal")
  func snippetRendering() throws {
    let url = try #require(URL(string: "https://example.com/a"))
    let article = Article(url: url, title: "Storm warning", summary: "Gales tonight.", publishedAt: Date())
    let titleOnly = SearchHit(article: article, rank: -1, snippet: "\u{27E8}Storm\u{27E9} warning")
    #expect(SearchCommand.excerpt(titleOnly) == "Gales tonight.")
    let body = SearchHit(article: article, rank: -1, snippet: "\u{27E8}Gales\u{27E9} tonight.")
    #expect(SearchCommand.excerpt(body) == body.snippet)

    let snippet = "…the \u{27E8}storm\u{27E9} approached the \u{27E8}coast\u{27E9} at night"
    #expect(SearchCommand.render(snippet, width: nil, color: false) == snippet)
    #expect(
      SearchCommand.render(snippet, width: nil, color: true)
        == "…the \u{1B}[1mstorm\u{1B}[0m approached the \u{1B}[1mcoast\u{1B}[0m at night")
    let narrow = SearchCommand.render(snippet, width: 12, color: false)
    #expect(narrow.count <= 12 && narrow.hasSuffix("…"), "\(narrow)")
    #expect(SearchCommand.render("a\nb\u{1B}[31m", width: nil, color: false) == "a b[31m")
  }
}
