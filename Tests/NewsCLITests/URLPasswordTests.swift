import Foundation
import OfflineNews
import OfflineNewsModel
import TestSupport
import Testing

/// A feed behind HTTP Basic authentication, its credentials in its URL (`http://user:password@host/feed`, as
/// newsboat's urls file and curl take them): the requests send them, and no output shows the password — not the
/// report, `--json`, `news sources`, `news stats`, `news add` or an error (RFC 3986 §3.2.1; tester11 item 8).
@Suite("URL passwords: sent, never shown")
struct URLPasswordTests {
  /// The password as the URL writes it, and as it is sent.
  static let written = "pa%40ss"
  static let decoded = "pa@ss"

  /// A server that answers `/feed` with an RSS feed and `/missing` with `404`, but only to requests with the
  /// Basic credentials `user` / `pa@ss`; any other request is `401`.
  static func server() throws -> LoopbackHTTPServer {
    let server = try LoopbackHTTPServer(.respond(status: 500, body: Data()))
    let expected = "Basic " + Data("user:\(decoded)".utf8).base64EncodedString()
    server.router = { request in
      guard request.header("Authorization") == expected else {
        return .respond(status: 401, headers: ["WWW-Authenticate": #"Basic realm="feeds""#], body: Data())
      }
      if request.target.hasPrefix("/missing") { return .respond(status: 404, body: Data()) }
      return .respond(
        status: 200, headers: ["Content-Type": "application/rss+xml"], body: MovedFeedTests.rss("auth"))
    }
    return server
  }

  /// `url` with the credentials `user` and `password` (as written) in its userinfo.
  static func withCredentials(_ url: URL, password: String = written) -> String {
    url.absoluteString.replacingOccurrences(of: "http://", with: "http://user:\(password)@")
  }

  /// A command line with an empty subscription list: the harness, the list's path, and the options every command
  /// of the test takes (`--config`, `--db`).
  static func emptyList() throws -> (cli: CLIHarness, config: String, common: [String]) {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try #"{"sources": {}, "timeoutSeconds": 5}"#.write(toFile: config, atomically: true, encoding: .utf8)
    return (cli, config, ["--config", config, "--db", cli.database])
  }

  /// Records that no output of `outcome` holds the password, in either spelling, nor any of `others`.
  static func expectNoPassword(_ outcome: CLIHarness.Outcome, _ what: String, others: [String] = []) {
    for secret in [written, decoded] + others {
      #expect(!outcome.out.contains(secret), "\(what): \(outcome.out)")
      #expect(!outcome.err.contains(secret), "\(what): \(outcome.err)")
    }
  }

  @Test("fetch --url, add, fetch --all, sources, stats: the feed is read with its credentials, no output shows them")
  func readWithCredentialsShownWithout() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let (cli, config, common) = try Self.emptyList()
    let feed = Self.withCredentials(server.url("/feed"))

    let fetched = await cli.run(["fetch", "--url", feed] + common)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.out.contains("http://user:***@127.0.0.1:\(server.port)/feed"), "\(fetched.out)")
    Self.expectNoPassword(fetched, "fetch --url")
    let json = await cli.run(["fetch", "--url", feed, "--json"] + common)
    #expect(json.status == 0, "\(json.err)")
    let fetchedArticles = articles(try json.json())
    #expect(fetchedArticles.count == 1)
    Self.expectNoPassword(json, "fetch --url --json")
    let handle = try #require(fetchedArticles.first?["handle"] as? String)
    let shown = await cli.run(["show", handle] + common)
    #expect(shown.status == 0, "\(shown.err)")
    #expect(shown.out.contains("source http://user:***@127.0.0.1"), "\(shown.out)")
    Self.expectNoPassword(shown, "show")

    let added = await cli.run(["add", feed, "--name", "Private"] + common)
    #expect(added.status == 0, "\(added.err)")
    Self.expectNoPassword(added, "add")
    #expect(try String(contentsOfFile: config, encoding: .utf8).contains(Self.written), "the list keeps them")
    for arguments in [
      ["fetch", "--all"], ["fetch", "--all", "--json"], ["fetch", "--source", "Private"], ["sources"],
      ["sources", "--json"], ["stats"], ["stats", "--json"], ["list", "--json"],
    ] {
      let outcome = await cli.run(arguments + common)
      #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
      Self.expectNoPassword(outcome, arguments.joined(separator: " "))
    }
    let authorized = server.requests.filter { $0.header("Authorization")?.hasPrefix("Basic ") == true }
    #expect(authorized.count == server.requests.count && !authorized.isEmpty, "every request sent the credentials")
  }

  @Test("a 404 and a 401 of a URL with credentials: the error names the URL without its password")
  func errorsWithoutPassword() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let (cli, _, common) = try Self.emptyList()
    let missing = Self.withCredentials(server.url("/missing"))
    let refused = Self.withCredentials(server.url("/feed"), password: "wrong")
    for (url, status) in [(missing, "404"), (refused, "401")] {
      for arguments in [["fetch", "--url", url], ["fetch", "--url", url, "--json"], ["add", url]] {
        let outcome = await cli.run(arguments + common)
        #expect(outcome.status != 0, "\(arguments)")
        #expect(outcome.err.contains(status), "\(arguments): \(outcome.err)")
        #expect(outcome.err.contains("user:***@127.0.0.1"), "\(arguments): \(outcome.err)")
        Self.expectNoPassword(outcome, arguments.joined(separator: " "), others: ["user:wrong"])
      }
    }
  }

  @Test("an imported feed with no title is named by its URL without the password, then after its feed's title")
  func untitledImport() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let (cli, config, common) = try Self.emptyList()
    let list = cli.directory.path("list.opml")
    let feed = Self.withCredentials(server.url("/feed"))
    try #"<?xml version="1.0"?><opml version="2.0"><head/><body><outline type="rss" xmlUrl="\#(feed)"/></body></opml>"#
      .write(toFile: list, atomically: true, encoding: .utf8)
    let imported = await cli.run(["import", list] + common)
    #expect(imported.status == 0, "\(imported.err)")
    Self.expectNoPassword(imported, "import")
    let named = await cli.run(["sources", "--json"] + common)
    #expect(
      named.out.contains(#""name":"http:\/\/user:***@127.0.0.1"#)
        || named.out.contains(#""name":"http://user:***@127.0.0.1"#), "\(named.out)")
    let fetched = await cli.run(["fetch", "--all"] + common)
    #expect(fetched.status == 0, "\(fetched.err)")
    Self.expectNoPassword(fetched, "fetch --all")
    let sources = await cli.run(["sources", "--json"] + common)
    let entries = try #require(try sources.json()["sources"] as? [[String: Any]])
    #expect(entries.map { $0["name"] as? String } == ["auth"], "named after its feed's title")
    Self.expectNoPassword(sources, "sources --json")
    #expect(try String(contentsOfFile: config, encoding: .utf8).contains(Self.written), "the list keeps them")
  }

  @Test("a source an older build named by its URL with the password: sources and fetch --all text show it without")
  func olderNameShownWithout() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    // The name as builds before the display rule wrote it (an untitled import of an OPML list or urls file).
    let feed = Self.withCredentials(server.url("/feed"))
    try #"{"sources": {"\#(feed)": {"feed": "\#(feed)"}}, "timeoutSeconds": 5}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    let common = ["--config", config, "--db", cli.database]
    let sources = await cli.run(["sources"] + common)
    #expect(sources.status == 0 && sources.out.contains("user:***@"), "\(sources.out)")
    Self.expectNoPassword(sources, "sources")
    let fetched = await cli.run(["fetch", "--all"] + common)
    #expect(fetched.status == 0, "\(fetched.err)")
    Self.expectNoPassword(fetched, "fetch --all")
  }
}
