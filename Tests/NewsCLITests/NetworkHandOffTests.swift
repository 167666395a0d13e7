import Foundation
import OfflineNews
import TestSupport
import Testing

@testable import NewsCLI

/// `news` runs without the network (``NetworkStack/filesOnly``) and hands the commands that use it to
/// `news-online`: which commands those are, and what the files-only network still does.
@Suite struct NetworkHandOffTests {
  @Test("the commands handed to news-online are exactly fetch, sync and add, by their specs' names")
  func networkCommands() {
    #expect(NewsCommandLine.networkCommands == [FetchCommand.name, SyncCommand.name, AddCommand.name])
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

  @Test("without a network, an http source fails as a transport error naming news-online, and the cache is served")
  func filesOnlyRefusesHTTP() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    #expect(await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database).status == 0)
    let outcome = await cli.run("fetch", "--url", "http://127.0.0.1:9/v2/top-headlines", "--db", cli.database)
    #expect(outcome.status == 69, "\(outcome.err)")
    #expect(outcome.err.contains("news-online"), "\(outcome.err)")
  }
}
