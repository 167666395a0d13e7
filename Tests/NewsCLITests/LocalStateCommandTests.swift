import Foundation
import OfflineNews
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("news mark-read, bookmark, list filters, stats")
struct LocalStateCommandTests {
  @Test("read and bookmark state survive a refresh of the same articles")
  func stateSurvivesRefresh() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let rows = try articles(await cli.run("list", "--db", cli.database, "--json").json())
    let first = try #require(rows.first?["url"] as? String)
    let second = try #require(rows.dropFirst().first?["url"] as? String)

    #expect(await cli.run("mark-read", first, "--db", cli.database).status == 0)
    let bookmarked = await cli.run("bookmark", second, "--db", cli.database, "--json")
    #expect(bookmarked.status == 0)
    #expect(try bookmarked.json()["bookmarked"] as? Bool == true)

    // The same articles again, from the source: local state is kept.
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let unread = try articles(await cli.run("list", "--unread", "--db", cli.database, "--json").json())
    #expect(unread.count == rows.count - 1)
    #expect(!unread.contains { $0["url"] as? String == first })
    let marked = try articles(await cli.run("list", "--bookmarked", "--db", cli.database, "--json").json())
    #expect(marked.compactMap { $0["url"] as? String } == [second])

    // --undo.
    #expect(await cli.run("mark-read", first, "--undo", "--db", cli.database).status == 0)
    #expect(await cli.run("bookmark", second, "--undo", "--db", cli.database).status == 0)
    #expect(try articles(await cli.run("list", "--unread", "--db", cli.database, "--json").json()).count == rows.count)
    #expect(try articles(await cli.run("list", "--bookmarked", "--db", cli.database, "--json").json()).isEmpty)
  }

  @Test("an unknown URL exits 66 and changes nothing")
  func unknownURL() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    for command in ["mark-read", "bookmark"] {
      let outcome = await cli.run(command, "https://example.com/not-cached", "--db", cli.database)
      #expect(outcome.status == 66)
      #expect(outcome.err.contains("no cached article has the URL https://example.com/not-cached"))
    }
    #expect(await cli.run("mark-read", "--db", cli.database).status == 64)
  }

  @Test("stats reports rows, size, schema version and the last fetch per query")
  func stats() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let outcome = await cli.run("stats", "--db", cli.database, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let report = try outcome.json()
    #expect(report["database"] as? String == cli.database)
    #expect((report["bytes"] as? Int ?? 0) > 0)
    #expect(report["schemaVersion"] as? Int == StorageContext.schemaVersion)
    let entities = try #require(report["entities"] as? [[String: Any]])
    #expect(entities.first { $0["name"] as? String == "article" }?["rows"] as? Int == 20)
    let fetches = try #require(report["fetches"] as? [[String: Any]])
    #expect(fetches.count == 1)
    #expect((fetches.first?["query"] as? String)?.hasSuffix("Config/sample/top-headlines.json") == true)
    #expect(fetches.first?["articles"] as? Int == 20)
    #expect(report["unread"] as? Int == 20)

    let human = await cli.run("stats", "--db", cli.database)
    #expect(human.out.contains("schema    version \(StorageContext.schemaVersion)"))
    #expect(human.out.contains("entity    article       20 rows"))
  }

  @Test("the configuration's eviction keeps at most maxArticles, never a bookmark")
  func eviction() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let config = cli.directory.path("evict.json")
    try Data(#"{"eviction":{"maxArticles":5}}"#.utf8).write(to: URL(fileURLWithPath: config))
    #expect(await cli.run("import", sample, "--db", cli.database).status == 0)
    let all = try articles(await cli.run("list", "--db", cli.database, "--json").json())
    let oldest = try #require(all.last?["url"] as? String)
    #expect(await cli.run("bookmark", oldest, "--db", cli.database).status == 0)

    #expect(await cli.run("import", sample, "--db", cli.database, "--config", config).status == 0)
    let kept = try articles(await cli.run("list", "--db", cli.database, "--json").json())
    #expect(kept.count == 6, "the newest 5 and the bookmarked oldest")
    #expect(kept.compactMap { $0["url"] as? String } == all.prefix(5).compactMap { $0["url"] as? String } + [oldest])

    try Data(#"{"eviction":{"maxArticle":5}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let typo = await cli.run("list", "--db", cli.database, "--config", config)
    #expect(typo.status == 78)
    #expect(typo.err.contains("unknown key \"eviction.maxArticle\""))
  }

  @Test("show, mark-read and bookmark find an article by its URL as the publisher wrote it (non-ASCII)")
  func nonASCIIURL() async throws {
    let cli = CLIHarness()
    let body =
      #"{"status":"ok","totalResults":1,"articles":[{"source":{"id":null,"name":"S"},"title":"Ü","url":"https://example.com/1/news?q=ü","publishedAt":"2024-01-01T00:00:00Z"}]}"#
    let file = cli.directory.path("unicode.json")
    try Data(body.utf8).write(to: URL(fileURLWithPath: file))
    #expect(await cli.run("import", file, "--db", cli.database).status == 0)
    let typed = "https://example.com/1/news?q=ü"
    let show = await cli.run("show", typed, "--db", cli.database)
    #expect(show.status == 0, "\(show.err)")
    #expect(await cli.run("bookmark", typed, "--db", cli.database).status == 0)
    #expect(await cli.run("mark-read", typed, "--undo", "--db", cli.database).status == 0)
    let listed = await cli.run("list", "--bookmarked", "--db", cli.database, "--json")
    #expect(listed.out.contains("%C3%BC"), "stored percent-encoded: \(listed.out)")
  }

  @Test("delete --before keeps bookmarked articles unless --include-bookmarked; stats counts what is left")
  func deleteKeepsBookmarks() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let listed = try await cli.run("list", "--db", cli.database, "--json").json()
    let url = try #require((listed["articles"] as? [[String: Any]])?.last?["url"] as? String)
    #expect(await cli.run("bookmark", url, "--db", cli.database).status == 0)
    let kept = await cli.run("delete", "--before", "2100-01-01", "--db", cli.database)
    #expect(kept.out == "deleted 19 articles published before 2100-01-01T00:00:00.000Z (bookmarked ones kept)\n")
    let stats = await cli.run("stats", "--db", cli.database, "--json")
    let fetches = try #require(try stats.json()["fetches"] as? [[String: Any]])
    #expect(fetches.first?["articles"] as? Int == 1, "the query's cached rows, not the response's count")
    let all = await cli.run("delete", "--before", "2100-01-01", "--include-bookmarked", "--db", cli.database, "--json")
    #expect(try all.json()["deleted"] as? Int == 1)
    let misuse = await cli.run("delete", "--all", "--include-bookmarked", "--db", cli.database)
    #expect(misuse.status == 64)
    // --all takes bookmarks too, and says how many.
    // (A fresh store: the articles deleted above are remembered, so a refresh would not bring them back.)
    let fresh = cli.directory.path("fresh.sqlite")
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", fresh).status == 0)
    #expect(await cli.run("bookmark", url, "--db", fresh).status == 0)
    let everything = await cli.run("delete", "--all", "--db", fresh)
    #expect(everything.out == "deleted 20 articles, 1 of them bookmarked\n", "\(everything.out)")
  }

  @Test("dates on the command line may have a space instead of the T (RFC 3339 §5.6); an offset is still needed")
  func spacedDates() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let spaced = await cli.run("delete", "--before", "1999-01-01 12:00:00Z", "--db", cli.database)
    #expect(spaced.out == "deleted 0 articles published before 1999-01-01T12:00:00.000Z (bookmarked ones kept)\n")
    let search = await cli.run("search", "the", "--since", "1999-01-01 00:00:00+02:00", "--db", cli.database)
    #expect(search.status == 0, "\(search.err)")
    #expect(await cli.run("delete", "--before", "1999-01-01 12:00:00", "--db", cli.database).status == 64)
  }

  @Test("a shipped mapping is found by name from a folder outside the package, without a configuration")
  func shippedMappingByName() async throws {
    let cli = CLIHarness()  // runs in a temporary folder, with HOME there: no Config/, no ~/.config/news
    let feed = #"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"1","title":"One"}]}"#
    let file = cli.directory.path("feed.json")
    try Data(feed.utf8).write(to: URL(fileURLWithPath: file))
    let outcome = await cli.run("import", file, "--mapping", "jsonfeed", "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.out.contains("article: 1 inserted"), "\(outcome.out)")
  }
}
