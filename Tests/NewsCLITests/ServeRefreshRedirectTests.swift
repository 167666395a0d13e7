import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `news serve` listening beyond loopback refreshes its sources without following a redirect to another host on its
/// own machine or network (a feed that moved to `localhost` after it was subscribed); on loopback, as `news fetch`,
/// it follows it. Before, every refresh of the server followed the redirect wherever it went.
@Suite("news serve's refreshes beyond loopback", .serialized)
struct ServeRefreshRedirectTests {
  static let rss = Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0"><channel><title>Inside</title><link>https://in.example/</link>
    <item><title>Inside</title><link>https://in.example/1</link></item></channel></rss>
    """.utf8)

  /// Runs `news serve --listen listen` with a feed that redirects to `localhost`, until its first refresh is logged;
  /// returns that line's count of failures and whether the redirect's target was asked.
  private func firstRefresh(listen: String) async throws -> (log: String, asked: Bool) {
    let inside = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss))
    let feed = try LoopbackHTTPServer(
      .respond(status: 302, headers: ["Location": "http://localhost:\(inside.port)/feed.xml"], body: Data()))
    defer {
      feed.stop()
      inside.stop()
    }
    let directory = TemporaryDirectory("serve-redirect")
    let config = directory.path("news.json")
    try Data(#"{"sources": {"moved": {"feed": "\#(feed.url("/feed.xml").absoluteString)"}}}"#.utf8)
      .write(to: URL(fileURLWithPath: config))
    let set = try ServeCommandTests.Run(
      ["serve", "--set-password", "alice", "--config", config], in: directory, input: "long enough")
    await set.child.exited()
    #expect(set.child.terminationStatus == 0, "\(set.errors)")
    let run = try ServeCommandTests.Run(
      ["serve", "--listen", listen, "--refresh", "1h", "--db", directory.path("news.sqlite"), "--config", config],
      in: directory)
    _ = try await run.port()
    for _ in 0..<1_000 where !run.errors.contains("refreshed 1 sources") {
      try await Task.sleep(for: .milliseconds(20))
    }
    kill(run.child.processIdentifier, SIGTERM)
    await run.child.exited()
    return (run.errors, !inside.requests.isEmpty)
  }

  @Test func beyondLoopbackARedirectToTheMachineIsNotFollowed() async throws {
    guard CrashSafetyTests.newsBinary != nil else {
      print("notice: the news executable is not built beside the tests; skipped")
      return
    }
    let beyond = try await firstRefresh(listen: "0.0.0.0:0")
    #expect(beyond.log.contains("news serve: refreshed 1 sources, 1 failed"), "\(beyond.log)")
    #expect(!beyond.asked, "the redirect to localhost was not followed")
    let loopback = try await firstRefresh(listen: "127.0.0.1:0")
    #expect(loopback.log.contains("news serve: refreshed 1 sources, 0 failed"), "\(loopback.log)")
    #expect(loopback.asked)
  }
}
