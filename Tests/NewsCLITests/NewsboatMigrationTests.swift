import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

/// Moving from newsboat: `news import` of its `urls` file (subscriptions, titles, folders; what is not subscribed
/// reported by line), checked against the real newsboat where it is installed (its own reading of the same file).
@Suite("news import: newsboat's urls file")
struct NewsboatMigrationTests {
  /// A urls file with every kind of line newsboat's manual describes.
  static let urls = """
    # newsboat urls file
    https://tech.example/feed.xml tech "~Tech \\"Daily\\"" news
    https://b.example/rss "two words" # a comment "~Not a title"
      https://c.example/atom "!hidden" ~C-title
    "query:Unread Articles:unread = \\"yes\\"" tech
    exec:~/bin/script tag
    "filter:~/bin/f arg:https://d.example/x" tag2

    gopher://old.example/feed
    https://tech.example/feed.xml duplicate
    http://plain.example/index.rss

    """

  @Test(
    "a urls file is recognised by content; feeds subscribed with titles and first-tag folders; the rest reported by line"
  )
  func importURLs() async throws {
    let cli = CLIHarness()
    let file = cli.directory.path("urls")
    try Self.urls.write(toFile: file, atomically: true, encoding: .utf8)
    let config = cli.directory.path("config.json")
    let imported = await cli.run("import", file, "--config", config, "--json")
    #expect(imported.status == 0, "\(imported.err)")
    let report = try imported.json()
    let sources = try SubscriptionCommandTests.sources(config)
    #expect(
      sources.keys.sorted() == ["C-title", "Tech \"Daily\"", "http://plain.example/index.rss", "https://b.example/rss"])
    #expect(sources["Tech \"Daily\""]?["feed"] as? String == "https://tech.example/feed.xml")
    #expect(sources["Tech \"Daily\""]?["folder"] as? String == "tech")
    #expect(sources["https://b.example/rss"]?["folder"] as? String == "two words")
    #expect(sources["C-title"]?["folder"] == nil)
    #expect(sources["http://plain.example/index.rss"]?["folder"] == nil)
    // The same feed twice: subscribed once, the second reported as existing.
    #expect((report["added"] as? [Any])?.count == 4)
    #expect((report["existing"] as? [Any])?.count == 1)
    let issues = try #require(report["issues"] as? [String])
    func issue(line: Int) -> String? { issues.first { $0.contains("urls:\(line):") } }
    #expect(issue(line: 2)?.contains("not kept: 'news'") == true, "\(issues)")
    #expect(issue(line: 3) == nil, "a # token starts a comment: \(issues)")
    #expect(issue(line: 4)?.contains("hidden") == true)
    #expect(issue(line: 5)?.contains("query feed") == true)
    #expect(issue(line: 6)?.contains("exec:/filter:") == true)
    #expect(issue(line: 7)?.contains("exec:/filter:") == true)
    #expect(issue(line: 9)?.contains("not an http(s) feed URL") == true)
    #expect(issues.count == 6, "\(issues)")

    // Text output as the OPML import's; a second import adds nothing.
    let again = await cli.run("import", file, "--config", config)
    #expect(again.status == 0)
    #expect(again.out.contains("added 0 sources from \(file) to \(config), 5 already there"), "\(again.out)")
    #expect(again.err.contains("urls:5:"), "\(again.err)")
  }

  @Test("text that is neither JSON nor a urls file: the hint names the urls file's form")
  func notAURLsFile() async throws {
    let cli = CLIHarness()
    let file = cli.directory.path("notes.txt")
    try "feeds I like:\nhttps://a.example/feed\n".write(toFile: file, atomically: true, encoding: .utf8)
    let imported = await cli.run("import", file, "--config", cli.directory.path("config.json"))
    #expect(imported.status == 65)
    #expect(imported.err.contains("newsboat urls file"), "\(imported.err)")
  }

  @Test(
    "the feeds and titles read are newsboat's own (newsboat -e exports its reading of the same file)",
    .enabled(if: NewsboatProgram.path != nil, "SKIPPED: newsboat is not installed (apt-get install newsboat)"))
  func sameAsNewsboat() async throws {
    let directory = TemporaryDirectory("newsboat-urls")
    let urls = directory.path("urls")
    try Self.urls.write(toFile: urls, atomically: true, encoding: .utf8)
    let exported = try await NewsboatProgram.run(directory, ["-e"])
    #expect(exported.status == 0, "\(exported.err)")
    let theirs = try OPML.read(Data(exported.out.utf8), url: URL(fileURLWithPath: urls)).subscriptions
    let ours = NewsboatURLs.read(Data(Self.urls.utf8), url: URL(fileURLWithPath: urls)).subscriptions
    // newsboat lists the duplicate twice; subscribing makes it one.
    #expect(theirs.map(\.feedURL) == ours.map(\.feedURL))
    #expect(theirs.count == 5)
    for (their, our) in zip(theirs, ours) where their.title != their.feedURL.absoluteString {
      #expect(their.title == our.title)
    }
  }

  /// An RSS feed of `items` (title, link or `nil`, guid or `nil`), then of `permalinks` (title, a permalink guid:
  /// an item without `<link>` whose guid is its URL, as Scripting News writes them).
  static func feed(
    _ title: String, home: String, _ items: [(String, String?, String?)], permalinks: [(String, String)] = []
  ) -> Data {
    let body =
      items.map { item in
        "<item><title>\(item.0)</title>" + (item.1.map { "<link>\($0)</link>" } ?? "")
          + (item.2.map { "<guid isPermaLink=\"false\">\($0)</guid>" } ?? "")
          + "<description>\(item.0) text</description></item>"
      }
      + permalinks.map {
        "<item><title>\($0.0)</title><guid>\($0.1)</guid><description>\($0.0) text</description></item>"
      }
    return Data(
      "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title><link>\(home)</link>\(body.joined())</channel></rss>"
        .utf8)
  }

  @Test(
    "real newsboat reads two loopback feeds; its urls file and cache.db imported: folders, titles, read and flagged state",
    .enabled(
      if: NewsboatProgram.path != nil && NewsboatProgram.sqlite3 != nil,
      "SKIPPED: newsboat or sqlite3 is not installed (apt-get install newsboat sqlite3)"))
  func urlsAndCacheFromRealNewsboat() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let home = server.url("/").absoluteString
    let feeds = [
      "/alpha.xml": Self.feed(
        "Alpha feed", home: home,
        [
          ("A1", "https://site.example/a1", "alpha-1"), ("A2", "https://site.example/a2?utm_source=rss", nil),
          ("A3", nil, "alpha-3"), ("A4", "https://site.example/a4", nil),
          // Listed twice, one link and one guid (Scripting News does so): one item in newsboat, two articles here.
          ("A7", "https://site.example/day.html#a7", "alpha-7"),
          ("A7 again", "https://site.example/day.html#a7", "alpha-7"),
        ], permalinks: [("A5", "https://site.example/day.html#a1"), ("A6", "https://site.example/day.html#a2")]),
      "/beta.xml": Self.feed(
        "Beta feed", home: home, [("B1", "https://site.example/b1", nil), ("B2", "https://site.example/b2", nil)]),
    ]
    server.router = { request in
      guard let body = feeds[request.target] else { return .respond(status: 404, body: Data()) }
      return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: body)
    }
    let newsboat = TemporaryDirectory("newsboat-state")
    try """
    # my feeds
    \(server.url("/alpha.xml").absoluteString) tech "~Alpha" reading
    \(server.url("/beta.xml").absoluteString) "world news"
    "query:Unread:unread = \\"yes\\""

    """.write(toFile: newsboat.path("urls"), atomically: true, encoding: .utf8)
    let reloaded = try await NewsboatProgram.run(newsboat, ["-x", "reload"])
    #expect(reloaded.status == 0, "newsboat: \(reloaded.out) \(reloaded.err)")
    let cache = newsboat.path("cache.db")
    // Read A1, A2, A3 (no link: found by its guid) and A5 (a permalink guid whose link differs from A6's only in
    // its fragment, as Scripting News's posts of a day: newsboat shows the guid as the link, we key both by their
    // guids) and the item listed twice, flag A3 and B1, delete B2 (read) in newsboat.
    let updated = try await NewsboatProgram.sqlite(
      cache,
      "UPDATE rss_item SET unread = 0 WHERE title IN ('A1', 'A2', 'A3', 'A5') OR guid = 'alpha-7'; "
        + "UPDATE rss_item SET flags = 'sx' WHERE title IN ('A3', 'B1'); "
        + "UPDATE rss_item SET unread = 0, deleted = 1 WHERE title = 'B2'; SELECT count(*) FROM rss_item;")
    #expect(updated.status == 0, "\(updated.err)")
    #expect(updated.out.trimmingCharacters(in: .whitespacesAndNewlines) == "9", "newsboat's items: \(updated.out)")

    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let subscribed = await cli.run("import", newsboat.path("urls"), "--config", config)
    #expect(subscribed.status == 0, "\(subscribed.err)")
    #expect(subscribed.err.contains("urls:4:"), "the query feed is reported: \(subscribed.err)")
    let sources = try SubscriptionCommandTests.sources(config)
    #expect(sources["Alpha"]?["folder"] as? String == "tech")
    #expect(sources["Alpha"]?["feed"] as? String == server.url("/alpha.xml").absoluteString)
    #expect(sources[server.url("/beta.xml").absoluteString]?["folder"] as? String == "world news")

    // Before a fetch, nothing is found: the command says so and what to do.
    let early = await cli.run("import", cache, "--config", config, "--db", cli.database)
    #expect(early.status == 0, "\(early.err)")
    #expect(early.out.contains("marked read 0 of 5 read there, bookmarked 0 of 2 flagged"), "\(early.out)")
    #expect(early.err.contains("6 articles are not in the cache yet") && early.err.contains("news fetch --all"))

    let fetched = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    let imported = await cli.run("import", cache, "--config", config, "--db", cli.database, "--json")
    #expect(imported.status == 0, "\(imported.err)")
    let report = try imported.json()
    #expect(report["read"] as? Int == 5 && report["markedRead"] as? Int == 5, "\(report)")
    #expect(report["flagged"] as? Int == 2 && report["bookmarked"] as? Int == 2, "\(report)")
    #expect(report["notFound"] as? Int == 0 && report["deleted"] as? Int == 1, "\(report)")

    func titles(_ extra: String...) async throws -> Set<String> {
      let listed = await cli.run(["list", "--config", config, "--db", cli.database, "--json"] + extra)
      #expect(listed.status == 0, "\(listed.err)")
      return Set(articles(try listed.json()).compactMap { $0["title"] as? String })
    }
    #expect(try await titles() == ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A7 again", "B1", "B2"])
    #expect(try await titles("--unread") == ["A4", "A6", "B1", "B2"])
    #expect(try await titles("--bookmarked") == ["A3", "B1"])

    // Another SQLite file (our own store) is refused, naming it; nothing changes.
    let own = await cli.run("import", cli.database, "--config", config, "--db", cli.database)
    #expect(own.status == 65)
    #expect(
      own.err.contains("not newsboat's cache.db (rss_item has no column") || own.err.contains("no rss_item table"))
    #expect(try await titles("--unread") == ["A4", "A6", "B1", "B2"])
  }
}

/// The installed newsboat, run with a configuration, cache and urls file of its own in a temporary folder.
enum NewsboatProgram {
  /// `newsboat` on `PATH`, or `nil`.
  static let path = ProgramRun.program("newsboat")

  /// `sqlite3` on `PATH`, or `nil` (the tests change newsboat's cache with it, as a person's newsboat would have).
  static let sqlite3 = ProgramRun.program("sqlite3")

  /// Runs `sql` on the database at `path` with the sqlite3 program.
  static func sqlite(_ path: String, _ sql: String) async throws -> ProgramRun {
    try await ProgramRun.run(try #require(sqlite3), [path, sql], environment: ["PATH": "/usr/bin:/bin"])
  }

  /// Runs newsboat with `directory`'s `config` (written when missing), `cache.db` and `urls`, standard input from
  /// `/dev/null`, at most 60 s.
  static func run(_ directory: TemporaryDirectory, _ arguments: [String]) async throws -> ProgramRun {
    let config = directory.path("config")
    if !FileManager.default.fileExists(atPath: config) {
      try "confirm-exit no\ncleanup-on-quit no\nshow-read-articles yes\n".write(
        toFile: config, atomically: true, encoding: .utf8)
    }
    return try await ProgramRun.run(
      try #require(path),
      ["-C", config, "-c", directory.path("cache.db"), "-u", directory.path("urls")] + arguments,
      environment: ["HOME": directory.path(""), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb"])
  }
}
