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
          title: "wide", depth: 0, filter: ArticleFilter(source: "wide"), isFolder: false, reloads: ["wide"]),
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

  @Test("--source starts on the list; --unread filters the lists it opens")
  func starting() {
    let start = Reader(
      sources: [], startingList: (title: "wide", filter: ArticleFilter(source: "wide"), reloads: ["wide"]),
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

  @Test("newsboat's keys: n/p the next and previous unread, A marks the source or list read, r/R reload")
  func newsboatKeys() {
    var reader = Self.reader()
    #expect(reader.handle(.character("R"), height: 30) == [.reload(nil)], "R: every source")
    #expect(reader.handle(.character("r"), height: 30) == [.reload(nil)], "r on All articles: every source")
    _ = reader.handle(.down, height: 30)
    #expect(reader.handle(.character("r"), height: 30) == [.reload(["wide"])])
    #expect(reader.handle(.character("A"), height: 30) == [.markAllRead(ArticleFilter(source: "wide"), title: "wide")])
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
    #expect(reader.handle(.character("r"), height: 30) == [.reload(["wide"])], "r on a list: its sources")
    #expect(reader.handle(.character("A"), height: 30) == [.markAllRead(ArticleFilter(source: "wide"), title: "wide")])
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
}
