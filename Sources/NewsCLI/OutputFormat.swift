import Foundation
import OfflineNews
import OfflineNewsHTML
import OfflineNewsModel
import OfflineNewsStorage

/// Human and JSON renderings of articles and results.
enum OutputFormat {
  // MARK: JSON

  /// The `--json` document of a read:
  /// `{"origin":"network"|"cache","fetchedAt":ISO-8601|null,"networkError":string|null,"articles":[…]}`.
  struct ResultDocument: Encodable {
    var origin: Origin
    /// RFC 3339 UTC with milliseconds.
    var fetchedAt: String?
    var networkError: String?
    var articles: [ArticleDocument]

    init(origin: Origin, fetchedAt: Timestamp?, networkError: String?, articles: [ArticleDocument]) {
      self.origin = origin
      self.fetchedAt = fetchedAt?.rfc3339String
      self.networkError = networkError
      self.articles = articles
    }
  }

  /// A query's last fetch in `--json` output (`news stats`' `fetches`, `news sources`' `alsoCached`): what was
  /// fetched, when (RFC 3339 UTC with milliseconds), and how many articles are cached from it.
  struct FetchDocument: Encodable {
    /// The URL fetched, or the file's path (`news sources`) or query key (`news stats`) read; a URL as people are
    /// shown it (`NewsQuery.shown`: no password).
    var query: String
    var fetchedAt: String
    var articles: Int

    init(query: String, fetchedAt: Timestamp, articles: Int) {
      self.query = NewsQuery.shown(query)
      self.fetchedAt = fetchedAt.rfc3339String
      self.articles = articles
    }

    /// When it was fetched, relative to `now` as ``OutputFormat/relative(_:now:)`` says it ("5 min ago").
    func fetched(now: Date) -> String {
      Timestamp(rfc3339: fetchedAt).map { OutputFormat.relative($0.date, now: now) } ?? fetchedAt
    }
  }

  /// A file's size as `news stats` and `news compact` print it: Foundation's file style, decimal units ("1.2 MB").
  static func fileSize(_ bytes: Int64) -> String {
    ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
  }

  /// `seconds` rounded to the millisecond, as the `--json` documents give durations (`ageSeconds`).
  static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

  /// One article in `--json` output: the fields declared with the article's columns (``ArticleColumn/jsonFields``);
  /// absent values are `null`, `publishedAt` is RFC 3339 UTC with milliseconds. `url` is the link as the source gave
  /// it (null for an item without one), `id` the article's key, `handle` the whole handle (16 hex digits: stable,
  /// and accepted wherever the short one is).
  struct ArticleDocument: Encodable {
    var article: Article

    private struct FieldName: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: FieldName.self)
      for field in ArticleColumn.jsonFields {
        if let value = field.value(article) {
          try c.encode(value, forKey: FieldName(stringValue: field.name))
        } else {
          try c.encodeNil(forKey: FieldName(stringValue: field.name))
        }
      }
    }
  }

  /// The source shown beside an article: the publisher's name, else the configured source's name, else the last
  /// part of the feed, file or URL it came from.
  static func displaySource(_ article: Article) -> String {
    if let name = article.sourceName ?? article.sourceID, !name.isEmpty { return name }
    guard let source = article.source else { return "" }
    if source.hasPrefix("/") { return URL(fileURLWithPath: source).lastPathComponent }
    if let url = URL(string: source), let host = url.host { return host }
    return source
  }

  static func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Every key always present: an absent optional is `null` (``NullKeeping``).
    guard let data = try? encoder.encode(NullKeeping(value: value)) else { return "{}\n" }
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  static func document(_ result: NewsResult, limit: Int?) -> ResultDocument {
    ResultDocument(
      origin: result.origin, fetchedAt: result.fetchedTimestamp, networkError: result.networkError?.description,
      articles: result.articles.prefix(limit ?? .max).map(ArticleDocument.init))
  }

  // MARK: Human

  /// `offline — 20 cached articles from 3 h ago (network: connection refused)`, or
  /// `online — 19 articles from <source>` (`read — …` for a file source).
  ///
  /// With `color`, the state word is coloured: `offline` bold yellow, `online` and `read` green.
  static func header(_ result: NewsResult, source: String, now: Date, color: Bool = false) -> String {
    let style = TextStyle(enabled: color)
    let count = result.articles.count
    let noun = count == 1 ? "article" : "articles"
    switch result.origin {
    case .network:
      let state = result.query.url.isFileURL ? "read" : "online"
      // Skipped records are told on standard error, by reason (``issueSummary(_:verbose:)``).
      let line = " — \(count) \(noun) from \(sanitized(source))"
      return style.apply(.green, state) + line
    case .cache:
      let age = result.fetchedTimestamp.map { relative($0.date, now: now) } ?? "an unknown time"
      var line = " — \(count) cached \(noun) from \(age)"
      if let error = result.networkError {
        // The request served past its deadline ends with this process: the next fetch asks again.
        let next = result.refreshContinues ? "; not waited for: the next 'news fetch' asks again" : ""
        line += " (network: \(sanitized(error.description))\(next))"
      }
      return style.apply(.boldYellow, "offline") + line
    }
  }

  /// One line per article in aligned columns: time ago (dim), source (bold), title.
  ///
  /// With a `width`, every line fits in it (for widths of 20 columns and more): the title is clipped with `…`, and
  /// on a narrow terminal the source column shrinks, then disappears. Without one (a pipe), titles are whole.
  /// Widths are display columns: CJK and emoji count 2, combining marks 0. Right-to-left text is left in its
  /// logical order for the terminal to lay out. Newlines, tabs and control characters in the data (including escape
  /// codes) become spaces or are dropped, so one article is always one line.
  static func lines(
    _ articles: some Collection<Article>, handles: [String: String] = [:], now: Date, width: Int?, color: Bool = false
  ) -> String {
    var keys: [String] = []
    var when: [String] = []
    var sources: [String] = []
    var titles: [String] = []
    for article in articles {
      keys.append(handles[article.url.absoluteString] ?? String(article.handle.prefix(6)))
      when.append(relative(article.publishedAt, now: now))
      let source = sanitized(displaySource(article), collapsingWhitespace: true)
      sources.append(source.isEmpty ? "—" : source)
      titles.append(sanitized(article.title, collapsingWhitespace: true))
    }
    return table(
      [
        // On a narrow terminal the source goes first, then the time, then the handle: the title stays.
        Column(cells: keys, attribute: .yellow, droppable: true),
        Column(cells: when, attribute: .dim, droppable: true),
        Column(cells: sources, attribute: .bold, maxWidth: 22, minWidth: 8, droppable: true),
        Column(cells: titles),
      ], width: width, color: color, flexibleMinimum: 16)
  }

  /// ``lines(_:now:width:color:)`` fitted to a console's width, in colour when the console allows it.
  static func lines(
    _ articles: some Collection<Article>, handles: [String: String] = [:], now: Date, console: Console
  ) -> String {
    lines(articles, handles: handles, now: now, width: console.width, color: console.color)
  }

  /// "just now", "5 min ago", "3 h ago", "2 d ago", "4 mo ago", "3 y ago"; "in 2 h" for a future date.
  static func relative(_ date: Date, now: Date) -> String {
    let seconds = now.timeIntervalSince(date)
    guard seconds.isFinite else { return "—" }
    let magnitude = abs(seconds)
    let amount: String
    switch magnitude {
    case ..<60: return "just now"
    case ..<3600: amount = "\(Int(magnitude / 60)) min"
    case ..<86_400: amount = "\(Int(magnitude / 3600)) h"
    case ..<(86_400 * 60): amount = "\(Int(magnitude / 86_400)) d"
    case ..<(86_400 * 365): amount = "\(Int(magnitude / (86_400 * 30))) mo"
    default: amount = "\(max(1, Int(magnitude / (86_400 * 365.25)))) y"
    }
    return seconds >= 0 ? amount + " ago" : "in " + amount
  }

  /// A time of day to wait for, in `zone`: `14:05` on the day of `now`, else `2026-12-05 14:05` (24-hour clock).
  static func clockTime(_ date: Date, now: Date, zone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    guard !calendar.isDate(date, inSameDayAs: now) else { return time }
    return String(format: "%04d-%02d-%02d ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0) + time
  }

  /// What `news show` and `news fetch` say of a page that failed: `the whole article could not be fetched (HTTP
  /// 404, 3 min ago); news fetch --source NAME --full-text retries it after 14:05, or now with --retry-failed`.
  /// `fetch` is the command that retries it (`news fetch --source NAME --full-text`).
  static func fullTextFailureNote(_ failure: FullTextFailure, fetch: String, now: Date, zone: TimeZone) -> String {
    let cause = sanitized(failure.cause.description, collapsingWhitespace: true)
    var note = "the whole article could not be fetched (\(cause), \(relative(failure.failedAt, now: now))); \(fetch)"
    if failure.isDue(at: now) {
      note += " retries it"
    } else {
      note += " retries it after \(clockTime(failure.retryAfter, now: now, zone: zone)), or now with --retry-failed"
    }
    return note
  }

  // MARK: Columns

  /// One column of a ``table(_:width:color:indent:gap:flexibleMinimum:)``.
  struct Column: Sendable {
    /// The column's text, one cell per row (already ``sanitized(_:collapsingWhitespace:)``).
    var cells: [String]
    /// How the cells are drawn on a colour console.
    var attribute: TextStyle.Attribute?
    /// The widest the column may be; longer cells are clipped with `…`.
    var maxWidth = Int.max
    /// The narrowest a fixed column may shrink to when the line does not fit; by default it does not shrink.
    var minWidth = Int.max
    /// Whether the column may be left out when the line still does not fit after shrinking.
    var droppable = false
  }

  /// Rows of aligned columns, one line each, indented by `indent`, columns `gap` apart; with `headings` (one per
  /// column), a first line of column headings (bold on a colour console), counted in the columns' widths.
  ///
  /// Every column but the last is padded to its widest cell (at most its `maxWidth`); the last is the flexible one:
  /// it is not padded and, with a `width`, gets the rest of the line, clipped with `…`. When the rest is narrower
  /// than `flexibleMinimum`, fixed columns shrink toward their `minWidth`, right to left, then droppable columns
  /// are left out, right to left.
  static func table(
    _ columns: [Column], width: Int?, color: Bool, indent: Int = 2, gap: Int = 2, flexibleMinimum: Int = 24,
    headings: [String]? = nil
  ) -> String {
    var columns = columns
    if let headings {
      for index in columns.indices { columns[index].cells.insert(index < headings.count ? headings[index] : "", at: 0) }
    }
    guard let flexible = columns.last else { return "" }
    let rowCount = columns.map(\.cells.count).max() ?? 0
    let fixed = columns.dropLast()
    let fixedRange = fixed.indices
    var widths = fixed.map { column in min(column.maxWidth, column.cells.map(displayWidth).max() ?? 0) }
    var shown = fixed.map { _ in true }
    func room() -> Int {
      fixedRange.reduce(width.map { $0 - indent } ?? .max) { rest, index in
        shown[index] ? rest - widths[index] - gap : rest
      }
    }
    if width != nil {
      let wanted = min(flexibleMinimum, flexible.cells.map(displayWidth).max() ?? 0)
      for index in fixedRange.reversed() where room() < wanted {
        let narrowest = min(widths[index], max(1, fixed[index].minWidth))
        widths[index] -= min(widths[index] - narrowest, wanted - room())
      }
      for index in fixedRange.reversed() where room() < wanted && fixed[index].droppable { shown[index] = false }
    }
    let flexibleWidth = max(1, room())
    let style = TextStyle(enabled: color)
    let margin = String(repeating: " ", count: indent)
    let spacing = String(repeating: " ", count: gap)
    var text = ""
    for row in 0..<rowCount {
      var line = margin
      let isHeading = headings != nil && row == 0
      for index in fixedRange where shown[index] {
        let cell = row < fixed[index].cells.count ? fixed[index].cells[row] : ""
        let clipped = clip(cell, widths[index])
        let attribute = isHeading ? .bold : fixed[index].attribute
        let styled = attribute.map { style.apply($0, clipped) } ?? clipped
        line += styled + String(repeating: " ", count: max(0, widths[index] - displayWidth(clipped))) + spacing
      }
      let cell = row < flexible.cells.count ? flexible.cells[row] : ""
      let clipped = width == nil ? cell : clip(cell, flexibleWidth)
      if clipped.isEmpty {
        while line.hasSuffix(" ") { line.removeLast() }
      } else {
        let attribute = isHeading ? .bold : flexible.attribute
        line += attribute.map { style.apply($0, clipped) } ?? clipped
      }
      text += line + "\n"
    }
    return text
  }

  // MARK: Text measure

  /// `text` cut to at most `width` display columns, ending with `…` when something was cut.
  ///
  /// The text's own SGR escape codes (``TextStyle``'s, the only ones a sanitized text can hold) take no column and
  /// are kept; a style still open at the cut is reset after the `…`. Bidi scopes left open by the cut are closed
  /// (``TerminalText/closingBidi(_:)``).
  static func clip(_ text: String, _ width: Int) -> String {
    guard width > 0 else { return "" }
    guard displayWidth(text) > width else { return text }
    var kept = ""
    var used = 0
    var styled = false
    var escape: String?
    for character in text {
      if var sequence = escape {
        sequence.append(character)
        if character.unicodeScalars.count == 1, let value = character.unicodeScalars.first?.value,
          (0x40...0x7E).contains(value), sequence.count > 2
        {
          kept += sequence
          styled = sequence != "\u{1B}[0m"
          escape = nil
        } else {
          escape = sequence
        }
        continue
      }
      if character == "\u{1B}" {
        escape = "\u{1B}"
        continue
      }
      let columns = displayWidth(character)
      if used + columns > width - 1 { break }
      kept.append(character)
      used += columns
    }
    while let last = kept.last, last.isWhitespace { kept.removeLast() }
    return TerminalText.closingBidi(kept) + "…" + (styled ? "\u{1B}[0m" : "")
  }

  /// `text` followed by spaces up to `width` display columns (unchanged when already as wide).
  static func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - displayWidth(text)))
  }

  /// The number of terminal columns `text` takes: the sum of its characters' ``displayWidth(_:)-(Character)``;
  /// escape sequences (`ESC [ … final`, as ``TextStyle`` writes them) take none.
  static func displayWidth(_ text: some StringProtocol) -> Int {
    // Printable ASCII: one column a byte (no escape, no control, no CR LF), without breaking it into characters.
    if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text.utf8.count }
    var total = 0
    var inEscape = false
    var afterIntroducer = false
    for character in text {
      if inEscape {
        let value = character.unicodeScalars.first?.value ?? 0
        if afterIntroducer {
          afterIntroducer = false
        } else if character.unicodeScalars.count == 1, (0x40...0x7E).contains(value) {
          inEscape = false
        }
        continue
      }
      if character == "\u{1B}" {
        inEscape = true
        afterIntroducer = true
        continue
      }
      total += displayWidth(character)
    }
    return total
  }

  /// The terminal columns one character (grapheme cluster) takes: ``TerminalColumns/width(of:)-(Character)``
  /// (0 for marks, format and control characters; 2 for East Asian wide characters and emoji; 1 otherwise).
  static func displayWidth(_ character: Character) -> Int {
    TerminalColumns.width(of: character)
  }

  /// What a save's line adds when it left out articles whose keys a deletion or an eviction remembers
  /// (``ArticleSaveResult/remembered``, of which `evicted` by the eviction policy:
  /// ``ArticleSaveResult/rememberedEvicted``), worded by cause, or nothing:
  /// `; 2 left out: deleted before ('news delete --forget-deleted' lets them back)`;
  /// `; 2 left out: evicted before by the configuration's "eviction" (…)` — `--forget-deleted` alone would let
  /// them back only for the same limit to evict them again; or both counts. The one wording of `news import` (a
  /// file, and `--mapping`), `news fetch` and each source of `news fetch --all`.
  static func leftOut(_ remembered: Int, evicted: Int) -> String {
    guard remembered > 0 else { return "" }
    let evicted = min(max(0, evicted), remembered)
    let deleted = remembered - evicted
    let forget = "'news delete --forget-deleted'"
    let raise = "raise its limits, then \(forget) lets them back"
    switch (deleted, evicted) {
    case (_, 0): return "; \(remembered) left out: deleted before (\(forget) lets them back)"
    case (0, _): return "; \(remembered) left out: evicted before by the configuration's \"eviction\" (\(raise))"
    default:
      return "; \(remembered) left out: \(deleted) deleted before, \(evicted) evicted by the configuration's "
        + "\"eviction\" (\(forget) lets the deleted back; for the evicted, \(raise))"
    }
  }

  /// `text` safe to print on one line of a terminal (``TerminalText/field(_:collapsingWhitespace:)``): line breaks
  /// and tabs become spaces; other control characters (C0, DEL, C1, so any escape sequence's introducer) are
  /// dropped; bidi embeddings, overrides and isolates are closed at its end; invisible format characters are dropped.
  /// With `collapsingWhitespace`, runs of those spaces become one and the ends are trimmed. Letters, marks, other
  /// spaces (no-break, ideographic) and right-to-left text are kept as they are. A text that is a URL with a password
  /// (a source named by its URL before such names were shown without it) is shown as ``NewsQuery/shown(_:)-(String)``
  /// shows it.
  static func sanitized(_ text: String, collapsingWhitespace: Bool = false) -> String {
    TerminalText.field(NewsQuery.shown(text), collapsingWhitespace: collapsingWhitespace)
  }
}
