import Foundation
import OfflineNews
import OfflineNewsHTTP
import Synchronization
import TestSupport
import Testing

@testable import OfflineNewsMicroHTTPD
@testable import OfflineNewsServer

/// newsboat (Debian `newsboat`), a real client of both APIs, run against `news serve`'s front door and handlers
/// over loopback with its own temporary configuration and cache: `newsboat -x reload` to sync, its cache
/// (`cache.db`, SQLite: `rss_feed`, `rss_item`) read back with the `sqlite3` program, and its interface driven in a
/// tmux pane to mark an article read through its sync.
enum Newsboat {
  /// Whether newsboat and sqlite3 are installed (the tests are skipped with a notice otherwise).
  static var available: Bool { ProgramRun.program("newsboat") != nil && ProgramRun.program("sqlite3") != nil }

  /// The account newsboat signs in with.
  static let user = "reader"
  /// Its password.
  static let password = "correct horse battery staple"

  /// `news serve` as a test runs it: the front door (``NewsServer``, with an account) on the libmicrohttpd
  /// transport, port chosen by the system.
  final class Server: Sendable {
    let running: MicroHTTPDServer
    /// Every request answered: method, path, status and the body's first 200 bytes (for failure messages).
    let requests = Recorder()

    /// Lines kept from any thread.
    final class Recorder: Sendable {
      let lines = Mutex<[String]>([])
    }
    var port: Int { running.port }
    var url: String { "http://127.0.0.1:\(port)" }

    init(_ library: ServedLibrary) throws {
      let hash = try #require(ServerCredentials.hash(password: Newsboat.password))
      let door = NewsServer(
        library: library,
        settings: NewsServer.Settings(credentials: ServerCredentials(user: Newsboat.user, passwordHash: hash)))
      let routed = door.handler
      let requests = self.requests
      running = try MicroHTTPDServer.start(host: "127.0.0.1", port: 0) { request in
        let response = await routed(request)
        let body = String(decoding: request.body.prefix(200), as: UTF8.self)
        requests.lines.withLock { $0.append("\(request.method) \(request.path) → \(response.status) \(body)") }
        return response
      }
    }

    func stop() async { await running.stop() }

    /// The requests answered so far, one a line.
    var log: String { requests.lines.withLock { $0.joined(separator: "\n") } }
  }

  /// One newsboat of its own: a configuration, an empty URL file, a cache, a home.
  struct Client {
    let directory = TemporaryDirectory("newsboat")
    var config: String { directory.path("config") }
    var cache: String { directory.path("cache.db") }
    var urls: String { directory.path("urls") }

    /// A newsboat with `urls-source "miniflux"` (or `"feedhq"`) at `server`, its address written with a trailing
    /// slash when `trailingSlash` (as newsboat's manual writes `miniflux-url`).
    init(_ mode: String, server: Server, trailingSlash: Bool = false) throws {
      let url = server.url + (trailingSlash ? "/" : "")
      let lines =
        mode == "miniflux"
        ? [
          "urls-source \"miniflux\"", "miniflux-url \"\(url)\"", "miniflux-login \"\(Newsboat.user)\"",
          "miniflux-password \"\(Newsboat.password)\"",
        ]
        : [
          "urls-source \"feedhq\"", "feedhq-url \"\(url)\"", "feedhq-login \"\(Newsboat.user)\"",
          "feedhq-password \"\(Newsboat.password)\"", "feedhq-min-items 100", "feedhq-show-special-feeds no",
        ]
      try (lines + ["show-read-feeds yes", "show-read-articles yes", "confirm-exit no", "cleanup-on-quit no"])
        .joined(separator: "\n").write(toFile: config, atomically: true, encoding: .utf8)
      try "".write(toFile: urls, atomically: true, encoding: .utf8)
    }

    /// newsboat's command line with this client's files.
    var arguments: [String] { ["-C", config, "-c", cache, "-u", urls] }

    /// `newsboat -x reload`: fetches every subscription and syncs the read state down.
    func reload() async throws -> ProgramRun {
      try await run(try #require(ProgramRun.program("newsboat")), arguments + ["-x", "reload"])
    }

    /// The rows of `sql` over the cache, fields split on tabs.
    func query(_ sql: String) async throws -> [[String]] {
      let outcome = try await run(try #require(ProgramRun.program("sqlite3")), ["-separator", "\t", cache, sql])
      #expect(outcome.status == 0, "sqlite3: \(outcome.err)")
      return outcome.out.split(separator: "\n").map {
        $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      }
    }

    /// Each item of the cache: title → (link, unread, pubDate in Unix seconds, guid, feed URL).
    func items() async throws -> [String: (link: String, unread: Bool, date: Int, guid: String, feed: String)] {
      var result: [String: (link: String, unread: Bool, date: Int, guid: String, feed: String)] = [:]
      for row in try await query("SELECT title, url, unread, pubDate, guid, feedurl FROM rss_item") where row.count == 6
      {
        result[row[0]] = (row[1], row[2] == "1", Int(row[3]) ?? 0, row[4], row[5])
      }
      return result
    }

    func run(_ program: String, _ arguments: [String]) async throws -> ProgramRun {
      try await ProgramRun.run(
        program, arguments,
        environment: ["HOME": directory.path(""), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb"])
    }
  }

  /// Whether tmux is installed too (for the tests that drive newsboat's interface).
  static var interactive: Bool { available && ProgramRun.program("tmux") != nil }

  /// newsboat's interface in a tmux pane of a tmux server of its own (`-L`), 100 × 30.
  final class Pane: Sendable {
    let tmux: String
    let socket = "newsboat-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let home: String

    /// Starts `newsboat` with `client`'s files in a new pane.
    init(_ client: Client) async throws {
      tmux = try #require(ProgramRun.program("tmux"))
      home = client.directory.path("")
      let newsboat = try #require(ProgramRun.program("newsboat"))
      let command =
        "env -i HOME='\(home)' PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=screen '\(newsboat)' "
        + client.arguments.map { "'\($0)'" }.joined(separator: " ")
      let started = try await run([
        "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "-s", "nb", command,
      ])
      #expect(started.status == 0, "tmux new-session: \(started.out) \(started.err)")
    }

    /// Runs tmux on ptys (a pipe would be inherited by the tmux server and never reach its end).
    func run(_ arguments: [String]) async throws -> PseudoTerminal.Outcome {
      try await PseudoTerminal.run(
        URL(fileURLWithPath: tmux), ["-L", socket] + arguments,
        environment: ["PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"], columns: 200, currentDirectory: home)
    }

    /// Types `keys` (tmux key names: `Enter`, `q`).
    func send(_ keys: String...) async throws { _ = try await run(["send-keys", "-t", "nb"] + keys) }

    /// The pane's text.
    func screen() async throws -> String { try await run(["capture-pane", "-p", "-t", "nb"]).out }

    /// The screen once it contains `text`, within 20 s; records an issue with the last screen otherwise.
    @discardableResult
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
      var last = ""
      for _ in 0..<400 {
        last = try await screen()
        if last.contains(text) { return last }
        try await Task.sleep(for: .milliseconds(50))
      }
      Issue.record("timed out waiting for \"\(text)\"; the screen:\n\(last)", sourceLocation: sourceLocation)
      return last
    }

    func kill() async { _ = try? await run(["kill-server"]) }

    /// The tmux server ends with the pane, whichever way the test ends (a failed expectation returns early).
    deinit { TmuxServer.end(tmux: tmux, socket: socket) }
  }

  /// Polls `condition` every 50 ms for at most `seconds`; whether it came to hold.
  static func eventually(seconds: Int = 20, _ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<(seconds * 20) {
      if try await condition() { return true }
      try await Task.sleep(for: .milliseconds(50))
    }
    return false
  }
}
