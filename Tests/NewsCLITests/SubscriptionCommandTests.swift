import Foundation
import OfflineNews
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// `news add`, `news remove`, `news sources --opml` and `news import FILE.opml`: sources written into the
/// configuration file, which keeps everything else byte for byte.
@Suite("news add, remove, sources --opml, import OPML")
struct SubscriptionCommandTests {
  /// A configuration of every kind of source and key, laid out by hand (odd spacing, a nested object, arrays).
  static let handWritten = """
    {
      "defaultSource": "sample",
      "sources": {
        "sample": { "file": "sample.json" },
        "top":    { "url": "https://newsapi.org/v2/top-headlines", "query": { "country": "us" },
                    "policy": "cache-first", "maxAge": 900 },
        "demo": {
          "parse": { "serverURL": "http://localhost:1337/parse", "applicationId": "app",
                     "classes": ["_User", { "name": "Article", "relations": ["tags"] }] },
          "mapping": "parse-server"
        }
      },
      "database": null,
      "timeoutSeconds": 2,
      "eviction": { "maxArticles": null, "maxAgeDays": 30 }
    }

    """

  static let feed = """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0"><channel><title>Loopback Feed</title><link>https://loop.example/</link>
    <item><title>One</title><link>https://loop.example/1</link></item></channel></rss>
    """

  static func page(_ links: String) -> String {
    "<!doctype html><html><head><title>Loop Site</title>\(links)</head><body><p>hi</p></body></html>"
  }

  static func xml(_ text: String) -> LoopbackHTTPServer.Behaviour {
    .respond(status: 200, headers: ["Content-Type": "application/rss+xml; charset=utf-8"], body: Data(text.utf8))
  }

  static func html(_ text: String) -> LoopbackHTTPServer.Behaviour {
    .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(text.utf8))
  }

  /// Writes the hand-written configuration (and its `sample.json`) and returns its path.
  static func writeConfig(_ cli: CLIHarness, _ text: String = handWritten) throws -> String {
    let path = cli.directory.path("news.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try Data(#"{"status":"ok","totalResults":0,"articles":[]}"#.utf8).write(
      to: URL(fileURLWithPath: cli.directory.path("sample.json")))
    return path
  }

  static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// The sources of a configuration file, as JSONSerialization reads them.
  static func sources(_ path: String) throws -> [String: [String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    return (object as? [String: Any])?["sources"] as? [String: [String: Any]] ?? [:]
  }

  @Test("a feed URL is added as a feed source; every other byte of the file stays, and the file still loads")
  func addFeed() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let server = try LoopbackHTTPServer(Self.xml(Self.feed))
    let url = server.url("/feed.xml").absoluteString
    let outcome = await cli.run("add", url, "--folder", "Tech/Loop", "--config", config)
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.out == "added \"Loopback Feed\": \(url) (folder Tech/Loop)\n")
    let text = try Self.read(config)
    let inserted =
      ",\n    \"Loopback Feed\": { \"feed\": \"\(url)\", \"homePage\": \"https://loop.example/\", "
      + "\"folder\": \"Tech/Loop\" }"
    #expect(text.replacingOccurrences(of: inserted, with: "") == Self.handWritten, "\(text)")
    #expect(server.requests.count == 1)
    let listed = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    #expect(listed.status == 0, "\(listed.err)")
    #expect(listed.out.contains("\"name\":\"Loopback Feed\""))
  }

  @Test("--name names it; a feed configured already is not added again; a --name taken is refused")
  func namesAndRepeats() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let server = try LoopbackHTTPServer(Self.xml(Self.feed))
    let url = server.url("/feed.xml").absoluteString
    #expect(await cli.run("add", url, "--name", "loop", "--config", config).status == 0)
    let again = await cli.run("add", url, "--name", "other", "--config", config)
    #expect(again.status == 0)
    #expect(again.err.contains("already a source: \"loop\""))
    #expect(try Self.sources(config).keys.sorted() == ["demo", "loop", "sample", "top"])
    let taken = await cli.run("add", server.url("/other.xml").absoluteString, "--name", "top", "--config", config)
    #expect(taken.status == 64)
    #expect(taken.err.contains("a source named \"top\" exists already"))
    let derived = await cli.run("add", server.url("/second.xml").absoluteString, "--config", config)
    #expect(derived.status == 0)
    #expect(try Self.sources(config)["Loopback Feed"]?["feed"] as? String == server.url("/second.xml").absoluteString)
    let third = await cli.run("add", server.url("/third.xml").absoluteString, "--config", config)
    #expect(third.out.hasPrefix("added \"Loopback Feed (2)\""), "\(third.out)")
  }

  @Test("a page announcing one feed: its relative href resolved; a link that answers no feed is not added")
  func pageWithOneFeed() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let before = try String(contentsOfFile: config, encoding: .utf8)
    let server = try LoopbackHTTPServer(
      Self.html(Self.page(#"<link rel="alternate" type="application/atom+xml" href="feeds/main">"#)))
    let pageURL = server.url("/blog/")
    // The "feed" is the page again (the server answers every path with it): a broken link, refused as `news add`
    // of that link itself is (before, it was added named after the page, a subscription that could never work).
    let outcome = await cli.run("add", pageURL.absoluteString, "--config", config, "--json")
    #expect(outcome.status == 69, "\(outcome.err)")
    #expect(outcome.err.contains(server.url("/blog/feeds/main").absoluteString), "resolved: \(outcome.err)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == before)
  }

  /// A feed of `title` (RSS 2.0, or Atom when `atom`).
  static func feed(titled title: String, atom: Bool = false) -> LoopbackHTTPServer.Behaviour {
    atom
      ? .respond(
        status: 200, headers: ["Content-Type": "application/atom+xml"],
        body: Data(
          """
          <?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>\(title)</title>
          <id>urn:loop</id><updated>2024-01-01T00:00:00Z</updated></feed>
          """.utf8))
      : xml(feed.replacingOccurrences(of: "Loopback Feed", with: title))
  }

  @Test("a page announcing several: listed and refused without a choice; --pick N adds one, --all adds all")
  func pageWithSeveralFeeds() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let links = """
      <link rel="alternate" type="application/rss+xml" title="Posts" href="/posts.rss">
      <link rel="alternate" type="application/atom+xml" title="Comments" href="/comments.atom">
      <link rel="alternate" type="application/feed+json" title="JSON" href="/feed.json">
      """
    let server = try LoopbackHTTPServer(Self.html(Self.page(links)))
    server.router = { request in
      switch request.target {
      case "/posts.rss": Self.feed(titled: "Loop Posts")
      case "/comments.atom": Self.feed(titled: "Loop Comments", atom: true)
      case "/feed.json": .json(#"{"version": "https://jsonfeed.org/version/1.1", "title": "Loop JSON", "items": []}"#)
      default: nil
      }
    }
    let page = server.url("/").absoluteString
    let before = try Self.read(config)

    let refused = await cli.run("add", page, "--config", config)
    #expect(refused.status == 64)
    #expect(refused.out.contains("announces 3 feeds"))
    #expect(refused.out.contains("  2  Comments  application/atom+xml  \(server.url("/comments.atom"))"))
    #expect(refused.err.contains("--pick N (1–3), or --all"))
    #expect(try Self.read(config) == before)
    #expect(server.requests.count == 1, "no feed is read before one is chosen")

    #expect(await cli.run("add", page, "--pick", "4", "--config", config).status == 64)
    // Issue 27: named after the feed's own title, not the page's ("Loop Site — Comments" before).
    let picked = await cli.run("add", page, "--pick", "2", "--config", config)
    #expect(picked.status == 0, "\(picked.err)")
    #expect(picked.out.hasPrefix("added \"Loop Comments\": \(server.url("/comments.atom"))"), "\(picked.out)")
    #expect(
      try Self.sources(config)["Loop Comments"]?["feed"] as? String == server.url("/comments.atom").absoluteString)

    let all = await cli.run("add", page, "--all", "--folder", "Loop", "--config", config, "--json")
    #expect(all.status == 0, "\(all.err)")
    let report = try all.json()
    #expect(
      (report["added"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Loop Posts", "Loop JSON"])
    #expect((report["existing"] as? [[String: Any]])?.first?["name"] as? String == "Loop Comments")
    #expect((report["announced"] as? [[String: Any]])?.count == 3)
    #expect(
      server.requests.filter { $0.target == "/comments.atom" }.count == 1, "a feed configured already is not read again"
    )
    #expect(await cli.run("add", page, "--all", "--name", "x", "--config", config).status == 64)
    #expect(await cli.run("add", page, "--all", "--pick", "1", "--config", config).status == 64)
  }

  @Test("a page's one feed is named after the feed's title; with --name the feed's title is kept as title")
  func discoveredFeedNamedByItsTitle() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let server = try LoopbackHTTPServer(
      Self.html(Self.page(#"<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss">"#)))
    server.router = { $0.target == "/rss" ? Self.feed(titled: "Loop Journal") : nil }
    let outcome = await cli.run("add", server.url("/").absoluteString, "--config", config, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let added = try #require((try outcome.json()["added"] as? [[String: Any]])?.first)
    #expect(added["name"] as? String == "Loop Journal", "not the page's title, \"Loop Site\"")
    #expect(added["title"] is NSNull)
    #expect(added["homePage"] as? String == server.url("/").absoluteString, "the page stays the home page")
    #expect(!outcome.err.contains("could not read"), "\(outcome.err)")

    let config2 = cli.directory.path("second.json")
    let named = await cli.run("add", server.url("/").absoluteString, "--name", "j", "--config", config2)
    #expect(named.status == 0, "\(named.err)")
    #expect(try Self.sources(config2)["j"]?["title"] as? String == "Loop Journal")

    // The announced feed answers 404: a broken link, not added, and the command fails as for the link itself.
    server.router = { $0.target == "/rss" ? .respond(status: 404, body: Data()) : nil }
    let config3 = cli.directory.path("third.json")
    let unread = await cli.run("add", server.url("/").absoluteString, "--config", config3)
    #expect(unread.status == 69, "\(unread.err)")
    #expect(unread.err.contains("not added: \(server.url("/rss"))") && unread.err.contains("HTTP 404"), "\(unread.err)")
    #expect(!FileManager.default.fileExists(atPath: config3))
  }

  @Test("equivalent spellings of a configured feed's URL are the same subscription: case, #fragment, empty path")
  func equivalentURLs() async throws {
    let cli = CLIHarness()
    let server = try LoopbackHTTPServer(Self.xml(Self.feed))
    let root = server.url("/").absoluteString
    let config = try Self.writeConfig(
      cli,
      """
      {"sources": {"loop": {"feed": "HTTP://127.0.0.1:\(server.port)/feed.xml"}, "root": {"feed": "\(root)"}}}
      """)
    for url in [server.url("/feed.xml").absoluteString + "#top", "http://127.0.0.1:\(server.port)"] {
      let outcome = await cli.run("add", url, "--config", config)
      #expect(outcome.status == 0, "\(outcome.err)")
      #expect(outcome.out.isEmpty, "\(url): \(outcome.out)")
      #expect(outcome.err.contains("already a source: "), "\(url): \(outcome.err)")
    }
    #expect(try Self.sources(config).keys.sorted() == ["loop", "root"])
  }

  @Test("--dry-run --json prints what would be added, writes nothing and fetches nothing else")
  func dryRun() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let server = try LoopbackHTTPServer(Self.xml(Self.feed))
    let url = server.url("/feed.xml").absoluteString
    let outcome = await cli.run("add", url, "--dry-run", "--json", "--config", config, "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    let report = try outcome.json()
    #expect(report["dryRun"] as? Bool == true)
    #expect(report["config"] as? String == config)
    let added = try #require((report["added"] as? [[String: Any]])?.first)
    #expect(added["name"] as? String == "Loopback Feed")
    #expect(added["feed"] as? String == url)
    #expect(added["file"] is NSNull)
    #expect(try Self.read(config) == Self.handWritten)
    #expect(server.requests.count == 1)
    #expect(!FileManager.default.fileExists(atPath: cli.database), "no database is opened")
  }

  @Test("what cannot be added: OPML (use import), JSON that is no feed, a page without feeds, 404, no server")
  func refusals() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let opml = await cli.run("add", Fixtures.own("feeds/subscriptions.opml").path, "--config", config)
    #expect(opml.status == 64)
    #expect(opml.err.contains("news import"))
    let server = try LoopbackHTTPServer(.json(#"{"status":"ok","articles":[]}"#))
    #expect(await cli.run("add", server.url("/x.json").absoluteString, "--config", config).status == 65)
    server.behaviour = Self.html(Self.page(""))
    let none = await cli.run("add", server.url("/").absoluteString, "--config", config)
    #expect(none.status == 65)
    #expect(none.err.contains("announces no feed"))
    server.behaviour = .respond(status: 404, body: Data("gone".utf8))
    let missing = await cli.run("add", server.url("/feed").absoluteString, "--config", config)
    #expect(missing.status == 69)
    #expect(missing.err.contains("HTTP 404"))
    let port = try LoopbackHTTPServer.refusedPort()
    #expect(await cli.run("add", "http://127.0.0.1:\(port)/feed", "--config", config, "--timeout", "2").status == 69)
    #expect(await cli.run("add", "ftp://example.org/feed", "--config", config).status == 64)
    #expect(await cli.run("add", cli.directory.path("no-such-file.xml"), "--config", config).status == 65)
    #expect(await cli.run("add", "--config", config).status == 64)
    #expect(await cli.run("add", server.url("/").absoluteString, "--folder", "a//b", "--config", config).status == 64)
    #expect(try Self.read(config) == Self.handWritten)
  }

  @Test("a saved page whose feed link is relative is not called feedless: news add asks for the page's web address")
  func savedPageWithRelativeFeedLink() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    // As DaringFireball.html in the real captures: `href="/feeds/main"`, which only the page's web address resolves.
    let file = cli.directory.path("home.html")
    try Data(Self.page(#"<link rel="alternate" type="application/atom+xml" href="/feeds/main">"#).utf8)
      .write(to: URL(fileURLWithPath: file))
    let outcome = await cli.run("add", file, "--config", config)
    #expect(outcome.status == 65)
    #expect(!outcome.err.contains("announces no feed"), "\(outcome.err)")
    #expect(
      outcome.err.contains("\(file) announces its feed by a link relative to the page's web address"), "\(outcome.err)")
    #expect(outcome.err.contains("hint: 'news add URL' with the web address the page was saved from"), "\(outcome.err)")
    #expect(try Self.read(config) == Self.handWritten)
  }

  @Test("a redirect to another origin is followed; a permanent one moves the source, a temporary one does not")
  func redirects() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let target = try LoopbackHTTPServer(Self.xml(Self.feed))
    let moved = target.url("/new.xml").absoluteString
    let origin = try LoopbackHTTPServer(.respond(status: 301, headers: ["Location": moved], body: Data()))
    let outcome = await cli.run("add", origin.url("/old.xml").absoluteString, "--config", config, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(try Self.sources(config)["Loopback Feed"]?["feed"] as? String == moved)
    #expect(target.requests.count == 1)

    origin.behaviour = .respond(
      status: 302, headers: ["Location": target.url("/other.xml").absoluteString], body: Data())
    let temporary = await cli.run("add", origin.url("/temp.xml").absoluteString, "--name", "t", "--config", config)
    #expect(temporary.status == 0, "\(temporary.err)")
    #expect(try Self.sources(config)["t"]?["feed"] as? String == origin.url("/temp.xml").absoluteString)
  }

  @Test("a feed file becomes a file source; a missing configuration file is created, at --config or the XDG place")
  func fileAndNewConfiguration() async throws {
    let cli = CLIHarness()
    let feedFile = cli.directory.path("local.rss")
    try Data(Self.feed.utf8).write(to: URL(fileURLWithPath: feedFile))
    let fresh = cli.directory.path("fresh/news.json")
    let outcome = await cli.run("add", "local.rss", "--config", fresh)
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(try Self.sources(fresh)["Loopback Feed"]?["file"] as? String == feedFile)
    #expect(await cli.run("sources", "--config", fresh, "--db", cli.database).status == 0)

    let xdg = await cli.run("add", "local.rss", "--name", "mine")
    #expect(xdg.status == 0, "\(xdg.err)")
    #expect(try Self.sources(cli.directory.path("home/.config/news/news.json"))["mine"] != nil)
  }

  @Test("remove: the entry is cut out, the rest stays; the default source and unknown names are refused")
  func remove() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli)
    let outcome = await cli.run("remove", "top", "--config", config)
    #expect(outcome.status == 0, "\(outcome.err)")
    // The member, its comma and the white space up to the next member's key are gone; nothing else.
    let top = try #require(Self.handWritten.range(of: "\"top\":"))
    let demo = try #require(Self.handWritten.range(of: "\"demo\":"))
    var expected = Self.handWritten
    expected.removeSubrange(top.lowerBound..<demo.lowerBound)
    #expect(try Self.read(config) == expected)
    #expect(await cli.run("remove", "demo", "--config", config).status == 0)
    #expect(try Self.sources(config).keys.sorted() == ["sample"])
    let refused = await cli.run("remove", "sample", "--config", config)
    #expect(refused.status == 64)
    #expect(refused.err.contains("default source"))
    #expect(await cli.run("remove", "nope", "--config", config).status == 66)
    #expect(await cli.run("remove", "--config", config).status == 64)
  }

  @Test("remove a feed by its URL: the one whose feed it is, though its name shows the URL masked or a title")
  func removeByFeedURL() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(
      cli,
      """
      {"sources": {
        "http://user:***@127.0.0.1:9/auth/notitle.rss": {"feed": "http://user:s3cret@127.0.0.1:9/auth/notitle.rss"},
        "Daring Fireball": {"feed": "https://daringfireball.net/feeds/main"},
        "keep": {"feed": "https://a.example/f"}}}
      """)
    let masked = await cli.run("remove", "http://user:s3cret@127.0.0.1:9/auth/notitle.rss", "--config", config)
    #expect(masked.status == 0, "\(masked.err)")
    let titled = await cli.run("remove", "HTTPS://daringfireball.net:443/feeds/main#top", "--config", config)
    #expect(titled.status == 0, "\(titled.err)")
    #expect(try Self.sources(config).keys.sorted() == ["keep"])
    #expect(await cli.run("remove", "https://b.example/f", "--config", config).status == 66)
  }

  @Test("remove the last source of an object: {} is left, and the file still loads")
  func removeLast() async throws {
    let cli = CLIHarness()
    let config = try Self.writeConfig(
      cli, "{\"sources\": {\"only\": {\"feed\": \"https://a.example/f\"}}, \"timeoutSeconds\": 3}")
    #expect(await cli.run("remove", "only", "--config", config).status == 0)
    #expect(try Self.read(config) == "{\"sources\": {}, \"timeoutSeconds\": 3}")
    let add = await cli.run("add", Fixtures.own("feeds/encodings/koi8-r.xml").path, "--name", "k", "--config", config)
    #expect(add.status == 0, "\(add.err)")
    #expect(try Self.sources(config)["k"] != nil)
    #expect(try Self.read(config).hasSuffix("}, \"timeoutSeconds\": 3}"))
  }

  @Test("import FILE.opml adds its feeds with their folders; sources --opml prints them; the round trip is exact")
  func opmlRoundTrip() async throws {
    let cli = CLIHarness()
    let first = cli.directory.path("first.json")
    let imported = await cli.run("import", Fixtures.own("feeds/subscriptions.opml").path, "--config", first, "--json")
    #expect(imported.status == 0, "\(imported.err)")
    let sources = try Self.sources(first)
    #expect(sources.keys.sorted() == ["SQLite News", "Swift.org", "Top Feed", "Top Feed (2)"])
    #expect(sources["SQLite News"]?["folder"] as? String == "Tech/Databases")
    #expect(sources["SQLite News"]?["homePage"] as? String == "https://sqlite.example/")
    #expect(sources["Top Feed (2)"]?["folder"] as? String == "News & Politics")
    #expect(sources["Top Feed"]?["folder"] == nil)

    let exported = await cli.run("sources", "--opml", "--config", first)
    #expect(exported.status == 0, "\(exported.err)")
    #expect(exported.out.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))
    let file = cli.directory.path("exported.opml")
    try Data(exported.out.utf8).write(to: URL(fileURLWithPath: file))
    let second = cli.directory.path("second.json")
    #expect(await cli.run("import", file, "--config", second).status == 0)
    func summary(_ path: String) throws -> [String: [String?]] {
      try Self.sources(path).mapValues { [$0["feed"] as? String, $0["folder"] as? String, $0["homePage"] as? String] }
    }
    #expect(try summary(second) == summary(first))

    let again = await cli.run("import", file, "--config", second, "--json")
    let report = try again.json()
    #expect((report["added"] as? [Any])?.isEmpty == true)
    #expect((report["existing"] as? [Any])?.count == 4)
  }

  @Test("a configuration's \"folders\" (kept by news serve for an empty category) is read; a wrong value is named")
  func keptFoldersKey() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try #"{"sources": {"A": {"feed": "https://a.example.org/rss"}}, "folders": ["Later/Podcasts"]}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    let listed = await cli.run("sources", "--config", config)
    #expect(listed.status == 0, "\(listed.err)")
    try #"{"sources": {}, "folders": "Later"}"#.write(toFile: config, atomically: true, encoding: .utf8)
    let refused = await cli.run("sources", "--config", config)
    #expect(refused.status == 78)
    #expect(refused.err.contains("\"folders\""), "\(refused.err)")
  }

  @Test(
    "sources --opml writes every subscription: the configuration file's and those an older news serve kept in the store"
  )
  func opmlOfEverySubscription() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let database = cli.directory.path("news.sqlite")
    try #"{"sources": {"Listed": {"feed": "https://listed.example.org/feed.xml", "folder": "Blogs"}}}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    do {
      // What an older `news serve` did with a feed subscribed through an API: kept it in the store's list.
      let repository = NewsRepository(
        storage: try StorageContext(path: database), network: FileNewsNetwork(decoder: ArticleDecoder()))
      try await repository.subscribe(
        NewsSource(name: "Kept", url: try #require(URL(string: "https://kept.example.org/rss")), folder: ["Old"]))
      // A store subscription named as a listed one (any case) is the listed one: written once.
      try await repository.subscribe(
        NewsSource(name: "listed", url: try #require(URL(string: "https://other.example.org/rss"))))
    }
    let exported = await cli.run("sources", "--opml", "--config", config, "--db", database)
    #expect(exported.status == 0, "\(exported.err)")
    #expect(exported.out.contains(#"xmlUrl="https://listed.example.org/feed.xml""#), "\(exported.out)")
    #expect(exported.out.contains(#"xmlUrl="https://kept.example.org/rss""#), "\(exported.out)")
    #expect(!exported.out.contains("other.example.org"), "\(exported.out)")
    #expect(exported.out.contains(#"text="Old""#) && exported.out.contains(#"text="Blogs""#), "\(exported.out)")
  }

  @Test(
    "Subs.opml: import, export, import into a fresh configuration: the same sources and folders",
    .enabled(if: Fixtures.hasSharedReal))
  func subsRoundTrip() async throws {
    let cli = CLIHarness()
    let subs = Fixtures.sharedRealDirectory.appendingPathComponent("feeds/Subs.opml").path
    let first = cli.directory.path("a.json")
    #expect(await cli.run("import", subs, "--config", first).status == 0)
    let exported = await cli.run("sources", "--opml", "--config", first)
    let file = cli.directory.path("a.opml")
    try Data(exported.out.utf8).write(to: URL(fileURLWithPath: file))
    let second = cli.directory.path("b.json")
    #expect(await cli.run("import", file, "--config", second).status == 0)
    let a = try Self.sources(first)
    let b = try Self.sources(second)
    #expect(a.count > 150)
    #expect(Set(a.keys) == Set(b.keys))
    for (name, fields) in a {
      #expect(fields["feed"] as? String == b[name]?["feed"] as? String, "\(name)")
      #expect(fields["folder"] as? String == b[name]?["folder"] as? String, "\(name)")
    }
    // The independent count: xmlUrl attributes in the file, each feed URL once — an empty path and `/` being one
    // (`http://feed.katiefloyd.com` and `http://feed.katiefloyd.com/` are both in the file).
    let text = try String(contentsOfFile: subs, encoding: .utf8)
    let urls = Set(
      text.components(separatedBy: "xmlUrl=\"").dropFirst().map { item in
        let url = String(item.prefix { $0 != "\"" })
        return url.split(separator: "/", omittingEmptySubsequences: false).count == 3 ? url + "/" : url
      })
    #expect(a.count == urls.count)
  }

  @Test("the new source keys are validated strictly; unknown keys still name themselves")
  func validation() async throws {
    let cli = CLIHarness()
    let good = try Self.writeConfig(
      cli,
      """
      {"sources": {"f": {"feed": "https://a.example/f", "folder": "A/B", "title": "T", "homePage": "https://a.example/"},
                   "n": {"url": "https://newsapi.org/v2/everything", "folder": "News"}}}
      """)
    #expect(await cli.run("sources", "--config", good, "--db", cli.database).status == 0)
    for (fields, message) in [
      (#""folder": "A//B""#, "sources.f.folder"), (#""homePage": "ftp://x""#, "sources.f.homePage"),
      (#""title": 3"#, "sources.f.title"), (#""colour": "red""#, "unknown key \"colour\""),
    ] {
      let bad = try Self.writeConfig(cli, "{\"sources\": {\"f\": {\"feed\": \"https://a.example/f\", \(fields)}}}")
      let outcome = await cli.run("sources", "--config", bad, "--db", cli.database)
      #expect(outcome.status == 78, "\(fields)")
      #expect(outcome.err.contains(message), "\(outcome.err)")
    }
  }

  @Test("news import of a subscription list makes the empty store too: list, sources and read find it (tester MED)")
  func listImportMakesTheStore() async throws {
    let cli = CLIHarness()
    let urls = cli.directory.path("urls")
    try "https://feeds.example.org/one.xml\nhttps://feeds.example.org/two.xml \"~Two\"\n".write(
      toFile: urls, atomically: true, encoding: .utf8)
    let config = cli.directory.path("news.json")
    #expect(!FileManager.default.fileExists(atPath: cli.database))
    let imported = await cli.run("import", urls, "--config", config, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(FileManager.default.fileExists(atPath: cli.database))
    let listed = await cli.run("list", "--config", config, "--db", cli.database)
    #expect(listed.status == 0, "was 66, no database: \(listed.err)")
    #expect(listed.err.contains("nothing cached yet"), "\(listed.err)")
    let sources = try await cli.run("sources", "--config", config, "--db", cli.database, "--json").json()
    #expect((sources["sources"] as? [[String: Any]])?.count == 2)
  }
}
