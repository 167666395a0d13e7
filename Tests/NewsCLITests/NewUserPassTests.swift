import Foundation
import NewsCLI
import TestSupport
import Testing

/// What a new user met following the README and docs/CLI.md on the real captured feeds, each found by hand first
/// (the brief of the pass: import, list, search, open, fetch --all, bad files), then pinned here on our own fixtures.
@Suite("A new user's pass over main: what broke")
struct NewUserPassTests {
  /// Our RSS fixture with two items (`Tests/Fixtures/feeds/html-text.rss`).
  static let feed = Fixtures.own("feeds/html-text.rss")

  @Test("`list --limit 0` prints no article and does not say the cache is empty (it is not)")
  func listLimitZero() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("import", Self.feed.path, "--db", cli.database).status == 0)
    for extra in [[String](), ["--unread"]] {
      let listed = await cli.run(["list", "--db", cli.database, "--limit", "0"] + extra)
      #expect(listed.status == 0, "\(listed.err)")
      #expect(!listed.out.contains("Keeper"), "\(listed.out)")
      #expect(!listed.err.contains("nothing cached yet"), "\(extra): \(listed.err)")
      #expect(!listed.err.contains("matches the filter"), "\(extra): \(listed.err)")
    }
    // Without the limit both articles are listed, so the cache was never empty.
    let all = await cli.run("list", "--db", cli.database, "--json")
    #expect(articles(try all.json()).count == 2)
  }

  @Test("`show 39` (too short for a handle) is refused as a handle, not as a URL, with the handle's shape")
  func shortHandle() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("import", Self.feed.path, "--db", cli.database).status == 0)
    for command in ["show", "mark-read", "bookmark"] {
      let shown = await cli.run(command, "39", "--db", cli.database)
      #expect(shown.status == 66, "\(command): \(shown.err)")
      #expect(shown.err.contains("no cached article has the handle or URL 39"), "\(command): \(shown.err)")
      #expect(shown.err.contains("4 to 16 hex digits"), "\(command): \(shown.err)")
    }
    let url = await cli.run("show", "https://harbour.example/nowhere", "--db", cli.database)
    #expect(url.status == 66)
    #expect(url.err.contains("no cached article has the URL https://harbour.example/nowhere"), "\(url.err)")
    #expect(!url.err.contains("hex digits"), "\(url.err)")
  }

  @Test("`search --since` after `--until` names the dates as typed (`--until 2019-01-01` was echoed as 2019-01-02)")
  func searchDateRangeEchoesTypedDates() async throws {
    let cli = CLIHarness()
    #expect(await cli.run("import", Self.feed.path, "--db", cli.database).status == 0)
    let searched = await cli.run(
      "search", "harbour", "--since", "2019-01-05", "--until", "2019-01-01", "--db", cli.database)
    #expect(searched.status == 64, "\(searched.err)")
    #expect(searched.err.contains("--since 2019-01-05 is not before --until 2019-01-01"), "\(searched.err)")
  }

  @Test("`open --json` without an opener has every key, `opener` null (docs/CLI.md: every key always present)")
  func openJSONWithoutOpener() async throws {
    var cli = CLIHarness()
    cli.environment["PATH"] = cli.directory.path("empty-bin")  // no xdg-open, no open
    #expect(await cli.run("import", Self.feed.path, "--db", cli.database).status == 0)
    let opened = await cli.run("open", "https://harbour.example/log/1", "--db", cli.database, "--json")
    #expect(opened.status == 0, "\(opened.err)")
    let document = try opened.json()
    #expect(Set(document.keys) == ["handle", "url", "opener"], "\(opened.out)")
    #expect(document["opener"] is NSNull, "\(opened.out)")
    #expect(document["url"] as? String == "https://harbour.example/log/1")
  }

  @Test("`fetch --all`: a failed source with nothing cached says so once, in the line and in `error`")
  func fetchAllFailureWording() async throws {
    let cli = CLIHarness()
    let server = try LoopbackHTTPServer(.respond(status: 404, headers: ["Content-Type": "text/plain"], body: Data()))
    defer { server.stop() }
    let config = cli.directory.path("news.json")
    let feed = server.url("/gone.rss").absoluteString
    try Data(#"{"sources": {"gone": {"feed": "\#(feed)"}}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let human = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(human.status == 69, "\(human.out) \(human.err)")
    let line = human.err.split(separator: "\n").first { $0.hasPrefix("gone:") }.map(String.init) ?? ""
    #expect(line.contains("404"), "\(human.err)")
    #expect(line.components(separatedBy: "cached").count == 2, "\"cached\" once: \(line)")
    let json = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    let sources = try json.json()["sources"] as? [[String: Any]] ?? []
    let error = sources.first?["error"] as? String ?? ""
    #expect(error.contains("404") && !error.contains("nothing is cached"), "\(json.out)")
  }

  @Test("an OPML list at a URL: `add` does not send the user to `news import URL`, and `import URL` says files only")
  func subscriptionListAtURL() async throws {
    let cli = CLIHarness()
    let list = try Data(contentsOf: Fixtures.own("feeds/subscriptions.opml"))
    let server = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "text/x-opml"], body: list))
    defer { server.stop() }
    let url = server.url("/subs.opml").absoluteString
    let config = cli.directory.path("news.json")
    let added = await cli.run("add", url, "--config", config, "--db", cli.database)
    #expect(added.status == 64, "\(added.err)")
    #expect(!added.err.contains("'news import \(url)'"), "a hint that cannot work: \(added.err)")
    #expect(added.err.contains("news import"), "\(added.err)")

    let imported = await cli.run("import", url, "--config", config, "--db", cli.database)
    #expect(imported.status == 64, "\(imported.err)")
    #expect(imported.err.contains(url) && imported.err.contains("not a URL"), "\(imported.err)")
    #expect(!imported.err.contains("no such file"), "not read as a relative path: \(imported.err)")
    #expect(!FileManager.default.fileExists(atPath: config))
  }

  @Test("bad files are named for what they are by import and add alike: empty, gzip, binary junk")
  func badFilesNamed() async throws {
    let cli = CLIHarness()
    let empty = cli.directory.path("empty.rss")
    try Data().write(to: URL(fileURLWithPath: empty))
    // Binary junk whose brackets a bracket counter would take for an open JSON object.
    let junk = cli.directory.path("junk.bin")
    try Data([0x00, 0x7B, 0x7B, 0xFF, 0xFE, 0x5B, 0x01, 0x02, 0x22, 0x00]).write(to: URL(fileURLWithPath: junk))
    let gzip = Fixtures.own("feeds/html-text.rss.gz").path  // our RSS fixture, gzip -9 -n
    let cases: [(file: String, says: String, hint: String)] = [
      (empty, "empty", "again"), (junk, "binary", "not a news file"), (gzip, "gzip", "gunzip"),
    ]
    let config = cli.directory.path("news.json")
    for (file, says, hint) in cases {
      let outcome = await cli.run("import", file, "--db", cli.database)
      #expect(outcome.status == 65, "\(file): \(outcome.err)")
      #expect(outcome.err.contains(file) && outcome.err.contains(says), "\(outcome.err)")
      #expect(outcome.err.contains("hint:") && outcome.err.contains(hint), "\(outcome.err)")
      #expect(!outcome.err.contains("--mapping"), "no mapping reads these: \(outcome.err)")
      #expect(!outcome.err.contains("truncated") && !outcome.err.contains("cut off"), "\(outcome.err)")
      // `news add` said only "not a feed (RSS, Atom, …)" of these (a fresh user's report): the same words now.
      let added = await cli.run("add", file, "--config", config, "--db", cli.database)
      #expect(added.status == 65, "\(file): \(added.err)")
      #expect(added.err.contains("\(file): ") && added.err.contains(says), "\(added.err)")
      #expect(added.err.contains("hint:") && added.err.contains(hint), "\(added.err)")
      #expect(!added.err.contains("import the file"), "the hint names the command used: \(added.err)")
      #expect(!FileManager.default.fileExists(atPath: config), "nothing was subscribed")
    }
  }

  @Test(
    "JSON of a shape a shipped mapping reads gets that mapping named; other JSON the general hint",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func shippedMappingNamed() async throws {
    let cli = CLIHarness()
    // A fresh user imported the Hacker News capture and was told only "give a mapping" (docs/MAPPING.md).
    let cases = [("hn-topstories-500-items.json", "hackernews"), ("parse-back4app-Article.json", "parse-server")]
    for (name, mapping) in cases {
      let file = try Fixtures.sharedReal(name).path
      let refused = await cli.run("import", file, "--db", cli.database)
      #expect(refused.status == 65, "\(refused.err)")
      #expect(
        refused.err.contains(
          "hint: this is what the shipped mapping '\(mapping)' reads: news import \(file) --mapping \(mapping)"),
        "\(refused.err)")
      let imported = await cli.run("import", file, "--mapping", mapping, "--db", cli.database)
      #expect(imported.status == 0, "the hint's command works: \(imported.err)")
    }
    let other = cli.directory.path("other.json")
    try Data(#"{"items": [{"name": "no article here"}]}"#.utf8).write(to: URL(fileURLWithPath: other))
    let refused = await cli.run("import", other, "--db", cli.database)
    #expect(refused.err.contains("give a mapping: news import FILE --mapping NAME"), "\(refused.err)")
  }

  @Test("`news sources` lists what the cache holds from no configured source: imported files, with their counts")
  func importedFilesListed() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let configured = Fixtures.own("feeds/html-text.rss").path
    try #"{"sources": {"Mine": {"file": "\#(configured)"}}}"#.write(toFile: config, atomically: true, encoding: .utf8)
    let imported = Fixtures.own("newsapi-removed-and-empty-author.json").path
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)
    let importedRun = await cli.run("import", imported, "--config", config, "--db", cli.database)
    #expect(importedRun.status == 0, "\(importedRun.err)")
    let listed = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(listed.out.contains("Mine"), "\(listed.out)")
    let section = listed.out.components(separatedBy: "also cached, from no configured source").last ?? ""
    #expect(section.contains(imported), "the imported file is listed: \(listed.out)")
    #expect(!section.contains(configured), "a configured source is not listed twice: \(listed.out)")
    let json = await cli.run("sources", "--json", "--config", config, "--db", cli.database)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json.out)")
    let also = try #require(report["alsoCached"] as? [[String: Any]])
    #expect(also.map { $0["query"] as? String } == [imported])
    #expect((also.first?["articles"] as? Int ?? 0) > 0)
    // Nothing configured: the imported file still shows (a fresh user saw an empty list after importing).
    let bare = cli.directory.path("bare.json")
    try #"{"sources": {}}"#.write(toFile: bare, atomically: true, encoding: .utf8)
    let none = await cli.run("sources", "--config", bare, "--db", cli.database)
    #expect(none.err.contains("no sources configured") && none.out.contains(imported), "\(none.out) \(none.err)")
  }

  @Test("in a checkout, news add copies the package's sample to the user's file and edits that, never the sample")
  func sampleNeverWritten() async throws {
    let cli = CLIHarness()
    // A checkout's Config/news.json with a file source relative to it, as the package ships one.
    let folder = cli.directory.path("Config")
    try FileManager.default.createDirectory(atPath: folder + "/sample", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Fixtures.own("feeds/html-text.rss").path, toPath: folder + "/sample/feed.rss")
    let sampleText = #"{"sources": {"sample": {"file": "sample/feed.rss"}}, "defaultSource": "sample"}"# + "\n"
    try sampleText.write(toFile: folder + "/news.json", atomically: true, encoding: .utf8)
    #expect(await cli.run("fetch", "--db", cli.database).status == 0, "the quick start reads the sample")
    let home = try #require(cli.environment["HOME"])
    let user = home + "/.config/news/news.json"
    // Importing articles edits no configuration: the sample is not copied for it (it was, for every import).
    for file in ["newsapi-duplicate-url.json", "feeds/html-text.rss"] {
      let imported = await cli.run("import", Fixtures.own(file).path, "--db", cli.database)
      #expect(imported.status == 0, "\(file): \(imported.err)")
      #expect(!imported.err.contains("created from the package's sample"), "\(file): \(imported.err)")
      #expect(!FileManager.default.fileExists(atPath: user), "\(file): no user configuration made")
    }
    let added = await cli.run("add", Fixtures.own("feeds/html-text.rss").path, "--name", "mine", "--db", cli.database)
    #expect(added.status == 0, "\(added.err)")
    #expect(try String(contentsOfFile: folder + "/news.json", encoding: .utf8) == sampleText, "the sample is untouched")
    #expect(added.err.contains("\(user) created from the package's sample"), "\(added.err)")
    let copy = try String(contentsOfFile: user, encoding: .utf8)
    #expect(copy.contains(#""file": "\#(folder)/sample/feed.rss""#), "the relative path names the same file: \(copy)")
    // From now on the user's file is read, here and in any folder: both sources, the sample's still readable.
    let listed = await cli.run("sources", "--db", cli.database)
    #expect(listed.out.contains("mine") && listed.out.contains("sample"), "\(listed.out)")
    #expect(await cli.run("fetch", "--all", "--db", cli.database).status == 0)
  }

  @Test("news add of a page whose announced feed link is broken (404) is refused, as news add of the link is")
  func brokenAnnouncedFeed() async throws {
    let page = Data(
      #"<html><head><title>Daring Fireball</title><link rel="alternate" type="application/rss+xml" href="/feeds/main"></head></html>"#
        .utf8)
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data("not here".utf8)))
    defer { server.stop() }
    server.enqueue(.respond(status: 200, headers: ["Content-Type": "text/html"], body: page))
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let added = await cli.run("add", server.url("/").absoluteString, "--config", config, "--db", cli.database)
    // It was added, exit 0, with a note naming it "Daring Fireball" while the file said "Daring Fireball (2)".
    #expect(added.status == 69, "\(added.out) \(added.err)")
    #expect(added.err.contains("HTTP 404") && added.err.contains("/feeds/main"), "\(added.err)")
    #expect(!FileManager.default.fileExists(atPath: config), "nothing subscribed")
  }

  @Test("a cut-off RSS file or JSON Feed gets the cut-off hint, not the hint to use a mapping")
  func cutFeedHint() async throws {
    let cli = CLIHarness()
    for name in ["html-text.rss", "undated.json"] {
      let whole = try Data(contentsOf: Fixtures.own("feeds/\(name)"))
      let file = cli.directory.path("cut-\(name)")
      try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: file))
      let outcome = await cli.run("import", file, "--db", cli.database)
      #expect(outcome.status == 65, "\(name): \(outcome.err)")
      #expect(outcome.err.contains("hint:") && outcome.err.contains("again, whole"), "\(name): \(outcome.err)")
      #expect(!outcome.err.contains("--mapping"), "\(name): \(outcome.err)")
    }
  }

  @Test("a page with a link longer than libxml2's URI limit: `extract` prints no raw libxml2 message")
  func noRawLibXML2Message() async throws {
    let binary = try #require(CrashSafetyTests.newsBinary, "the news executable is built beside the tests")
    let directory = TemporaryDirectory("news-long-link")
    let page = directory.path("long-link.html")
    // xmlBuildURI refuses a URI over 1 MB (MAX_URI_LENGTH) and says so on the thread's generic error handler.
    let words = String(repeating: "The harbour keeper counted the gulls again. ", count: 40)
    let link = String(repeating: "x", count: 5_000_000)
    try Data("<html><body><article><p>\(words)</p><p><a href=\"\(link)\">more</a></p></article></body></html>".utf8)
      .write(to: URL(fileURLWithPath: page))
    let run = try await ProgramRun.run(
      binary.path, ["extract", page, "--url", "https://long.example/a/b"],
      environment: ["HOME": directory.path("home"), "PATH": "/usr/bin:/bin"], in: directory.url.path)
    let text = run.err
    #expect(run.status == 0, "\(text)")
    #expect(!text.contains("URI error") && !text.contains("MAX_URI_LENGTH"), "\(text)")
  }

  @Test("`show` on a narrow terminal prints the source's path whole, as it prints the link: it can be copied")
  func showSourceWhole() async throws {
    let cli = CLIHarness()
    let folder = cli.directory.path("a-rather-long-folder-name/with-another-long-folder-inside")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let feed = folder + "/harbour-notes.rss"
    try FileManager.default.copyItem(atPath: Self.feed.path, toPath: feed)
    #expect(await cli.run("import", feed, "--db", cli.database).status == 0)
    // A terminal 40 columns wide.
    let (console, captured) = Console.capturing(isTerminal: true, width: 40)
    let now = cli.now
    let status = await NewsCommandLine(
      environment: cli.environment, currentDirectory: cli.directory.url.path, console: console, now: { now },
      network: cli.network
    ).run(["show", "https://harbour.example/log/1", "--db", cli.database])
    #expect(status == 0, "\(captured.err)")
    let line = captured.out.split(separator: "\n").first { $0.hasPrefix("source ") }.map(String.init)
    #expect(line == "source " + feed, "\(captured.out)")
  }

  @Test("`import --mapping` of a folder or a missing file says why, as `import` does, with its hint")
  func mappedImportUnreadable() async throws {
    let cli = CLIHarness()
    let folder = cli.directory.path("a-folder")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (file, reason, hint) in [
      (folder, "is a directory", "give a file, not a folder"),
      (cli.directory.path("missing.json"), "no such file", "check the file name"),
    ] {
      let plain = await cli.run("import", file, "--db", cli.database)
      let mapped = await cli.run("import", file, "--mapping", "jsonfeed", "--db", cli.database)
      for outcome in [plain, mapped] {
        #expect(outcome.status == 65, "\(outcome.err)")
        #expect(outcome.err.contains(reason) && outcome.err.contains(hint), "\(outcome.err)")
      }
    }
  }

  @Test("`import --mapping jsonfeed` searches content_html by its text, as `import` of the same file does")
  func mappedJSONFeedSearchText() async throws {
    let feed = Fixtures.own("feeds/undated.json")  // item 1: content_html with <a href="https://undated.example/">
    for mapping in [[String](), ["--mapping", "jsonfeed"]] {
      let cli = CLIHarness()
      for _ in 0..<2 {  // a second run changes nothing
        let imported = await cli.run(["import", feed.path, "--db", cli.database] + mapping)
        #expect(imported.status == 0, "\(mapping): \(imported.err)")
      }
      let markup = await cli.run("search", "href", "--db", cli.database, "--json")
      #expect((try markup.json()["results"] as? [Any])?.isEmpty == true, "\(mapping): \(markup.out)")
      let host = await cli.run("search", "undated.example", "--db", cli.database, "--json")
      #expect((try host.json()["results"] as? [Any])?.isEmpty == true, "\(mapping): an attribute value: \(host.out)")
      let text = await cli.run("search", "dated text", "--db", cli.database, "--json")
      let titles = (try text.json()["results"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
      #expect(titles == ["A dated note"], "\(mapping): \(text.out)")
      let plain = await cli.run("search", "date", "--db", cli.database, "--json")
      let found = (try plain.json()["results"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
      #expect(found?.contains("An undated note") == true, "content_text is searched as it is: \(plain.out)")
    }
  }

  @Test("`fetch --url` of a page announcing a feed points to `news add`; of an OPML list, to `news import`")
  func fetchPageAndListHints() async throws {
    let cli = CLIHarness()
    let page = Data(
      """
      <!DOCTYPE html><html><head><title>Harbour</title>
      <link rel="alternate" type="application/rss+xml" href="/feed.rss"></head><body><p>Hello</p></body></html>
      """.utf8)
    let list = try Data(contentsOf: Fixtures.own("feeds/subscriptions.opml"))
    let server = try LoopbackHTTPServer()
    server.router = { request in
      request.target == "/subs.opml"
        ? .respond(status: 200, headers: ["Content-Type": "text/x-opml"], body: list)
        : .respond(status: 200, headers: ["Content-Type": "text/html"], body: page)
    }
    defer { server.stop() }
    let home = server.url("/").absoluteString
    let fetchedPage = await cli.run("fetch", "--url", home, "--db", cli.database)
    #expect(fetchedPage.status == 69, "\(fetchedPage.err)")
    #expect(fetchedPage.err.contains("news add \(home)"), "\(fetchedPage.err)")
    let opml = server.url("/subs.opml").absoluteString
    let fetchedList = await cli.run("fetch", "--url", opml, "--db", cli.database)
    #expect(fetchedList.status == 69, "\(fetchedList.err)")
    #expect(fetchedList.err.contains("OPML") && fetchedList.err.contains("news import"), "\(fetchedList.err)")
    #expect(!fetchedList.err.contains("an RSS or Atom feed?"), "fetch reads RSS and Atom: \(fetchedList.err)")
  }

  @Test("`stats`: a fetch of one article says \"1 article\", and the query column lines up whatever the counts")
  func statsFetchColumns() async throws {
    let cli = CLIHarness()
    let one = cli.directory.path("one.rss")
    try Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>One</title><link>https://one.example/</link>
      <item><title>Only</title><link>https://one.example/only</link></item></channel></rss>
      """.utf8
    ).write(to: URL(fileURLWithPath: one))
    let twelve = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    #expect(await cli.run("import", one, "--db", cli.database).status == 0)
    #expect(await cli.run("import", twelve, "--db", cli.database).status == 0)
    let stats = await cli.run("stats", "--db", cli.database)
    #expect(stats.status == 0, "\(stats.err)")
    let rows = stats.out.split(separator: "\n").filter { $0.hasPrefix("fetch ") }.map(String.init)
    #expect(rows.count == 2, "\(stats.out)")
    #expect(rows.contains { $0.contains(" 1 article ") }, "\(stats.out)")
    let starts = rows.compactMap { row in
      row.range(of: "file://").map { row.distance(from: row.startIndex, to: $0.lowerBound) }
    }
    #expect(starts.count == 2 && Set(starts).count == 1, "the queries start in one column:\n\(stats.out)")
  }

  @Test("`--limit` with more digits than a number holds says it is too large, not that it is no whole number")
  func hugeLimit() async throws {
    let cli = CLIHarness()
    let huge = "99999999999999999999999"
    for command in [["list"], ["search", "harbour"], ["records", "article"]] {
      let outcome = await cli.run(command + ["--limit", huge, "--db", cli.database])
      #expect(outcome.status == 64, "\(command): \(outcome.err)")
      #expect(
        outcome.err.contains("--limit \"\(huge)\" is too large: at most \(Int.max)"), "\(command): \(outcome.err)")
    }
    let negative = await cli.run("list", "--limit", "-1", "--db", cli.database)
    #expect(negative.status == 64 && negative.err.contains("is not a whole number ≥ 0"), "\(negative.err)")
  }

  @Test("`extract` of a missing file gets the hint `import` gives (check the name; relative to the current folder)")
  func extractMissingHint() async throws {
    let cli = CLIHarness()
    let extracted = await cli.run("extract", "no-such-page.html")
    let imported = await cli.run("import", "no-such-page.html", "--db", cli.database)
    #expect(extracted.status == 66, "\(extracted.err)")
    let hint = "hint: check the file name (relative paths start from \(cli.directory.url.path))"
    #expect(imported.err.contains(hint), "the oracle: \(imported.err)")
    #expect(extracted.err.contains(hint), "\(extracted.err)")
  }
}
