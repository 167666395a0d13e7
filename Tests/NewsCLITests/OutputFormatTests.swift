import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsModel
import Synchronization
import TestSupport
import Testing

@testable import NewsCLI

@Suite("output: columns, width, colour, relative times, errors, progress")
struct OutputFormatTests {
  static let now = Date(timeIntervalSince1970: 1_764_400_000)
  static let escape: Character = "\u{1B}"

  /// Articles whose titles exercise the width rules: long ASCII, CJK, emoji (with skin tone, ZWJ, flag), Arabic,
  /// combining marks, and a title carrying a newline, a tab and an escape sequence.
  static let articles: [Article] = {
    func article(_ index: Int, _ title: String, source: String?, minutesAgo: Double) -> Article {
      guard let url = URL(string: "https://example.com/\(index)") else { fatalError("bad test URL") }
      return Article(
        url: url, title: title, publishedAt: now.addingTimeInterval(-minutesAgo * 60), sourceName: source)
    }
    return [
      article(
        0, "Storm Isolde: Gusts of 90mph forecast as ferries cancelled across the west coast", source: "BBC News",
        minutesAgo: 5),
      article(1, "東京株式市場、日経平均は続伸　半導体関連株に買い　円安も追い風に", source: "日本経済新聞", minutesAgo: 180),
      article(
        2, "🚀 Launch today 👍🏽 — families 👨‍👩‍👧 and flags 🇫🇷🇯🇵 ❤️ everywhere in this headline", source: nil,
        minutesAgo: 2 * 1440),
      article(
        3, "الرئيس يفتتح مشروعات جديدة في العاصمة الإدارية وسط حضور واسع من المسؤولين", source: "الجزيرة",
        minutesAgo: 0.5),
      article(
        4, "Cafe\u{301} crème: e\u{301}diteurs re\u{301}unis\nsecond line\tand \u{1B}[31mred\u{1B}[0m text",
        source: "A very long publisher name that will not fit", minutesAgo: -120),
      article(5, "한국 증시, 외국인 매수세에 상승 마감… 코스피 2,600선 회복", source: "연합뉴스", minutesAgo: 40 * 1440),
    ]
  }()

  // MARK: Relative times

  static let relativeCases: [(secondsAgo: Double, expected: String)] = [
    (0, "just now"), (59, "just now"), (-30, "just now"), (60, "1 min ago"), (5 * 60, "5 min ago"),
    (59 * 60 + 59, "59 min ago"), (3600, "1 h ago"), (3 * 3600 + 1800, "3 h ago"), (86_399, "23 h ago"),
    (86_400, "1 d ago"), (2 * 86_400, "2 d ago"), (59 * 86_400, "59 d ago"), (60 * 86_400, "2 mo ago"),
    (364 * 86_400, "12 mo ago"), (365 * 86_400, "1 y ago"), (3 * 365.25 * 86_400, "3 y ago"),
    (-2 * 3600, "in 2 h"), (-5 * 60, "in 5 min"), (-3 * 86_400, "in 3 d"),
  ]

  @Test("relative times: just now, minutes, hours, days, months, years, and the future", arguments: relativeCases)
  func relativeTimes(secondsAgo: Double, expected: String) {
    #expect(OutputFormat.relative(Self.now.addingTimeInterval(-secondsAgo), now: Self.now) == expected)
  }

  // MARK: Display width

  static let widthCases: [(text: String, columns: Int)] = [
    ("abc", 3), ("日本語", 6), ("한국어", 6), ("ＡＢ", 4), ("カタカナ。", 10), ("😀", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2),
    ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("1️⃣", 2), ("©", 1), ("e\u{301}", 1), ("Cafe\u{301}", 4),
    ("مرحبا", 5), ("\u{200B}", 0), ("a\u{200D}b", 2), ("\u{202B}abc\u{202C}", 3), ("", 0), ("…", 1),
  ]

  @Test(
    "display width: CJK, Hangul, fullwidth and emoji count 2; combining marks and zero-width characters 0",
    arguments: widthCases)
  func displayWidth(text: String, columns: Int) {
    #expect(OutputFormat.displayWidth(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
  }

  @Test("clip: fits the width in columns, ends with …, never splits a wide character or a cluster")
  func clip() {
    #expect(OutputFormat.clip("short", 10) == "short")
    #expect(OutputFormat.clip("exactly10!", 10) == "exactly10!")
    #expect(OutputFormat.clip("Storm Isolde: gusts", 14) == "Storm Isolde:…")
    #expect(OutputFormat.clip("Storm Isolde: gusts", 7) == "Storm…", "no space before the ellipsis")
    #expect(OutputFormat.clip("日本語のニュース", 7) == "日本語…")
    #expect(OutputFormat.clip("日本語のニュース", 8) == "日本語…", "a wide character never half-shown")
    #expect(OutputFormat.clip("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 5) == "👨‍👩‍👧👨‍👩‍👧…")
    #expect(OutputFormat.clip("e\u{301}e\u{301}e\u{301}e\u{301}", 3) == "e\u{301}e\u{301}…")
    #expect(OutputFormat.clip("anything", 1) == "…")
    #expect(OutputFormat.clip("anything", 0) == "")
    for width in 1...40 {
      for article in Self.articles {
        #expect(OutputFormat.displayWidth(OutputFormat.clip(article.title, width)) <= width)
      }
    }
  }

  // MARK: Columns

  @Test("lines fit the terminal width, from 20 to 200 columns", arguments: [20, 24, 32, 40, 50, 64, 80, 100, 132, 200])
  func linesFitWidth(width: Int) {
    let text = OutputFormat.lines(Self.articles, now: Self.now, width: width)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == Self.articles.count, "one line per article:\n\(text)")
    for line in lines {
      #expect(OutputFormat.displayWidth(line) <= width, "\(OutputFormat.displayWidth(line)) > \(width): \(line)")
      #expect(line.hasPrefix("  "))
    }
    #expect(!text.contains(Self.escape))
  }

  @Test("columns are aligned: time, source and title start at the same column on every line")
  func columnsAligned() {
    for width in [nil, 80, 120] as [Int?] {
      let lines = OutputFormat.lines(Self.articles, now: Self.now, width: width).split(separator: "\n")
      let titleStarts = zip(lines, Self.articles).map { line, article in
        titleColumn(String(line), title: OutputFormat.sanitized(article.title, collapsingWhitespace: true))
      }
      #expect(Set(titleStarts).count == 1, "width \(width.map(String.init) ?? "none"): \(titleStarts)")
    }
    // The time column is as wide as its widest cell ("5 min ago", "just now", "in 2 h", …): the sources line up.
    // Each line starts with the article's handle (6 digits without the store to shorten them against).
    let lines = OutputFormat.lines(Self.articles, now: Self.now, width: 120).split(separator: "\n")
    func handle(_ index: Int) -> String { String(Self.articles[index].handle.prefix(6)) }
    #expect(lines[0].hasPrefix("  \(handle(0))  5 min ago  BBC News  "), "\(lines[0])")
    #expect(lines[3].hasPrefix("  \(handle(3))  just now   الجزيرة   "), "\(lines[3])")
    #expect(lines[4].hasPrefix("  \(handle(4))  in 2 h     A very long publisher…  "), "\(lines[4])")
  }

  @Test("titles are clipped with … on a terminal and whole without a width")
  func clippingAndWholeTitles() {
    let fitted = OutputFormat.lines(Self.articles, now: Self.now, width: 80).split(separator: "\n")
    #expect(fitted[0].hasSuffix("…"))
    #expect(fitted[1].hasSuffix("…"), "CJK title clipped: \(fitted[1])")
    #expect(OutputFormat.displayWidth(fitted[1]) >= 79, "a wide title fills the line to the last column or one short")

    let whole = OutputFormat.lines(Self.articles, now: Self.now, width: nil)
    for article in Self.articles {
      #expect(whole.contains(OutputFormat.sanitized(article.title, collapsingWhitespace: true)))
    }
    #expect(
      whole.contains("الرئيس يفتتح مشروعات جديدة في العاصمة الإدارية وسط حضور واسع من المسؤولين"),
      "Arabic is left in its logical order, untouched")
  }

  @Test("on a narrow terminal the source column shrinks, then is left out, then the time, then the handle")
  func narrowTerminal() {
    let handle = String(Self.articles[0].handle.prefix(6))
    let medium = OutputFormat.lines(Self.articles, now: Self.now, width: 52).split(separator: "\n")
    #expect(medium[0].contains("BBC News"))
    #expect(medium[4].contains("A very long…   Cafe\u{301}"), "\(medium[4])")
    let narrow = OutputFormat.lines(Self.articles, now: Self.now, width: 38).split(separator: "\n")
    #expect(!narrow[0].contains("BBC"), "\(narrow[0])")
    #expect(narrow[0].hasPrefix("  \(handle)  5 min ago  Storm"), "\(narrow[0])")
    let narrower = OutputFormat.lines(Self.articles, now: Self.now, width: 30).split(separator: "\n")
    #expect(narrower[0].hasPrefix("  \(handle)  Storm"), "\(narrower[0])")
    let narrowest = OutputFormat.lines(Self.articles, now: Self.now, width: 20).split(separator: "\n")
    #expect(narrowest[0].hasPrefix("  Storm"), "\(narrowest[0])")
  }

  @Test("data cannot break a line or inject escape codes: newlines, tabs and control characters are cleaned")
  func dataIsSanitized() {
    let text = OutputFormat.lines(Self.articles, now: Self.now, width: nil, color: false)
    #expect(!text.contains(Self.escape))
    #expect(!text.contains("\t"))
    #expect(text.split(separator: "\n").count == Self.articles.count)
    #expect(text.contains("Cafe\u{301} crème: e\u{301}diteurs re\u{301}unis second line and [31mred[0m text"))
    #expect(OutputFormat.sanitized("a\u{0}b\u{7F}c\u{9B}d\r\ne") == "abcd  e")
    #expect(OutputFormat.sanitized("  a \n\n b  ", collapsingWhitespace: true) == "a b")
    #expect(OutputFormat.sanitized("\u{202B}عربي\u{202C}") == "\u{202B}عربي\u{202C}", "bidi marks are kept")
  }

  // MARK: Colour

  @Test("no escape codes when not a terminal, or with NO_COLOR; colour only on a terminal")
  func colourDecision() {
    #expect(!Console.wantsColor(isTerminal: false, environment: [:]))
    #expect(!Console.wantsColor(isTerminal: false, environment: ["TERM": "xterm-256color"]))
    #expect(Console.wantsColor(isTerminal: true, environment: ["TERM": "xterm-256color"]))
    #expect(!Console.wantsColor(isTerminal: true, environment: ["NO_COLOR": "1"]))
    #expect(!Console.wantsColor(isTerminal: true, environment: ["NO_COLOR": "0", "TERM": "xterm"]))
    #expect(
      Console.wantsColor(isTerminal: true, environment: ["NO_COLOR": ""]), "no-color.org: an empty value is unset")
    #expect(!Console.wantsColor(isTerminal: true, environment: ["TERM": "dumb"]))

    let standard = Console.standard(environment: ["NO_COLOR": "1"])
    #expect(!standard.color)
    #expect(!standard.errorColor)
    if !standard.isTerminal { #expect(!Console.standard(environment: [:]).color) }

    let (captured, _) = Console.capturing()
    #expect(!captured.color && !captured.isTerminal && !captured.errorIsTerminal)
  }

  @Test("with colour: dim time, bold source, yellow offline; the same text once the codes are removed")
  func colouredOutput() throws {
    let plain = OutputFormat.lines(Self.articles, now: Self.now, width: 80, color: false)
    let coloured = OutputFormat.lines(Self.articles, now: Self.now, width: 80, color: true)
    #expect(coloured.contains("\u{1B}[2m5 min ago\u{1B}[0m"))
    #expect(coloured.contains("\u{1B}[1mBBC News\u{1B}[0m"))
    #expect(strippingEscapes(coloured) == plain)

    let url = try #require(URL(string: "https://newsapi.org/v2/top-headlines?country=us"))
    let result = NewsResult(
      query: NewsQuery(url: url), articles: Array(Self.articles.prefix(2)), origin: .cache,
      fetchedAt: Timestamp(Self.now.addingTimeInterval(-3 * 3600)),
      networkError: .transport(.connectionRefused, detail: ""))
    let header = OutputFormat.header(result, source: "top-headlines", now: Self.now)
    #expect(header == "offline — 2 cached articles from 3 h ago (network: connection refused)")
    let colouredHeader = OutputFormat.header(result, source: "top-headlines", now: Self.now, color: true)
    #expect(colouredHeader.hasPrefix("\u{1B}[1;33moffline\u{1B}[0m — 2 cached"))
    #expect(strippingEscapes(colouredHeader) == header)

    let online = NewsResult(query: NewsQuery(url: url), articles: [], origin: .network, fetchedAt: nil)
    #expect(OutputFormat.header(online, source: "top", now: Self.now) == "online — 0 articles from top")
  }

  @Test("the cache served at the deadline says the request ends with news, and the next fetch asks again")
  func deadlineHeader() throws {
    let url = try #require(URL(string: "https://example.org/feed.xml"))
    var result = NewsResult(
      query: NewsQuery(url: url), articles: Array(Self.articles.prefix(2)), origin: .cache,
      fetchedAt: Timestamp(Self.now.addingTimeInterval(-3 * 3600)),
      networkError: .transport(.timedOut, detail: "no answer within the 10.5 s deadline"))
    result.refreshContinues = true
    let header = OutputFormat.header(result, source: "feed", now: Self.now)
    #expect(
      header == "offline — 2 cached articles from 3 h ago (network: timed out (no answer within the 10.5 s deadline); "
        + "not waited for: the next 'news fetch' asks again)", "\(header)")
    #expect(!header.contains("background"))
  }

  @Test("`news fetch` and `news list` on a console that is not a terminal print no escape code")
  func commandsWithoutTerminal() async {
    let directory = TemporaryDirectory("news-output")
    let (console, captured) = Console.capturing(width: 60)
    let config = Fixtures.configDirectory.appendingPathComponent("news.json").path
    let cli = NewsCommandLine(
      environment: ["HOME": directory.path("home"), "XDG_DATA_HOME": directory.path("data"), "NO_COLOR": "1"],
      currentDirectory: directory.url.path, console: console, now: { Self.now },
      network: .curl)
    let database = directory.path("news.sqlite")
    #expect(await cli.run(["fetch", "--config", config, "--db", database]) == 0, "\(captured.err)")
    #expect(await cli.run(["list", "--db", database]) == 0, "\(captured.err)")
    #expect(await cli.run(["list", "--db", database, "--limit", "-1"]) == 64)
    #expect(!captured.out.contains(Self.escape))
    #expect(!captured.err.contains(Self.escape))
    let articleLines = captured.out.split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect(articleLines.count > 10)
    for line in articleLines { #expect(OutputFormat.displayWidth(line) <= 60, "\(line)") }
  }

  // MARK: Errors

  @Test("errors: `news: message` and `hint: hint`, one line each; coloured only on a colour stream")
  func errors() {
    #expect(
      Console.errorText("no source named \"x\"", hint: "configured: a, b", color: false)
        == "news: no source named \"x\"\nhint: configured: a, b\n")
    #expect(Console.errorText("bad\nfile\u{1B}[2J", hint: nil, color: false) == "news: bad file[2J\n")
    let coloured = Console.errorText("boom", hint: "try again", color: true)
    #expect(coloured.contains(Self.escape))
    #expect(strippingEscapes(coloured) == "news: boom\nhint: try again\n")

    let (console, captured) = Console.capturing()
    console.printError("cannot open the database /x/news.sqlite", hint: "check the path")
    console.printNote("nothing cached yet")
    #expect(captured.err == "news: cannot open the database /x/news.sqlite\nhint: check the path\nnothing cached yet\n")
    #expect(captured.out.isEmpty)
  }

  // MARK: Progress

  @Test("progress is silent when standard error is not a terminal, and with --quiet")
  func progressSilent() {
    for (terminal, quiet) in [(false, false), (false, true), (true, true)] {
      let (console, captured) = Console.capturing(isTerminal: true, errorIsTerminal: terminal, errorWidth: 80)
      let progress = ProgressReporter("importing", total: 1000, console: console, quiet: quiet, interval: 0)
      #expect(!progress.isEnabled)
      for _ in 0..<1000 { progress.advance() }
      progress.update(completed: 1000)
      progress.finish()
      #expect(captured.err.isEmpty, "terminal \(terminal), quiet \(quiet): \(captured.err.debugDescription)")
      #expect(captured.out.isEmpty)
    }
  }

  @Test("progress on a terminal: one line rewritten with \\r, records/s and ETA, throttled, cleared at the end")
  func progressOnTerminal() {
    let clock = TestClock()
    let (console, captured) = Console.capturing(errorIsTerminal: true, errorWidth: 72)
    let progress = ProgressReporter(
      "importing", total: 10_000, console: console, interval: 0.1, clock: { clock.now })
    #expect(progress.isEnabled)
    clock.now = 1
    progress.update(completed: 2_000)  // 2,000 in 1 s: 2,000 records/s, 8,000 left: ETA 4 s
    #expect(captured.err == "\rimporting  2,000/10,000 records  20%  2,000 records/s  ETA 4 s")
    progress.advance(by: 10)  // within the interval: not drawn
    #expect(captured.err == "\rimporting  2,000/10,000 records  20%  2,000 records/s  ETA 4 s")
    clock.now = 2
    progress.update(completed: 9_990)
    clock.now = 2.01
    progress.advance(by: 10)  // done: always drawn, without an ETA, padded over the longer previous line
    progress.advance(by: 5)  // past the total, within the interval: not drawn again
    let draws = captured.err.split(separator: "\r", omittingEmptySubsequences: true)
    #expect(draws.count == 3)
    #expect(draws.last?.hasPrefix("importing  10,000/10,000 records  100%  4,975 records/s") == true, "\(draws)")
    #expect(draws.allSatisfy { OutputFormat.displayWidth($0) < 72 })
    #expect(!captured.err.contains("\n"))
    #expect(!captured.err.contains(Self.escape), "no escape codes: spaces overwrite the previous line")
    let before = captured.err
    progress.finish()
    let cleared = captured.err.dropFirst(before.count)
    #expect(
      cleared.hasPrefix("\r") && cleared.hasSuffix("\r") && cleared.dropFirst().dropLast().allSatisfy { $0 == " " })
    progress.advance()
    progress.finish()
    #expect(captured.err.count == before.count + cleared.count, "nothing after finish")
  }

  @Test("progress after the count: the stage is drawn at once after the count, the rate of the count kept")
  func progressStage() {
    let clock = TestClock()
    let (console, captured) = Console.capturing(errorIsTerminal: true, errorWidth: 100)
    let progress = ProgressReporter("saving", unit: "articles", console: console, interval: 1, clock: { clock.now })
    clock.now = 2
    progress.update(completed: 50_000)
    #expect(captured.err == "\rsaving  50,000 articles  25,000 articles/s")
    clock.now = 2.5
    progress.enter("writing the search index…")  // within the interval, drawn all the same; counting took 2.5 s
    #expect(captured.err.hasSuffix("\rsaving  50,000 articles  20,000 articles/s  writing the search index…"))
    clock.now = 20
    progress.update(completed: 50_000)  // later draws keep the count's rate: 18 s of indexing are not counting
    let draws = captured.err.split(separator: "\r", omittingEmptySubsequences: true)
    #expect(draws.count == 3)
    #expect(draws.last == "saving  50,000 articles  20,000 articles/s  writing the search index…")
    progress.finish()
    progress.enter("ignored")
    #expect(!captured.err.contains("ignored"))

    let (quietConsole, quiet) = Console.capturing(errorIsTerminal: false)
    let silent = ProgressReporter("saving", console: quietConsole)
    silent.enter("writing the search index…")
    #expect(quiet.err.isEmpty)
  }

  @Test("progress text: without a total, numbers grouped, durations")
  func progressText() {
    #expect(
      ProgressReporter.line("syncing", completed: 1_234_567, total: nil, unit: "articles", elapsed: 2)
        == "syncing  1,234,567 articles  617,284 articles/s")
    #expect(
      ProgressReporter.line("importing", completed: 0, total: 50, unit: "records", elapsed: 0)
        == "importing  0/50 records  0%")
    #expect(
      ProgressReporter.line("importing", completed: 1_000_000, total: 2_000_000, unit: "records", elapsed: 1e-30)
        .hasPrefix("importing  1,000,000/2,000,000 records  50%  1,000,000,000,000,000 records/s"))
    #expect(0.groupedDigits == "0")
    #expect(999.groupedDigits == "999")
    #expect(1000.groupedDigits == "1,000")
    #expect((-12_345).groupedDigits == "-12,345")
    #expect(ProgressReporter.duration(4.2) == "5 s")
    #expect(ProgressReporter.duration(125) == "2 min 5 s")
    #expect(ProgressReporter.duration(3780) == "1 h 3 min")
    #expect(ProgressReporter.duration(.infinity) == "—")
  }

  @Test("progress on a narrow terminal never wraps")
  func progressNarrow() {
    let (console, captured) = Console.capturing(errorIsTerminal: true, errorWidth: 30)
    let clock = TestClock()
    let progress = ProgressReporter("importing", total: 1_000_000, console: console, interval: 0, clock: { clock.now })
    clock.now = 3
    progress.update(completed: 123_456)
    let line = captured.err.dropFirst()
    #expect(OutputFormat.displayWidth(line) <= 29, "\(line)")
    #expect(line.hasSuffix("…"))
  }
}

/// A clock tests move by hand.
private final class TestClock: Sendable {
  private let value = Mutex(0.0)
  var now: Double {
    get { value.withLock { $0 } }
    set { value.withLock { $0 = newValue } }
  }
}

/// `text` without ANSI SGR sequences (`ESC [ … m`).
private func strippingEscapes(_ text: String) -> String {
  text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
}

/// The display column where `title`'s (possibly clipped) text starts in `line`.
private func titleColumn(_ line: String, title: String) -> Int {
  let head = String(title.prefix(3))
  guard let range = line.range(of: head) else { return -1 }
  return OutputFormat.displayWidth(line[..<range.lowerBound])
}
