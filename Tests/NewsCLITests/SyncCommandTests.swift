import Foundation
import Synchronization
import TestSupport
import Testing

/// `news sync` against a stub Parse Server and a stub JSON Feed on 127.0.0.1: configuration, summary, JSON, exit
/// statuses, and a SIGKILL between staging and import followed by a run that finishes the job.
@Suite("news sync")
struct SyncCommandTests {
  static let mappingPath = Fixtures.configDirectory.appendingPathComponent("mappings/parse-server.json").path

  /// A configuration with one Parse source (`demo`) over `stub`, and optionally extra sources.
  static func writeConfig(
    _ cli: CLIHarness, serverURL: URL, classes: String = #"["_User", "ArticleCategory", "Article"]"#,
    pageSize: Int = 2, extra: String = ""
  ) throws -> String {
    let text = """
      {
        "sources": {
          "demo": {
            "parse": {
              "serverURL": "\(serverURL.absoluteString)", "applicationId": "test-app", "pageSize": \(pageSize),
              "classes": \(classes)
            },
            "mapping": "\(mappingPath)"
          }\(extra)
        },
        "timeoutSeconds": 2
      }
      """
    let path = cli.directory.path("news.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func seed(_ stub: ParseServerStub, articles: Int = 5) {
    stub.put("_User", objectId: "u1", updatedAt: "2024-01-01T00:00:01.000Z", fields: ["username": "ada"])
    stub.put("ArticleCategory", objectId: "c1", updatedAt: "2024-01-01T00:00:02.000Z", fields: ["name": "World"])
    for index in 1...articles {
      stub.put(
        "Article", objectId: "a\(index)", updatedAt: String(format: "2024-01-02T00:00:%02d.000Z", index),
        fields: [
          "title": "Title \(index)",
          "category": ["__type": "Pointer", "className": "ArticleCategory", "objectId": "c1"],
        ])
    }
  }

  /// The `objectId`s of `entity`, through `news records --json` (an article's is its `parseObjectId`).
  static func ids(_ cli: CLIHarness, _ entity: String) async throws -> [String] {
    let outcome = await cli.run("records", entity, "--db", cli.database, "--json")
    let rows = try JSONSerialization.jsonObject(with: Data(outcome.out.utf8)) as? [[String: Any]] ?? []
    let key = entity == "article" ? "parseObjectId" : "objectId"
    return rows.compactMap { $0[key] as? String }.sorted()
  }

  @Test("a first sync imports every class and prints a line per class; a second asks only for changes")
  func syncTwice() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub)
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL)
    let first = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(first.status == 0, "\(first.err)")
    #expect(
      first.out.contains("demo/Article → article: 3 pages, 5 objects: 5 inserted, 0 updated"), "\(first.out)")
    #expect(first.out.contains("demo/_User → parse_user: 1 page, 1 object: 1 inserted"), "\(first.out)")
    #expect(try await Self.ids(cli, "article") == ["a1", "a2", "a3", "a4", "a5"])

    stub.put("Article", objectId: "a3", updatedAt: "2024-01-03T00:00:00.000Z", fields: ["title": "Edited"])
    let second = await cli.run("sync", "--config", config, "--db", cli.database, "--json")
    #expect(second.status == 0, "\(second.err)")
    let document = try second.json()
    let sources = try #require(document["sources"] as? [[String: Any]])
    let classes = try #require(sources.first?["classes"] as? [[String: Any]])
    let article = try #require(classes.first { $0["className"] as? String == "Article" })
    #expect(article["objects"] as? Int == 1)
    #expect(article["updated"] as? Int == 1)
    #expect(article["cursor"] as? String == "2024-01-03T00:00:00.000Z a3")
    #expect(article["error"] is NSNull)
  }

  @Test(
    "Ctrl-C while a later page is awaited: the pages saved are kept, a note, exit 130; the next sync goes on",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"))
  func interruptedSync() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub, articles: 4)
    // The first page is answered; every later request waits (until the stub is stopped).
    let answered = Mutex(0)
    let parse = stub.http.router
    stub.http.router = { request in
      answered.withLock { count in
        count += 1
        return count
      } == 1 ? parse?(request) : .hang
    }
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#)
    let run = try ServeCommandTests.Run(
      ["sync", "--config", config, "--db", cli.database, "--timeout", "60"], in: cli.directory)
    var saved: [String] = []
    for _ in 0..<500 {
      // Before the first page, the store has no `article` entity to list yet.
      saved = (try? await Self.ids(cli, "article")) ?? []
      if saved.count == 2 { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    try #require(saved == ["a1", "a2"], "the first page was never saved: \(run.errors)")
    #expect(kill(run.child.processIdentifier, SIGINT) == 0)
    await run.child.exited()
    #expect(run.child.terminationReason == .exit, "killed by the signal instead of ending: \(run.errors)")
    #expect(run.child.terminationStatus == 130, "\(run.errors)")
    #expect(
      run.errors.contains(
        "interrupted: demo stopped; the pages it saved are kept, and the next 'news sync' goes on from there"),
      "\(run.errors)")
    #expect(try await Self.ids(cli, "article") == ["a1", "a2"])

    stub.http.router = parse
    let again = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(again.status == 0, "\(again.err)")
    #expect(try await Self.ids(cli, "article") == ["a1", "a2", "a3", "a4"])
  }

  @Test("SIGKILL right after a page is staged: the next sync imports it and finishes, without duplicates")
  func killAfterStage() async throws {
    let faulty = try #require(
      CrashSafetyTests.faultyNewsBinary, "the news-with-fault executable is built beside the tests")
    let stub = try ParseServerStub()
    Self.seed(stub)
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#)
    let killed = try CrashSafetyTests.run(
      faulty, ["kill-after-stage", "sync", "--config", config, "--db", cli.database])
    await killed.exited()
    #expect(killed.terminationReason == .uncaughtSignal)
    #expect(killed.terminationStatus == SIGKILL)
    #expect(try await Self.ids(cli, "article") == [])
    let staged = await cli.run("records", "sync_page", "--db", cli.database, "--json")
    #expect((try JSONSerialization.jsonObject(with: Data(staged.out.utf8)) as? [Any])?.count == 1, "\(staged.out)")

    let again = await cli.run("sync", "--config", config, "--db", cli.database, "--json")
    #expect(again.status == 0, "\(again.err)")
    let classes = try #require((try again.json()["sources"] as? [[String: Any]])?.first?["classes"] as? [[String: Any]])
    #expect(classes.first?["resumedPages"] as? Int == 1)
    #expect(classes.first?["inserted"] as? Int == 5)
    #expect(try await Self.ids(cli, "article") == ["a1", "a2", "a3", "a4", "a5"])
    let after = await cli.run("records", "sync_page", "--db", cli.database, "--json")
    #expect((try JSONSerialization.jsonObject(with: Data(after.out.utf8)) as? [Any])?.count == 0)
  }

  @Test("SIGKILL at random moments of a long sync, many times: integrity ok, every object exactly once at the end")
  func randomKills() async throws {
    let binary = try #require(CrashSafetyTests.newsBinary, "the news executable is built beside the tests")
    let stub = try ParseServerStub()
    let total = 3_000
    for index in 1...total {
      stub.put(
        "Article", objectId: String(format: "k%05d", index),
        updatedAt: String(
          format: "2024-01-01T%02d:%02d:%02d.%03dZ", index / 3600, index / 60 % 60, index % 60, index % 7),
        fields: ["title": "Article \(index) " + String(repeating: "text ", count: 40)])
    }
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#, pageSize: 100)
    var generator = SystemRandomNumberGenerator()
    var killed = 0
    var runs = 0
    var finished = false
    while !finished, runs < 40 {
      runs += 1
      let process = try CrashSafetyTests.run(binary, ["sync", "--config", config, "--db", cli.database])
      // The kill comes at a random moment: the delay is the test's input, not a synchronisation.
      try await Task.sleep(for: .milliseconds(Int.random(in: 30...300, using: &generator)))
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        killed += 1
      }
      await process.exited()
      finished = process.terminationReason == .exit && process.terminationStatus == 0
      // Killed before it created the store (a slow start on a loaded machine): nothing to check yet.
      guard FileManager.default.fileExists(atPath: cli.database) else { continue }
      let probe = try OfflineNewsStorageProbe(path: cli.database, recovering: true)
      #expect(try probe.integrity() == "ok")
      // The imported objects are always a prefix of the server's order: no gap, no duplicate.
      let ids = (try? probe.values("article", "parseObjectId")) ?? []
      #expect(ids == (0..<ids.count).map { String(format: "k%05d", $0 + 1) }, "run \(runs): \(ids.count) rows")
      #expect(((try? probe.count("sync_page")) ?? 0) <= 1)
    }
    print("◇ news sync: \(killed) of \(runs) runs killed while running")
    if !finished {
      let last = try CrashSafetyTests.run(binary, ["sync", "--config", config, "--db", cli.database])
      await last.exited()
      #expect(last.terminationStatus == 0)
    }
    let probe = try OfflineNewsStorageProbe(path: cli.database)
    #expect(try probe.count("article") == total)
    #expect(try probe.count("sync_page") == 0)
    #expect(try probe.integrity() == "ok")
  }

  @Test("a refused connection is exit 69 with the class and the cause; nothing is written")
  func refused() async throws {
    let port = try LoopbackHTTPServer.refusedPort()
    let cli = CLIHarness()
    let url = try #require(URL(string: "http://127.0.0.1:\(port)/parse"))
    let config = try Self.writeConfig(cli, serverURL: url, classes: #"["Article"]"#)
    let outcome = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(outcome.status == 69)
    #expect(outcome.err.contains("demo/Article: connection refused"), "\(outcome.err)")
    #expect(try await Self.ids(cli, "article") == [])
  }

  @Test("news sources lists sync sources with their last sync and last error")
  func sources() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub, articles: 1)
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#)
    let before = await cli.run("sources", "--config", config, "--db", cli.database, "--json")
    let entry = { (outcome: CLIHarness.Outcome) throws -> [String: Any] in
      try #require((try outcome.json()["sources"] as? [[String: Any]])?.first { $0["name"] as? String == "demo" })
    }
    #expect(try entry(before)["kind"] as? String == "parse")
    #expect(try entry(before)["fetchedAt"] is NSNull)
    #expect(try entry(before)["policy"] as? String == "sync")

    stub.failing = .json(#"{"code":1,"error":"Internal server error."}"#, status: 500)
    #expect(await cli.run("sync", "--config", config, "--db", cli.database).status == 69)
    stub.failing = nil
    let failed = try entry(await cli.run("sources", "--config", config, "--db", cli.database, "--json"))
    #expect((failed["lastError"] as? String)?.contains("HTTP 500") == true, "\(failed)")
    #expect(failed["fetchedAt"] is NSNull)

    #expect(await cli.run("sync", "--config", config, "--db", cli.database).status == 0)
    let synced = try entry(await cli.run("sources", "--config", config, "--db", cli.database, "--json"))
    #expect(synced["fetchedAt"] as? String == "2025-11-29T07:06:40.000Z")
    #expect(synced["lastError"] is NSNull)
    let human = await cli.run("sources", "--config", config, "--db", cli.database)
    #expect(human.out.contains("synced just now"), "\(human.out)")
  }

  @Test("a cache-first sync source with a maxAge is skipped while its last sync is fresh; --force syncs it")
  func cacheFirst() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub, articles: 2)
    var cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#)
    let text = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
      of: #""mapping": "#, with: #""policy": "cache-first", "maxAge": 3600, "mapping": "#)
    try Data(text.utf8).write(to: URL(fileURLWithPath: config))
    #expect(await cli.run("sync", "--config", config, "--db", cli.database).status == 0)
    let requests = stub.http.requests.count
    cli.now += 600
    let fresh = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(fresh.status == 0)
    #expect(fresh.out == "demo: fresh (synced 10 min ago, max age 1 h): skipped; --force syncs it\n", "\(fresh.out)")
    #expect(stub.http.requests.count == requests)
    #expect(await cli.run("sync", "--force", "--config", config, "--db", cli.database).status == 0)
    #expect(stub.http.requests.count == requests + 1)
    cli.now += 7200
    #expect(await cli.run("sync", "--config", config, "--db", cli.database).status == 0)
    #expect(stub.http.requests.count == requests + 2)
  }

  @Test("a truncated page is exit 65 and writes nothing")
  func truncated() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub)
    stub.inject(.json(#"{"results":[{"objectId":"a1","title":"T"#))
    let cli = CLIHarness()
    let config = try Self.writeConfig(cli, serverURL: stub.serverURL, classes: #"["Article"]"#)
    let outcome = await cli.run("sync", "--config", config, "--db", cli.database)
    #expect(outcome.status == 65)
    #expect(outcome.err.contains("invalid page"), "\(outcome.err)")
    #expect(try await Self.ids(cli, "article") == [])
  }

  @Test("a JSON Feed source is downloaded and imported with its mapping")
  func feed() async throws {
    let stub = try ParseServerStub()
    let feed = """
      {"version":"https://jsonfeed.org/version/1.1","title":"T","items":[
        {"id":"1","title":"One","content_text":"x","date_published":"2024-05-01T10:00:00+02:00"},
        {"id":"2","title":"Two","content_text":"y","date_published":"2024-05-02T10:00:00Z"}]}
      """
    let url = stub.putFile("feed.json", contentType: "application/feed+json", body: Data(feed.utf8))
    let cli = CLIHarness()
    let config = try Self.writeConfig(
      cli, serverURL: stub.serverURL, classes: #"["Article"]"#,
      extra:
        #", "blog": { "feed": "\#(url.absoluteString)", "mapping": "\#(Fixtures.configDirectory.path)/mappings/jsonfeed.json" }"#
    )
    let outcome = await cli.run("sync", "--source", "blog", "--config", config, "--db", cli.database)
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.out.contains("blog/feed → article: 1 page, 2 objects: 2 inserted"), "\(outcome.out)")
    let again = await cli.run("sync", "--source", "blog", "--config", config, "--db", cli.database)
    #expect(again.out.contains("0 inserted, 0 updated, 2 unchanged"), "\(again.out)")
  }

  @Test(
    "configuration mistakes name the key",
    arguments: [
      (
        #"{"sources":{"p":{"parse":{"serverURL":"http://x/parse","applicationId":"a","classes":["A"],"masterKey":"k"}}}}"#,
        #"unknown key "masterKey""#
      ),
      (#"{"sources":{"p":{"parse":{"serverURL":"ftp://x","applicationId":"a","classes":["A"]}}}}"#, "serverURL"),
      (#"{"sources":{"p":{"parse":{"serverURL":"http://x","applicationId":"a","classes":[]}}}}"#, "classes"),
      (
        #"{"sources":{"p":{"parse":{"serverURL":"http://x","applicationId":"a","classes":["A"],"pageSize":0}}}}"#,
        "pageSize"
      ),
      (#"{"sources":{"p":{"feed":"http://x/feed.json","parse":{}}}}"#, "exclude each other"),
      (#"{"sources":{"p":{"feed":"http://x/f.json","policy":"cache-first"}}}"#, "cache-first needs a maxAge"),
      (
        #"{"sources":{"p":{"feed":"http://x/f.json","policy":"cache-only","maxAge":5}}}"#,
        "network-first or cache-first"
      ),
      (#"{"sources":{"p":{"feed":"http://x/f","mapping":"jsonfeed","ttl":5}}}"#, #"unknown key "ttl""#),
      (
        #"{"sources":{"p":{"parse":{"serverURL":"http://x","applicationId":"a","classes":[{"name":"A","files":{"attributes":["image"],"download":"sometimes"}}]}}}}"#,
        "download"
      ),
    ])
  func configErrors(_ text: String, _ expected: String) async throws {
    let cli = CLIHarness()
    let path = cli.directory.path("bad.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let outcome = await cli.run("sync", "--config", path, "--db", cli.database)
    #expect(outcome.status == 78)
    #expect(outcome.err.contains(expected), "\(outcome.err)")
  }

  @Test("fetch of a Parse source syncs it; sync of a NewsAPI source points at news fetch")
  func wrongCommand() async throws {
    let stub = try ParseServerStub()
    Self.seed(stub, articles: 2)
    let cli = CLIHarness()
    let config = try Self.writeConfig(
      cli, serverURL: stub.serverURL, extra: #", "news": { "url": "http://127.0.0.1:1/v2/top-headlines" }"#)
    let fetch = await cli.run("fetch", "--source", "demo", "--config", config, "--db", cli.database)
    #expect(fetch.status == 0, "\(fetch.err)")
    #expect(fetch.out.contains("Title 1") && fetch.out.contains("Title 2"), "\(fetch.out)")
    let sync = await cli.run("sync", "--source", "news", "--config", config, "--db", cli.database)
    #expect(sync.status == 64)
    #expect(sync.err.contains("news fetch --source news"), "\(sync.err)")
    let pruneAlone = await cli.run("sync", "--delete-missing", "--config", config, "--db", cli.database)
    #expect(pruneAlone.status == 64)
    #expect(pruneAlone.err.contains("--delete-missing needs --full"), "\(pruneAlone.err)")
    let newsOnly = cli.directory.path("news-only.json")
    try Data(#"{"sources":{"news":{"url":"http://127.0.0.1:1/v2/everything"}}}"#.utf8)
      .write(to: URL(fileURLWithPath: newsOnly))
    let none = await cli.run("sync", "--config", newsOnly, "--db", cli.database)
    #expect(none.status == 78)
    #expect(none.err.contains("no sync sources"), "\(none.err)")
  }
}
