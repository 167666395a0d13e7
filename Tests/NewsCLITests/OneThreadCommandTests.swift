import Foundation
import TestSupport
import Testing

@testable import NewsCLI

/// `news` runs each command on its main thread, its storage context's connections included
/// (`NewsCommandLine.runOnCallingThread`): the commands must answer exactly as they do through `run(_:)`, where each
/// connection runs on a dispatch queue of its own.
@Suite("news commands on one thread")
struct OneThreadCommandTests {
  @Test("list, search, show, stats and sources print byte for byte what they print through run(_:), text and JSON")
  func sameOutput() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let imported = await cli.run("import", sample, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    let listed = try await cli.run("list", "--json", "--db", cli.database).json()
    let first = try #require(articles(listed).first?["title"] as? String, "the sample has articles")
    let word = try #require(first.split(separator: " ").first(where: { $0.count > 3 }).map(String.init))
    let handle = try #require(articles(listed).first?["handle"] as? String)
    let commands: [[String]] = [
      ["list"], ["list", "--limit", "3", "--json"], ["list", "--unread", "--offset", "1"], ["search", word],
      ["search", word, "--json"], ["search", "nothing-matches-this-zzz"], ["show", String(handle.prefix(8))],
      ["stats"], ["sources", "--json"], ["show", "ffffffffffff"],
    ]
    for command in commands {
      let arguments = command + ["--db", cli.database]
      let expected = await cli.run(arguments)
      let actual = await cli.runOnOneThread(arguments)
      #expect(actual.status == expected.status, "\(command)")
      #expect(actual.out == expected.out, "\(command)")
      #expect(actual.err == expected.err, "\(command)")
      #expect(!(expected.out + expected.err).isEmpty, "\(command) answers something")
    }
  }

  @Test("a write command on one thread writes what it writes through run(_:)")
  func writes() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    let imported = await cli.runOnOneThread(["import", sample, "--db", cli.database])
    #expect(imported.status == 0, "\(imported.err)")
    let listed = try await cli.run("list", "--json", "--db", cli.database).json()
    let handle = try #require(articles(listed).first?["handle"] as? String)
    let marked = await cli.runOnOneThread(["mark-read", handle, "--db", cli.database])
    #expect(marked.status == 0, "\(marked.err)")
    let unread = try await cli.run("list", "--unread", "--json", "--db", cli.database).json()
    #expect(articles(unread).count == articles(listed).count - 1)
    #expect(!articles(unread).contains { $0["handle"] as? String == handle })
  }
}
