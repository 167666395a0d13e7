import Foundation
import OfflineNewsStorage
import TestSupport
import Testing

/// Kill-safety of `news import`: a SIGKILL in the middle of a large save leaves a database that passes
/// `PRAGMA integrity_check` and holds exactly the rows from before the save (one transaction, WAL).
@Suite("news import killed mid-save", .serialized)
struct CrashSafetyTests {
  /// The `news` executable built beside the test bundle.
  static var newsBinary: URL? { builtExecutable("news") }

  /// The `news-with-fault` test executable (`Tests/NewsWithFault`): `news` with a crash injected through the
  /// package-only fault seams.
  static var faultyNewsBinary: URL? { builtExecutable("news-with-fault") }

  /// An executable of this package, built beside the test bundle.
  static func builtExecutable(_ name: String) -> URL? {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [directory, directory.deletingLastPathComponent()] {
      let url = candidate.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
  }

  /// A NewsAPI-format file of `count` articles.
  static func writeLargeResponse(_ count: Int, to path: String, prefix: String = "big") throws {
    var text = #"{"status":"ok","totalResults":\#(count),"articles":["#
    for index in 0..<count {
      if index > 0 { text += "," }
      let minute = index % 60
      text += """
        {"source":{"id":null,"name":"Wire \(index % 17)"},"author":"Reporter \(index % 101)",\
        "title":"Headline number \(index) about something","description":"Summary \(index)",\
        "url":"https://example.com/\(prefix)/\(index)","urlToImage":null,\
        "publishedAt":"2024-05-0\(1 + index % 9)T10:\(minute < 10 ? "0" : "")\(minute):00Z",\
        "content":"\(String(repeating: "Body text. ", count: 20))[+900 chars]"}
        """
    }
    text += "]}"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  /// Starts `news` in a temporary folder, outside the package, so its Config/news.json (and eviction policy) does not
  /// apply.
  static func run(_ binary: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws
    -> ChildProcess
  {
    try ChildProcess(binary, arguments, environment: extra)
  }

  /// `(integrity_check, url list newest first)`, read with a plain read-only connection.
  static func snapshot(_ binary: URL, db: String) throws -> (integrity: String, urls: [String]) {
    let connection = try OfflineNewsStorageProbe(path: db)
    return (try connection.integrity(), try connection.urls())
  }

  @Test("SIGKILL right before COMMIT keeps exactly the old rows; the next run completes")
  func killBeforeCommit() async throws {
    let binary = try #require(Self.newsBinary, "the news executable is built beside the tests")
    let faulty = try #require(Self.faultyNewsBinary, "the news-with-fault executable is built beside the tests")
    let directory = TemporaryDirectory("news-kill")
    let db = directory.path("news.sqlite")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let first = try Self.run(binary, ["import", sample, "--db", db])
    await first.exited()
    #expect(first.terminationStatus == 0)
    let before = try Self.snapshot(binary, db: db)
    #expect(before.integrity == "ok")
    #expect(before.urls.count == 20)

    let big = directory.path("big.json")
    try Self.writeLargeResponse(20_000, to: big)
    // Killed at the end of the save's transaction: every one of the 20,000 rows written, nothing committed.
    let killed = try Self.run(faulty, ["kill-before-commit", "import", big, "--db", db])
    await killed.exited()
    #expect(killed.terminationReason == .uncaughtSignal)
    #expect(killed.terminationStatus == SIGKILL)

    let after = try Self.snapshot(binary, db: db)
    #expect(after.integrity == "ok")
    #expect(after.urls == before.urls, "exactly the rows from before the save")

    let again = try Self.run(binary, ["import", big, "--db", db])
    await again.exited()
    #expect(again.terminationStatus == 0)
    #expect(try Self.snapshot(binary, db: db).urls.count == 20_020)
  }

  @Test(
    "SIGKILL right before COMMIT of a first import, its search index built beside: no rows, no side file left; the next run completes"
  )
  func killFirstImportBeforeCommit() async throws {
    let binary = try #require(Self.newsBinary, "the news executable is built beside the tests")
    let faulty = try #require(Self.faultyNewsBinary, "the news-with-fault executable is built beside the tests")
    let directory = TemporaryDirectory("news-kill-first")
    let db = directory.path("news.sqlite")
    // SQLite's temporary files (the side index's database among them) go here, to be looked for after the kill.
    let temporary = directory.path("tmp")
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    let environment = ["SQLITE_TMPDIR": temporary, "TMPDIR": temporary]
    // The schema first (its migrations are a write transaction of their own), with no article.
    let store = try StorageContext(path: db)
    await store.close()

    let big = directory.path("big.json")
    try Self.writeLargeResponse(20_000, to: big, prefix: "first")
    let killed = try Self.run(faulty, ["kill-before-commit", "import", big, "--db", db], environment: environment)
    await killed.exited()
    #expect(killed.terminationReason == .uncaughtSignal)
    #expect(killed.terminationStatus == SIGKILL)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [], "no temporary file left")

    let after = try OfflineNewsStorageProbe(path: db, recovering: true)
    #expect(try after.integrity() == "ok")
    #expect(try after.urls().isEmpty)
    #expect(try after.searchIndexIntegrity() == "ok")
    #expect(try after.count("article_fts_docsize") == 0)

    let again = try Self.run(binary, ["import", big, "--db", db], environment: environment)
    await again.exited()
    #expect(again.terminationStatus == 0)
    let imported = try OfflineNewsStorageProbe(path: db, recovering: true)
    #expect(try imported.urls().count == 20_000)
    #expect(try imported.count("article_fts_docsize") == 20_000)
    #expect(try imported.searchIndexIntegrity() == "ok")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
  }

  @Test("SIGKILL at random moments of a large import: always the old or the new rows, never a mix")
  func randomKills() async throws {
    let binary = try #require(Self.newsBinary, "the news executable is built beside the tests")
    let directory = TemporaryDirectory("news-kill")
    let db = directory.path("news.sqlite")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let first = try Self.run(binary, ["import", sample, "--db", db])
    await first.exited()
    let old = try Self.snapshot(binary, db: db).urls
    let big = directory.path("big.json")
    try Self.writeLargeResponse(30_000, to: big, prefix: "r")

    var generator = SystemRandomNumberGenerator()
    var killedMidway = 0
    for _ in 0..<6 {
      let process = try Self.run(binary, ["import", big, "--db", db])
      // The kill comes at a random moment: the delay is the test's input, not a synchronisation.
      try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &generator)))
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        killedMidway += 1
      }
      await process.exited()
      let state = try Self.snapshot(binary, db: db)
      #expect(state.integrity == "ok")
      #expect(state.urls == old || state.urls.count == old.count + 30_000, "\(state.urls.count) rows")
      if state.urls.count != old.count { break }  // committed: later kills can only find the new rows
    }
    print("◇ random kills: \(killedMidway) of 6 runs killed while running")
    let last = try Self.run(binary, ["import", big, "--db", db])
    await last.exited()
    #expect(last.terminationStatus == 0)
    #expect(try Self.snapshot(binary, db: db).urls.count == old.count + 30_000)
  }
}
