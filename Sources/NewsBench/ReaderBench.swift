import Foundation
import OfflineNewsModel
import PTYSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `news-bench --read` (issue 31): how fast `news read` shows its first screen and answers a key, beside newsboat
/// opening the same feeds, each run the way its users run it: spawned on a terminal (a pseudo-terminal of 100×30
/// that this process reads, `TERM=xterm-256color`), timed from the spawn until the screen's text has been written.
///
/// The feeds: `--articles N` items (default 100,000) in 50 generated RSS feeds, served on loopback; `news fetch
/// --all` fills our store from them (the sources in 5 folders), `newsboat -x reload` its cache. Then, for each
/// reader, `--runs R` spawns (default 5):
/// - first screen: from `posix_spawn` until the output holds the sources screen with its counts (ours: the title
///   `news read — sources (U unread of T)`; newsboat: `Your feeds (U unread, T total)`). Ours also reports its first
///   draw (the rows before their counts are read). Escape sequences and blanks are taken out of the output before it
///   is searched, as ncurses moves the cursor over blank cells instead of writing them;
/// - a key to redraw: ↓ and ↑ alternately on the sources (40 presses), ENTER on the first source (until its list
///   shows: ours reads it in the background and says "loading…" first), and ↓/↑
///   in that list: from writing the key to the pty until the last byte of the update is read back (the update ends
///   when no byte comes for 50 ms; that wait is not counted).
struct ReaderBench {
  var folder: String
  /// The `news` executable measured: the installed copy of the one beside `news-bench` (``InstalledNews``).
  var news: String
  var articles: Int
  var runs: Int
  var feeds = 50
  var presses = 40

  /// One reader's figures, seconds.
  struct Timing: Codable, Sendable {
    var reader: String
    /// Spawn until the rows first show (ours only: before their counts).
    var firstDraw: Latency?
    /// Spawn until the sources screen shows with its counts.
    var firstScreen: Latency
    /// ↓/↑ on the sources: key written until the update is read back.
    var sourcesKey: Latency
    /// ENTER on the first source: its list of articles.
    var openList: Latency
    /// ↓/↑ in the list.
    var listKey: Latency
    /// The first screen's text as the marker found it (blanks and escapes removed), for a check by eye.
    var marker: String
  }

  struct Results: Codable, Sendable {
    var date: String
    var load: String
    var articles: Int
    var feeds: Int
    var storeBytes: Int
    var newsboatCacheBytes: Int?
    var ours: Timing
    var newsboat: Timing?
    var targets: [Target]
    var notes: [String]
  }

  /// The benchmark the options ask for, in `folder`.
  static func make(_ options: Options, folder: String, selfPath: String) throws -> ReaderBench {
    let work = "\(folder)/read"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    return ReaderBench(
      folder: work, news: try InstalledNews.path(besides: selfPath, folder: folder), articles: options.articles,
      runs: options.runsGiven ? options.runs : (options.quick ? 2 : 5))
  }

  func run() throws -> Results {
    let perFeed = max(1, articles / feeds)
    var resources: [String: FeedServer.Resource] = [:]
    for feed in 1...feeds {
      let body = Data(Self.feed(feed, items: perFeed).utf8)
      resources["/feed-\(feed).rss"] = .init(body: body, etag: "\"\(feed)\"", contentType: "application/rss+xml")
    }
    let server = try FeedServer(resources: resources)
    defer { server.stop() }
    let urls = (1...feeds).map { server.url("/feed-\($0).rss") }
    try (urls.joined(separator: "\n") + "\n").write(toFile: "\(folder)/urls", atomically: true, encoding: .utf8)
    var notes: [String] = []

    // Our store: a source per feed, ten to a folder.
    let ours = "\(folder)/ours"
    try freshFolder(ours)
    var sources: [String: Any] = [:]
    for (index, url) in urls.enumerated() {
      sources[String(format: "feed-%02d", index + 1)] = ["feed": url, "folder": "Group \(index / 10 + 1)"]
    }
    let configuration = try JSONSerialization.data(
      withJSONObject: ["sources": sources, "timeoutSeconds": 30], options: [.sortedKeys])
    try configuration.write(to: URL(fileURLWithPath: "\(ours)/news.json"))
    let database = "\(ours)/news.sqlite"
    progress("news fetch --all: \(feeds) feeds × \(perFeed) items from 127.0.0.1:\(server.port)")
    let fetched = try runChild(
      [news, "fetch", "--all", "--quiet", "--config", "\(ours)/news.json", "--db", database], outputFolder: ours,
      environment: Self.environment(ours))
    guard fetched.exitStatus == 0 else {
      throw BenchError("news fetch --all exited \(fetched.exitStatus): \(fetched.standardError.suffix(600))")
    }
    let stored = sqliteCount(database, "SELECT count(*) FROM article;", outputFolder: ours) ?? -1
    progress(String(format: "fetched in %.1f s: %d articles", fetched.seconds, stored))
    let oursCommand = [news, "read", "--config", "\(ours)/news.json", "--db", database]
    let oursTiming = try measure(
      "ours: news read", oursCommand, environment: Self.environment(ours), firstDraw: "newsread—sources",
      firstScreen: "unreadof", list: "\(min(perFeed, 2000))articles,")

    var newsboatTiming: Timing?
    var cacheBytes: Int?
    if which("newsboat") != nil {
      let work = "\(folder)/newsboat"
      try freshFolder(work)
      try "".write(toFile: "\(work)/config", atomically: true, encoding: .utf8)
      let arguments = ["newsboat", "-u", "\(folder)/urls", "-c", "\(work)/cache.db", "-C", "\(work)/config"]
      progress("newsboat -x reload: the same feeds into its cache")
      let reloaded = try runChild(
        arguments + ["-x", "reload"], outputFolder: work, environment: Self.environment(work))
      let items = sqliteCount("\(work)/cache.db", "SELECT count(*) FROM rss_item;", outputFolder: work) ?? -1
      progress(
        String(format: "newsboat reloaded in %.1f s (exit %d): %d items", reloaded.seconds, reloaded.exitStatus, items))
      if items != stored { notes.append("newsboat's cache holds \(items) items, our store \(stored) articles") }
      cacheBytes = (try? FileManager.default.attributesOfItem(atPath: "\(work)/cache.db")[.size] as? Int) ?? nil
      newsboatTiming = try measure(
        "newsboat", arguments, environment: Self.environment(work), firstDraw: nil, firstScreen: "Yourfeeds(",
        list: "Articlesinfeed")
    } else {
      notes.append("newsboat: skipped, not in PATH (Debian: apt-get install -y newsboat)")
    }
    let storeBytes = (try? FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
    var results = Results(
      date: ISO8601DateFormatter().string(from: Date()), load: loadAverage(), articles: stored, feeds: feeds,
      storeBytes: storeBytes, newsboatCacheBytes: cacheBytes, ours: oursTiming, newsboat: newsboatTiming,
      targets: [], notes: notes)
    results.targets = Self.targets(results)
    return results
  }

  /// Each reader gets its own HOME and XDG folders, a UTF-8 locale and the terminal type most emulators announce.
  static func environment(_ work: String) -> [String: String] {
    ownHome(work).merging(["TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]) {
      $1
    }
  }

  /// ↓ and ↑ as a terminal in keypad mode sends them (xterm's `kcud1`, `kcuu1`), and ENTER.
  static let down: [UInt8] = [0x1B, 0x4F, 0x42]
  static let up: [UInt8] = [0x1B, 0x4F, 0x41]
  static let enter: [UInt8] = [0x0D]

  private func measure(
    _ label: String, _ arguments: [String], environment: [String: String], firstDraw: String?, firstScreen: String,
    list: String
  ) throws -> Timing {
    var draws: [Double] = []
    var screens: [Double] = []
    var sourceKeys: [Double] = []
    var opens: [Double] = []
    var listKeys: [Double] = []
    var marker = ""
    for run in 1...runs {
      let session = try TerminalSession(arguments, environment: environment)
      defer { session.end() }
      if let firstDraw {
        guard let seconds = session.wait(for: firstDraw, timeout: 60) else {
          throw BenchError("\(label): no first draw within 60 s; the screen so far: \(session.plainText.suffix(400))")
        }
        draws.append(seconds)
      }
      guard let seconds = session.wait(for: firstScreen, timeout: 120) else {
        throw BenchError("\(label): no first screen within 120 s; the screen so far: \(session.plainText.suffix(400))")
      }
      screens.append(seconds)
      marker = String(session.plainText.prefix(160))
      // Whatever comes after the first screen (the sources' ages, a late count) is let through before the keys.
      _ = session.drain(quiet: 0.3, timeout: 10)
      for press in 0..<presses {
        sourceKeys.append(try session.press(press.isMultiple(of: 2) ? Self.down : Self.up, label))
      }
      // The first source below "All articles" (ours) or the first feed (newsboat): its list.
      if firstDraw != nil {
        _ = try session.press(Self.down, label)
        _ = try session.press(Self.down, label)
      }
      opens.append(try session.press(Self.enter, label, until: list))
      for press in 0..<presses {
        listKeys.append(try session.press(press.isMultiple(of: 2) ? Self.down : Self.up, label))
      }
      progress(
        String(
          format: "%@, run %d: first screen %.1f ms, ↓ %.2f ms, ENTER %.1f ms, ↓ in the list %.2f ms", label, run,
          seconds * 1000, median(sourceKeys.suffix(presses)) * 1000, (opens.last ?? 0) * 1000,
          median(listKeys.suffix(presses)) * 1000))
    }
    return Timing(
      reader: label, firstDraw: draws.isEmpty ? nil : Latency(draws), firstScreen: Latency(screens),
      sourcesKey: Latency(sourceKeys), openList: Latency(opens), listKey: Latency(listKeys), marker: marker)
  }

  static func targets(_ results: Results) -> [Target] {
    let ours = results.ours
    var targets = [
      Target(
        goal: "first screen within 50 ms of start (\(results.articles.groupedDigits) articles)",
        measured: String(
          format: "median %.1f ms, worst %.1f ms", ours.firstScreen.median * 1000, ours.firstScreen.max * 1000),
        met: ours.firstScreen.median <= 0.050),
      Target(
        goal: "a key press to redraw within 16 ms",
        measured: String(
          format: "↓ on the sources p50 %.2f ms (p99 %.2f), in a list p50 %.2f ms (p99 %.2f)",
          ours.sourcesKey.median * 1000, ours.sourcesKey.p99 * 1000, ours.listKey.median * 1000, ours.listKey.p99 * 1000
        ),
        met: ours.sourcesKey.p99 <= 0.016 && ours.listKey.p99 <= 0.016),
    ]
    if let newsboat = results.newsboat {
      targets.append(
        Target(
          goal: "first screen faster than newsboat's on the same feeds",
          measured: String(
            format: "%.1f× faster (%.1f ms vs %.1f ms)", newsboat.firstScreen.median / ours.firstScreen.median,
            ours.firstScreen.median * 1000, newsboat.firstScreen.median * 1000),
          met: ours.firstScreen.median < newsboat.firstScreen.median))
    }
    return targets
  }

  static func report(_ results: Results) -> String {
    var out = """
      news read (issue 31): \(results.articles.groupedDigits) articles in \(results.feeds) generated RSS feeds, \
      a 100×30 pty per spawn, load \(results.load)
      store \(Report.megabytes(results.storeBytes))\(results.newsboatCacheBytes.map { ", newsboat's cache " + Report.megabytes($0) } ?? "")


      """
    let timings = [results.ours] + (results.newsboat.map { [$0] } ?? [])
    out += "  " + Report.pad("", 18) + Report.pad("first draw", 12, right: true)
    out += Report.pad("first screen", 14, right: true) + Report.pad("↓ sources p50/p99", 20, right: true)
    out += Report.pad("ENTER list", 12, right: true) + Report.pad("↓ list p50/p99", 18, right: true) + "\n"
    func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
    func ms2(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1000) }
    for timing in timings {
      out += "  " + Report.pad(timing.reader, 18)
      out += Report.pad(timing.firstDraw.map { ms($0.median) + " ms" } ?? "–", 12, right: true)
      out += Report.pad(ms(timing.firstScreen.median) + " ms", 14, right: true)
      out += Report.pad(ms2(timing.sourcesKey.median) + "/" + ms2(timing.sourcesKey.p99) + " ms", 20, right: true)
      out += Report.pad(ms(timing.openList.median) + " ms", 12, right: true)
      out += Report.pad(ms2(timing.listKey.median) + "/" + ms2(timing.listKey.p99) + " ms", 18, right: true) + "\n"
    }
    if let newsboat = results.newsboat {
      let ours = results.ours
      out += String(
        format: "  newsboat ÷ ours: first screen %.1f×, ↓ on the sources %.1f×, ENTER %.1f×, ↓ in a list %.1f×\n",
        newsboat.firstScreen.median / ours.firstScreen.median, newsboat.sourcesKey.median / ours.sourcesKey.median,
        newsboat.openList.median / ours.openList.median, newsboat.listKey.median / ours.listKey.median)
    }
    return out + "\n" + Report.targets(results.targets, notes: results.notes)
  }

  /// Feed `number`: an RSS 2.0 channel of `items` items, one an hour back from 2026-11-30, each with a paragraph or
  /// two of summary (SplitMix64 words), as a blog's feed carries them.
  static func feed(_ number: Int, items: Int) -> String {
    var random = SplitMix64(seed: UInt64(number) &* 7919)
    let words = [
      "harbour", "lighthouse", "tide", "keeper", "storm", "ferry", "island", "coast", "signal", "lantern", "north",
      "council", "market", "river", "bridge", "station", "winter", "report", "season", "weather", "school", "garden",
    ]
    func phrase(_ count: Int) -> String {
      (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    let newest = Date(timeIntervalSince1970: 1_795_996_800)  // 2026-11-30T00:00:00Z
    var out = """
      <?xml version="1.0" encoding="utf-8"?>
      <rss version="2.0"><channel><title>Feed \(number)</title><link>https://feed\(number).example/</link>
      <description>generated</description>

      """
    out.reserveCapacity(items * 700)
    for item in 0..<items {
      let link = "https://feed\(number).example/\(item)"
      let date = formatter.string(from: newest.addingTimeInterval(-3600 * Double(item) - 60 * Double(number)))
      out += "<item><title>\(phrase(6).capitalized) \(item)</title><link>\(link)</link><guid>\(link)</guid>"
      out += "<pubDate>\(date)</pubDate><description>&lt;p&gt;\(phrase(40)).&lt;/p&gt;&lt;p&gt;\(phrase(30))."
      out += "&lt;/p&gt;</description></item>\n"
    }
    return out + "</channel></rss>\n"
  }
}

/// A program on a pseudo-terminal of 100×30 that this process reads and types into, as a terminal emulator would:
/// the program is a session leader with the pty as its controlling terminal and its standard input, output and
/// error.
final class TerminalSession {
  let master: Int32
  let pid: pid_t
  let started: Double
  private var output: [UInt8] = []
  /// When the last byte was read.
  private var lastRead = 0.0

  init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30) throws {
    let pty: (master: Int32, slave: Int32)
    do { pty = try PTY.open(columns: columns, rows: rows) } catch { throw BenchError(error.description) }
    let (master, slave) = pty
    guard let name = ttyname(slave) else {
      close(master)
      close(slave)
      throw BenchError("cannot name the pseudo-terminal: \(String(cString: strerror(errno)))")
    }
    let slavePath = String(cString: name)
    close(slave)  // the child opens it by name, which makes it its controlling terminal
    self.master = master
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A new session (glibc's POSIX_SPAWN_SETSID, 0x80): the first terminal it opens becomes its controlling one.
    posix_spawnattr_setflags(&attributes, 0x80)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
    posix_spawn_file_actions_adddup2(&actions, 0, 1)
    posix_spawn_file_actions_adddup2(&actions, 0, 2)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid = pid_t()
    started = monotonicSeconds()
    let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard status == 0 else {
      close(master)
      throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
    }
    self.pid = pid
  }

  /// What was written so far with escape sequences, control characters and blanks taken out.
  var plainText: String { Self.plain(output) }

  /// Reads what is ready within `timeout` seconds; the time the last byte came, or `nil` when none came.
  private func readSome(timeout: Double) -> Double? {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000).rounded(.up)))
    guard ready > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = read(master, &buffer, buffer.count)
    guard count > 0 else { return nil }
    let now = monotonicSeconds()
    output += buffer.prefix(count)
    lastRead = now
    return now
  }

  /// Seconds from the spawn until the plain text holds `marker`, or `nil` after `timeout` seconds.
  func wait(for marker: String, timeout: Double) -> Double? {
    let deadline = started + timeout
    var searchedFrom = 0
    while monotonicSeconds() < deadline {
      guard let time = readSome(timeout: deadline - monotonicSeconds()) else { continue }
      // Search only the new part (with some overlap, for a marker cut between two reads).
      let text = Self.plain(output[max(0, searchedFrom - 256)...])
      searchedFrom = output.count
      if text.contains(marker) { return time - started }
    }
    return nil
  }

  /// Reads until nothing comes for `quiet` seconds (or `timeout` passes); the time the last byte came.
  func drain(quiet: Double, timeout: Double) -> Double? {
    let deadline = monotonicSeconds() + timeout
    var last: Double?
    while monotonicSeconds() < deadline, let time = readSome(timeout: quiet) { last = time }
    return last
  }

  /// Types `key` and reads the update: seconds from the write until its last byte was read. With `marker`, the
  /// update is the one whose text holds it (a list read in the background shows "loading…" first): bytes are read
  /// until it shows, then until nothing comes for 50 ms.
  func press(_ key: [UInt8], _ label: String, until marker: String? = nil) throws -> Double {
    let start = monotonicSeconds()
    let from = output.count
    guard key.withUnsafeBytes({ write(master, $0.baseAddress, $0.count) }) == key.count else {
      throw BenchError("\(label): cannot write to the pty: \(String(cString: strerror(errno)))")
    }
    if let marker {
      while !Self.plain(output[from...]).contains(marker) {
        guard readSome(timeout: max(0, start + 30 - monotonicSeconds())) != nil else {
          throw BenchError("\(label): no \(marker) within 30 s; so far: \(plainText.suffix(300))")
        }
      }
    }
    guard let last = drain(quiet: 0.05, timeout: 5) ?? (marker != nil ? lastRead : nil) else {
      throw BenchError("\(label): the screen did not change after a key; so far: \(plainText.suffix(300))")
    }
    return last - start
  }

  /// Ends the program (SIGTERM, then SIGKILL after a second) and closes the pty.
  func end() {
    _ = kill(pid, SIGTERM)
    var status: Int32 = 0
    for _ in 0..<100 {
      _ = drain(quiet: 0, timeout: 0)
      if waitpid(pid, &status, WNOHANG) == pid {
        close(master)
        return
      }
      usleep(10_000)
    }
    _ = kill(pid, SIGKILL)
    _ = waitpid(pid, &status, 0)
    close(master)
  }

  /// `bytes` as text without escape sequences (CSI, SS3, OSC, charset selections), control characters and blanks.
  static func plain<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    var kept: [UInt8] = []
    kept.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    func next() -> UInt8? {
      guard index != bytes.endIndex else { return nil }
      defer { index = bytes.index(after: index) }
      return bytes[index]
    }
    while let byte = next() {
      switch byte {
      case 0x1B:
        guard let kind = next() else { break }
        switch kind {
        case UInt8(ascii: "["):
          while let c = next(), !(0x40...0x7E).contains(c) {}
        case UInt8(ascii: "]"):
          while let c = next(), c != 0x07, c != 0x1B {}
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "O"), UInt8(ascii: "#"):
          _ = next()
        default: break
        }
      case 0..<0x21, 0x7F: continue
      default: kept.append(byte)
      }
    }
    return String(decoding: kept, as: UTF8.self)
  }
}
