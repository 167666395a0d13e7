import Foundation
import OfflineNews
import TestSupport
import Testing

@testable import NewsCLI

/// `news` runs without the network (``NetworkStack/filesOnly``) and hands the commands that use it to
/// `news-online`: which commands those are, and what the files-only network still does.
@Suite struct NetworkHandOffTests {
  @Test("the commands handed to news-online are exactly fetch, sync, add and serve (not read), by their specs' names")
  func networkCommands() {
    #expect(
      NewsCommandLine.networkCommands == [
        FetchCommand.name, SyncCommand.name, AddCommand.name, ServeCommand.name,
      ])
    for command in CommandRegistry.commands.map({ $0.name }) {
      #expect(NewsCommandLine.usesNetwork([command, "--db", "x"]) == NewsCommandLine.networkCommands.contains(command))
    }
    #expect(!NewsCommandLine.usesNetwork([]))
    #expect(!NewsCommandLine.usesNetwork(["--help"]))
    #expect(!NewsCommandLine.usesNetwork(["help", "fetch"]))
  }

  @Test("without a network, the README's `news fetch` of the bundled file source still works, and list reads it")
  func filesOnlyFetchesFiles() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    let fetched = await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database, "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    let served = try #require(try fetched.json()["articles"] as? [[String: Any]])
    #expect(!served.isEmpty)
    #expect(try fetched.json()["origin"] as? String == "network")
    let listed = await cli.run("list", "--db", cli.database, "--json")
    #expect(listed.status == 0, "\(listed.err)")
    #expect((try listed.json()["articles"] as? [[String: Any]])?.count == served.count)
  }

  @Test("without a network, an http fetch is refused (78) with the command that builds news-online, cache or not")
  func filesOnlyRefusesHTTP() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    let url = "http://127.0.0.1:9/v2/top-headlines"
    let empty = await cli.run("fetch", "--url", url, "--db", cli.database)
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let cached = await cli.run("fetch", "--url", url, "--db", cli.database)
    for outcome in [empty, cached] {
      #expect(outcome.status == 78, "\(outcome.err)")
      #expect(outcome.err.contains("news fetch needs the network for \(url), and this news has none"), "\(outcome.err)")
      #expect(outcome.err.contains("news-online is not in \(NetworkProgram.executableFolder)"), "\(outcome.err)")
      #expect(outcome.err.contains("hint: build it: swift build --package-path"), "\(outcome.err)")
      #expect(outcome.err.contains("--product news-online"), "\(outcome.err)")
      #expect(!outcome.err.contains("network is back"), "\(outcome.err)")
    }
    // cache-only never asks the network: nothing to refuse.
    let cacheOnly = await cli.run("fetch", "--url", url, "--policy", "cache-only", "--db", cli.database)
    #expect(cacheOnly.status == 0, "\(cacheOnly.err)")
  }

  @Test("without a network, fetch --all, fetch --source, sync and add of http sources are refused alike (78)")
  func filesOnlyRefusesEveryNetworkCommand() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {"web": {"feed": "http://127.0.0.1:9/feed.xml"}}}"#.utf8).write(
      to: URL(fileURLWithPath: config))
    let runs: [(String, [String])] = [
      ("fetch", ["fetch", "--all"]), ("fetch", ["fetch", "--source", "web"]), ("sync", ["sync"]),
      ("add", ["add", "http://127.0.0.1:9/"]),
    ]
    for (command, words) in runs {
      let outcome = await cli.run(words + ["--config", config, "--db", cli.database])
      #expect(outcome.status == 78, "\(words): \(outcome.err)")
      #expect(outcome.err.contains("news \(command) needs the network for http://127.0.0.1:9/"), "\(outcome.err)")
      #expect(outcome.err.contains("--product news-online"), "\(outcome.err)")
    }
    // Nothing was fetched: not even a store was made, so a read command finds none (66).
    let listed = await cli.run("list", "--config", config, "--db", cli.database, "--json")
    #expect(listed.status == 66, "nothing was fetched: \(listed.err)")
    #expect(!FileManager.default.fileExists(atPath: cli.database))
  }

  @Test("the command that puts news-online beside news: swift build of the checkout, or a copy into an install folder")
  func installCommand() {
    #expect(
      NetworkProgram.installCommand(folder: "/src/news/.build/x86_64-unknown-linux-gnu/debug")
        == "swift build --package-path /src/news --product news-online")
    #expect(
      NetworkProgram.installCommand(folder: "/src/my news/.build/release")
        == "swift build -c release --package-path '/src/my news' --product news-online")
    #expect(
      NetworkProgram.installCommand(folder: "/usr/local/bin")
        == "swift build -c release --product news-online && cp .build/release/news-online /usr/local/bin/")
    #expect(
      NetworkProgram.hint(folder: "/usr/local/bin").hasPrefix("install it beside news, from the package folder: "))
  }
}
