import Foundation
import TestSupport
import Testing

/// An article without a link of its own (tester report: `news open` on an "Ask HN" item opened nothing): a mapping
/// names the item's own page (`key.page`), which becomes its link; an article with neither says why.
@Suite("news open on articles without a link of their own")
struct LinklessArticleTests {
  /// A Hacker News export: a story with a url, an Ask HN item (text only), a job without a url.
  static let items = #"""
    [{"id": 8863, "type": "story", "by": "dhouston", "time": 1175714200, "title": "My YC app: Dropbox",
      "url": "http://www.getdropbox.com/u/2/screencast.html", "score": 111, "descendants": 71},
     {"id": 121003, "type": "story", "by": "tel", "time": 1203647620, "title": "Ask HN: The Arc Effect",
      "text": "<i>or</i> HN: the Next Iteration", "score": 25, "descendants": 16},
     {"id": 192327, "type": "job", "by": "justin", "time": 1210981217, "title": "Justin.tv is looking for a Lead Flash Engineer!",
      "text": "Justin.tv is the biggest live video site online."}]
    """#

  @Test("an HN item without a url is linked to its discussion: news open, list --json and show give it")
  func hackerNewsDiscussion() async throws {
    var cli = CLIHarness()
    let file = cli.directory.path("hn.json")
    try Data(Self.items.utf8).write(to: URL(fileURLWithPath: file))
    let imported = await cli.run(
      "import", file, "--mapping", "hackernews", "--config", cli.bundledConfig, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    let listed = try await cli.run("list", "--db", cli.database, "--json").json()
    let byTitle = Dictionary(
      articles(listed).compactMap { article in (article["title"] as? String).map { ($0, article) } },
      uniquingKeysWith: { first, _ in first })
    let ask = try #require(byTitle["Ask HN: The Arc Effect"])
    #expect(ask["url"] as? String == "https://news.ycombinator.com/item?id=121003")
    #expect(ask["id"] as? String == "news-item:hackernews/121003", "the key stays the scoped id")
    #expect(
      byTitle["Justin.tv is looking for a Lead Flash Engineer!"]?["url"] as? String
        == "https://news.ycombinator.com/item?id=192327")
    #expect(byTitle["My YC app: Dropbox"]?["url"] as? String == "http://www.getdropbox.com/u/2/screencast.html")

    let log = cli.directory.path("opened.txt")
    let opener = cli.directory.path("opener.sh")
    try Data("#!/bin/sh\necho \"$1\" > \(log)\n".utf8).write(to: URL(fileURLWithPath: opener))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener)
    cli.environment["NEWS_OPENER"] = opener
    let handle = try #require(ask["handle"] as? String)
    let opened = await cli.run("open", handle, "--db", cli.database)
    #expect(opened.status == 0, "\(opened.err)")
    #expect(opened.out.contains("opened https://news.ycombinator.com/item?id=121003"), "\(opened.out)")
    #expect((try? String(contentsOfFile: log, encoding: .utf8)) == "https://news.ycombinator.com/item?id=121003\n")
    let shown = await cli.run("show", handle, "--db", cli.database)
    #expect(shown.out.contains("https://news.ycombinator.com/item?id=121003"), "\(shown.out)")
  }

  @Test("an item with no link and no page (a mapping that names none): news open says why, status 66")
  func noLinkNoPage() async throws {
    var cli = CLIHarness()
    let mapping = cli.directory.path("notes.json")
    try Data(
      #"""
      {"name": "notes", "records": "", "root": "article", "entities": [{"entity": "article",
        "key": {"id": "id", "scope": "notes"}, "attributes": {"title": {}, "publishedAt": {"from": "date"}}}]}
      """#.utf8
    ).write(to: URL(fileURLWithPath: mapping))
    let file = cli.directory.path("notes-export.json")
    try Data(#"[{"id": "n1", "title": "A note", "date": "2026-12-01T10:00:00Z"}]"#.utf8).write(
      to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--mapping", mapping, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    cli.environment["NEWS_OPENER"] = "true"
    let opened = await cli.run("open", "news-item:notes/n1", "--db", cli.database)
    #expect(opened.status == 66, "\(opened.out) \(opened.err)")
    #expect(opened.err.contains("A note has no link to open: its source"), "\(opened.err)")
    #expect(opened.err.contains("gave it none, nor a page of its own"), "\(opened.err)")
    #expect(opened.err.contains("news show"), "\(opened.err)")
  }

  @Test("a mapping's key.page must be an http(s) URL with {id}: a clear error naming the key")
  func badPage() async throws {
    let cli = CLIHarness()
    let mapping = cli.directory.path("bad.json")
    try Data(
      #"""
      {"name": "bad", "records": "", "root": "article", "entities": [{"entity": "article",
        "key": {"id": "id", "scope": "bad", "page": "item.html"}, "attributes": {"title": {}}}]}
      """#.utf8
    ).write(to: URL(fileURLWithPath: mapping))
    let file = cli.directory.path("items.json")
    try Data(#"[{"id": "1", "title": "One"}]"#.utf8).write(to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--mapping", mapping, "--db", cli.database)
    #expect(imported.status == 78, "\(imported.err)")
    #expect(imported.err.contains("key.page") && imported.err.contains("{id}"), "\(imported.err)")
  }
}
