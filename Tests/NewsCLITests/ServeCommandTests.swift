import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// `news serve` as a user runs it: the built `news` (which hands `serve` to `news-online`), on a free loopback
/// port, asked over HTTP, signalled; its standard output and error read from files.
@Suite(
  "news serve", .serialized,
  .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"))
struct ServeCommandTests {
  /// A `news …` run through `/bin/sh -c 'exec … >out 2>err'` (the shell execs it: the pid is `news`'s), with
  /// `input` piped to it when given.
  final class Run: Sendable {
    let child: ChildProcess
    let out: String
    let err: String

    init(_ arguments: [String], in directory: TemporaryDirectory, input: String? = nil) throws {
      guard let news = CrashSafetyTests.newsBinary else { throw POSIXError(.ENOENT) }
      let id = UUID().uuidString
      out = directory.path("out-\(id)")
      err = directory.path("err-\(id)")
      func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
      let command = ([news.path] + arguments).map(quoted).joined(separator: " ")
      let pipe = input.map { "printf '%s\\n' \(quoted($0)) | " } ?? ""
      child = try ChildProcess(
        URL(fileURLWithPath: "/bin/sh"), ["-c", "\(pipe)exec \(command) >\(quoted(out)) 2>\(quoted(err))"],
        currentDirectory: directory.url.path)
    }

    var output: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }

    /// The port of the listening line, once printed (10 s at most).
    func port() async throws -> Int {
      for _ in 0..<1_000 {
        // `listening on http://127.0.0.1:PORT/ (…)`, or with --json `"listening":"http://0.0.0.0:PORT/"`.
        if let range = output.range(of: #"http://[^ "]*:[0-9]+/"#, options: .regularExpression),
          let port = URL(string: String(output[range]))?.port
        {
          return port
        }
        if !child.isRunning { break }
        try await Task.sleep(for: .milliseconds(10))
      }
      Issue.record("no listening line; out: \(output) err: \(errors)")
      throw POSIXError(.ETIMEDOUT)
    }
  }

  /// `method path` (a `GET` by default) to the server on `port`, with the `Host` header `host` and the JSON `body`
  /// when given: the status and the body.
  static func get(
    _ port: Int, _ path: String, host: String? = nil, method: String = "GET", json body: String? = nil
  ) async throws -> (Int, String) {
    guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw URLError(.badURL) }
    var request = URLRequest(url: url)
    request.httpMethod = method
    if let body {
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = Data(body.utf8)
    }
    if let host { request.setValue(host, forHTTPHeaderField: "Host") }
    let session = URLSession(configuration: .ephemeral)
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
  }

  /// A configuration with one file source (the sample NewsAPI response).
  static func configuration(in directory: TemporaryDirectory) throws -> String {
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let path = directory.path("news.json")
    try Data(#"{"sources": {"sample": {"file": "\#(sample)"}}}"#.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// What every test here starts from: a temporary folder, a configuration with one file source
  /// (``configuration(in:)``) and a database path in it.
  struct Fixture {
    let directory = TemporaryDirectory("serve-cli")
    let config: String
    var database: String { directory.path("news.sqlite") }

    init() throws { config = try ServeCommandTests.configuration(in: directory) }

    /// `news ARGUMENTS --config CONFIG` in the folder.
    func run(_ arguments: [String], input: String? = nil) throws -> Run {
      try Run(arguments + ["--config", config], in: directory, input: input)
    }

    /// `news serve --listen LISTEN --db DATABASE --config CONFIG` and `options`.
    func serve(listen: String = "127.0.0.1:0", _ options: [String] = []) throws -> Run {
      try run(["serve", "--listen", listen, "--db", database] + options)
    }

    /// Sends SIGTERM (or `signal`) to `run` and waits for it to exit.
    func stop(_ run: Run, signal: Int32 = SIGTERM) async {
      kill(run.child.processIdentifier, signal)
      await run.child.exited()
    }
  }

  @Test("serves on a free port, refreshes in the background, logs each request, and stops on SIGTERM with 0")
  func servesRefreshesLogsAndStops() async throws {
    let fixture = try Fixture()
    let run = try fixture.serve(["--refresh", "1h"])
    let port = try await run.port()
    #expect(run.output.contains("(no credentials: loopback only, every request allowed)"))
    let (status, body) = try await Self.get(port, "/login")
    #expect(status == 200)
    #expect(body.contains("<form"))
    let (foreign, _) = try await Self.get(port, "/", host: "evil.example")
    #expect(foreign == 421)
    // The first refresh runs at once: another news command sees its articles meanwhile (WAL).
    for _ in 0..<500 where !run.errors.contains("refreshed 1 sources") { try await Task.sleep(for: .milliseconds(20)) }
    #expect(run.errors.contains("news serve: refreshed 1 sources, 0 failed"))
    let list = await CLIHarness().run("list", "--db", fixture.database, "--config", fixture.config, "--limit", "1")
    #expect(list.status == 0, "\(list.err)")
    #expect(!list.out.isEmpty)
    await fixture.stop(run)
    #expect(run.child.terminationReason == .exit)
    #expect(run.child.terminationStatus == 0)
    let log = run.errors
    #expect(log.contains("GET /login 200 "))
    #expect(log.contains("GET / 421 "))
    #expect(log.contains("news serve: stopped"))
  }

  @Test(
    "on a read-only store it serves what is there and says that nothing clients change is saved",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func readOnlyStore() async throws {
    let fixture = try Fixture()
    let database = fixture.database
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let imported = await CLIHarness().run("import", sample, "--db", database, "--config", fixture.config)
    try #require(imported.status == 0, "\(imported.err)")
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    try #require(FaultCapabilities.makeReadOnly(database), "could not make \(database) read-only")
    defer { FaultCapabilities.undoReadOnly(database) }
    // The default --refresh: none runs on a read-only store.
    let run = try fixture.serve()
    let port = try await run.port()
    for _ in 0..<500 where !run.errors.contains("read-only store") { try await Task.sleep(for: .milliseconds(20)) }
    #expect(run.errors.contains("news serve: read-only store ("), "\(run.errors)")
    #expect(run.errors.contains("no refresh runs"), "\(run.errors)")
    #expect(try await Self.get(port, "/login").0 == 200)
    let (entries, listed) = try await Self.get(port, "/v1/entries")
    #expect(entries == 200)
    #expect(listed.contains(#""total":"#))
    // A client's change: 503 with the reason, in Miniflux's shape.
    let (refresh, reason) = try await Self.get(port, "/v1/feeds/refresh", method: "PUT")
    #expect(refresh == 503, "\(reason)")
    #expect(reason.contains(#""error_message":"#) && reason.contains("read-only"), "\(reason)")
    // A category goes into the configuration file, which can be written; once it cannot, the same 503.
    let (created, category) = try await Self.get(port, "/v1/categories", method: "POST", json: #"{"title":"Later"}"#)
    #expect(created == 201, "\(category)")
    #expect(try String(contentsOfFile: fixture.config, encoding: .utf8).contains(#""folders": ["Later"]"#))
    try #require(FaultCapabilities.makeReadOnly(fixture.config), "could not make \(fixture.config) read-only")
    defer { FaultCapabilities.undoReadOnly(fixture.config) }
    let (refused, why) = try await Self.get(port, "/v1/categories", method: "POST", json: #"{"title":"Never"}"#)
    #expect(refused == 503, "\(why)")
    #expect(why.contains(#""error_message":"#) && why.contains(fixture.config), "\(why)")
    await fixture.stop(run)
    #expect(run.child.terminationStatus == 0)
    #expect(!run.errors.contains("refreshed"), "\(run.errors)")
    #expect(run.errors.contains("PUT /v1/feeds/refresh 503 "), "\(run.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
  }

  @Test("SIGINT while a refresh waits for a server that never answers: stopped at once, not at the 30 s timeout")
  func stopsDuringASlowRefresh() async throws {
    let directory = TemporaryDirectory("serve-slow")
    let server = try LoopbackHTTPServer(.hang)
    defer { server.stop() }
    let config = directory.path("news.json")
    try #"{"sources": {"Slow": {"feed": "\#(server.url("/feed.xml").absoluteString)"}}, "timeoutSeconds": 30}"#
      .write(toFile: config, atomically: true, encoding: .utf8)
    let run = try Run(
      ["serve", "--listen", "127.0.0.1:0", "--db", directory.path("news.sqlite"), "--config", config], in: directory)
    _ = try await run.port()
    await server.waitForRequests(1)
    let clock = ContinuousClock()
    let start = clock.now
    kill(run.child.processIdentifier, SIGINT)
    await run.child.exited()
    // The request is cancelled within about a second (libcurl's progress callback); a bound, not a benchmark.
    #expect(clock.now - start < .seconds(10), "\(run.errors)")
    #expect(run.child.terminationReason == .exit && run.child.terminationStatus == 0, "\(run.errors)")
    #expect(run.errors.contains("news serve: stopped"))
    // Cancelled by the stop: no failure is recorded for the source.
    let sources = await CLIHarness().run("sources", "--config", config, "--db", directory.path("news.sqlite"), "--json")
    #expect(!sources.out.contains("cancelled"), "\(sources.out)")
  }

  @Test("a source added to the configuration while it runs is served and refreshed from the next round on")
  func picksUpANewSource() async throws {
    let fixture = try Fixture()
    let run = try fixture.serve(["--refresh", "1s"])
    _ = try await run.port()
    for _ in 0..<500 where !run.errors.contains("refreshed 1 sources") { try await Task.sleep(for: .milliseconds(20)) }
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    try Data(#"{"sources": {"sample": {"file": "\#(sample)"}, "again": {"file": "\#(sample)"}}}"#.utf8)
      .write(to: URL(fileURLWithPath: fixture.config))
    for _ in 0..<500 where !run.errors.contains("refreshed 2 sources") { try await Task.sleep(for: .milliseconds(20)) }
    #expect(run.errors.contains("news serve: refreshed 2 sources, 0 failed"), "\(run.errors)")
    await fixture.stop(run)
    #expect(run.child.terminationStatus == 0)
  }

  @Test("a non-loopback --listen without credentials refuses to start (78) and says how to set them")
  func nonLoopbackNeedsCredentials() async throws {
    let fixture = try Fixture()
    let run = try fixture.serve(listen: "0.0.0.0:0")
    await run.child.exited()
    #expect(run.child.terminationStatus == 78)
    #expect(run.errors.contains("listening on 0.0.0.0 needs credentials"))
    #expect(run.errors.contains("news serve --set-password USER"))
    #expect(!FileManager.default.fileExists(atPath: fixture.database))
  }

  @Test("--set-password stores an argon2id hash (never the password); then any address may be listened on")
  func setPasswordThenListenAnywhere() async throws {
    let fixture = try Fixture()
    let config = fixture.config
    let set = try fixture.run(["serve", "--set-password", "alice"], input: "hunter2 pass")
    await set.child.exited()
    #expect(set.child.terminationStatus == 0, "\(set.errors)")
    let text = try String(contentsOfFile: config, encoding: .utf8)
    #expect(text.contains(#""user": "alice""#))
    #expect(text.contains("$argon2id$"))
    #expect(text.contains(#""apiToken": ""#))
    #expect(!text.contains("hunter2"))
    #expect(text.contains(#""sample": {"file""#))
    let run = try fixture.serve(listen: "0.0.0.0:0", ["--refresh", "off", "--json"])
    let port = try await run.port()
    #expect(run.output.contains(#""credentials":true"#))
    let (status, _) = try await Self.get(port, "/accounts/ClientLogin?Email=alice&Passwd=wrong")
    #expect(status == 401)
    await fixture.stop(run, signal: SIGINT)
    #expect(run.child.terminationStatus == 0)
    #expect(run.errors.contains(#""note":"login failed""#))
    #expect(!run.errors.contains("wrong"))
    // A short password is refused, the file unchanged; another user replaces alice, and says so.
    let short = try fixture.run(["serve", "--set-password", "bob"], input: "12345")
    await short.child.exited()
    #expect(short.child.terminationStatus == 64, "\(short.errors)")
    #expect(short.errors.contains("at least 8"), "\(short.errors)")
    #expect(try String(contentsOfFile: config, encoding: .utf8).contains(#""user": "alice""#))
    let bob = try fixture.run(["serve", "--set-password", "bob"], input: "long enough")
    await bob.child.exited()
    #expect(bob.child.terminationStatus == 0, "\(bob.errors)")
    #expect(bob.errors.contains("user alice can no longer sign in"), "\(bob.errors)")
  }
}
