import Foundation
import NewsTerminal
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@testable import NewsCLI

/// `news read`'s screens and keys without a terminal (``Reader``): what each key does and asks for, and that every
/// screen fits any size, wide characters included.
@Suite("news read: screens and keys")
struct ReaderTests {
  static let now = Date(timeIntervalSince1970: 1_764_400_000)

  static func article(_ index: Int, _ title: String, read: Bool = false) -> Article {
    var article = Article(
      url: URL(string: "https://example.com/\(index)") ?? URL(fileURLWithPath: "/"), title: title,
      publishedAt: now.addingTimeInterval(Double(-3600 * index)))
    article.isRead = read
    article.sourceName = index.isMultiple(of: 2) ? "日本のニュース" : "Wire"
    article.summary = "<p>Paragraph of \(title).</p>"
    return article
  }

  static let articles = [
    article(1, "東京の桜が満開に 🌸"), article(2, "Second story"), article(3, "Third, already read", read: true),
  ]

  static func reader() -> Reader {
    Reader(
      sources: [
        Reader.SourceRow(title: "All articles", depth: 0, filter: .all, isFolder: false),
        Reader.SourceRow(
          title: "wide", depth: 0, filter: ArticleFilter(source: "wide"), isFolder: false, reloads: .source("wide")),
      ], unreadOnly: false, now: now)
  }

  @Test("ENTER opens a list (observed), ENTER opens the article and marks it read, n/J move, q goes back and quits")
  func flow() {
    var reader = Self.reader()
    #expect(reader.handle(.down, height: 30) == [])
    #expect(reader.handle(.enter, height: 30) == [.observe(ArticleFilter(source: "wide"))])
    #expect(reader.screen == .articles)
    reader.setArticles(Self.articles)
    #expect(reader.handle(.enter, height: 30) == [.markRead(Self.articles[0], true)])
    #expect(reader.screen == .article)
    #expect(reader.handle(.character("n"), height: 30) == [.markRead(Self.articles[1], true)])
    #expect(reader.open?.url == Self.articles[1].url)
    #expect(reader.handle(.character("n"), height: 30) == [])
    #expect(reader.message == "no next unread article", "the third is read: n skips it")
    #expect(reader.handle(.character("J"), height: 30) == [], "the third is read already: opened, nothing to mark")
    #expect(reader.open?.url == Self.articles[2].url)
    #expect(reader.handle(.character("J"), height: 30) == [])
    #expect(reader.message == "no next article")
    #expect(reader.handle(.character("N"), height: 30) == [.markRead(Self.articles[2], false)])
    #expect(reader.handle(.character("m"), height: 30) == [.markRead(Self.articles[2], false)])
    #expect(reader.handle(.character("b"), height: 30) == [.bookmark(Self.articles[2], true)])
    #expect(reader.handle(.character("o"), height: 30) == [.openLink(Self.articles[2])])
    #expect(reader.handle(.character("q"), height: 30) == [])
    #expect(reader.screen == .articles)
    #expect(reader.handle(.character("q"), height: 30) == [])
    #expect(reader.handle(.character("q"), height: 30) == [.quit])
  }

  @Test("a list that holds only the newest of its row's articles says so in its title bar; a whole one does not")
  func partialList() {
    var reader = Reader(
      sources: [
        Reader.SourceRow(
          title: "Big", depth: 0, filter: ArticleFilter(source: "Big"), isFolder: false,
          counts: ArticleCounts(total: 17_713, unread: 9_000)),
        Reader.SourceRow(
          title: "Small", depth: 0, filter: ArticleFilter(source: "Small"), isFolder: false,
          counts: ArticleCounts(total: 3, unread: 2)),
      ], unreadOnly: false, now: Self.now)
    _ = reader.handle(.enter, height: 30)
    reader.setArticles(Self.articles, counts: ArticleCounts(total: 17_713, unread: 9_000))
    let title = reader.lines(height: 10, width: 200).first.map { String(describing: $0) } ?? ""
    #expect(title.contains("Big (newest 3 of 17713 articles, 9000 unread; / searches them all)"), "\(title)")
    // Another shell deletes all but two: the counts read with the new rows say so (not the row's counts of before).
    reader.setArticles(Array(Self.articles.prefix(2)), counts: ArticleCounts(total: 2, unread: 2))
    let after = reader.lines(height: 10, width: 200).first.map { String(describing: $0) } ?? ""
    #expect(after.contains("Big (2 articles, 2 unread)"), "\(after)")
    #expect(!after.contains("17713"), "\(after)")
    _ = reader.handle(.character("q"), height: 30)
    _ = reader.handle(.down, height: 30)
    _ = reader.handle(.enter, height: 30)
    reader.setArticles(Self.articles, counts: ArticleCounts(total: 3, unread: 2))
    let whole = reader.lines(height: 10, width: 200).first.map { String(describing: $0) } ?? ""
    #expect(whole.contains("Small (3 articles, 2 unread)"), "\(whole)")
  }

  @Test("--source starts on the list; --unread filters the lists it opens")
  func starting() {
    let start = Reader(
      sources: [], startingList: (title: "wide", filter: ArticleFilter(source: "wide"), reloads: .source("wide")),
      unreadOnly: false,
      now: Self.now
    )
    #expect(start.screen == .articles)
    #expect(start.initialActions == [.observe(ArticleFilter(source: "wide"))])
    var unread = Reader(
      sources: [Reader.SourceRow(title: "All articles", depth: 0, filter: .all, isFolder: false)], unreadOnly: true,
      now: Self.now)
    #expect(unread.handle(.enter, height: 30) == [.observe(ArticleFilter(unreadOnly: true))])
  }

  @Test("/ types a search, ENTER runs it as a list, ESC cancels, text with no word is refused")
  func search() {
    var reader = Self.reader()
    _ = reader.handle(.character("/"), height: 30)
    for character in "桜 x" { _ = reader.handle(.character(character), height: 30) }
    _ = reader.handle(.backspace, height: 30)
    #expect(reader.lines(height: 10, width: 40).last?.text == "/桜 ▏")
    #expect(reader.handle(.enter, height: 30) == [.search("桜")])
    #expect(reader.screen == .articles && reader.listTitle == "Search: 桜")
    _ = reader.handle(.character("/"), height: 30)
    _ = reader.handle(.character("-"), height: 30)
    #expect(reader.handle(.enter, height: 30) == [])
    #expect(reader.message?.hasPrefix("nothing to search for") == true)
    _ = reader.handle(.character("/"), height: 30)
    #expect(reader.handle(.escape, height: 30) == [])
    #expect(reader.prompt == nil && reader.screen == .articles)
  }

  @Test("q on a search's results goes back to the list it was searched from, where it was; then to the sources")
  func searchFromAList() {
    var reader = Self.reader()
    _ = reader.handle(.down, height: 30)
    #expect(reader.handle(.enter, height: 30) == [.observe(ArticleFilter(source: "wide"))])
    reader.setArticles(Self.articles)
    _ = reader.handle(.down, height: 30)
    _ = reader.handle(.character("/"), height: 30)
    _ = reader.handle(.character("x"), height: 30)
    #expect(reader.handle(.enter, height: 30) == [.search("x")])
    #expect(reader.listTitle == "Search: x")
    // A fresh user's q here went to the sources screen, losing the list (newsboat closes results onto it).
    #expect(reader.handle(.character("q"), height: 30) == [.observe(ArticleFilter(source: "wide"))])
    #expect(reader.screen == .articles && reader.listTitle == "wide")
    reader.setArticles(Self.articles)
    #expect(reader.articleSelection == 1, "where it was")
    #expect(reader.handle(.character("q"), height: 30) == [])
    #expect(reader.screen == .sources)
    // From the sources screen, results close onto the sources.
    _ = reader.handle(.character("/"), height: 30)
    _ = reader.handle(.character("x"), height: 30)
    _ = reader.handle(.enter, height: 30)
    #expect(reader.handle(.character("q"), height: 30) == [])
    #expect(reader.screen == .sources)
  }

  @Test("every screen fits its size, from 10×3 to 200×60, CJK and emoji measured in columns")
  func fits() {
    for (width, height) in [(10, 3), (24, 8), (40, 12), (60, 20), (100, 30), (200, 60)] {
      var reader = Self.reader()
      var screens: [[Terminal.Line]] = [reader.lines(height: height, width: width)]
      _ = reader.handle(.enter, height: height)
      reader.setArticles(Self.articles)
      screens.append(reader.lines(height: height, width: width))
      _ = reader.handle(.enter, height: height)
      screens.append(reader.lines(height: height, width: width))
      _ = reader.handle(.character("?"), height: height)
      screens.append(reader.lines(height: height, width: width))
      for screen in screens {
        #expect(screen.count == height || height < 3, "\(width)×\(height): \(screen.count) lines")
        for line in screen {
          #expect(OutputFormat.displayWidth(line.text) <= width, "\(width)×\(height): \(line.text)")
        }
      }
    }
  }

  @Test("a new version of the list keeps the selection on the same article")
  func selectionFollows() {
    var reader = Self.reader()
    _ = reader.handle(.enter, height: 30)
    reader.setArticles(Self.articles)
    _ = reader.handle(.down, height: 30)
    let newer = Self.article(0, "Newest")
    reader.setArticles([newer] + Self.articles)
    #expect(reader.articleSelection == 2)
    reader.update(Self.articles[1].url) { $0.isRead = true }
    #expect(reader.articles[2].isRead)
  }

  @Test("the open article keeps its whole text when the list (its listing fields only) changes; its marks follow")
  func openArticleStaysWhole() {
    var reader = Self.reader()
    _ = reader.handle(.enter, height: 30)
    // The list as the command observes it: no bodies (ArticleFields.listing).
    let listing = Self.articles.map { article -> Article in
      var listed = article
      listed.summary = nil
      return listed
    }
    reader.setArticles(listing)
    #expect(reader.handle(.enter, height: 30) == [.markRead(listing[0], true)])
    #expect(reader.open?.summary == nil)
    reader.setWhole(Self.articles[0])
    reader.setWhole(Self.articles[1])  // not the open one: ignored
    #expect(reader.open == Self.articles[0])
    let shown = reader.lines(height: 30, width: 100).map(\.text)
    #expect(shown.contains { $0.contains("Paragraph of 東京の桜が満開に") }, "\(shown)")
    var marked = listing
    marked[0].isRead = true
    marked[0].bookmarkedAt = Self.now
    reader.setArticles(marked)
    #expect(reader.open?.summary == Self.articles[0].summary)
    #expect(reader.open?.isRead == true && reader.open?.isBookmarked == true)
  }

  @Test("newsboat's keys: n/p the next and previous unread, A marks the source or list read, r/R reload")
  func newsboatKeys() {
    var reader = Self.reader()
    #expect(reader.handle(.character("R"), height: 30) == [.reload(.all)], "R: every source")
    #expect(reader.handle(.character("r"), height: 30) == [.reload(.all)], "r on All articles: every source")
    _ = reader.handle(.down, height: 30)
    #expect(reader.handle(.character("r"), height: 30) == [.reload(.source("wide"))])
    // A asks first, as newsboat does; y marks, any other key cancels.
    #expect(reader.handle(.character("A"), height: 30) == [])
    #expect(reader.lines(height: 10, width: 80).last?.text.hasPrefix("mark every article of wide") == true)
    #expect(reader.handle(.character("n"), height: 30) == [])
    #expect(reader.message == "nothing marked")
    #expect(reader.handle(.character("A"), height: 30) == [])
    #expect(reader.handle(.character("y"), height: 30) == [.markAllRead(ArticleFilter(source: "wide"), title: "wide")])
    _ = reader.handle(.enter, height: 30)
    let list = [
      Self.article(1, "One", read: true), Self.article(2, "Two"), Self.article(3, "Three", read: true),
      Self.article(4, "Four"),
    ]
    reader.setArticles(list)
    #expect(reader.handle(.character("n"), height: 30) == [])
    #expect(reader.articleSelection == 1, "the first unread below the first row")
    #expect(reader.handle(.character("n"), height: 30) == [])
    #expect(reader.articleSelection == 3, "the read third is skipped")
    #expect(reader.handle(.character("n"), height: 30) == [])
    #expect(reader.message == "no unread article below")
    #expect(reader.handle(.character("p"), height: 30) == [])
    #expect(reader.articleSelection == 1)
    #expect(reader.handle(.character("K"), height: 30) == [])
    #expect(reader.articleSelection == 0, "K: the previous article, read or not")
    #expect(reader.handle(.character("r"), height: 30) == [.reload(.source("wide"))], "r on a list: its sources")
    // On a list: up to the newest article it shows, not one a refresh added since.
    var shown = ArticleFilter(source: "wide")
    let newest = Timestamp(list.map(\.publishedAt).max() ?? Self.now).millisecondsSince1970
    shown.publishedBefore = Timestamp(millisecondsSince1970: newest + 1).date
    #expect(reader.handle(.character("A"), height: 30) == [])
    #expect(reader.lines(height: 10, width: 80).last?.text == "mark every article of wide (2 unread) read? y/n")
    #expect(reader.handle(.character("y"), height: 30) == [.markAllRead(shown, title: "wide")])
    reader.reloading = "reloading: 1 of 3 sources done…"
    #expect(reader.lines(height: 10, width: 60).last?.text == "reloading: 1 of 3 sources done…")
    _ = reader.handle(.character("/"), height: 30)
    for character in "two" { _ = reader.handle(.character(character), height: 30) }
    _ = reader.handle(.enter, height: 30)
    #expect(reader.handle(.character("A"), height: 30) == [])
    #expect(reader.message?.hasPrefix("A marks a source's") == true, "a search's hits are not a source")
  }

  @Test("the sources show each source's age, ! when its last refresh failed, and the error of the selected one")
  func sourceHealth() {
    var reader = Self.reader()
    let fetched = Self.now.addingTimeInterval(-3 * 3600)
    reader.setCounts([ArticleCounts(total: 5, unread: 2), ArticleCounts(total: 3, unread: 1)])
    reader.setHealth([
      nil,
      SourceHealth(
        lastFetched: fetched, lastError: "HTTP 503 from wide.example", lastErrorAt: Self.now.addingTimeInterval(-60)),
    ])
    var lines = reader.lines(height: 10, width: 80).map(\.text)
    let wide = lines.first { $0.contains("wide") } ?? ""
    #expect(wide.contains("!3 h ago") && wide.hasSuffix("1/3"), "\(wide)")
    #expect(lines.last?.contains("q:Quit") == true, "All articles has no error: the keys line")
    _ = reader.handle(.down, height: 10)
    lines = reader.lines(height: 10, width: 80).map(\.text)
    #expect(lines.last?.hasPrefix("last error 1 min ago: HTTP 503 from wide.example") == true, "\(lines.last ?? "")")
    for width in [10, 30, 39, 40] {
      #expect(reader.lines(height: 10, width: width).allSatisfy { OutputFormat.displayWidth($0.text) <= width })
    }
  }

  @Test("an opened article lists its images as news show does, once the command has read them")
  func articleImages() throws {
    var reader = Self.reader()
    _ = reader.handle(.enter, height: 30)
    reader.setArticles(Self.articles)
    _ = reader.handle(.enter, height: 30)
    #expect(!reader.lines(height: 30, width: 100).contains { $0.text.hasPrefix("images ") })
    let image = ArticleImage(
      url: try #require(URL(string: "https://cdn.example/sakura.jpg")), position: 0, isLead: true, file: "sakura.jpg",
      error: "HTTP 404")
    reader.setImages([ShowCommand.ShownImage(image, file: nil)], of: Self.articles[0].url)
    let lines = reader.lines(height: 30, width: 100).map(\.text)
    #expect(lines.contains("images 0 of 1 offline"), "\(lines)")
    #expect(lines.contains { $0.contains("remote   https://cdn.example/sakura.jpg (lead image, HTTP 404)") })
    reader.setImages([], of: Self.articles[1].url)
    #expect(reader.lines(height: 30, width: 100).contains { $0.text == "images 0 of 1 offline" }, "not the open one")
  }

  /// All articles; the folder Tech with Swift inside it (a source in each); the folder Tech 2; a source in no folder.
  static func folders() -> Reader {
    func source(_ name: String, depth: Int) -> Reader.SourceRow {
      Reader.SourceRow(
        title: name, depth: depth, filter: ArticleFilter(source: name), isFolder: false, reloads: .source(name))
    }
    func folder(_ name: String, depth: Int, _ sources: [String]) -> Reader.SourceRow {
      Reader.SourceRow(
        title: name, depth: depth, filter: ArticleFilter(anyOfSources: sources.map { SourceMatch(source: $0) }),
        isFolder: true, reloads: .folder(name))
    }
    return Reader(
      sources: [
        Reader.SourceRow(title: "All articles", depth: 0, filter: .all, isFolder: false),
        folder("Tech", depth: 0, ["lwn", "swiftorg"]), source("lwn", depth: 1),
        folder("Swift", depth: 1, ["swiftorg"]), source("swiftorg", depth: 2),
        folder("Tech 2", depth: 0, ["hn"]), source("hn", depth: 1),
        source("loose", depth: 0),
      ], unreadOnly: false, now: now)
  }

  /// The titles of the source rows on the screen, without their marks and counts.
  static func shownTitles(_ reader: inout Reader) -> [String] {
    reader.lines(height: 20, width: 80).dropFirst().dropLast().map {
      $0.text.dropFirst(2).trimmingCharacters(in: .whitespaces).split(separator: "  ").first.map(String.init) ?? ""
    }.filter { !$0.isEmpty }
  }

  @Test("- and + collapse and expand a folder, ← and → too; a collapsed folder keeps its counts; j/k skip its rows")
  func collapsingFolders() {
    var reader = Self.folders()
    reader.setCounts([
      ArticleCounts(total: 60, unread: 9), ArticleCounts(total: 30, unread: 4), ArticleCounts(total: 10, unread: 1),
      ArticleCounts(total: 20, unread: 3), ArticleCounts(total: 20, unread: 3), ArticleCounts(total: 25, unread: 5),
      ArticleCounts(total: 25, unread: 5), ArticleCounts(total: 5, unread: 0),
    ])
    #expect(
      Self.shownTitles(&reader) == ["All articles", "▾ Tech", "lwn", "▾ Swift", "swiftorg", "▾ Tech 2", "hn", "loose"])
    _ = reader.handle(.down, height: 20)
    #expect(reader.handle(.character("-"), height: 20) == [])
    let collapsed = Self.shownTitles(&reader)
    #expect(collapsed == ["All articles", "▸ Tech", "▾ Tech 2", "hn", "loose"], "\(collapsed)")
    // The collapsed folder's row keeps its own counts: every article of the sources inside it.
    let techRow = reader.lines(height: 20, width: 80).first { $0.text.contains("▸ Tech") && !$0.text.contains("2") }
    #expect(techRow?.text.hasSuffix("4/30") == true && techRow?.style.contains(.reverse) == true, "\(techRow as Any)")
    // j moves past the hidden rows: to Tech 2, then hn.
    _ = reader.handle(.character("j"), height: 20)
    #expect(reader.sources[reader.sourceSelection].title == "Tech 2")
    _ = reader.handle(.character("j"), height: 20)
    #expect(reader.sources[reader.sourceSelection].title == "hn")
    // - on a source in a folder: its folder collapses and is selected.
    _ = reader.handle(.character("-"), height: 20)
    #expect(reader.sources[reader.sourceSelection].title == "Tech 2")
    #expect(Self.shownTitles(&reader) == ["All articles", "▸ Tech", "▸ Tech 2", "loose"])
    #expect(reader.handle(.character("G"), height: 20) == [])
    #expect(reader.sources[reader.sourceSelection].title == "loose")
    _ = reader.handle(.character("-"), height: 20)
    #expect(reader.message == "- collapses a folder (this source is in none)")
    // k back to Tech 2, + expands it; → expands Tech, whose Swift stays expanded inside it.
    _ = reader.handle(.character("k"), height: 20)
    _ = reader.handle(.character("+"), height: 20)
    _ = reader.handle(.character("k"), height: 20)
    #expect(reader.sources[reader.sourceSelection].title == "Tech")
    #expect(reader.handle(.right, height: 20) == [], "→ on a collapsed folder expands it, opens nothing")
    #expect(reader.screen == .sources)
    #expect(
      Self.shownTitles(&reader) == ["All articles", "▾ Tech", "lwn", "▾ Swift", "swiftorg", "▾ Tech 2", "hn", "loose"])
    // ← on an expanded folder collapses it (and does not quit).
    _ = reader.handle(.down, height: 20)
    _ = reader.handle(.down, height: 20)
    #expect(reader.sources[reader.sourceSelection].title == "Swift")
    #expect(reader.handle(.left, height: 20) == [])
    #expect(Self.shownTitles(&reader) == ["All articles", "▾ Tech", "lwn", "▸ Swift", "▾ Tech 2", "hn", "loose"])
    // The state is kept while the reader runs: a list opened and left, the folder is still collapsed.
    #expect(reader.handle(.enter, height: 20) == [.observe(reader.sources[3].filter)])
    _ = reader.handle(.character("q"), height: 20)
    #expect(Self.shownTitles(&reader) == ["All articles", "▾ Tech", "lwn", "▸ Swift", "▾ Tech 2", "hn", "loose"])
    #expect(reader.handle(.right, height: 20) == [], "→ expands Swift")
    #expect(reader.handle(.right, height: 20) == [.observe(reader.sources[3].filter)], "→ on an expanded one opens it")
    _ = reader.handle(.character("q"), height: 20)
    _ = reader.handle(.character("-"), height: 20)
    // ← on a collapsed folder moves out: the folder it is in collapses and is selected; at the top level ← does
    // nothing — it never quits (q does).
    #expect(reader.handle(.left, height: 20) == [])
    #expect(reader.sources[reader.sourceSelection].title == "Tech")
    #expect(Self.shownTitles(&reader) == ["All articles", "▸ Tech", "▾ Tech 2", "hn", "loose"])
    #expect(reader.handle(.left, height: 20) == [])
    #expect(reader.screen == .sources)
    #expect(reader.handle(.character("q"), height: 20) == [.quit])
  }

  @Test("a collapsed folder's hidden rows never scroll the screen, on a screen shorter than the rows")
  func collapsedScrolling() {
    var reader = Self.folders()
    _ = reader.handle(.down, height: 5)
    _ = reader.handle(.character("-"), height: 5)
    _ = reader.handle(.character("G"), height: 5)
    let lines = reader.lines(height: 5, width: 40).map(\.text)
    #expect(lines.count == 5)
    #expect(
      lines[1...3].map { $0.contains("loose") || $0.contains("hn") || $0.contains("Tech 2") } == [true, true, true])
    #expect(lines[3].contains("loose"), "\(lines)")
  }

  @Test("the help screen wraps what a key does under itself at 100 columns and says where the rest is when short")
  func helpWraps() {
    var reader = Self.reader()
    _ = reader.handle(.character("?"), height: 30)
    let help = reader.lines(height: 30, width: 100).map(\.text)
    // Every word of every meaning is on the screen, none cut at the edge (the longest meaning is over 80 columns).
    let words = Set(help.joined(separator: " ").split(separator: " ").map(String.init))
    for key in ReaderKey.table {
      for word in (key.sources ?? "").split(separator: " ") { #expect(words.contains(String(word)), "\(word)") }
    }
    #expect(help.allSatisfy { OutputFormat.displayWidth($0) <= 100 })
    let collapse = help.firstIndex { $0.hasPrefix("  - +") }.map { help[$0 + 1] }
    #expect(collapse?.hasPrefix(String(repeating: " ", count: 20)) == true, "\(help)")
    let short = reader.lines(height: 8, width: 100).map(\.text)
    #expect(short.count == 8)
    #expect(short[6].contains("more lines: news read --keys"), "\(short)")
  }

  @Test("the help screen, --keys and docs/CLI.md come from the one key table, and name every key the reader takes")
  func keyTable() throws {
    var reader = Self.reader()
    _ = reader.handle(.character("?"), height: 30)
    let help = reader.lines(height: 30, width: 200).map(\.text)
    #expect(help.first?.hasPrefix("news read — keys on the sources") == true)
    #expect(help.contains { $0.hasPrefix("  - +") && $0.contains("collapse, expand the folder") })
    #expect(!help.contains { $0.hasPrefix("  n p") }, "n/p do nothing on the sources")
    #expect(ReaderKey.text.contains("On a list of articles:\n  ↑ ↓ j k           move\n"), "\(ReaderKey.text)")
    // Every key the reader acts on is in the table (its keys, or a caps name for a function key).
    let listed = Set(ReaderKey.table.flatMap(\.keys))
    for name in ["↑", "↓", "←", "→", "PgUp", "PgDn", "Home", "End", "ENTER", "ESC", "SPACE"] {
      #expect(listed.contains(name), "\(name)")
    }
    for character in "jkgGlnpJKNmArRsbo/q?-+" { #expect(listed.contains(String(character)), "\(character)") }
    // docs/CLI.md's table is the table's markdown, row for row.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let doc = try String(contentsOf: root.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let documented = doc.firstIndex(of: ReaderKey.markdown[0]).map { Array(doc[$0...].prefix { $0.hasPrefix("|") }) }
    #expect(
      documented == ReaderKey.markdown,
      "docs/CLI.md's key table should be:\n\(ReaderKey.markdown.joined(separator: "\n"))")
  }
}
