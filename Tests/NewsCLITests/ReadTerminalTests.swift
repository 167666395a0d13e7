import Foundation
import OfflineNewsStorage
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `news read` in a real terminal: the built `news` runs in a tmux pane (`new-session -x 100 -y 30`), driven with
/// `send-keys` and read back with `capture-pane -p`, on a store fetched from our own small feeds. Skipped, and
/// reported as skipped, where tmux is not installed (Debian: `apt-get install tmux`).
@Suite(
  "news read in a tmux pane", .serialized,
  .enabled(if: TmuxProgram.path != nil, "SKIPPED: tmux is not installed (apt-get install tmux); news read is untested"))
struct ReadTerminalTests {
  static var tmux: String? { TmuxProgram.path }

  /// A store with two configured feed sources: `harbour` (our HTML feed, in the folder Coast) and `wide` (titles
  /// and a channel name in CJK, Hangul and emoji).
  struct Store {
    let directory = TemporaryDirectory("news-read")
    let news: URL
    var config: String { directory.path("news.json") }
    var database: String { directory.path("news.sqlite") }
    var wideFeed: String { directory.path("wide.rss") }

    init() async throws {
      news = try #require(CrashSafetyTests.newsBinary, "the news executable is built beside the tests")
      let harbour = Fixtures.own("feeds/html-text.rss").path
      try Self.writeWideFeed(to: wideFeed, extra: false)
      let configuration = """
        {"sources": {
          "harbour": {"file": "\(harbour)", "folder": "Coast"},
          "wide": {"file": "\(wideFeed)"}
        }}
        """
      try Data(configuration.utf8).write(to: URL(fileURLWithPath: config))
      let fetched = try await run(["fetch", "--all"])
      #expect(fetched.status == 0, "\(fetched.err)")
    }

    static func writeWideFeed(to path: String, extra: Bool) throws {
      var items = [
        ("東京の桜が満開に 🌸", "https://wide.example/sakura", "Wed, 25 Nov 2026 09:00:00 +0000"),
        ("서울 지하철 새 노선 개통", "https://wide.example/seoul", "Tue, 24 Nov 2026 09:00:00 +0000"),
        ("Emoji 🎉 party in the harbour", "https://wide.example/party", "Mon, 23 Nov 2026 09:00:00 +0000"),
      ]
      if extra {
        items.insert(
          ("Late edition arrives while reading", "https://wide.example/late", "Thu, 26 Nov 2026 09:00:00 +0000"), at: 0)
      }
      let body = items.map { title, link, date in
        "<item><title>\(title)</title><link>\(link)</link><guid>\(link)</guid><pubDate>\(date)</pubDate>"
          + "<description>&lt;p&gt;Story of \(title).&lt;/p&gt;</description></item>"
      }.joined(separator: "\n")
      let feed = """
        <?xml version="1.0" encoding="utf-8"?>
        <rss version="2.0"><channel><title>日本のニュース</title><link>https://wide.example/</link>
        <description>wide</description>
        \(body)
        </channel></rss>
        """
      try Data(feed.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `news ARGUMENTS… --config … --db …`, its output collected.
    func run(_ arguments: [String]) async throws -> PseudoTerminal.Outcome {
      try await PseudoTerminal.run(
        news, arguments + ["--config", config, "--db", database],
        environment: ["HOME": directory.path("home"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], columns: 200,
        currentDirectory: directory.path(""))
    }

    /// The URLs `news list --unread --json` lists.
    func unreadURLs() async throws -> Set<String> {
      let outcome = try await run(["list", "--unread", "--json"])
      let object = try JSONSerialization.jsonObject(with: Data(outcome.out.utf8)) as? [String: Any]
      let articles = try #require(object?["articles"] as? [[String: Any]], "\(outcome.out) \(outcome.err)")
      return Set(articles.compactMap { $0["url"] as? String })
    }

    /// The command line that starts `news read` in the pane.
    func readCommand(_ options: String = "") -> String {
      "\(news.path) read \(options) --config '\(config)' --db '\(database)'"
    }
  }

  /// A tmux server of its own (`-L`), one session running `sh`.
  final class Pane: Sendable {
    let tmux: String
    let socket = "news-read-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let directory: String

    init(tmux: String, directory: String, width: Int = 100, height: Int = 30) async throws {
      self.tmux = tmux
      self.directory = directory
      let shell = "env -i HOME='\(directory)' PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=screen PS1='ready$ ' sh"
      let started = try await command([
        "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", "read", shell,
      ])
      #expect(started.status == 0, "tmux new-session: \(started.out) \(started.err)")
      _ = try await waitFor("the shell's prompt") { $0.contains("ready$") }
    }

    func command(_ arguments: [String]) async throws -> PseudoTerminal.Outcome {
      try await PseudoTerminal.run(
        URL(fileURLWithPath: tmux), ["-L", socket] + arguments,
        environment: ["PATH": "/usr/bin:/bin", "HOME": directory, "LANG": "C.UTF-8"], columns: 200,
        currentDirectory: directory)
    }

    /// Types `keys` (tmux key names: `Enter`, `Down`, `C-c`, or literal text with `literal`).
    func send(_ keys: String..., literal: Bool = false) async throws {
      _ = try await command(["send-keys", "-t", "read"] + (literal ? ["-l"] : []) + keys)
    }

    func type(_ line: String) async throws {
      try await send(line, literal: true)
      try await send("Enter")
    }

    /// The pane's text, one string per row.
    func screen() async throws -> [String] {
      let outcome = try await command(["capture-pane", "-p", "-t", "read"])
      return outcome.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The screen once `condition` holds, within 10 s; fails the test with the last screen otherwise.
    @discardableResult
    func waitFor(
      _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([String]) -> Bool
    ) async throws -> [String] {
      var last: [String] = []
      for _ in 0..<200 {
        last = try await screen()
        if condition(last) { return last }
        try await Task.sleep(for: .milliseconds(50))
      }
      Issue.record(
        "timed out waiting for \(what); the screen:\n\(last.joined(separator: "\n"))", sourceLocation: sourceLocation)
      return last
    }

    @discardableResult
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
      try await waitFor("\"\(text)\"", sourceLocation: sourceLocation) { $0.joined(separator: "\n").contains(text) }
    }

    func kill() async {
      _ = try? await command(["kill-server"])
    }

    /// Ends the tmux server now, waiting for it: what a test's `defer` calls, since a task started there may never
    /// run before the test process exits, which left a tmux server behind per test.
    func killNow() { TmuxServer.end(tmux: tmux, socket: socket) }

    deinit { killNow() }
  }

  /// Display columns, as a terminal counts them: CJK, Hangul, fullwidth forms and emoji 2, combining marks 0.
  static func columns(_ text: some StringProtocol) -> Int {
    text.unicodeScalars.reduce(0) { total, scalar in
      let value = scalar.value
      if scalar.properties.generalCategory == .nonspacingMark || value == 0xFE0F || value == 0x200D { return total }
      let wide =
        (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
        || (0xF900...0xFAFF).contains(value) || (0xFF00...0xFF60).contains(value) || (0x1F300...0x1F64F).contains(value)
        || (0x1F900...0x1F9FF).contains(value)
      return total + (wide ? 2 : 1)
    }
  }

  /// The display column where `needle` starts in `line`.
  static func column(of needle: String, in line: String) -> Int? {
    line.range(of: needle).map { columns(line[..<$0.lowerBound]) }
  }

  @Test("sources, a list, an article, read marks, search, help, a resize and a clean quit, in a 100×30 pane")
  func navigate() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let unreadBefore = try await store.unreadURLs()
    #expect(unreadBefore.count == 5, "\(unreadBefore)")
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("stty -a > before.txt")
    try await pane.type(store.readCommand())

    // The sources: every article, the folder with its source, the source in no folder; unread counts.
    // The counts are read after the first screen is drawn (a row shows "…" until then): wait for them too.
    var screen = try await pane.waitFor("sources with their counts") {
      $0.joined().contains("news read — sources") && $0.joined().contains("wide")
        && $0.joined().contains("(5 unread of 5)")
    }
    let text = screen.joined(separator: "\n")
    #expect(text.contains("All articles"))
    #expect(text.contains("▾ Coast"))
    #expect(text.contains("(5 unread of 5)"), "\(text)")
    #expect(screen.first { $0.contains("All articles") }?.contains("5/5") == true, "\(text)")
    #expect(screen.first { $0.contains("wide") }?.contains("3/3") == true, "\(text)")
    #expect(screen.count >= 30 && screen[29].contains("q:Quit"), "the key line is the last row: \(screen)")

    // All articles: newest first, unread marked, the titles aligned in one column whatever the sources' widths.
    try await pane.send("Enter")
    screen = try await pane.waitFor("the list of every article") {
      $0.joined().contains("東京の桜が満開に") && $0.joined().contains("Keeper")
    }
    let rows = screen.filter { $0.hasPrefix("N") }
    #expect(rows.count == 5, "\(screen.joined(separator: "\n"))")
    let titleColumns = rows.compactMap { row in
      ["東京", "서울", "Emoji", "Keeper", "Tide"].lazy.compactMap { Self.column(of: $0, in: row) }.first
    }
    #expect(titleColumns.count == 5 && Set(titleColumns).count == 1, "titles start in one column: \(rows)")
    #expect(screen.allSatisfy { Self.columns($0) <= 100 }, "\(screen)")
    let order = rows.map { row in ["東京", "서울", "Emoji"].first { row.contains($0) } ?? "harbour" }
    #expect(Array(order.prefix(3)) == ["東京", "서울", "Emoji"], "newest first: \(rows)")

    // Open the first article: rendered as news show renders it; opening marks it read.
    try await pane.send("Enter")
    screen = try await pane.waitFor("the article") { $0.joined().contains("Story of 東京の桜が満開に") }
    #expect(screen.joined().contains("link   https://wide.example/sakura"))
    #expect(screen.joined().contains("(1 of 5)"))
    // n: the next unread article.
    try await pane.send("n")
    try await pane.waitFor("Story of 서울 지하철 새 노선 개통")
    // q: back to the list, where both read articles lost their N, and N marks the third read.
    try await pane.send("q")
    screen = try await pane.waitFor("the list again") { $0.filter { $0.hasPrefix("N") }.count == 3 }
    try await pane.send("j")
    try await pane.send("N")
    screen = try await pane.waitFor("the third marked read") { $0.filter { $0.hasPrefix("N") }.count == 2 }

    // Search: / opens a prompt, ENTER lists the hits.
    try await pane.send("/")
    try await pane.send("lighthouse", literal: true)
    try await pane.send("Enter")
    screen = try await pane.waitFor("the search's hits") {
      $0.joined().contains("Search: lighthouse") && $0.joined().contains("Keeper")
    }
    #expect(!screen.joined().contains("東京"), "only hits: \(screen)")

    // Help over it, any key closes it.
    try await pane.send("?")
    try await pane.waitFor("toggle read / unread")
    try await pane.send("x")
    try await pane.waitFor("Search: lighthouse")

    // Resize: 60×20, everything redrawn within it, the key line on the new last row; and back.
    _ = try await pane.command(["resize-window", "-t", "read", "-x", "60", "-y", "20"])
    screen = try await pane.waitFor("the redraw at 60×20") { screen in
      screen.count >= 20 && screen[19].contains("q:Back") && screen.allSatisfy { Self.columns($0) <= 60 }
    }
    #expect(screen.prefix(20).allSatisfy { Self.columns($0) <= 60 })
    _ = try await pane.command(["resize-window", "-t", "read", "-x", "100", "-y", "30"])
    try await pane.waitFor("the redraw at 100×30") { $0.count >= 30 && $0[29].contains("q:Back") }

    // q closes the hits onto the list the search began on (All articles, as newsboat does), q back to the sources
    // (counts updated: three read), q quits; the shell works and stty is as before.
    try await pane.send("q")
    try await pane.waitFor("the list the search began on") {
      $0.joined().contains("All articles") && $0.joined().contains("東京の桜が満開に")
    }
    try await pane.send("q")
    try await pane.waitFor("the sources with new counts") { $0.joined().contains("(2 unread of 5)") }
    try await pane.send("q")
    try await pane.waitFor("the prompt after quitting") {
      $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") }
    }
    try await pane.type("stty -a > after.txt; cmp before.txt after.txt && echo SAME-$((40+2))")
    try await pane.waitFor("SAME-42")

    // The store has the marks.
    let unread = try await store.unreadURLs()
    #expect(!unread.contains("https://wide.example/sakura"))
    #expect(!unread.contains("https://wide.example/seoul"))
    #expect(!unread.contains("https://wide.example/party"))
    #expect(unread.count == 2, "\(unread)")
  }

  @Test("the open list updates itself when another news fetch saves new articles")
  func observedList() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand("--source wide --unread"))
    try await pane.waitFor("the source's list") {
      $0.joined().contains("news read — wide") && $0.joined().contains("서울")
    }
    try Store.writeWideFeed(to: store.wideFeed, extra: true)
    let fetched = try await store.run(["fetch", "--source", "wide"])
    #expect(fetched.status == 0, "\(fetched.err)")
    let screen = try await pane.waitFor("the new article at the top") { $0.joined().contains("Late edition arrives") }
    let rows = screen.filter { $0.hasPrefix("N") }
    #expect(rows.first?.contains("Late edition") == true, "\(rows)")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("r reloads the list's source in the background, the list takes the new article; A marks the source read")
  func reloadAndMarkAll() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("sh -c 'echo $$ > reader.pid; exec \(store.readCommand("--source wide"))'")
    try await pane.waitFor("the source's list") {
      $0.joined().contains("news read — wide") && $0.joined().contains("서울")
    }
    // The reader is `news` itself, without the network: no FoundationNetworking, no libcurl mapped (a reload runs
    // in a child `news fetch`).
    let pidText = try String(contentsOfFile: store.directory.path("reader.pid"), encoding: .utf8)
    let pid = pidText.trimmingCharacters(in: .whitespacesAndNewlines)
    let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    #expect(executable == store.news.resolvingSymlinksInPath().path, "\(executable)")
    let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
    #expect(!maps.contains("libcurl") && !maps.contains("FoundationNetworking"), "\(maps)")
    try Store.writeWideFeed(to: store.wideFeed, extra: true)
    try await pane.send("r")
    let screen = try await pane.waitFor("the reload's article and its line") {
      $0.joined().contains("Late edition arrives") && $0.joined().contains("reloaded 1 source: 1 new")
    }
    #expect(screen.filter { $0.hasPrefix("N") }.first?.contains("Late edition") == true, "\(screen)")
    try await pane.send("A")
    _ = try await pane.waitFor("the question") { $0.joined().contains("read? y/n") }
    try await pane.send("y")
    try await pane.waitFor("every article of the source read") {
      $0.joined().contains("marked read") && $0.filter { $0.hasPrefix("N") }.isEmpty
    }
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
    let unread = try await store.unreadURLs()
    #expect(!unread.contains { $0.hasPrefix("https://wide.example/") }, "\(unread)")
  }

  @Test("R names an untitled subscription after its feed: its row takes the name, with its counts and articles")
  func reloadRenamesUntitledRow() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let server = try UntitledFeedTests.server()
    let alpha = server.url("/alpha.xml").absoluteString
    // A subscription named by its URL, as `news import` of newsboat's urls file or of an OPML list leaves one.
    let configuration = """
      {"sources": {
        "wide": {"file": "\(store.wideFeed)"},
        "\(alpha)": {"feed": "\(alpha)"}
      }}
      """
    try Data(configuration.utf8).write(to: URL(fileURLWithPath: store.config))
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand())
    try await pane.waitFor("the untitled subscription's row") {
      $0.joined().contains("news read — sources") && $0.joined().contains("alpha.xml")
    }
    try await pane.send("R")
    let screen = try await pane.waitFor("the row under the feed's title, with its two articles") {
      $0.joined().contains("reloaded 2 sources") && $0.contains { $0.contains("Alpha feed") && $0.hasSuffix("2/2") }
    }
    #expect(!screen.joined().contains("alpha.xml"), "\(screen)")
    // Its list is the renamed source's: the articles saved under the new name.
    try await pane.send("j")
    try await pane.send("Enter")
    try await pane.waitFor("news read — Alpha feed (2 articles, 2 unread)")
    try await pane.send("q")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("a rename moves the row: the selection follows its source; a list open on it takes the name and reloads")
  func renameWhileListOpen() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let server = try UntitledFeedTests.server()
    let beta = server.url("/beta.xml").absoluteString
    let harbour = Fixtures.own("feeds/html-text.rss").path
    // Rows: All articles, coast, the URL, wide; after the rename "Beta feed" sorts before coast.
    let configuration = """
      {"sources": {
        "wide": {"file": "\(store.wideFeed)"},
        "coast": {"file": "\(harbour)"},
        "\(beta)": {"feed": "\(beta)"}
      }}
      """
    try Data(configuration.utf8).write(to: URL(fileURLWithPath: store.config))
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand())
    try await pane.waitFor("the untitled subscription's row") {
      $0.joined().contains("news read — sources") && $0.joined().contains("beta.xml")
    }
    try await pane.send("j")
    try await pane.send("j")
    try await pane.send("Enter")
    try await pane.waitFor("its list, nothing fetched yet") { $0.joined().contains("beta.xml (0 articles") }
    try await pane.send("r")
    try await pane.waitFor("the open list under the feed's title, with its articles") {
      $0.joined().contains("news read — Beta feed (2 articles, 2 unread)")
    }
    // Its reload is the renamed source's.
    try await pane.send("r")
    try await pane.waitFor("the list reloaded again") { $0.joined().contains("reloaded 1 source: 0 new") }
    try await pane.send("q")
    try await pane.waitFor("the sources") { $0.joined().contains("news read — sources") }
    try await pane.send("Enter")
    try await pane.waitFor("the selection on the renamed row") {
      $0.joined().contains("news read — Beta feed (2 articles")
    }
    try await pane.send("q")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("a folder collapsed when the reader quits is collapsed at its next start, kept beside the store")
  func collapsedFoldersKept() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    let state = store.database + "-read.json"
    try await pane.type(store.readCommand())
    try await pane.waitFor("Coast expanded") { $0.joined().contains("▾ Coast") && $0.joined().contains("harbour") }
    try await pane.send("j")
    try await pane.send("-")
    try await pane.waitFor("Coast collapsed") { $0.joined().contains("▸ Coast") }
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
    let saved = try String(contentsOfFile: state, encoding: .utf8)
    #expect(saved == #"{"collapsedFolders":["Coast"]}"#)
    try await pane.type("clear; " + store.readCommand())
    var screen = try await pane.waitFor("Coast collapsed again") {
      $0.joined().contains("▸ Coast") && $0.joined().contains("unread of")
    }
    #expect(!screen.joined().contains("harbour"), "\(screen)")
    try await pane.send("j")
    try await pane.send("+")
    screen = try await pane.waitFor("Coast expanded") { $0.joined().contains("▾ Coast") }
    #expect(screen.joined().contains("harbour"), "\(screen)")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
    #expect(try String(contentsOfFile: state, encoding: .utf8) == #"{"collapsedFolders":[]}"#)
  }

  @Test("the open list's title counts follow another shell's news delete, read with its rows (not the row's, stale)")
  func countsFollowADelete() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand())
    try await pane.waitFor("the sources with their counts") { $0.joined().contains("(5 unread of 5)") }
    try await pane.send("Enter")
    try await pane.waitFor("All articles, 5 of them") {
      $0.first?.contains("All articles (5 articles, 5 unread)") == true && $0.joined().contains("Keeper")
    }
    // Another shell deletes harbour's two (20 and 21 November): the rows and the title's counts go together.
    let deleted = try await store.run(["delete", "--before", "2026-11-22T00:00:00Z"])
    #expect(deleted.status == 0, "\(deleted.err)")
    let screen = try await pane.waitFor("the list without them") {
      !$0.joined().contains("Keeper") && $0.filter { $0.hasPrefix("N") }.count == 3
    }
    let title = try await pane.waitFor("the title's counts of three") {
      $0.first?.contains("All articles (3 articles, 3 unread)") == true
    }
    #expect(!(title.first ?? "").contains("of 5"), "\(screen)")
    try await pane.send("q")
    try await pane.waitFor("the sources' counts of three") { $0.joined().contains("(3 unread of 3)") }
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("a file imported without a subscription has its row below the sources, as news sources lists it")
  func importedFileRow() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let file = store.directory.path("saved-headlines.json")
    try Data(
      #"""
      {"status": "ok", "totalResults": 2, "articles": [
        {"source": {"id": null, "name": "Gazette"}, "title": "Imported story one", "url": "https://gazette.example/1",
         "publishedAt": "2026-11-10T09:00:00Z"},
        {"source": {"id": null, "name": "Gazette"}, "title": "Imported story two", "url": "https://gazette.example/2",
         "publishedAt": "2026-11-11T09:00:00Z"}]}
      """#.utf8
    ).write(to: URL(fileURLWithPath: file))
    let imported = try await store.run(["import", file])
    #expect(imported.status == 0, "\(imported.err)")
    let sources = try await store.run(["sources"])
    #expect(sources.out.contains("saved-headlines.json"), "news sources lists it: \(sources.out)")
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand())
    var screen = try await pane.waitFor("the file's row with its counts") {
      $0.contains { $0.contains("saved-headlines.json") && $0.contains("2/2") }
        && $0.joined().contains("(7 unread of 7)")
    }
    // Its row is the last: below the configured sources.
    let rows = screen.filter { $0.contains("wide") || $0.contains("saved-headlines.json") }
    #expect(rows.last?.contains("saved-headlines.json") == true, "\(screen)")
    try await pane.send("G")
    try await pane.send("Enter")
    screen = try await pane.waitFor("the file's articles") {
      $0.joined().contains("Imported story one") && $0.joined().contains("Imported story two")
    }
    #expect(screen.filter { $0.hasPrefix("N") }.count == 2, "only the file's: \(screen)")
    try await pane.send("r")
    try await pane.waitFor("nothing to reload: no configured source here")
    try await pane.send("q")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("o hands the article's link to $NEWS_OPENER and the reader carries on")
  func opener() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let opener = store.directory.path("opener.sh")
    let opened = store.directory.path("opened.txt")
    try Data("#!/bin/sh\necho \"$1\" >> '\(opened)'\n".utf8).write(to: URL(fileURLWithPath: opener))
    #expect(chmod(opener, 0o755) == 0)
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("NEWS_OPENER='\(opener)' " + store.readCommand("--source wide"))
    try await pane.waitFor("news read — wide")
    try await pane.send("o")
    try await pane.waitFor("opened https://wide.example/sakura")
    let text = try String(contentsOfFile: opened, encoding: .utf8)
    #expect(text == "https://wide.example/sakura\n")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
  }

  @Test("without a terminal news read refuses with 64 and says what prints the same articles")
  func notATerminal() async throws {
    let store = try await Store()
    // Standard input is /dev/null: not a terminal.
    let outcome = try await store.run(["read"])
    #expect(outcome.status == 64, "\(outcome.err)")
    #expect(outcome.err.contains("news read needs a terminal"), "\(outcome.err)")
  }

  @Test("TERM=dumb (no cursor addressing) is refused with 78 and a message, not drawn as one garbled line")
  func dumbTerminal() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("TERM=dumb " + store.readCommand("") + "; echo status=$?")
    try await pane.waitFor("the refusal") { $0.joined().contains("status=78") }
    let screen = try await pane.screen().joined(separator: "\n")
    #expect(screen.contains("cannot move the cursor"), "\(screen)")
  }

  @Test("a store of an older schema migrated at the reader's first write: the notice waits until the screen is back")
  func migrationNoticeWaitsForTheScreen() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    // One version back: migration 21 adds its column only when missing, so it runs again here as on an old store.
    let raw = try Connection(path: store.database)
    try raw.execute("PRAGMA user_version = 20", [])
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand("--source wide") + "; echo status=$?")
    try await pane.waitFor("日本のニュース")
    let before = try await pane.screen()
    // N: the first write, and the migration with it.
    try await pane.send("N")
    let after = try await pane.waitFor("the row marked read") { rows in
      rows.filter { $0.hasPrefix("N") }.count == before.filter { $0.hasPrefix("N") }.count - 1
    }
    #expect(!after.joined().contains("updating the store"), "written over the reader's screen: \(after)")
    #expect(after.first?.hasPrefix("news read — wide") == true, "the screen scrolled: \(after)")
    try await pane.send("q")
    let shell = try await pane.waitFor("status=0")
    #expect(
      shell.joined().contains("news: updating the store from schema version 20 to \(StorageContext.schemaVersion)"),
      "\(shell)")
  }

  @Test(
    "a read-only store opens, says read marks are not saved, and changes nothing",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func readOnlyStore() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let before = try Data(contentsOf: URL(fileURLWithPath: store.database))
    try #require(FaultCapabilities.makeReadOnly(store.database), "could not make \(store.database) read-only")
    defer { FaultCapabilities.undoReadOnly(store.database) }
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type(store.readCommand("--source wide"))
    try await pane.waitFor("read-only store: read marks and bookmarks are not saved")
    try await pane.send("Enter")
    try await pane.waitFor("not saved: the store is read-only")
    try await pane.send("q")
    try await pane.send("q")
    try await pane.waitFor("the prompt") { $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") } }
    #expect(try await store.unreadURLs().count == 5)
    #expect(try Data(contentsOf: URL(fileURLWithPath: store.database)) == before)
  }

  @Test("Ctrl-C and SIGTERM end the reader with 130 and 143 and give the terminal back")
  func signals() async throws {
    let tmux = try #require(Self.tmux)
    let store = try await Store()
    let pane = try await Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("stty -a > before.txt")
    try await pane.type(store.readCommand() + "; echo status=$?")
    try await pane.waitFor("news read — sources")
    try await pane.send("C-c")
    try await pane.waitFor("status=130")
    try await pane.type("stty -a > after.txt; cmp before.txt after.txt && echo SAME-$((40+2))")
    try await pane.waitFor("SAME-42")

    try await pane.type("clear; sh -c 'echo $$ > reader.pid; exec \(store.readCommand())'; echo status=$?")
    try await pane.waitFor("news read — sources")
    let pidText = try String(contentsOfFile: store.directory.path("reader.pid"), encoding: .utf8)
    let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(Glibc.kill(pid, SIGTERM) == 0)
    try await pane.waitFor("status=143")
    try await pane.type("stty -a > after.txt; cmp before.txt after.txt && echo AGAIN-$((40+2))")
    try await pane.waitFor("AGAIN-42")
  }
}

/// `news read` on real feeds (../shared/fixtures/real/feeds) served over loopback HTTP: folders collapsed and
/// expanded, a bookmark, a reload with the feed server stopped, a resize to 30 columns and back.
@Suite(
  "news read in a tmux pane, on real feeds", .serialized,
  .enabled(if: TmuxProgram.path != nil, "SKIPPED: tmux is not installed (apt-get install tmux); news read is untested"),
  .enabled(if: Fixtures.hasSharedReal, "SKIPPED: needs ../shared/fixtures/real"))
struct ReadRealFeedsTerminalTests {
  @Test("folders collapse and expand, s bookmarks, R with the server stopped keeps the cache, 30 columns and back")
  func realFeeds() async throws {
    let tmux = try #require(TmuxProgram.path)
    let store = try await ReadTerminalTests.Store()
    let daring = try Data(contentsOf: Fixtures.sharedReal("feeds/DaringFireball.atom"))
    let manton = try Data(contentsOf: Fixtures.sharedReal("feeds/manton.rss"))
    let aktuality = try Fixtures.sharedReal("feeds/aktuality.rss").path
    let server = try LoopbackHTTPServer(.closeImmediately)
    server.router = { request in
      switch request.target {
      case "/df.atom": .respond(status: 200, headers: ["Content-Type": "application/atom+xml"], body: daring)
      case "/manton.rss": .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: manton)
      default: nil
      }
    }
    let configuration = """
      {"sources": {
        "Daring Fireball": {"feed": "\(server.url("/df.atom").absoluteString)", "folder": "Apple"},
        "Manton": {"feed": "\(server.url("/manton.rss").absoluteString)", "folder": "Apple"},
        "Aktuality": {"file": "\(aktuality)"}
      }, "timeoutSeconds": 2}
      """
    try Data(configuration.utf8).write(to: URL(fileURLWithPath: store.config))
    let fetched = try await store.run(["fetch", "--all"])
    #expect(fetched.status == 0, "\(fetched.err)")
    func count(_ source: String) async throws -> Int {
      let outcome = try await store.run(["list", "--source", source, "--json"])
      let object = try JSONSerialization.jsonObject(with: Data(outcome.out.utf8)) as? [String: Any]
      return try #require(object?["articles"] as? [[String: Any]], "\(outcome.err)").count
    }
    let daringCount = try await count("Daring Fireball")
    let apple = try await daringCount + count("Manton")
    #expect(daringCount > 40 && apple > daringCount, "\(daringCount) \(apple)")
    server.stop()

    let pane = try await ReadTerminalTests.Pane(tmux: tmux, directory: store.directory.path(""))
    defer { pane.killNow() }
    try await pane.type("stty -a > before.txt")
    try await pane.type(store.readCommand())
    var screen = try await pane.waitFor("the sources with their counts") {
      $0.joined().contains("unread of") && $0.contains { $0.contains("Aktuality") && $0.contains("just now") }
    }
    #expect(screen.contains { $0.contains("▾ Apple") && $0.hasSuffix("\(apple)/\(apple)") }, "\(screen)")
    #expect(screen.contains { $0.hasPrefix("N   Daring Fireball") }, "a source inside the folder, indented: \(screen)")

    // - collapses Apple: its sources' rows go, its own row keeps the counts of both; + brings them back.
    try await pane.send("j")
    try await pane.send("-")
    screen = try await pane.waitFor("Apple collapsed") { $0.joined().contains("▸ Apple") }
    #expect(!screen.joined().contains("Daring Fireball") && !screen.joined().contains("Manton"), "\(screen)")
    #expect(screen.contains { $0.contains("▸ Apple") && $0.hasSuffix("\(apple)/\(apple)") }, "\(screen)")
    // A collapsed folder still opens (its sources' articles), and stays collapsed after the list is left.
    try await pane.send("Enter")
    try await pane.waitFor("news read — Apple (\(apple) articles, \(apple) unread)")
    try await pane.send("q")
    screen = try await pane.waitFor("the sources again") { $0.joined().contains("news read — sources") }
    #expect(screen.joined().contains("▸ Apple") && !screen.joined().contains("Manton"), "kept collapsed: \(screen)")
    try await pane.send("+")
    try await pane.waitFor("Apple expanded") { $0.joined().contains("▾ Apple") && $0.joined().contains("Manton") }

    // R with the feed server stopped: the reload says what failed, nothing is lost, the sources show "!".
    try await pane.send("R")
    screen = try await pane.waitFor("the reload's line") {
      $0.joined().contains("reloaded 3 sources: 0 new, 2 failed (")
    }
    try await pane.send("j")
    screen = try await pane.waitFor("Daring Fireball's last error") {
      $0.last { !$0.isEmpty }?.hasPrefix("last error") == true
    }
    #expect(
      screen.contains {
        $0.contains("Daring Fireball") && $0.contains("!") && $0.hasSuffix("\(daringCount)/\(daringCount)")
      })

    // Its articles, read offline; the first opened (read), bookmarked with s, back: marked "!" in the list.
    try await pane.send("Enter")
    try await pane.waitFor("news read — Daring Fireball (\(daringCount) articles, \(daringCount) unread)")
    try await pane.send("Enter")
    try await pane.waitFor("(1 of \(daringCount))")
    try await pane.send("s")
    try await pane.waitFor("bookmarked")
    try await pane.send("q")
    // The whole list redrawn (on a loaded machine the capture can land between ncurses' partial updates).
    let unreadRows = min(daringCount, 28) - 1
    screen = try await pane.waitFor("the list with the bookmark and \(unreadRows) unread rows") {
      $0.contains { $0.hasPrefix(" ! ") } && $0.filter { $0.hasPrefix("N") }.count == unreadRows
    }
    #expect(screen.filter { $0.hasPrefix("N") }.count == unreadRows, "\(screen)")

    // 30 columns: every row fits, the title and key lines cut to the width; then back to 100.
    _ = try await pane.command(["resize-window", "-t", "read", "-x", "30", "-y", "20"])
    screen = try await pane.waitFor("the redraw at 30×20") { screen in
      screen.count >= 20 && screen[19].hasPrefix("q:Back") && screen.allSatisfy { ReadTerminalTests.columns($0) <= 30 }
        && screen[0].hasPrefix("news read — Daring")
    }
    #expect(screen.contains { $0.hasPrefix(" ! ") }, "\(screen)")
    _ = try await pane.command(["resize-window", "-t", "read", "-x", "100", "-y", "30"])
    try await pane.waitFor("the redraw at 100×30") {
      $0.count >= 30 && $0[29].contains("q:Back  ENTER:Open") && $0[0].contains("(\(daringCount) articles")
    }
    try await pane.send("q")
    try await pane.send("q")
    try await pane.waitFor("the prompt after quitting") {
      $0.contains { $0.hasPrefix("ready$") && !$0.contains("news") }
    }
    try await pane.type("stty -a > after.txt; cmp before.txt after.txt && echo SAME-$((40+2))")
    try await pane.waitFor("SAME-42")
    let bookmarked = try await store.run(["list", "--bookmarked", "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(bookmarked.out.utf8)) as? [String: Any]
    #expect((object?["articles"] as? [[String: Any]])?.count == 1, "\(bookmarked.out)")
  }
}

/// Where tmux is on `PATH`, if it is.
enum TmuxProgram {
  static var path: String? { ProgramRun.program("tmux") }
}
