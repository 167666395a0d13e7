import Foundation
import TestSupport
import Testing

@Suite("read commands on a database that does not exist")
struct MissingDatabaseTests {
  /// Every command that only reads the store, with the arguments it needs.
  static let readCommands: [[String]] = [
    ["list"], ["search", "storm"], ["show", "https://example.com/a"], ["open", "https://example.com/a"],
    ["stats"], ["entities"], ["records", "article"],
  ]

  @Test("each exits 66 naming the path and creates nothing: no folder, no file", arguments: readCommands)
  func readCommandCreatesNothing(_ command: [String]) async throws {
    let cli = CLIHarness()
    let folder = cli.directory.path("nosuch/dir")
    let database = folder + "/news.sqlite"
    let outcome = await cli.run(command + ["--db", database])
    #expect(outcome.status == 66, "\(command): \(outcome.err)")
    #expect(
      outcome.err.contains("no database at \(database) ('news fetch' or 'news import' creates it)"),
      "\(command): \(outcome.err)")
    #expect(!FileManager.default.fileExists(atPath: cli.directory.path("nosuch")), "\(command)")
  }

  @Test("sources lists the configured sources before the first fetch, and creates no database")
  func sourcesWithoutStore() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {"f": {"feed": "https://a.example/f"}}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let database = cli.directory.path("nosuch/news.sqlite")
    let outcome = await cli.run("sources", "--config", config, "--db", database, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(outcome.out.contains("\"name\":\"f\""), "\(outcome.out)")
    #expect(!FileManager.default.fileExists(atPath: cli.directory.path("nosuch")))
  }

  @Test("a write command still creates the store and its folder")
  func writeCommandCreates() async throws {
    let cli = CLIHarness()
    let database = cli.directory.path("new/dir/news.sqlite")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let imported = await cli.run("import", sample, "--db", database)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(FileManager.default.fileExists(atPath: database))
    #expect(await cli.run("list", "--db", database).status == 0)
  }
}
