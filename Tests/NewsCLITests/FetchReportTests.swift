import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What `news fetch` and `news import` say about a source's result, as a new user's report found it wanting: the
/// conditional request after everything was deleted, one record of a source's result in every format, the hint for
/// articles left out worded by why they are, Ctrl-C during `fetch --all`, and mapped imports' left-out records.
@Suite("fetch and import report what they did, in every format", .serialized)
struct FetchReportTests {
  /// An RSS feed of `count` items, published on the first days of December 2026.
  static func rss(_ name: String, items count: Int) -> Data {
    let items = (1...count).map { day in
      "<item><title>\(name) \(day)</title><link>https://example.org/\(name)/\(day)</link>"
        + "<pubDate>Tue, 0\(day) Dec 2026 10:00:00 GMT</pubDate></item>"
    }
    return Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>\(name)</title><link>https://example.org/</link>
      \(items.joined(separator: "\n"))</channel></rss>
      """.utf8)
  }

  static func feed(_ body: Data, etag: String? = nil) -> LoopbackHTTPServer.Behaviour {
    var headers = ["Content-Type": "application/rss+xml"]
    headers["ETag"] = etag
    return .respond(status: 200, headers: headers, body: body)
  }

  /// A configuration of `sources` (name → URL), with `extra` top-level members.
  static func configuration(_ sources: [String: URL], extra: String = "", in cli: CLIHarness) throws -> String {
    let config = cli.directory.path("news.json")
    let members = sources.sorted { $0.key < $1.key }.map { #""\#($0.key)": {"feed": "\#($0.value.absoluteString)"}"# }
    try #"{"sources": {\#(members.joined(separator: ", "))}\#(extra), "timeoutSeconds": 30}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    return config
  }

  /// The lines of `--json-lines` output, parsed.
  static func lines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  @Test("every item deleted: the next fetches send If-None-Match (a 304 keeps the empty list); --forget-deleted: not")
  func conditionalAfterEverythingDeleted() async throws {
    let server = try LoopbackHTTPServer(Self.feed(Self.rss("blog", items: 2), etag: #""v1""#))
    defer { server.stop() }
    let cli = CLIHarness()
    let config = try Self.configuration(["Blog": server.url("/feed.xml")], in: cli)
    let run = { (arguments: [String]) in await cli.run(arguments + ["--config", config, "--db", cli.database]) }
    #expect(await run(["fetch", "--all"]).status == 0)
    #expect(await run(["delete", "--before", "2027-01-01"]).status == 0)
    // The server ignores validators once (a 200 again): both items are left out, the ETag stays stored.
    let left = await run(["fetch", "--source", "Blog", "--json"])
    #expect(try left.json()["remembered"] as? Int == 2, "\(left.out)")
    server.behaviour = .conditional(etag: #""v1""#, lastModified: nil, body: Self.rss("blog", items: 2))
    for _ in 0..<2 {
      let lines = try Self.lines(await run(["fetch", "--source", "Blog", "--json-lines"]).out)
      #expect(lines.first?["status"] as? String == "notModified", "\(lines)")
      #expect(lines.first?["cached"] as? Int == 0, "\(lines)")
    }
    // The line and `news list` say what brings them back (tester LOW: "0 cached", then "run 'news fetch'").
    let text = await run(["fetch", "--all"])
    #expect(
      text.out.contains(
        "Blog: not modified (0 cached: its articles were deleted or evicted; 'news delete --forget-deleted' lets "
          + "them back)"), "\(text.out)")
    let listed = await run(["list"])
    #expect(listed.err.contains("nothing cached: 2 deleted articles are remembered"), "\(listed.err)")
    #expect(server.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#, #""v1""#, #""v1""#, #""v1""#])
    #expect(await run(["delete", "--forget-deleted"]).status == 0)
    let back = try Self.lines(await run(["fetch", "--source", "Blog", "--json-lines"]).out)
    #expect(server.requests.last?.header("If-None-Match") == nil)
    #expect(back.first?["inserted"] as? Int == 2, "\(back)")
  }

  @Test("fetch --source --json has the --json-lines record (remembered, cached); unchanged says what it serves")
  func oneRecordInEveryFormat() async throws {
    let server = try LoopbackHTTPServer(Self.feed(Self.rss("news", items: 3)))
    defer { server.stop() }
    let cli = CLIHarness()
    let config = try Self.configuration(["News": server.url("/feed.xml")], in: cli)
    let run = { (arguments: [String]) in await cli.run(arguments + ["--config", config, "--db", cli.database]) }
    let first = try Self.lines(await run(["fetch", "--source", "News", "--json-lines"]).out)
    #expect(first.first?["status"] as? String == "new")
    #expect(first.first?["cached"] as? Int == 3, "\(first)")
    // Unchanged: the tester's `cached: 0` for a source that serves 3.
    let again = try Self.lines(await run(["fetch", "--source", "News", "--json-lines"]).out)
    #expect(again.first?["status"] as? String == "unchanged")
    #expect(again.first?["cached"] as? Int == 3, "\(again)")

    #expect(await run(["delete", "--before", "2026-12-02"]).status == 0)
    let document = try await run(["fetch", "--source", "News", "--json"]).json()
    #expect(document["remembered"] as? Int == 1, "\(document)")
    #expect(document["rememberedEvicted"] as? Int == 0, "\(document)")
    #expect(document["cached"] as? Int == 2, "\(document)")
    #expect((document["articles"] as? [Any])?.count == 2)
    // The same record, key for key, as --json-lines and fetch --all --json give for the same refresh.
    let line = try #require(try Self.lines(await run(["fetch", "--source", "News", "--json-lines"]).out).first)
    let all = try #require((try await run(["fetch", "--all", "--json"]).json()["sources"] as? [[String: Any]])?.first)
    for key in line.keys where key != "ageSeconds" {
      #expect("\(document[key] ?? "absent")" == "\(line[key] ?? "absent")", "\(key)")
      #expect("\(all[key] ?? "absent")" == "\(line[key] ?? "absent")", "\(key)")
    }
    #expect(Set(all.keys) == Set(line.keys))
  }

  @Test("fetch --source --json of a source that fails with nothing cached prints its document, then fails (tester LOW)")
  func failedSourceDocument() async throws {
    let cli = CLIHarness()
    let port = try LoopbackHTTPServer.refusedPort()
    let down = try #require(URL(string: "http://127.0.0.1:\(port)/feed.xml"))
    let config = try Self.configuration(["Down": down], in: cli)
    let outcome = await cli.run("fetch", "--source", "Down", "--json", "--config", config, "--db", cli.database)
    #expect(outcome.status == 69, "\(outcome.err)")
    let document = try outcome.json()
    #expect(document["source"] as? String == "Down")
    #expect(document["status"] as? String == "failed", "\(document)")
    #expect((document["articles"] as? [Any])?.isEmpty == true, "\(document)")
    #expect(document["error"] is String, "\(document)")
    #expect(document["cached"] as? Int == 0, "\(document)")
  }

  @Test("left out after an eviction, after a deletion, after both: the line says which, and what lets them back")
  func leftOutByCause() async throws {
    let server = try LoopbackHTTPServer(Self.feed(Self.rss("post", items: 3)))
    defer { server.stop() }
    // Today's clock: `news delete` remembers its keys at the real time, and drops those remembered over a year
    // before it (the harness's default clock is a year back: the eviction's keys would be forgotten at once).
    let cli = CLIHarness(now: Date())
    let config = try Self.configuration(
      ["Posts": server.url("/feed.xml")], extra: #", "eviction": {"maxArticles": 2}"#, in: cli)
    let run = { (arguments: [String]) in await cli.run(arguments + ["--config", config, "--db", cli.database]) }
    // The first save keeps 2 of the 3: the line says the eviction ran (tester MED: it said nothing).
    let first = await run(["fetch", "--all"])
    #expect(first.status == 0)
    #expect(
      first.out.contains("Posts: 3 new, 0 updated, 0 unchanged; then evicted 1 (eviction: maxArticles 2)"),
      "\(first.out)")
    let evicted = await run(["fetch", "--all"])
    #expect(
      evicted.out.contains(
        "Posts: 0 new, 0 updated, 2 unchanged; 1 left out: evicted before by the configuration's \"eviction\" "
          + "(raise its limits, then 'news delete --forget-deleted' lets them back)"), "\(evicted.out)")
    #expect(await run(["delete", "--before", "2026-12-03"]).status == 0)
    let both = await run(["fetch", "--source", "Posts"])
    #expect(
      both.out.contains(
        "; 2 left out: 1 deleted before, 1 evicted by the configuration's \"eviction\" ('news delete "
          + "--forget-deleted' lets the deleted back; for the evicted, raise its limits, then"), "\(both.out)")
  }

  @Test("import --mapping hackernews: records of deleted articles are left out (remembered), not skipped")
  func mappedImportLeftOut() async throws {
    let cli = CLIHarness()
    let file = cli.directory.path("items.json")
    let items = [
      #"{"id": 1, "type": "story", "by": "a", "time": 1500000000, "title": "Old", "url": "https://old.example.org/1"}"#,
      #"{"id": 2, "type": "story", "by": "b", "time": 1760000000, "title": "New", "url": "https://new.example.org/2"}"#,
    ]
    try "[\(items.joined(separator: ","))]".write(toFile: file, atomically: true, encoding: .utf8)
    let run = { (arguments: [String]) in
      await cli.run(arguments + ["--config", cli.bundledConfig, "--db", cli.database])
    }
    #expect(await run(["import", file, "--mapping", "hackernews"]).status == 0)
    #expect(await run(["delete", "--before", "2020-01-01"]).status == 0)
    let report = try await run(["import", file, "--mapping", "hackernews", "--json"]).json()
    #expect(report["skipped"] as? Int == 0, "\(report)")
    #expect(report["remembered"] as? Int == 1, "\(report)")
    #expect(report["unchanged"] as? Int == 1, "\(report)")
    let text = await run(["import", file, "--mapping", "hackernews"])
    #expect(text.status == 0, "\(text.err)")
    #expect(
      text.out.contains("0 skipped, 0 failed")
        && text.out.contains("; 1 left out: deleted before ('news delete --forget-deleted' lets them back)"),
      "\(text.out)")
  }

  /// A feed that answers at once and one that answers after a minute (the tests end long before: the refresh is
  /// still waiting for it at the Ctrl-C), configured as "Fast" and "Slow"; the caller stops the servers.
  static func fastAndSlow(in cli: CLIHarness) throws -> (
    fast: LoopbackHTTPServer, slow: LoopbackHTTPServer, config: String
  ) {
    let fast = try LoopbackHTTPServer(feed(rss("fast", items: 2)))
    let slow = try LoopbackHTTPServer(.delayed(60, then: feed(rss("slow", items: 2))))
    let config = try configuration(["Fast": fast.url("/feed.xml"), "Slow": slow.url("/feed.xml")], in: cli)
    return (fast, slow, config)
  }

  @Test(
    "Ctrl-C during fetch --all: the finished source's line, a note, exit 130; the slow one not saved",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"))
  func interruptedRefresh() async throws {
    let cli = CLIHarness()
    let (fast, slow, config) = try Self.fastAndSlow(in: cli)
    defer { fast.stop() }
    defer { slow.stop() }
    let run = try ServeCommandTests.Run(
      ["fetch", "--all", "--config", config, "--db", cli.database], in: cli.directory)
    await slow.waitForRequests(1)
    await fast.waitForRequests(1)
    // The fast source is saved (another process sees it: WAL) before the signal.
    var saved = 0
    for _ in 0..<500 {
      let listed = await cli.run("list", "--config", config, "--db", cli.database, "--json")
      saved = ((try? listed.json())?["articles"] as? [Any])?.count ?? 0
      if saved == 2 { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    try #require(saved == 2, "the fast source was never saved: \(run.errors)")
    #expect(kill(run.child.processIdentifier, SIGINT) == 0)
    await run.child.exited()
    #expect(run.child.terminationReason == .exit, "killed by the signal instead of ending: \(run.errors)")
    #expect(run.child.terminationStatus == 130)
    // Reported as it finished, or — when the signal came between its commit and its report — found in the store.
    #expect(
      ["Fast: 2 new, 0 updated, 0 unchanged\n", "Fast: saved as Ctrl-C came (2 cached)\n"].contains(run.output),
      "\(run.output)")
    #expect(
      run.errors.contains("interrupted: 1 of 2 sources refreshed; 1 not (their caches are as they were)"),
      "\(run.errors)")
    #expect(!run.errors.contains("Slow"), "\(run.errors)")
    let listed = try await cli.run("list", "--config", config, "--db", cli.database, "--json").json()
    #expect((listed["articles"] as? [[String: Any]])?.count == 2)
  }

  @Test(
    "Ctrl-C during fetch --all on a terminal: the progress line drawn is cleared before the lines and the note",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"))
  func interruptedRefreshOnATerminal() async throws {
    let news = try #require(CrashSafetyTests.newsBinary)
    let cli = CLIHarness()
    let (fast, slow, config) = try Self.fastAndSlow(in: cli)
    defer { fast.stop() }
    defer { slow.stop() }
    let database = cli.database
    let transcript = PseudoTerminal.Transcript()
    let outcome = try await PseudoTerminal.run(
      news, ["fetch", "--all", "--config", config, "--db", database],
      environment: ["HOME": cli.directory.path("home")], columns: 80, currentDirectory: cli.directory.url.path,
      transcript: transcript
    ) { pid in
      await slow.waitForRequests(1)
      // The fast source saved and reported (the progress line says 1 of 2), then Ctrl-C.
      for _ in 0..<500 where !transcript.errorText.contains("refreshing  1/2 sources") {
        try? await Task.sleep(for: .milliseconds(20))
      }
      kill(pid, SIGINT)
    }
    #expect(outcome.status == 130, "\(outcome.err)")
    #expect(outcome.out == "Fast: 2 new, 0 updated, 0 unchanged\n", "\(outcome.out)")
    // Drawn with `\r`, then cleared: spaces over it and `\r` again, before anything else is written there.
    let parts = outcome.err.components(separatedBy: "\r")
    #expect(parts.contains { $0.hasPrefix("refreshing  1/2 sources  50%") }, "\(outcome.err)")
    let last = try #require(parts.last)
    #expect(last.contains("interrupted: 1 of 2 sources refreshed"), "\(outcome.err)")
    #expect(parts.count >= 3 && parts[parts.count - 2].allSatisfy { $0 == " " }, "not cleared: \(outcome.err)")
  }

  /// An RSS feed titled "Large" of 20,000 items (a save of about a second on this machine).
  static func largeFeed() -> Data {
    let items = (1...20_000).map { index in
      "<item><title>Large \(index)</title><link>https://example.org/large/\(index)</link>"
        + "<description>A story, told at some length, of the kind a feed carries.</description></item>"
    }
    return Data(
      ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Large</title><link>https://example.org/</link>"
        + items.joined() + "</channel></rss>").utf8)
  }

  @Test(
    "Ctrl-C during fetch --all while a large feed may be saving: the store holds exactly what the report says",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"),
    arguments: [200, 700, 1_500])
  func interruptedWhileSaving(milliseconds: Int) async throws {
    let cli = CLIHarness()
    let large = Self.largeFeed()
    let small = try LoopbackHTTPServer(Self.feed(Self.rss("small", items: 2)))
    let big = try LoopbackHTTPServer(Self.feed(large))
    defer { small.stop() }
    defer { big.stop() }
    let config = try Self.configuration(["Large": big.url("/feed.xml"), "Small": small.url("/feed.xml")], in: cli)
    let run = try ServeCommandTests.Run(
      ["fetch", "--all", "--config", config, "--db", cli.database], in: cli.directory)
    await big.waitForRequests(1)
    try await Task.sleep(for: .milliseconds(milliseconds))
    guard run.child.isRunning else { return }  // done before the signal: nothing to check here
    #expect(kill(run.child.processIdentifier, SIGINT) == 0)
    await run.child.exited()
    if run.child.terminationReason == .uncaughtSignal {
      // The signal came after the refresh was over (Ctrl-C is taken over only while it runs): all was reported.
      #expect(run.output.contains("Large: ") && run.output.contains("Small: "), "\(run.output) \(run.errors)")
      return
    }
    // What the report says was saved (`NAME: N new, …` lines) is what the store holds, neither more nor less.
    var reported = 0
    for line in run.output.split(separator: "\n") {
      if let late = line.range(of: "saved as Ctrl-C came (") {
        // A save that went through the commit as the signal came, said from the store.
        reported += Int(line[late.upperBound...].prefix { $0.isNumber }) ?? 0
      } else if let new = line.split(separator: ":").last?.split(separator: " ").first.flatMap({ Int($0) }) {
        reported += new
      }
    }
    let stats = try await cli.run("stats", "--config", config, "--db", cli.database, "--json").json()
    let entities = stats["entities"] as? [[String: Any]] ?? []
    let stored = entities.first { $0["name"] as? String == "article" }?["rows"] as? Int ?? 0
    #expect(stored == reported, "stored \(stored), reported: \(run.output) \(run.errors)")
  }

  @Test(
    "Ctrl-C during fetch --source of a large feed: stopped before its commit and said, or saved whole and reported",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"),
    arguments: [300, 900])
  func interruptedSourceFetch(milliseconds: Int) async throws {
    let cli = CLIHarness()
    let large = Self.largeFeed()
    let big = try LoopbackHTTPServer(Self.feed(large))
    defer { big.stop() }
    let config = try Self.configuration(["Large": big.url("/feed.xml")], in: cli)
    let run = try ServeCommandTests.Run(
      ["fetch", "--source", "Large", "--config", config, "--db", cli.database], in: cli.directory)
    await big.waitForRequests(1)
    try await Task.sleep(for: .milliseconds(milliseconds))
    guard run.child.isRunning else { return }  // done before the signal: nothing to check here
    #expect(kill(run.child.processIdentifier, SIGINT) == 0)
    await run.child.exited()
    let stats = try await cli.run("stats", "--config", config, "--db", cli.database, "--json").json()
    let entities = stats["entities"] as? [[String: Any]] ?? []
    let stored = entities.first { $0["name"] as? String == "article" }?["rows"] as? Int ?? 0
    if run.child.terminationReason == .exit, run.child.terminationStatus == 130 {
      #expect(run.errors.contains("interrupted: nothing of Large was saved; the store is as it was"), "\(run.errors)")
      #expect(stored == 0, "\(run.errors)")
    } else {
      // The signal came as the save's commit had begun (it finishes and is reported), or after the fetch was over.
      #expect(stored == 20_000, "\(run.child.terminationStatus) \(run.output) \(run.errors)")
    }
  }
}
