import Foundation
import TestSupport
import Testing

/// "Every source is news": NewsAPI, JSON Feed, Hacker News and Parse items all become articles that every reading
/// command serves, with their source; feed and Parse sources go through the repository's policies and offline
/// fallback; equivalent URL spellings are one article; a query's parameter order does not change its cache key.
@Suite("Every source is news")
struct EverySourceTests {
  /// The real news files, their mapping (`nil`: the NewsAPI import) and how many articles each holds, counted here
  /// with JSONSerialization (independently of the importer), distinct by URL, less NewsAPI's `[Removed]`
  /// placeholders and Hacker News comments.
  static let newsFiles: [(file: String, mapping: String?)] = [
    ("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json", nil),
    ("newsapi-top-headlines-2023-removed-article.json", nil),
    ("jsonfeed-1.1-extension-offsets.json", "jsonfeed"),
    ("feeds/inessential.json", "jsonfeed"),
    ("feeds/3960.json", "jsonfeed"),
    ("hn-topstories-500-items.json", "hackernews"),
  ]

  /// How many distinct articles a file holds, by an independent count.
  static func expectedCount(_ url: URL) throws -> Int {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    if let list = object as? [[String: Any]] {  // Hacker News items
      let stories = list.filter { ($0["type"] as? String) != "comment" }
      var keys = Set<String>()
      for item in stories {
        if let link = item["url"] as? String, let canonical = URL(string: link)?.absoluteString.lowercased() {
          keys.insert(canonical)
        } else {
          keys.insert("id:\(item["id"] ?? "")")
        }
      }
      return keys.count
    }
    let document = object as? [String: Any] ?? [:]
    if let items = document["items"] as? [[String: Any]] { return items.count }
    let records = document["articles"] as? [[String: Any]] ?? []
    return Set(records.filter { ($0["title"] as? String) != "[Removed]" }.compactMap { $0["url"] as? String }).count
  }

  @Test(
    "every real news file, once imported, is listed, found, shown, bookmarked and filtered by its source",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"),
    arguments: newsFiles.map(\.file))
  func realFile(_ name: String) async throws {
    let mapping = Self.newsFiles.first { $0.file == name }?.mapping
    let url = Fixtures.sharedRealDirectory.appendingPathComponent(name)
    let cli = CLIHarness()
    var arguments = ["import", url.path, "--db", cli.database, "--config", cli.bundledConfig]
    if let mapping { arguments += ["--mapping", mapping] }
    let imported = await cli.run(arguments)
    #expect(imported.status == 0, "\(imported.err)")

    let listed = await cli.run("list", "--db", cli.database, "--json", "--source", url.path)
    #expect(listed.status == 0, "\(listed.err)")
    let rows = articles(try listed.json())
    #expect(rows.count == (try Self.expectedCount(url)), "\(name)")
    // Newest first, every article with the same shape and its source.
    let dates = rows.compactMap { $0["publishedAt"] as? String }
    #expect(dates.count == rows.count && dates == dates.sorted(by: >))
    let keys = Set(rows.first?.keys.map { $0 } ?? [])
    #expect(
      keys == [
        "url", "id", "handle", "title", "author", "summary", "imageURL", "publishedAt", "sourceID", "sourceName",
        "content", "source", "tags", "enclosures", "isRead", "bookmarkedAt",
      ])
    #expect(rows.allSatisfy { $0["source"] as? String == url.path })
    #expect(rows.allSatisfy { !(($0["title"] as? String) ?? "").isEmpty })

    // Found by a word of its title.
    let first = try #require(rows.first)
    let title = try #require(first["title"] as? String)
    let words: [String] = title.split(whereSeparator: { !$0.isLetter }).map { String($0) }
    let word: String = try #require(words.first { $0.count >= 5 } ?? words.first)
    let found = await cli.run("search", word, "--db", cli.database, "--json", "--source", url.path)
    #expect(found.status == 0, "\(found.err)")
    let hits = (try found.json()["results"] as? [[String: Any]]) ?? []
    let firstID = first["id"] as? String
    let hitIDs: [String?] = hits.map { $0["id"] as? String }
    #expect(hitIDs.contains(firstID), "\(word)")

    // Shown and bookmarked by its key.
    let id = try #require(first["id"] as? String)
    let shown = await cli.run("show", id, "--db", cli.database)
    #expect(shown.status == 0, "\(shown.err)")
    #expect(shown.out.contains("source " + url.path), "\(shown.out)")
    let bookmarked = await cli.run("bookmark", id, "--db", cli.database)
    #expect(bookmarked.status == 0, "\(bookmarked.err)")
    let marks = articles(try await cli.run("list", "--bookmarked", "--db", cli.database, "--json").json())
    #expect(marks.map { $0["id"] as? String } == [id])
    // The reading state is in the document (tester LOW): bookmarked, with its time, and read (`show` read it).
    #expect(marks.first?["bookmarkedAt"] is String && marks.first?["isRead"] as? Bool == true, "\(marks)")
    #expect(rows.allSatisfy { $0["bookmarkedAt"] is NSNull && $0["isRead"] as? Bool == false }, "none before")

    // Another source filters them out; a source that names nothing is a usage error.
    let other = await cli.run(
      "list", "--db", cli.database, "--json", "--source", "sample", "--config", cli.bundledConfig)
    #expect(other.status == 0, "\(other.err)")
    #expect(articles(try other.json()).isEmpty)
    #expect(await cli.run("list", "--db", cli.database, "--source", "no-such-source").status == 64)
  }

  @Test(
    "the back4app Parse export: articles with their category, author and tags, listed, found and shown",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func parseExport() async throws {
    let cli = CLIHarness()
    for name in ["_User", "ArticleCategory", "ArticleTag", "Article", "_Join_tags_Article"] {
      let file = Fixtures.sharedRealDirectory.appendingPathComponent("parse-back4app-\(name).json").path
      let outcome = await cli.run(
        "import", file, "--mapping", "parse-server", "--db", cli.database, "--config", cli.bundledConfig)
      #expect(outcome.status == 0, "\(name): \(outcome.err)")
    }
    let source = Fixtures.sharedRealDirectory.appendingPathComponent("parse-back4app-Article.json").path
    let rows = articles(try await cli.run("list", "--db", cli.database, "--json", "--source", source).json())
    let exported =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: source))) as? [String: Any]
    let titles = ((exported?["results"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
    #expect(Set(rows.compactMap { $0["title"] as? String }) == Set(titles))
    #expect(rows.allSatisfy { ($0["id"] as? String)?.hasPrefix("news-item:parse:Article/") == true })
    #expect(rows.allSatisfy { $0["url"] is NSNull })  // Parse objects have no link

    // The mapping's own relationships stay queryable.
    let records = await cli.run("records", "article", "--db", cli.database, "--json")
    let stored = try JSONSerialization.jsonObject(with: Data(records.out.utf8)) as? [[String: Any]] ?? []
    #expect(stored.count == titles.count)
    #expect(stored.allSatisfy { $0["category"] is String && $0["parseAuthor"] is String })
    let tagged = stored.filter { (($0["parseTags"] as? [Any]) ?? []).isEmpty == false }
    #expect(tagged.count == 2, "\(stored)")

    // news show names what the article links to: its category, author and tags (through the join class).
    let swimming = try #require(rows.first { $0["title"] as? String == "New world record in swimming!" })
    let shown = await cli.run("show", try #require(swimming["handle"] as? String), "--db", cli.database)
    #expect(shown.status == 0, "\(shown.err)")
    for line in ["category Sports", "parseAuthor editor", "parseTags breakingnews, worldrecord"] {
      #expect(shown.out.contains("\n" + line + "\n"), "\(line): \(shown.out)")
    }

    let word = try #require(titles.first?.split(separator: " ").first.map(String.init))
    let found = await cli.run("search", word, "--db", cli.database, "--json")
    #expect(((try found.json()["results"] as? [[String: Any]]) ?? []).count >= 1)
  }

  /// A JSON Feed with an `ETag`, served by a counting loopback server.
  static let feedBody = """
    {"version":"https://jsonfeed.org/version/1.1","title":"Loop","home_page_url":"http://example.com/","items":[
      {"id":"1","url":"https://example.com/one?utm_source=feed","title":"One","content_text":"first","date_published":"2024-05-01T10:00:00+02:00"},
      {"id":"2","title":"Two without a link","content_text":"second","date_published":"2024-05-02T10:00:00Z"}]}
    """

  @Test("a JSON Feed source: fetched, answered 304 the second time, then served from the cache with its age offline")
  func feedSource() async throws {
    let server = try LoopbackHTTPServer(.conditional(etag: "\"v1\"", lastModified: nil, body: Data(Self.feedBody.utf8)))
    var cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let feedURL = server.url("/feed.json").absoluteString
    try Data(#"{"sources": {"blog": {"feed": "\#(feedURL)", "mapping": "jsonfeed"}}, "timeoutSeconds": 2}"#.utf8)
      .write(to: URL(fileURLWithPath: config))

    let first = await cli.run("fetch", "--source", "blog", "--config", config, "--db", cli.database, "--json")
    #expect(first.status == 0, "\(first.err)")
    let document = try first.json()
    #expect(document["origin"] as? String == "network")
    let rows = articles(document)
    #expect(rows.count == 2)
    #expect(rows.allSatisfy { $0["source"] as? String == "blog" })
    #expect(Set(rows.compactMap { $0["id"] as? String }).contains("https://example.com/one"))

    let second = await cli.run("fetch", "--source", "blog", "--config", config, "--db", cli.database)
    #expect(second.status == 0, "\(second.err)")
    #expect(second.out.contains("(not modified)"), "\(second.out)")
    #expect(server.requests.count == 2)
    #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")

    server.stop()
    cli.now = cli.now.addingTimeInterval(3600)
    let offline = await cli.run("fetch", "--source", "blog", "--config", config, "--db", cli.database, "--json")
    #expect(offline.status == 0, "\(offline.err)")
    let cached = try offline.json()
    #expect(cached["origin"] as? String == "cache")
    #expect((cached["ageSeconds"] as? Double).map { $0 >= 3600 } == true)
    #expect((cached["networkError"] as? String)?.isEmpty == false)
    #expect(articles(cached).count == 2)
    // Every reading command sees them.
    let listed = await cli.run("list", "--source", "blog", "--db", cli.database)
    #expect(listed.out.contains("One") && listed.out.contains("Two without a link"), "\(listed.out)")
  }

  @Test("a Parse source is fetched by its sync, then served from the cache offline with the error")
  func parseSource() async throws {
    let stub = try ParseServerStub()
    SyncCommandTests.seed(stub, articles: 3)
    let cli = CLIHarness()
    let config = try SyncCommandTests.writeConfig(cli, serverURL: stub.serverURL)
    let online = await cli.run("fetch", "--source", "demo", "--config", config, "--db", cli.database, "--json")
    #expect(online.status == 0, "\(online.err)")
    #expect(articles(try online.json()).count == 3)
    #expect(try online.json()["origin"] as? String == "network")

    stub.http.stop()
    let offline = await cli.run("fetch", "--source", "demo", "--config", config, "--db", cli.database, "--json")
    #expect(offline.status == 0, "\(offline.err)")
    let document = try offline.json()
    #expect(document["origin"] as? String == "cache")
    #expect((document["networkError"] as? String)?.isEmpty == false)
    #expect(articles(document).count == 3)
    let listed = articles(try await cli.run("list", "--source", "demo", "--db", cli.database, "--json").json())
    #expect(listed.count == 3)
  }

  /// For `fetch --all`: a loopback server of ``feedBody`` (with an `ETag`), a harness, and the path of its
  /// `news.json`, whose `sources` are the members `sources` writes from the feed's URL and a URL at a refused port,
  /// with a 2-second timeout.
  static func goodAndGone(
    _ sources: (_ good: String, _ gone: String) -> String
  ) throws -> (server: LoopbackHTTPServer, cli: CLIHarness, config: String) {
    let server = try LoopbackHTTPServer(.conditional(etag: "\"v1\"", lastModified: nil, body: Data(Self.feedBody.utf8)))
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let good = server.url("/feed.json").absoluteString
    let gone = "http://127.0.0.1:\(try LoopbackHTTPServer.refusedPort())/feed.json"
    let document = #"{"sources": {\#(sources(good, gone))}, "timeoutSeconds": 2}"#
    try Data(document.utf8).write(to: URL(fileURLWithPath: config))
    return (server, cli, config)
  }

  @Test("fetch --all: one line per source; a failing source never stops the others")
  func fetchAll() async throws {
    let (server, cli, config) = try Self.goodAndGone { good, gone in
      #""good": {"feed": "\#(good)", "mapping": "jsonfeed"}, "gone": {"feed": "\#(gone)", "mapping": "jsonfeed"}"#
    }
    defer { server.stop() }
    let outcome = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(outcome.out.contains("good: 2 new, 0 updated, 0 unchanged"), "\(outcome.out)")
    #expect(outcome.err.contains("gone: failed:"), "\(outcome.err)")
    #expect(outcome.status == 75, "\(outcome.err)")  // "gone" has nothing cached, "good" refreshed: EX_TEMPFAIL
    let again = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    let sources = (try again.json()["sources"] as? [[String: Any]]) ?? []
    #expect(sources.first { $0["source"] as? String == "good" }?["status"] as? String == "notModified")
    // Every source has every key, null when absent, and ageSeconds and error as fetch --json has them.
    let keys: Set = [
      "source", "kind", "status", "inserted", "updated", "unchanged", "remembered", "rememberedEvicted", "evicted",
      "cached", "ageSeconds", "error",
    ]
    #expect(sources.count == 2)
    for source in sources { #expect(Set(source.keys) == keys, "\(source)") }
    let goodOne = try #require(sources.first { $0["source"] as? String == "good" })
    let goneOne = try #require(sources.first { $0["source"] as? String == "gone" })
    #expect(goodOne["error"] is NSNull && goodOne["ageSeconds"] is NSNumber, "\(goodOne)")
    #expect(goneOne["error"] is String && goneOne["ageSeconds"] is NSNull, "\(goneOne)")
    let single = try await cli.run("fetch", "--source", "good", "--config", config, "--db", cli.database, "--json")
      .json()
    #expect(single["ageSeconds"] is NSNumber && single["networkError"] is NSNull, "\(single)")
  }

  @Test("fetch --all --quiet prints only the failures and one summary line")
  func fetchAllQuiet() async throws {
    let (server, cli, config) = try Self.goodAndGone { good, gone in
      #""good": {"feed": "\#(good)"}, "other": {"feed": "\#(good)?b"}, "gone": {"feed": "\#(gone)"}"#
    }
    defer { server.stop() }
    let outcome = await cli.run("fetch", "--all", "--quiet", "--config", config, "--db", cli.database)
    #expect(outcome.status == 75, "\(outcome.err)")
    #expect(outcome.out == "3 sources: 2 refreshed, 1 failed; 2 new articles\n", "\(outcome.out)")
    #expect(outcome.err.contains("gone: failed:"), "\(outcome.err)")
    #expect(!outcome.err.contains("good") && !outcome.err.contains("other"), "\(outcome.err)")
    // Without --quiet: a line per source, and no summary.
    let loud = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(loud.out.contains("good: not modified"), "\(loud.out)")
    #expect(!loud.out.contains("3 sources:"), "\(loud.out)")
  }

  @Test("equivalent URL spellings are one article; ?id=2 and http:// stay apart; show finds any spelling")
  func equivalentURLs() async throws {
    let cli = CLIHarness()
    let spellings = [
      "https://example.com/story", "HTTPS://EXAMPLE.com/story", "https://example.com:443/story",
      "https://example.com/story#comments", "https://example.com/story?utm_source=rss&utm_medium=feed",
    ]
    var records = spellings.enumerated().map { index, url in
      #"{"url":"\#(url)","title":"Story \#(index)","publishedAt":"2024-01-0\#(index + 1)T00:00:00Z","source":{"name":"S"}}"#
    }
    records.append(
      #"{"url":"https://example.com/story?id=2","title":"Other","publishedAt":"2024-01-01T00:00:00Z","source":{"name":"S"}}"#
    )
    records.append(
      #"{"url":"http://example.com/story","title":"Plain","publishedAt":"2024-01-01T00:00:00Z","source":{"name":"S"}}"#)
    let file = cli.directory.path("spellings.json")
    try Data(#"{"status":"ok","totalResults":7,"articles":[\#(records.joined(separator: ","))]}"#.utf8)
      .write(to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    let rows = articles(try await cli.run("list", "--db", cli.database, "--json").json())
    #expect(
      Set(rows.compactMap { $0["id"] as? String })
        == ["https://example.com/story", "https://example.com/story?id=2", "http://example.com/story"])
    for spelling in spellings {
      let shown = await cli.run("show", spelling, "--db", cli.database, "--json")
      #expect(shown.status == 0, "\(spelling): \(shown.err)")
    }
  }

  @Test("the same NewsAPI query with its parameters reordered, or as a configured source, is served offline")
  func reorderedQuery() async throws {
    let server = try LoopbackHTTPServer(.json(NewsCommandLineNetworkTests.body))
    let cli = CLIHarness()
    let base = server.url("/v2/top-headlines").absoluteString
    let config = cli.directory.path("news.json")
    try Data(
      #"{"sources": {"us": {"url": "\#(base)", "query": {"country": "us", "category": "science"}}}, "timeoutSeconds": 2}"#
        .utf8
    ).write(to: URL(fileURLWithPath: config))
    let online = await cli.run(
      "fetch", "--url", base + "?country=us&category=science", "--config", config, "--db", cli.database)
    #expect(online.status == 0, "\(online.err)")
    server.stop()
    for arguments in [
      ["--url", base + "?category=science&country=us"], ["--source", "us"],
    ] {
      let offline = await cli.run(["fetch"] + arguments + ["--config", config, "--db", cli.database, "--json"])
      #expect(offline.status == 0, "\(arguments): \(offline.err)")
      #expect(try offline.json()["origin"] as? String == "cache")
      #expect(!articles(try offline.json()).isEmpty)
    }
  }
}
