import Foundation
import OfflineNews
import TestSupport
import Testing

/// Reading state in bulk (issue 27, point 4): `news mark-read --source`, `--folder`, `--all`, `--before`, unread
/// counts per source and folder in `news sources`, `list`/`search --folder`, source names in any case, and
/// `fetch --all`'s exit status and images.
@Suite("Bulk reading state, folders, source names in any case")
struct BulkReadingStateTests {
  /// An RSS feed of `count` items named `name-1…`, published on 2024-01-01, -02, … at 10:00 UTC.
  static func feed(_ name: String, count: Int, server: LoopbackHTTPServer) -> Data {
    let items = (1...count).map { index in
      """
      <item><title>\(name) story \(index)</title><link>\(server.url("/\(name)/\(index).html").absoluteString)</link>
      <guid>\(name)-\(index)</guid><pubDate>Mon, 0\(index) Jan 2024 10:00:00 GMT</pubDate>
      <description>Teaser \(name) \(index) marmalade.</description></item>
      """
    }
    return Data(
      "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(name)</title><link>\(server.url("/").absoluteString)</link>\(items.joined())</channel></rss>"
        .utf8)
  }

  /// Three feeds: `ATP` (3 items) in `Tech/Podcasts`, `Swift` (2) in `Tech`, `Cooking` (2) in `Food`; fetched.
  static func fetched(_ cli: CLIHarness) async throws -> (server: LoopbackHTTPServer, config: String) {
    try await fetched(
      cli,
      [
        ("ATP", "/atp.xml", "Tech/Podcasts", { feed("atp", count: 3, server: $0) }),
        ("Swift", "/swift.xml", "Tech", { feed("swift", count: 2, server: $0) }),
        ("Cooking", "/cooking.xml", "Food", { feed("cooking", count: 2, server: $0) }),
      ])
  }

  /// Feed sources, each served at its path on a loopback server and configured under its name in its folder; fetched.
  static func fetched(
    _ cli: CLIHarness, _ sources: [(name: String, path: String, folder: String, body: (LoopbackHTTPServer) -> Data)]
  ) async throws -> (server: LoopbackHTTPServer, config: String) {
    let server = try LoopbackHTTPServer(.closeImmediately)
    let feeds = Dictionary(uniqueKeysWithValues: sources.map { ($0.path, $0.body(server)) })
    server.router = { request in
      guard let body = feeds[request.target] else { return .respond(status: 404, body: Data()) }
      return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: body)
    }
    let config = cli.directory.path("news.json")
    let entries = sources.map { source in
      "\"\(source.name)\": {\"feed\": \"\(server.url(source.path).absoluteString)\", \"folder\": \"\(source.folder)\"}"
    }
    try Data("{\"sources\": {\(entries.joined(separator: ", "))}, \"timeoutSeconds\": 5}".utf8)
      .write(to: URL(fileURLWithPath: config))
    let fetched = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    return (server, config)
  }

  /// The titles `news list` selects with `extra` options.
  static func titles(_ cli: CLIHarness, _ config: String, _ extra: String...) async throws -> Set<String> {
    let listed = await cli.run(["list", "--config", config, "--db", cli.database, "--json"] + extra)
    #expect(listed.status == 0, "\(listed.err)")
    return Set(articles(try listed.json()).compactMap { $0["title"] as? String })
  }

  @Test("folders that differ only in case are two; a subscription is not another feed of its publisher's name")
  func caseFoldersAndPublishers() async throws {
    let cli = CLIHarness()
    // Two feeds titled "Daring Fireball" (its RSS and its Atom, as a tester subscribed them): one the subscription
    // "Daring Fireball" in the OPML folder "Apple", one "df2" in the newsboat tag "apple".
    func titled(_ title: String, _ name: String, count: Int) -> (LoopbackHTTPServer) -> Data {
      { server in
        let feed = String(decoding: Self.feed(name, count: count, server: server), as: UTF8.self)
        let channel = feed.replacingOccurrences(
          of: "<title>\(name)</title><link>", with: "<title>\(title)</title><link>")
        return Data(channel.utf8)
      }
    }
    let (server, config) = try await Self.fetched(
      cli,
      [
        ("Daring Fireball", "/df.rss", "Apple", titled("Daring Fireball", "df", count: 3)),
        ("allthis", "/this.rss", "Apple", titled("All This", "this", count: 2)),
        ("df2", "/df2.rss", "apple", titled("Daring Fireball", "dfatom", count: 2)),
      ])
    defer { server.stop() }
    let run = { (arguments: [String]) in
      await cli.run(arguments + ["--config", config, "--db", cli.database])
    }
    let df: Set = ["df story 1", "df story 2", "df story 3"]
    let dfAtom: Set = ["dfatom story 1", "dfatom story 2"]
    #expect(try await Self.titles(cli, config, "--source", "Daring Fireball") == df)
    #expect(try await Self.titles(cli, config, "--source", "daring fireball") == df)
    #expect(try await Self.titles(cli, config, "--folder", "apple") == dfAtom)
    #expect(try await Self.titles(cli, config, "--folder", "Apple") == df.union(["this story 1", "this story 2"]))
    // A publisher's name that no subscription bears still selects by publisher.
    #expect(try await Self.titles(cli, config, "--source", "all this") == ["this story 1", "this story 2"])

    #expect(await run(["mark-read", "--folder", "apple"]).out == "marked 2 articles read\n")
    #expect(try await Self.titles(cli, config, "--unread") == df.union(["this story 1", "this story 2"]))
    // In a case that names neither folder alone: a usage error naming both.
    let ambiguous = await run(["mark-read", "--folder", "APPLE"])
    #expect(ambiguous.status == 64)
    #expect(ambiguous.err.contains("Apple") && ambiguous.err.contains("apple"), "\(ambiguous.err)")
    #expect(await run(["mark-read", "--source", "Daring Fireball"]).out == "marked 3 articles read\n")
    #expect(try await Self.titles(cli, config, "--unread") == ["this story 1", "this story 2"])
    let sources = await run(["sources", "--json"])
    #expect(sources.status == 0, "\(sources.err)")
  }

  @Test("mark-read --source (any case), --folder (with the folders below), --before, --all, --undo: counts printed")
  func bulkMarkRead() async throws {
    let cli = CLIHarness()
    let (server, config) = try await Self.fetched(cli)
    defer { server.stop() }
    let run = { (arguments: [String]) in
      await cli.run(["mark-read"] + arguments + ["--config", config, "--db", cli.database])
    }

    let source = await run(["--source", "atp"])
    #expect(source.status == 0, "\(source.err)")
    #expect(source.out == "marked 3 articles read\n", "\(source.out)")
    #expect(try await Self.titles(cli, config, "--unread").allSatisfy { !$0.hasPrefix("atp") })
    // Again: nothing left to change.
    #expect(try await run(["--source", "ATP", "--json"]).json()["changed"] as? Int == 0)

    // Tech holds Swift, and ATP through Tech/Podcasts.
    let folder = await run(["--folder", "tech", "--undo", "--json"])
    #expect(folder.status == 0, "\(folder.err)")
    let document = try folder.json()
    #expect(document["changed"] as? Int == 3 && document["isRead"] as? Bool == false, "\(folder.out)")
    #expect(await run(["--folder", "Tech"]).out == "marked 5 articles read\n")
    #expect(try await Self.titles(cli, config, "--unread") == ["cooking story 1", "cooking story 2"])

    // Before a date: every source, or only one's.
    #expect(await run(["--all", "--undo"]).out == "marked 5 articles unread\n")
    #expect(await run(["--before", "2024-01-02"]).out == "marked 3 articles read\n")
    #expect(
      try await Self.titles(cli, config, "--unread")
        == ["atp story 2", "atp story 3", "swift story 2", "cooking story 2"])
    #expect(await run(["--source", "Cooking", "--before", "2024-01-03", "--undo"]).out == "marked 1 article unread\n")
    #expect(await run(["--all"]).out == "marked 5 articles read\n")
    #expect(try await Self.titles(cli, config, "--unread").isEmpty)

    // Usage errors: a folder no source is in (the folders listed), an article and a bulk option, two selections.
    let unknown = await run(["--folder", "Sport"])
    #expect(unknown.status == 64)
    #expect(unknown.err.contains("Food, Tech, Tech/Podcasts"), "\(unknown.err)")
    #expect(await run(["https://example.com/a", "--all"]).status == 64)
    #expect(await run(["--all", "--source", "ATP"]).status == 64)
    #expect(await run(["--folder", "Tech", "--source", "ATP"]).status == 64)
    #expect(await run(["--before", "yesterday"]).status == 64)
  }

  @Test("sources counts one set in CACHED and UNREAD: what list --source lists, past the feed's window too")
  func sourceColumnsCountOneSet() async throws {
    func rss(_ numbers: [Int]) -> Data {
      let items = numbers.map {
        "<item><title>story \($0)</title><link>https://w.example/\($0)</link>"
          + "<pubDate>Mon, 0\($0) Jan 2024 00:00:00 GMT</pubDate></item>"
      }
      return Data(
        (#"<?xml version="1.0"?><rss version="2.0"><channel><title>W</title><link>https://w.example/</link>"#
          + items.joined() + "</channel></rss>").utf8)
    }
    let server = try LoopbackHTTPServer(.respond(status: 200, body: rss([1, 2])))
    defer { server.stop() }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {"window": {"feed": "\#(server.url("/feed").absoluteString)"}}}"#.utf8)
      .write(to: URL(fileURLWithPath: config))
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)
    // The feed's window moves on: its last fetch holds one article, the source has three.
    server.behaviour = .respond(status: 200, body: rss([3]))
    #expect(await cli.run("fetch", "--all", "--config", config, "--db", cli.database).status == 0)
    let listed = try await cli.run("list", "--source", "window", "--config", config, "--db", cli.database, "--json")
      .json()
    #expect((listed["articles"] as? [Any])?.count == 3)
    let sources = try await cli.run("sources", "--config", config, "--db", cli.database, "--json").json()
    let entry = try #require((sources["sources"] as? [[String: Any]])?.first)
    #expect(entry["articles"] as? Int == 3 && entry["unread"] as? Int == 3, "\(entry)")
    let human = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(human.out.contains("3 articles"), "\(human.out)")
  }

  @Test("sources shows each source's unread count and folder, and the folders' counts; list/search --folder")
  func countsAndFolderFilters() async throws {
    let cli = CLIHarness()
    let (server, config) = try await Self.fetched(cli)
    defer { server.stop() }
    #expect(await cli.run("mark-read", "--source", "Swift", "--config", config, "--db", cli.database).status == 0)

    let json = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    #expect(json.status == 0, "\(json.err)")
    let document = try json.json()
    let sources = try #require(document["sources"] as? [[String: Any]])
    let unread = Dictionary(
      uniqueKeysWithValues: sources.compactMap { entry in
        (entry["name"] as? String).map { ($0, entry["unread"] as? Int ?? -1) }
      })
    #expect(unread == ["ATP": 3, "Swift": 0, "Cooking": 2], "\(json.out)")
    #expect(sources.first { $0["name"] as? String == "ATP" }?["folder"] as? String == "Tech/Podcasts")
    let folders = try #require(document["folders"] as? [[String: Any]])
    let folderCounts = folders.compactMap { entry -> String? in
      guard let name = entry["folder"] as? String, let total = entry["articles"] as? Int,
        let unread = entry["unread"] as? Int
      else { return nil }
      return "\(name) \(total) \(unread)"
    }
    #expect(folderCounts == ["Food 2 2", "Tech 5 3", "Tech/Podcasts 3 3"], "\(json.out)")

    let human = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(human.status == 0, "\(human.err)")
    #expect(human.out.contains("UNREAD") && human.out.contains("FOLDER"), "\(human.out)")
    #expect(human.out.contains("folders:\n  Food           2 articles, 2 unread\n"), "\(human.out)")
    #expect(human.out.contains("\n  Tech           5 articles, 3 unread\n"), "\(human.out)")
    #expect(human.out.contains("\n  Tech/Podcasts  3 articles, 3 unread\n"), "\(human.out)")

    #expect(
      try await Self.titles(cli, config, "--folder", "Tech", "--unread") == [
        "atp story 1", "atp story 2", "atp story 3",
      ]
    )
    #expect(try await Self.titles(cli, config, "--folder", "food") == ["cooking story 1", "cooking story 2"])
    #expect(await cli.run("list", "--folder", "Sport", "--config", config, "--db", cli.database).status == 64)

    let found = await cli.run(
      "search", "marmalade", "--folder", "Tech/Podcasts", "--config", config, "--db", cli.database, "--json")
    #expect(found.status == 0, "\(found.err)")
    let hits = (try found.json()["results"] as? [[String: Any]]) ?? []
    #expect(Set(hits.compactMap { $0["title"] as? String }) == ["atp story 1", "atp story 2", "atp story 3"])
  }

  @Test("source names match without regard to case; an exact match wins over one differing by case")
  func sourceNamesInAnyCase() async throws {
    let cli = CLIHarness()
    let (server, config) = try await Self.fetched(cli)
    defer { server.stop() }
    #expect(try await Self.titles(cli, config, "--source", "atp") == ["atp story 1", "atp story 2", "atp story 3"])
    let fetched = await cli.run("fetch", "--source", "sWiFt", "--config", config, "--db", cli.database, "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(articles(try fetched.json()).count == 2)
    let found = await cli.run("search", "marmalade", "--source", "cooking", "--config", config, "--db", cli.database)
    #expect(found.status == 0 && found.out.contains("cooking story 1"), "\(found.out) \(found.err)")

    // Two names that differ only by case: each exact one wins.
    let twoConfig = cli.directory.path("two.json")
    let url = { (path: String) in server.url(path).absoluteString }
    try Data(
      #"{"sources": {"atp": {"feed": "\#(url("/atp.xml"))"}, "ATP": {"feed": "\#(url("/swift.xml"))"}}}"#.utf8
    ).write(to: URL(fileURLWithPath: twoConfig))
    let other = cli.directory.path("two.sqlite")
    let lower = await cli.run("fetch", "--source", "atp", "--config", twoConfig, "--db", other, "--json")
    #expect(articles(try lower.json()).count == 3, "\(lower.err)")
    let upper = await cli.run("fetch", "--source", "ATP", "--config", twoConfig, "--db", other, "--json")
    #expect(articles(try upper.json()).count == 2, "\(upper.err)")
    // Neither exact: not a guess.
    #expect(await cli.run("fetch", "--source", "Atp", "--config", twoConfig, "--db", other).status == 64)

    // remove in any case.
    let removed = await cli.run("remove", "cooking", "--config", config)
    #expect(removed.status == 0, "\(removed.err)")
    #expect(removed.out.contains("removed \"Cooking\""), "\(removed.out)")
  }

  @Test("a name that is nothing: the hint shows 8 names, the nearest first, and how many in all (300 sources)")
  func unknownNameAmongMany() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("many.json")
    let entries = (1...300).map { "\"Feed \($0)\": {\"feed\": \"https://h\($0).example/feed\"}" }
    try Data("{\"sources\": {\(entries.joined(separator: ",\n"))}}".utf8).write(to: URL(fileURLWithPath: config))
    let sample = URL(fileURLWithPath: cli.bundledConfig).deletingLastPathComponent().appendingPathComponent(
      "sample/top-headlines.json")
    let imported = await cli.run("import", sample.path, "--config", config, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    for command in [["list", "--source", "Fede 17"], ["fetch", "--source", "Fede 17"], ["remove", "Fede 17"]] {
      let outcome = await cli.run(command + ["--config", config, "--db", cli.database])
      #expect(outcome.status != 0, "\(command)")
      let hint = try #require(outcome.err.split(separator: "\n").first { $0.contains("300 in all") }, "\(outcome.err)")
      #expect(hint.contains(": Feed 17, "), "\(command): the nearest first: \(hint)")
      #expect(hint.components(separatedBy: "Feed ").count - 1 == 8, "\(command): \(hint)")
      #expect(hint.count < 300, "\(command): one short line: \(hint)")
      // The count, then where to see them all, said once.
      let ending =
        command[0] == "list"
        ? ", … (300 in all); 'news sources' lists them and the files imported"
        : ", … (300 in all; 'news sources' lists them)"
      #expect(hint.hasSuffix(ending), "\(command): \(hint)")
    }
  }

  @Test("--source that names nothing is 64 for list, search and mark-read (as --folder); an imported file's name works")
  func unknownSourceAndImportedFileName() async throws {
    let cli = CLIHarness()
    let (server, config) = try await Self.fetched(cli)
    defer { server.stop() }
    let common = ["--config", config, "--db", cli.database]
    for command in [["list"], ["search", "marmalade"], ["mark-read"]] {
      let typo = await cli.run(command + ["--source", "Cookng"] + common)
      #expect(typo.status == 64, "\(command): \(typo.out) \(typo.err)")
      #expect(typo.err.contains("no source, imported file or publisher is named \"Cookng\""), "\(typo.err)")
      #expect(typo.err.contains("sources: Cooking, ATP, Swift"), "\(typo.err)")
    }
    #expect(try await Self.titles(cli, config, "--unread").count == 7, "a typo marked nothing")
    // A publisher's name (the feed's title) still selects.
    #expect(try await Self.titles(cli, config, "--source", "COOKING") == ["cooking story 1", "cooking story 2"])

    // An imported file, named by its file name from another folder, in any case.
    let folder = cli.directory.path("feeds")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let file = folder + "/Bakery.rss"
    try Self.feed("bakery", count: 2, server: server).write(to: URL(fileURLWithPath: file))
    let imported = await cli.run(["import", file] + common)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(try await Self.titles(cli, config, "--source", "bakery.RSS") == ["bakery story 1", "bakery story 2"])
    let marked = await cli.run(["mark-read", "--source", "Bakery.rss"] + common)
    #expect(marked.out == "marked 2 articles read\n", "\(marked.out) \(marked.err)")
    // A file imported through a mapping (its articles saved under its path, not its `file:` URL), by its name too.
    let digest = folder + "/Digest.json"
    try Data(
      """
      {"status": "ok", "articles": [
        {"source": {"id": null, "name": "Digest"}, "title": "digest one", "url": "https://digest.example/1",
         "publishedAt": "2024-01-01T08:00:00Z"},
        {"source": {"id": null, "name": "Digest"}, "title": "digest two", "url": "https://digest.example/2",
         "publishedAt": "2024-01-02T08:00:00Z"}]}
      """.utf8
    ).write(to: URL(fileURLWithPath: digest))
    let mapped = await cli.run(["import", digest, "--mapping", "newsapi"] + common)
    #expect(mapped.status == 0, "\(mapped.err)")
    #expect(try await Self.titles(cli, config, "--source", "digest.json") == ["digest one", "digest two"])
    // Imported again without the mapping: still one file of that name.
    #expect(await cli.run(["import", digest] + common).status == 0)
    #expect(try await Self.titles(cli, config, "--source", "Digest.json") == ["digest one", "digest two"])
    // Two imported files of one name: the paths are asked for.
    try FileManager.default.createDirectory(atPath: folder + "/old", withIntermediateDirectories: true)
    try Self.feed("stale", count: 1, server: server).write(to: URL(fileURLWithPath: folder + "/old/Bakery.rss"))
    #expect(await cli.run(["import", folder + "/old/Bakery.rss"] + common).status == 0)
    let ambiguous = await cli.run(["list", "--source", "Bakery.rss"] + common)
    #expect(ambiguous.status == 64 && ambiguous.err.contains("old/Bakery.rss"), "\(ambiguous.err)")
  }

  @Test("fetch --all: 0 when a dead source has a cache to serve, 75 when one has none, 69 when none served")
  func fetchAllExitStatus() async throws {
    let cli = CLIHarness()
    let (server, config) = try await Self.fetched(cli)
    let gone = "http://127.0.0.1:\(try LoopbackHTTPServer.refusedPort())/feed.xml"
    server.stop()
    // Every source failed, but every one has its cache: 0.
    let cached = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    #expect(cached.status == 0, "\(cached.err)")
    // One more, dead and never cached, beside those: 75 (EX_TEMPFAIL), and --json says which.
    let text = try String(contentsOfFile: config, encoding: .utf8)
      .replacingOccurrences(of: #""ATP": {"#, with: #""Dead": {"feed": "\#(gone)"}, "ATP": {"#)
    try Data(text.utf8).write(to: URL(fileURLWithPath: config))
    let partly = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    #expect(partly.status == 75, "\(partly.err)")
    let sources = (try partly.json()["sources"] as? [[String: Any]]) ?? []
    let failed = sources.filter { $0["status"] as? String == "failed" && $0["cached"] as? Int == 0 }
    #expect(failed.compactMap { $0["source"] as? String } == ["Dead"], "\(partly.out)")
    // Nothing served at all (an empty store): 69.
    let empty = await cli.run("fetch", "--all", "--config", config, "--db", cli.directory.path("empty.sqlite"))
    #expect(empty.status == 69, "\(empty.err)")
  }

  @Test("fetch --all --full-text keeps the images, as fetch --source --full-text does")
  func fetchAllFullTextImages() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    defer { server.stop() }
    let paragraph = String(
      repeating: "The harbour crane lifted the last container of the season, and the town watched it go. ", count: 8)
    let page = Data(
      """
      <!DOCTYPE html><html><head><title>Crane</title></head><body><div id="main"><article><h1>Crane</h1>
      <p>\(paragraph)</p><p><img src="/pictures/crane.png" alt="the crane" width="6" height="6"></p>
      <p>\(paragraph)</p><p>\(paragraph)</p></article></div></body></html>
      """.utf8)
    let image = TestImages.png(width: 6, seed: 9)
    let lead = TestImages.gif(seed: 4)
    let feed = Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>Loop</title><link>\(server.url("/").absoluteString)</link>
      <item><title>Crane</title><link>\(server.url("/crane.html").absoluteString)</link><guid>crane</guid>
      <pubDate>Wed, 25 Mar 2015 10:00:00 GMT</pubDate><description>A teaser.</description>
      <enclosure url="\(server.url("/lead.gif").absoluteString)" type="image/gif" length="40"/></item>
      </channel></rss>
      """.utf8)
    server.router = { request in
      switch request.target {
      case "/feed.xml": .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: feed)
      case "/crane.html": .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
      case "/pictures/crane.png": .respond(status: 200, headers: ["Content-Type": "image/png"], body: image)
      case "/lead.gif": .respond(status: 200, headers: ["Content-Type": "image/gif"], body: lead)
      default: .respond(status: 404, body: Data())
      }
    }
    var files: [String: Set<Data>] = [:]
    for all in [false, true] {
      let cli = CLIHarness()
      let config = cli.directory.path("news.json")
      try Data(
        #"{"sources": {"loop": {"feed": "\#(server.url("/feed.xml").absoluteString)"}}, "timeoutSeconds": 5}"#.utf8
      ).write(to: URL(fileURLWithPath: config))
      let fetched = await cli.run(
        ["fetch"] + (all ? ["--all"] : ["--source", "loop"]) + [
          "--full-text", "--config", config, "--db", cli.database,
        ])
      #expect(fetched.status == 0, "\(fetched.err)")
      let folder = cli.database + "-images"
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      files[all ? "all" : "source"] = Set(
        names.compactMap { try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) })
    }
    #expect(files["source"] == [image, lead], "--source --full-text keeps both images")
    #expect(files["all"] == files["source"], "--all --full-text keeps the same images")
  }
}
