import OfflineNewsHTML

/// The keys of `news read`, in one table: what each does on the sources, on a list and on the article. The help
/// screen (`?`), `news read --keys` and the key table of docs/CLI.md are made from it (a test compares the doc's).
struct ReaderKey: Sendable, Equatable {
  /// The keys, as written on a keyboard's caps (`ENTER`, `PgDn`, `→`) or as typed (`j`, `/`).
  var keys: [String]
  /// What they do on the sources, on a list of articles, and on the open article; `nil` where they do nothing.
  var sources: String?
  var list: String?
  var article: String?

  /// Every key of the reader, in the order the help lists them.
  static let table: [ReaderKey] = [
    ReaderKey(keys: ["↑", "↓", "j", "k"], sources: "move", list: "move", article: "scroll a line"),
    ReaderKey(
      keys: ["PgUp", "PgDn", "SPACE"], sources: "a page", list: "a page",
      article: "a page (SPACE, f, PgDn down; PgUp, B up)"),
    ReaderKey(keys: ["g", "G", "Home", "End"], sources: "first, last", list: "first, last", article: "top, end"),
    ReaderKey(
      keys: ["ENTER", "l", "→"], sources: "open the source's or folder's articles (→ on a collapsed folder expands it)",
      list: "open the article (marks it read)", article: nil),
    ReaderKey(
      keys: ["-", "+"],
      sources:
        "collapse, expand the folder (- on a source in a folder collapses that folder); its row keeps the counts",
      list: nil, article: nil),
    ReaderKey(
      keys: ["n", "p"], sources: nil, list: "the next, the previous unread article",
      article: "open the next, the previous unread article of the list"),
    ReaderKey(
      keys: ["J", "K"], sources: nil, list: "the next, the previous article",
      article: "open the next, the previous article of the list"),
    ReaderKey(
      keys: ["N", "m"], sources: nil, list: "toggle read / unread (each key)",
      article: "toggle read / unread (each key)"),
    ReaderKey(
      keys: ["A"],
      sources:
        "mark every article of the source read, once y answers its question (a folder: of its sources; All: every "
        + "article)",
      list: "mark every article of the list read, once y answers its question (not a search's hits)", article: nil),
    ReaderKey(
      keys: ["r"], sources: "reload the source in the background (a folder: its sources; All: every source)",
      list: "reload the list's sources in the background", article: "reload the list's sources in the background"),
    ReaderKey(
      keys: ["R"], sources: "reload every source in the background", list: "reload every source in the background",
      article: "reload every source in the background"),
    ReaderKey(
      keys: ["s", "b"], sources: nil, list: "toggle the bookmark (each key)",
      article: "toggle the bookmark (each key)"),
    ReaderKey(
      keys: ["o"], sources: nil, list: "open the link with $NEWS_OPENER, else xdg-open (which honours $BROWSER)",
      article: "open the link with $NEWS_OPENER, else xdg-open (which honours $BROWSER)"),
    ReaderKey(
      keys: ["/"], sources: "search every article (FTS5): type, ENTER runs it (the hits as a list), ESC cancels",
      list: "search every article (FTS5): type, ENTER runs it (the hits as a list), ESC cancels",
      article: "search every article (FTS5): type, ENTER runs it (the hits as a list), ESC cancels"),
    ReaderKey(keys: ["q", "ESC"], sources: "quit", list: "back", article: "back"),
    ReaderKey(
      keys: ["←"], sources: "collapse the folder, or the one the row is in (never quits)", list: "back",
      article: "back"),
    ReaderKey(
      keys: ["?"], sources: "these keys (any key closes them)", list: "these keys (any key closes them)",
      article: "these keys (any key closes them)"),
  ]

  /// What the key does on `screen` (`nil` for the help screen, where any key closes it).
  func meaning(on screen: Reader.Screen) -> String? {
    switch screen {
    case .sources: sources
    case .articles: list
    case .article: article
    case .help: nil
    }
  }

  /// The keys that do something on `screen`: the keys in a column, then what they do, on one line each; with a
  /// `width` (display columns, the help screen's), what they do is wrapped under itself to fit (a line each when
  /// under 40 columns leave no room for the two columns: those lines are cut on the screen).
  static func lines(on screen: Reader.Screen, width: Int? = nil) -> [String] {
    let keyColumn = 20
    return table.flatMap { key -> [String] in
      guard let meaning = key.meaning(on: screen) else { return [] }
      let keys = "  " + OutputFormat.padded(key.keys.joined(separator: " "), to: keyColumn - 2)
      guard let width, width >= 2 * keyColumn else { return [keys + meaning] }
      let indent = String(repeating: " ", count: keyColumn)
      return LineWrapper(width: width - keyColumn - 1).wrap(meaning).enumerated().map {
        ($0.offset == 0 ? keys : indent) + $0.element
      }
    }
  }

  /// `news read --keys`: every key, screen by screen.
  static var text: String {
    let screens: [(String, Reader.Screen)] = [
      ("On the sources", .sources), ("On a list of articles", .articles), ("On the article", .article),
    ]
    return screens.map { title, screen in ([title + ":"] + lines(on: screen)).joined(separator: "\n") }
      .joined(separator: "\n\n") + "\n"
  }

  /// The table of docs/CLI.md: a row for each key, a column for each screen ("the same" when a key does there what
  /// it does on the screen to the left, "—" where it does nothing).
  static var markdown: [String] {
    var rows = ["| key | on the sources | on a list | on the article |", "|---|---|---|---|"]
    for key in table {
      var cells = [key.keys.map { "`\($0)`" }.joined(separator: " ")]
      var left: String?
      for meaning in [key.sources, key.list, key.article] {
        cells.append(meaning.map { $0 == left ? "the same" : $0 } ?? "—")
        left = meaning
      }
      rows.append("| " + cells.joined(separator: " | ") + " |")
    }
    return rows
  }
}
