import Foundation
import OfflineNews
import TestSupport
import Testing

@testable import NewsCLI

/// How every path the command line reads is taken: an empty one is refused (never the current folder), and `~` or
/// `~/…` is `$HOME` wherever a path is read — options, arguments, configuration values — also when it reaches
/// `news` quoted, as a script or a configuration file gives it.
@Suite struct PathArgumentTests {
  /// Every path-valued option of every command, with the positionals the command needs before it runs.
  static var pathOptions: [(command: String, option: String)] {
    CommandRegistry.commands.flatMap { command in
      command.spec.options.filter(\.takesPath).map { (command.name, $0.name) }
    }
  }

  @Test("an empty path option (--db=, --db '', --config=, --mapping=) is a usage error (64) in every command")
  func emptyPathOptions() async throws {
    let cli = CLIHarness()
    let options = Self.pathOptions
    #expect(Set(options.map(\.option)) == ["db", "config", "mapping"], "\(options)")
    for (command, option) in options {
      for words in [[command, "--\(option)="], [command, "--\(option)", ""]] {
        let outcome = await cli.run(words)
        #expect(outcome.status == 64, "\(words): \(outcome.err)")
        #expect(
          outcome.err.contains("--\(option) needs a path") && outcome.err.contains("got an empty value"),
          "\(words): \(outcome.err)")
        #expect(outcome.err.contains("not read as the current folder"), "\(outcome.err)")
      }
    }
  }

  @Test("an empty file argument (import '', extract '', add '') is a usage error (64)")
  func emptyFileArguments() async throws {
    let cli = CLIHarness()
    for command in ["import", "extract", "add"] {
      let outcome = await cli.run(command, "")
      #expect(outcome.status == 64, "\(command): \(outcome.err)")
      #expect(outcome.err.contains("is empty: give a path"), "\(command): \(outcome.err)")
    }
  }

  @Test("an empty file (0 bytes, or white space) is said to be empty, whatever its name: not \"not valid JSON\"")
  func emptyFileContents() async throws {
    let cli = CLIHarness()
    for name in ["empty.rss", "empty.json", "blank.xml"] {
      let path = cli.directory.path(name)
      try Data(name == "blank.xml" ? " \n".utf8 : "".utf8).write(to: URL(fileURLWithPath: path))
      let outcome = await cli.run("import", path, "--db", cli.database)
      #expect(outcome.status != 0, "\(name)")
      #expect(outcome.err.contains(": empty ("), "\(name): \(outcome.err)")
      #expect(!outcome.err.contains("JSON"), "\(name): \(outcome.err)")
    }
  }

  @Test("a quoted ~/ is $HOME in --db, --config, the file of import, and the configuration's database and file")
  func tildeIsHome() async throws {
    let cli = CLIHarness()
    let home = try #require(cli.environment["HOME"])
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    try FileManager.default.copyItem(atPath: sample.path, toPath: home + "/sample.json")

    let imported = await cli.run("import", "~/sample.json", "--db", "~/by-option.sqlite")
    #expect(imported.status == 0, "\(imported.err)")
    #expect(FileManager.default.fileExists(atPath: home + "/by-option.sqlite"))
    #expect(!FileManager.default.fileExists(atPath: cli.directory.path("~")), "no folder named ~ in the current one")

    let config =
      #"{"defaultSource": "s", "sources": {"s": {"file": "~/sample.json"}}, "database": "~/by-config.sqlite"}"#
    try Data(config.utf8).write(to: URL(fileURLWithPath: home + "/news.json"))
    let fetched = await cli.run("fetch", "--config", "~/news.json", "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(!articles(try fetched.json()).isEmpty)
    #expect(FileManager.default.fileExists(atPath: home + "/by-config.sqlite"))

    var byEnvironment = cli
    byEnvironment.environment["NEWS_CONFIG"] = "~/news.json"
    let listed = await byEnvironment.run("list", "--json")
    #expect(listed.status == 0, "\(listed.err)")
    #expect(articles(try listed.json()).count == articles(try fetched.json()).count)
  }

  @Test("only ~ and ~/ are expanded, with $HOME; ~user and a ~ inside a path are left as they are")
  func tildeRule() {
    let environment = ["HOME": "/home/me"]
    #expect(LocalPath.expandingTilde("~", environment: environment) == "/home/me")
    #expect(LocalPath.expandingTilde("~/x.sqlite", environment: environment) == "/home/me/x.sqlite")
    #expect(LocalPath.expandingTilde("~other/x", environment: environment) == "~other/x")
    #expect(LocalPath.expandingTilde("a/~/x", environment: environment) == "a/~/x")
    #expect(LocalPath.expandingTilde("~/x", environment: ["HOME": "/"]) == "/x")
  }
}
