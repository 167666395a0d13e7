import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

@testable import NewsCLI

/// Messages that fit the cause: every message about a record on standard error, errors naming the input and a hint
/// for what actually went wrong, skipped records counted by reason (listed with `--verbose`).
@Suite("news: messages")
struct MessageTests {
  @Test("`news help nope` is a usage error (64) with the list of commands on standard error")
  func unknownHelpTopic() async {
    let cli = CLIHarness()
    let outcome = await cli.run("help", "nope")
    #expect(outcome.status == 64)
    #expect(outcome.out.isEmpty)
    #expect(outcome.err.hasPrefix("news: no command named 'nope'\n"), "\(outcome.err)")
    #expect(outcome.err.contains("Commands:"), "\(outcome.err)")
    #expect(outcome.err.contains("  search    "), "\(outcome.err)")
    let known = await cli.run("help", "search")
    #expect(known.status == 0)
    #expect(known.out.contains("Usage: news search"))
    #expect(known.out.contains("--color WHEN"), "the common options are in every command's help")
  }

  @Test("--timeout 0 says what the valid range is and why 0 is not in it")
  func timeoutZero() async {
    let cli = CLIHarness()
    for command in ["fetch", "sync"] {
      let outcome = await cli.run(command, "--timeout", "0", "--db", cli.database)
      #expect(outcome.status == 64)
      #expect(
        outcome.err.hasPrefix(
          "news: --timeout \"0\" is not a time limit: it must be more than 0 seconds (at most 86400, a day)\n"),
        "\(outcome.err)")
      #expect(outcome.err.contains("hint: there is no 'no limit'"), "\(outcome.err)")
      #expect(!outcome.err.contains("between 0 and"), "\(outcome.err)")
    }
    let large = await cli.run("fetch", "--timeout", "90000", "--db", cli.database)
    #expect(large.err.contains("at most 86400 seconds (a day)"), "\(large.err)")
    let words = await cli.run("fetch", "--timeout", "soon", "--db", cli.database)
    #expect(words.err.contains("--timeout \"soon\" is not a number of seconds"), "\(words.err)")
  }

  @Test("a refused certificate's hint names how to trust an authority, not a network to wait for")
  func certificateHint() throws {
    let query = NewsQuery(url: try #require(URL(string: "https://feeds.example/rss")))
    let hint = FailureHint.reading(
      query, .transport(.secureConnectionFailed, detail: "the server's certificate is not trusted"),
      currentDirectory: "/")
    #expect(hint?.contains("CURL_CA_BUNDLE") == true, "\(hint ?? "")")
    #expect(hint?.contains("network is back") == false, "\(hint ?? "")")
  }

  @Test("a missing file is a path to check, not a mapping problem")
  func missingFile() async {
    let cli = CLIHarness()
    let outcome = await cli.run("import", "no-such-response.json", "--db", cli.database)
    #expect(outcome.status == 65)
    #expect(outcome.err.contains("no-such-response.json: cannot read "), "\(outcome.err)")
    #expect(outcome.err.contains("no such file; nothing was saved"), "\(outcome.err)")
    #expect(outcome.err.contains("hint: check the file name (relative paths start from "), "\(outcome.err)")
    #expect(!outcome.err.contains("mapping"), "\(outcome.err)")

    let folder = await cli.run("import", "nowhere/x.json", "--db", cli.database)
    #expect(folder.err.contains("hint: no folder "), "\(folder.err)")

    let fetched = await cli.run("fetch", "--url", "gone.json", "--db", cli.database)
    #expect(fetched.status == 69)
    #expect(fetched.err.contains("gone.json: cannot read"), "\(fetched.err)")
    #expect(fetched.err.contains("hint: check the file name"), "\(fetched.err)")
    #expect(!fetched.err.contains("network"), "\(fetched.err)")
  }

  @Test("a saved web page is named as one; the hint: its feed through 'news add', or, announcing none, 'news extract'")
  func htmlFile() async throws {
    let cli = CLIHarness()
    let path = cli.directory.path("page.html")
    let page = Data("<!DOCTYPE html>\n<html><body><p>Nothing here</p></body></html>".utf8)
    try page.write(to: URL(fileURLWithPath: path))
    for command in ["import", "fetch"] {
      let outcome = await cli.run(
        command == "import" ? [command, path] : [command, "--url", path] + ["--db", cli.database])
      #expect(outcome.status == (command == "import" ? 65 : 69), "\(command)")
      #expect(
        outcome.err.contains("invalid response: an HTML page (\(page.count) bytes) that announces no feed"),
        "\(outcome.err)")
      #expect(
        outcome.err.contains("hint: this is a web page that announces no feed: 'news extract \(path)'"),
        "\(outcome.err)")
      #expect(!outcome.err.contains("<p>"), "\(outcome.err)")
    }
    // A relative feed link counts: a saved page's link resolves only against the site's address.
    let announcing = cli.directory.path("home.html")
    try Data(
      #"<html><head><link rel="alternate" type="application/atom+xml" href="/feeds/main"></head><body></body></html>"#
        .utf8
    ).write(to: URL(fileURLWithPath: announcing))
    let outcome = await cli.run("import", announcing, "--db", cli.database)
    #expect(outcome.err.contains("hint: this is a web page, not a feed or a NewsAPI response: 'news add URL'"))
  }

  @Test(
    "the real saved pages: the hint names 'news extract' exactly for those without a feed link",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realPagesHint() async throws {
    let cli = CLIHarness()
    let folder = Fixtures.sharedRealDirectory.appendingPathComponent("pages")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    var announcing = 0
    for name in names {
      let page = folder.appendingPathComponent(name).appendingPathComponent("source.html")
      guard let html = try? String(contentsOf: page, encoding: .isoLatin1) else { continue }
      // Independently of libxml2: a <link …> tag naming rel alternate and a feed type.
      let links = html.lowercased().components(separatedBy: "<link").dropFirst().map { $0.prefix { $0 != ">" } }
      let hasFeed = links.contains { link in
        link.contains("alternate") && ["application/rss+xml", "application/atom+xml"].contains { link.contains($0) }
      }
      if hasFeed { announcing += 1 }
      let outcome = await cli.run("import", page.path, "--db", cli.database)
      #expect(outcome.status == 65, "\(name)")
      #expect(outcome.err.contains("'news extract ") == !hasFeed, "\(name): \(outcome.err)")
      #expect(outcome.err.contains("'news add URL'") == hasFeed, "\(name): \(outcome.err)")
    }
    #expect(names.count > 10 && announcing > 3 && announcing < names.count - 3, "\(announcing) of \(names.count)")
  }

  static let page = Data(
    """
    <!DOCTYPE html>
    <html lang="en"><head><title>Not Found</title><style>body { font: 14px sans-serif }</style></head>
    <body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>
    """.utf8)

  @Test("fetch --url of an HTTP 404 says what came back (status, content type, size) and summarises the body")
  func http404() async throws {
    let server = try LoopbackHTTPServer(
      .respond(status: 404, headers: ["Content-Type": "text/html; charset=utf-8"], body: Self.page))
    defer { server.stop() }
    let cli = CLIHarness()
    let url = server.url("/v2/top-headlines?country=de").absoluteString
    let outcome = await cli.run("fetch", "--url", url, "--db", cli.database)
    #expect(outcome.status == 69)
    #expect(outcome.out.isEmpty)
    let bytes = Self.page.count
    #expect(
      outcome.err.hasPrefix(
        "news: \(url): HTTP 404 Not Found: an HTML page (text/html; charset=utf-8, \(bytes) bytes); "
          + "nothing is cached for it\n"), "\(outcome.err)")
    #expect(outcome.err.contains("hint: the server has no page at this URL"), "\(outcome.err)")
    // A loopback URL is no NewsAPI query: the hint does not point at one (tester LOW).
    #expect(!outcome.err.contains("newsapi.org"), "\(outcome.err)")
    #expect(outcome.err.contains("news add https://SITE/"), "\(outcome.err)")
    #expect(!outcome.err.contains("<"), "the body is summarised, not printed: \(outcome.err)")
    #expect(!outcome.err.contains("network is back"), "\(outcome.err)")
    #expect(server.requests.count == 1, "a 404 is not retried")
  }

  @Test("fetch --url of a broken feed says what is wrong with it as a feed (XML error and place), never 'not JSON'")
  func brokenFeed() async throws {
    // Text before the feed (a PHP warning): XML allows none, and libxml2 recovers nothing.
    let phpWarning = Data(
      """
      Warning: mysql_connect() in /var/www/feed.php on line 3
      <?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
      <item><title>One</title><link>https://t.example/1</link></item></channel></rss>
      """.utf8)
    let otherXML = Data(#"<?xml version="1.0"?><channel><title>T</title></channel>"#.utf8)
    for (body, says, hint) in [
      (
        phpWarning,
        ":1:1: not an XML document libxml2 can recover (Start tag expected, '<' not found); it starts with "
          + #""Warning: mysql_connect() in /var/www/feed.php on line 3": neither a feed's XML nor JSON"#,
        "hint: the feed is broken where the message says"
      ),
      (otherXML, ": the root element is <channel>: not RSS, RDF or Atom, not a feed", "hint: this is XML, but no feed"),
    ] {
      let server = try LoopbackHTTPServer(
        .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: body))
      defer { server.stop() }
      let cli = CLIHarness()
      let url = server.url("/feed.php").absoluteString
      let outcome = await cli.run("fetch", "--url", url, "--db", cli.database)
      #expect(outcome.status == 69, "\(outcome.err)")
      #expect(
        outcome.err.hasPrefix("news: \(url): invalid response: \(url)\(says); nothing is cached"), "\(outcome.err)")
      #expect(outcome.err.contains(hint), "\(outcome.err)")
      #expect(!outcome.err.contains("not JSON") && !outcome.err.contains("not valid JSON"), "\(outcome.err)")
    }
  }

  @Test(
    "fetch --url of a web page (200, text/html) says it is one, and whether it announces a feed; the network is not blamed"
  )
  func htmlPage() async throws {
    let announcing = Data(
      """
      <!DOCTYPE html><html><head><title>Gazette</title>
      <link rel="alternate" type="application/rss+xml" title="Gazette" href="/feed.xml"></head>
      <body><p>Front page</p></body></html>
      """.utf8)
    for (page, says, hint) in [
      (
        Self.page, " that announces no feed",
        "hint: this is a web page that announces no feed: to follow the site, give its feed's URL"
      ),
      (
        announcing, " that announces a feed, not the feed",
        "hint: this is a web page, not a feed or a NewsAPI response: 'news add http"
      ),
    ] {
      let server = try LoopbackHTTPServer(.respond(status: 200, headers: ["Content-Type": "text/html"], body: page))
      defer { server.stop() }
      let cli = CLIHarness()
      let url = server.url("/news").absoluteString
      let outcome = await cli.run("fetch", "--url", url, "--db", cli.database)
      #expect(outcome.status == 69)
      #expect(
        outcome.err.hasPrefix("news: \(url): invalid response: an HTML page (text/html, \(page.count) bytes)\(says)"),
        "\(outcome.err)")
      #expect(outcome.err.contains(hint), "\(outcome.err)")
      #expect(!outcome.err.contains("network is back"), "\(outcome.err)")
    }
  }

  @Test("skipped records are counted by reason on standard error; --verbose lists each")
  func skippedByReason() async throws {
    let file = Fixtures.own("newsapi-removed-and-empty-author.json").path
    // The expected reasons, from the file itself: the records titled "[Removed]".
    let records = try newsAPIRecords(URL(fileURLWithPath: file))
    let removed = records.indices.filter { (records[$0]["title"] as? String) == "[Removed]" }
    #expect(removed.count == 1)
    let cli = CLIHarness()

    let fetched = await cli.run("fetch", "--url", file, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.out.hasPrefix("read — \(records.count - 1) articles from \(file)\n"), "\(fetched.out)")
    #expect(!fetched.out.contains("skipped"), "messages about records are not data: \(fetched.out)")
    #expect(fetched.err == "1 skipped: NewsAPI [Removed] placeholder (--verbose lists it)\n", "\(fetched.err)")

    let verbose = await cli.run("fetch", "--url", file, "--db", cli.database, "--verbose")
    #expect(
      verbose.err.contains("  articles[\(removed[0])]"), "each skipped record with its key path: \(verbose.err)")
    #expect(verbose.err.contains("NewsAPI [Removed] placeholder; record skipped"), "\(verbose.err)")

    let imported = await cli.run("import", file, "--db", cli.database)
    #expect(imported.out == "saved \(records.count - 1) articles from \(file), skipped 1\n", "\(imported.out)")
    #expect(imported.err == "1 skipped: NewsAPI [Removed] placeholder (--verbose lists it)\n", "\(imported.err)")
  }

  @Test("several reasons: the most frequent first, values left out of the reason")
  func reasonCounts() {
    #expect(
      OutputFormat.reasonCounts([
        "missing url", "not an RFC 3339 date-time: \"yesterday\"", "missing url", "not an RFC 3339 date-time: \"x\"",
        "missing url", "missing title",
      ]) == "3 missing url, 2 not an RFC 3339 date-time, 1 missing title")
    #expect(OutputFormat.reasonCounts(["missing url", "missing url"]) == "missing url")
  }

  @Test("news sync: per-record problems go to standard error, counted; --verbose lists them; stdout keeps the counts")
  func syncRecordErrors() async throws {
    let stub = try ParseServerStub()
    let feed = """
      {"version":"https://jsonfeed.org/version/1.1","title":"T","items":[
        {"id":"1","title":"One","content_text":"x","date_published":"2024-05-01T10:00:00+02:00"},
        {"id":"2","title":"Two","content_text":"y","date_published":"yesterday"}]}
      """
    let url = stub.putFile("feed.json", contentType: "application/feed+json", body: Data(feed.utf8))
    let cli = CLIHarness()
    let mapping = Fixtures.configDirectory.appendingPathComponent("mappings/jsonfeed.json").path
    let config = cli.directory.path("news.json")
    try Data(
      #"{"sources": {"blog": {"feed": "\#(url.absoluteString)", "mapping": "\#(mapping)"}}}"#.utf8
    ).write(to: URL(fileURLWithPath: config))

    let outcome = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    // The unreadable date costs that value (the article is dated when first seen): a warning, not a failure.
    #expect(outcome.out.contains("blog/feed → article: 1 page, 2 objects: 2 inserted"), "\(outcome.out)")
    #expect(outcome.out.split(separator: "\n").count == 1, "only the class's line on stdout: \(outcome.out)")
    #expect(outcome.err.hasPrefix("blog/feed: 1 value not read (the records were kept): "), "\(outcome.err)")
    #expect(outcome.err.contains("(--verbose lists it)"), "\(outcome.err)")
    #expect(!outcome.err.contains("items[1]"), "\(outcome.err)")

    let verbose = await cli.run("sync", "--config", config, "--db", cli.database, "--verbose", "--full")
    #expect(verbose.err.contains("  blog/feed: warning: items[1]"), "\(verbose.err)")
    #expect(!verbose.out.contains("items[1]"), "\(verbose.out)")
  }
}

/// The messages of issue 30 ("A newcomer's first day"), each where it stands.
@Suite("messages a newcomer met (issue 30)")
struct NewcomerMessageTests {
  private func writeConfig(_ cli: CLIHarness, _ json: String) throws -> String {
    let path = cli.directory.path("news.json")
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test("news fetch with subscriptions and no default source suggests --all and --source NAME, not the package folder")
  func fetchWithoutDefault() async throws {
    let cli = CLIHarness()
    let config = try writeConfig(
      cli, #"{"sources": {"alpha": {"feed": "https://a.example/f"}, "beta": {"feed": "https://b.example/f"}}}"#)
    let outcome = await cli.run("fetch", "--config", config, "--db", cli.database)
    #expect(outcome.status == 64, "\(outcome.err)")
    #expect(outcome.err.contains("news fetch --all"), "\(outcome.err)")
    #expect(outcome.err.contains("news fetch --source NAME"), "\(outcome.err)")
    #expect(outcome.err.contains("alpha, beta"), "\(outcome.err)")
    #expect(!outcome.err.contains("package folder"), "\(outcome.err)")
  }

  @Test("news sync of a feed that cannot be reached names the source, then the error: 'NAME: …', not 'NAME/…'")
  func syncFeedFailure() async throws {
    let cli = CLIHarness()
    let config = try writeConfig(cli, #"{"sources": {"sixcolors": {"feed": "http://127.0.0.1:9/feed"}}}"#)
    let outcome = await cli.run("sync", "--config", config, "--db", cli.database, "--timeout", "2")
    #expect(outcome.status != 0)
    #expect(outcome.err.contains("news: sixcolors: "), "\(outcome.err)")
    #expect(!outcome.err.contains("sixcolors/"), "\(outcome.err)")
  }

  @Test("--verbose says a dropped value once per problem, never 'value dropped; value dropped'")
  func valueDroppedOnce() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("feed.rss")
    let rss = """
      <?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://t.example/</link>
      <item><title>One</title><link>https://t.example/1</link><pubDate>not a date</pubDate></item>
      <item><title>Two</title><link>https://t.example/2</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
      </channel></rss>
      """
    try Data(rss.utf8).write(to: URL(fileURLWithPath: feed))
    let outcome = await cli.run("import", feed, "--db", cli.database, "--verbose")
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.err.contains("value dropped"), "\(outcome.err)")
    #expect(!outcome.err.contains("value dropped; value dropped"), "\(outcome.err)")
    // Once in the count line, once in the listed line: never twice on one line.
    for line in outcome.err.split(separator: "\n") {
      #expect(line.components(separatedBy: "value dropped").count <= 2, "\(line)")
    }
    #expect(
      outcome.err.contains("1 value dropped: not an RFC 822 date (nor any other form feeds write)\n"), "\(outcome.err)")
  }

  @Test("an item dated more than a day ahead is dated when first seen, and says so; an hour ahead is kept")
  func farFutureDate() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("future.rss")
    let soon = Date().addingTimeInterval(3_600)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let rss = """
      <?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://t.example/</link>
      <item><title>Far</title><link>https://t.example/far</link><pubDate>Thu, 01 Jan 2099 00:00:00 GMT</pubDate></item>
      <item><title>Soon</title><link>https://t.example/soon</link><pubDate>\(formatter.string(from: soon))</pubDate></item>
      <item><title>Old</title><link>https://t.example/old</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
      </channel></rss>
      """
    try Data(rss.utf8).write(to: URL(fileURLWithPath: feed))
    let outcome = await cli.run("import", feed, "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.err.contains("1 value dropped: more than a day after the fetch"), "\(outcome.err)")
    let verbose = await cli.run("import", feed, "--db", cli.database, "--verbose")
    #expect(
      verbose.err.contains(
        "item[0].pubDate (https://t.example/far): more than a day after the fetch: "
          + "2099-01-01T00:00:00.000Z; dated when first seen; value dropped"), "\(verbose.err)")
    let listed = try await cli.run("list", "--db", cli.database, "--json").json()
    let articles = try #require(listed["articles"] as? [[String: Any]])
    #expect(articles.compactMap { $0["title"] as? String } == ["Soon", "Far", "Old"], "\(articles)")
    let far = try #require(articles.first { $0["title"] as? String == "Far" }?["publishedAt"] as? String)
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let dated = try #require(parser.date(from: far))
    // Dated when first seen (by the command's clock), never 2099, and below the item an hour ahead.
    #expect(dated < soon && !far.hasPrefix("2099"), "\(far)")
  }

  @Test("a charset fallback that kept every value is a note, never 'value dropped'")
  func encodingFallbackIsNoted() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("latin1.rss")
    // No encoding declared and a windows-1252 byte (0xE9, "é"): read as windows-1252, nothing set aside.
    var rss = Data(
      """
      <rss version="2.0"><channel><title>T</title><link>https://t.example/</link>
      <item><title>Caf
      """.utf8)
    rss.append(0xE9)
    rss.append(
      contentsOf: Data(
        """
        </title><link>https://t.example/1</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
        </channel></rss>
        """.utf8))
    try rss.write(to: URL(fileURLWithPath: feed))
    let outcome = await cli.run("import", feed, "--db", cli.database, "--verbose")
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(!outcome.err.contains("dropped"), "\(outcome.err)")
    #expect(
      outcome.err.contains("1 note: no encoding declared and the bytes are not UTF-8\n"),
      "\(outcome.err)")
    #expect(outcome.err.contains("not UTF-8: read as windows-1252\n"), "\(outcome.err)")
    let listed = await cli.run("list", "--db", cli.database, "--json")
    #expect(listed.out.contains("Café"), "\(listed.out)")
  }

  @Test("an issue of the whole feed is listed by --verbose as its message, never ': message' (fetch and import)")
  func feedIssueHasNoEmptyPlace() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("latin1.rss")
    // No encoding declared and a windows-1252 byte: a note about the whole document, not about an item's field.
    var rss = Data(#"<rss version="2.0"><channel><title>T</title><link>https://t.example/</link><item><title>Caf"#.utf8)
    rss.append(0xE9)
    rss.append(contentsOf: Data("</title><link>https://t.example/1</link></item></channel></rss>".utf8))
    try rss.write(to: URL(fileURLWithPath: feed))
    for command in [["fetch", "--url", feed], ["import", feed]] {
      let outcome = await cli.run(command + ["--db", cli.database, "--verbose"])
      #expect(outcome.status == 0, "\(outcome.err)")
      #expect(outcome.err.contains("\n  no encoding declared and the bytes are not UTF-8"), "\(outcome.err)")
      #expect(!outcome.err.contains("  : "), "\(outcome.err)")
    }
    // The one formatting every printer uses (`IssuePlace`); a mapping's `RecordError` is its ImportTests'.
    let issue = RecordIssue(index: -1, url: nil, keyPath: "", reason: "libxml2 recovered", outcome: .noted)
    #expect(issue.description == "libxml2 recovered")
    let placed = RecordIssue(
      index: 2, url: "https://t.example/2", keyPath: "item[2].link", reason: "x", outcome: .noted)
    #expect(placed.description == "item[2].link (https://t.example/2): x")
  }
}
