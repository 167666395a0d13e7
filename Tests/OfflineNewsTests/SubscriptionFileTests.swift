import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsFeeds
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// The subscription list kept in a hand-edited JSON file (`SubscriptionFile`), through the same `SubscriptionList`
/// calls as the store's list: subscribing, renaming, moving, re-linking, removing, OPML, refreshing, counting and
/// marking read by folder — each edit changing its entry and no other byte of the file.
@Suite("SubscriptionFile: the configuration file as a subscription list")
struct SubscriptionFileTests {
  /// A hand-written file: tabs, keys of the app's own around `sources`, a NewsAPI query and a feed.
  static let handWritten = """
    {
    \t"timeoutSeconds": 3,
    \t"defaultSource": "Daring",
    \t"sources": {
    \t\t"Daring": { "feed": "https://daringfireball.net/feeds/main", "folder": "Weblogs" },
    \t\t"top": {"url": "https://newsapi.org/v2/top-headlines", "query": {"country": "us"}}
    \t},
    \t"custom": [1, 2, 3]
    }

    """

  private func file(_ text: String = handWritten) throws -> (TemporaryDirectory, SubscriptionFile) {
    let folder = TemporaryDirectory("subscription-file")
    let path = folder.path("news.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return (folder, SubscriptionFile(path: path, environment: ["HOME": folder.url.path]))
  }

  private func text(_ list: SubscriptionFile) throws -> String {
    try String(contentsOfFile: list.path, encoding: .utf8)
  }

  @Test("sources: every entry as a NewsSource, in the file's order, with its folder and policy")
  func reads() async throws {
    let (folder, list) = try file()
    defer { _ = folder }
    let sources = try await list.sources()
    #expect(sources.map(\.name) == ["Daring", "top"])
    #expect(sources[0].folder == ["Weblogs"])
    #expect(sources[0].isFeed)
    #expect(!sources[1].isFeed, "a NewsAPI query is not a feed another reader could follow")
    #expect(sources[1].url.absoluteString == "https://newsapi.org/v2/top-headlines?country=us")
  }

  @Test("subscribe: appended with their labels; a taken name gets (2), any case; an equivalent URL is not added again")
  func subscribes() async throws {
    let (folder, list) = try file()
    defer { _ = folder }
    let changes = try await list.subscribe([
      NewsSource(name: "daring", url: URL(string: "https://example.org/feed.xml")!, folder: ["Tech", "Swift"]),
      NewsSource(name: "Again", url: URL(string: "HTTPS://DaringFireball.net:443/feeds/main#top")!),
      NewsSource(
        name: "  Six\tColors ", url: URL(string: "https://sixcolors.com/feed/")!, title: "Six Colors",
        homePage: URL(string: "https://sixcolors.com/")!, fullText: true),
    ])
    #expect(changes.added.map(\.name) == ["daring (2)", "Six Colors"])
    #expect(changes.existing.map(\.name) == ["Daring"])
    let written = try text(list)
    #expect(written.hasPrefix(Self.handWritten.components(separatedBy: "\t\t\"top\"")[0]), "the text before is kept")
    #expect(written.hasSuffix("\t},\n\t\"custom\": [1, 2, 3]\n}\n"), "the text after is kept")
    #expect(
      written.contains(
        "\t\t\"daring (2)\": { \"feed\": \"https://example.org/feed.xml\", \"folder\": \"Tech/Swift\" },\n"))
    #expect(
      written.contains(
        "\t\t\"Six Colors\": { \"feed\": \"https://sixcolors.com/feed/\", \"homePage\": \"https://sixcolors.com/\", "
          + "\"fullText\": true }\n"))
    let again = try await list.sources()
    #expect(again.map(\.name) == ["Daring", "top", "daring (2)", "Six Colors"])
    #expect(again[3].fullText)
    await #expect(throws: SubscriptionChangeError.self) {
      try await list.subscribe([NewsSource(name: "TOP", url: URL(string: "https://x.example/f")!)], exactName: true)
    }
  }

  @Test("an OPML-sized list of 3,000 feeds in 30 folders is subscribed in one write, each on its own line, in order")
  func subscribesMany() async throws {
    let (folder, list) = try file()
    defer { _ = folder }
    let many = (1...3_000).map { index in
      NewsSource(
        name: "Feed \(index)", url: URL(string: "https://host\(index % 97).example/feed/\(index).xml")!,
        folder: ["Folder \(index % 30)"])
    }
    let changes = try await list.subscribe(many)
    #expect(changes.added.count == 3_000)
    let sources = try await list.sources()
    #expect(sources.map(\.name) == ["Daring", "top"] + many.map(\.name))
    #expect(sources.last?.folder == ["Folder 0"])
    let lines = try text(list).split(separator: "\n")
    #expect(lines.filter { $0.hasPrefix("\t\t\"Feed ") }.count == 3_000, "each entry on its own line, indented alike")
    #expect(try text(list).hasSuffix("\t},\n\t\"custom\": [1, 2, 3]\n}\n"), "the rest of the file as it was")
  }

  @Test("rename follows in defaultSource; move sets and removes the folder; remove cuts the entry; each edit alone")
  func edits() async throws {
    let (folder, list) = try file()
    defer { _ = folder }
    try await list.renameSubscription("daring", to: "Daring Fireball")
    var written = try text(list)
    #expect(written.contains("\t\t\"Daring Fireball\": { \"feed\": \"https://daringfireball.net/feeds/main\""))
    #expect(written.contains("\t\"defaultSource\": \"Daring Fireball\",\n"))
    try await list.moveSubscription("Daring Fireball", to: ["Apple", "Blogs"])
    #expect(try await list.source(named: "daring fireball")?.folder == ["Apple", "Blogs"])
    try await list.moveSubscription("top", to: ["News"])
    try await list.moveSubscription("Daring Fireball", to: [])
    written = try text(list)
    #expect(written.contains("\"Daring Fireball\": { \"feed\": \"https://daringfireball.net/feeds/main\" }"))
    #expect(written.contains("\"query\": {\"country\": \"us\"}, \"folder\": \"News\"}\n"))
    #expect(try await list.folders() == [["News"]])
    #expect(try await list.unsubscribe("TOP") == "top")
    #expect(try await list.sources().map(\.name) == ["Daring Fireball"])
    await #expect(throws: SubscriptionChangeError.self) { try await list.unsubscribe("top") }
    #expect(try text(list).hasSuffix("\t},\n\t\"custom\": [1, 2, 3]\n}\n"))
  }

  @Test("folders: every folder above each one once, sorted by its text; kept folders join the subscriptions'")
  func folderTree() async throws {
    #expect(
      SubscriptionFile.folderTree([["Tech", "Swift"], ["Tech"], [], ["A/B"], ["Tech 2"], ["Tech", "Swift"]])
        == [["A/B"], ["Tech"], ["Tech 2"], ["Tech", "Swift"]])
    let (folder, list) = try file()
    defer { _ = folder }
    try await list.setFolderKept(["Later", "Podcasts"], kept: true)
    #expect(try await list.folders() == [["Later"], ["Later", "Podcasts"], ["Weblogs"]])
  }

  @Test("relink rewrites a feed's URL only; a NewsAPI query is left as written")
  func relinks() async throws {
    let (folder, list) = try file()
    defer { _ = folder }
    let before = try text(list)
    try await list.relink("top", to: URL(string: "https://elsewhere.example/")!)
    #expect(try text(list) == before)
    try await list.relink("Daring", to: URL(string: "https://daringfireball.net/feeds/moved")!)
    #expect(try text(list) == before.replacingOccurrences(of: "feeds/main", with: "feeds/moved"))
  }

  @Test("a change the app's check refuses, or that would not read back, leaves the file as it was")
  func refusedChange() async throws {
    let (folder, strict) = try file()
    defer { _ = folder }
    let before = try text(strict)
    var refusing = strict
    refusing.check = { _ in throw SubscriptionFileError(.invalidValue, path: "", "no") }
    await #expect(throws: SubscriptionChangeError.self) { try await refusing.unsubscribe("Daring") }
    #expect(try text(strict) == before)
    await #expect(throws: SubscriptionChangeError.self) {
      try await strict.append([NewsSource(name: "bad", url: URL(string: "ftp://x.example/")!)])
    }
    #expect(try text(strict) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["news.json"])
  }

  @Test("errors name the file and the key: a wrong value, a Parse source's unknown mapping")
  func errors() async throws {
    let (folder, list) = try file(
      """
      {"sources": {"p": {"parse": {"serverURL": "http://127.0.0.1:1/parse", "applicationId": "a",
       "classes": ["Article"]}, "mapping": "no-such-mapping"}}}
      """)
    defer { _ = folder }
    do {
      _ = try await list.sources()
      Issue.record("an unknown mapping was accepted")
    } catch {
      guard case .file(let fileError) = error else { throw error }
      #expect(fileError.message.hasPrefix("\(list.path): sources.p.mapping: no shipped mapping \"no-such-mapping\""))
    }
    // A mapping that cannot be loaded costs that source, not the list: a feed is still subscribed beside it, and an
    // equivalent of the Parse server's URL is still found subscribed.
    let changes = try await list.subscribe([
      NewsSource(name: "ATP", url: URL(string: "https://atp.fm/rss")!),
      NewsSource(name: "P again", url: URL(string: "http://127.0.0.1:1/parse")!),
    ])
    #expect(changes.added.map(\.name) == ["ATP"])
    #expect(changes.existing.map(\.name) == ["p"])
    #expect(try await list.subscribed().map(\.name) == ["p", "ATP"])
    let written = try text(list)
    #expect(written.contains("\"ATP\": { \"feed\": \"https://atp.fm/rss\" }"), "\(written)")
    let (other, wrong) = try file("{\"sources\": {\"x\": {\"feed\": \"https://a.example/\", \"folder\": 3}}}")
    defer { _ = other }
    do {
      _ = try await wrong.sources()
      Issue.record("a folder that is a number was accepted")
    } catch {
      #expect(
        error.description
          == "\(wrong.path): sources.x.folder must be a folder name, or folders separated by \"/\" (e.g. \"Tech/Swift\")"
      )
    }
    // A Parse source with a shipped mapping is read with it (no file needed at run time).
    let (third, parse) = try file(
      """
      {"sources": {"p": {"parse": {"serverURL": "http://127.0.0.1:1/parse", "applicationId": "a",
       "classes": ["Article"]}, "mapping": "parse-server"}}}
      """)
    defer { _ = third }
    guard case .parse(let source) = try await parse.sources().first?.kind else {
      Issue.record("not a Parse source")
      return
    }
    #expect(source.classes.map(\.name) == ["Article"])
  }

  @Test("OPML in and out: folders kept, subscribed feeds skipped; a missing file is an empty list, created on change")
  func opml() async throws {
    let folder = TemporaryDirectory("subscription-file")
    let list = SubscriptionFile(path: folder.path("sub/dir/news.json"))
    #expect(try await list.sources().isEmpty)
    let document = Data(
      """
      <?xml version="1.0"?><opml version="2.0"><body><outline text="Tech">
      <outline text="Swift" type="rss" xmlUrl="https://www.swift.org/atom.xml" htmlUrl="https://www.swift.org/"/>
      </outline><outline text="ATP" type="rss" xmlUrl="https://atp.fm/rss"/></body></opml>
      """.utf8)
    let first = try await list.importOPML(document, url: folder.url.appendingPathComponent("a.opml"))
    #expect(first.added.map(\.name) == ["Swift", "ATP"])
    let second = try await list.importOPML(document, url: folder.url.appendingPathComponent("a.opml"))
    #expect(second.added.isEmpty && second.existing.count == 2)
    let exported = try OPML.read(try await list.exportOPML(title: "mine"), url: folder.url)
    #expect(exported.subscriptions.map(\.title) == ["Swift", "ATP"])
    #expect(exported.subscriptions.map(\.folder) == [["Tech"], []])
    #expect(exported.subscriptions.first?.homePageURL == URL(string: "https://www.swift.org/"))
  }

  @Test("refresh, count and mark read by folder through the file's list; a rename moves the cached articles")
  func serviceOverTheFile() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data()))
    let routes = [
      "/atp/feed": StoredSubscriptionsTests.rss("atp", count: 3, server: server),
      "/swift/feed": StoredSubscriptionsTests.rss("swift", count: 2, server: server),
    ]
    server.router = { routes[$0.target].map { .respond(status: 200, body: $0) } }
    defer { server.stop() }
    let (folder, list) = try file("{\"sources\": {}}")
    defer { _ = folder }
    try await list.subscribe([
      NewsSource(name: "ATP", url: server.url("/atp/feed"), folder: ["Podcasts"]),
      NewsSource(name: "Swift", url: server.url("/swift/feed"), folder: ["Tech", "Swift"]),
    ])
    let repository = NewsRepository(
      storage: try StorageContext(path: folder.path("news.sqlite")),
      network: HTTPNewsNetwork(apiKey: nil, timeout: 5, decoder: ArticleDecoder()))
    let report = try await repository.refreshSubscriptions(of: list)
    #expect(report.sources.map(\.source) == ["ATP", "Swift"])
    #expect(try await repository.counts(inFolder: ["Tech"], of: list) == ArticleCounts(total: 2, unread: 2))
    #expect(try await repository.markRead(inFolder: ["Podcasts"], of: list) == 3)
    #expect(try await repository.counts(inFolder: [], of: list) == ArticleCounts(total: 5, unread: 2))
    try await repository.renameSubscription("atp", to: "Accidental Tech Podcast", in: list)
    #expect(try await list.sources().map(\.name) == ["Accidental Tech Podcast", "Swift"])
    #expect(try await repository.sourceIdentities().identity(ofSourceNamed: "accidental tech podcast") == "ATP")
    #expect(try await repository.counts(inFolder: ["Podcasts"], of: list) == ArticleCounts(total: 3, unread: 0))
  }

  @Test("a subscription renamed by hand, or removed and added under another name, takes its feed's articles back")
  func adoptsArticlesOfAnOldName() async throws {
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data()))
    let feed = Mutex(StoredSubscriptionsTests.rss("changing", count: 3, server: server))
    server.router = { request in request.target == "/feed" ? .respond(status: 200, body: feed.withLock { $0 }) : nil }
    defer { server.stop() }
    let (folder, list) = try file("{\"sources\": {}}")
    defer { _ = folder }
    try await list.subscribe([NewsSource(name: "Changing", url: server.url("/feed"))])
    let repository = NewsRepository(
      storage: try StorageContext(path: folder.path("news.sqlite")),
      network: HTTPNewsNetwork(apiKey: nil, timeout: 5, decoder: ArticleDecoder()))
    _ = try await repository.refreshSubscriptions(of: list)
    let first = try await repository.read(limit: 10, offset: 0, filter: .all)
    let kept = try #require(first.first)
    #expect(try await repository.bookmark(true, url: kept.url.absoluteString))
    // The feed drops that item: only the old name holds it now.
    feed.withLock { $0 = StoredSubscriptionsTests.rss("changing", count: 1, server: server) }
    let url = server.url("/feed").absoluteString
    // The feed under another name while a source keeps the old one (on another feed): that name is left alone.
    try Data(
      "{\"sources\": {\"My feed\": {\"feed\": \"\(url)\"}, \"Changing\": {\"feed\": \"\(url)?other\"}}}".utf8
    ).write(to: URL(fileURLWithPath: list.path))
    let mine = try #require(try await list.source(named: "My feed"))
    #expect(await repository.adoptArticles(of: [mine], in: list).isEmpty)
    // The file edited by hand: only the new name (what `news remove` then `news add --name` leaves too).
    try Data("{\"sources\": {\"My feed\": {\"feed\": \"\(url)\"}}}".utf8).write(to: URL(fileURLWithPath: list.path))
    let report = try await repository.refreshSubscriptions(of: list)
    #expect(report.adopted == [RefreshReport.Adoption(from: "Changing", to: "My feed", articles: 3)])
    // Its identity follows the articles: `news serve` keeps giving it the feed id it had as "Changing".
    #expect(try await repository.sourceIdentities().identity(ofSourceNamed: "My feed") == "Changing")
    let bookmarked = try await repository.filter(inFolder: [], of: list, ArticleFilter(bookmarkedOnly: true))
    #expect(try await repository.read(limit: 10, offset: 0, filter: bookmarked).map(\.url) == [kept.url])
    #expect(try await repository.refreshSubscriptions(of: list).adopted.isEmpty, "once")
  }

  @Test("two programs adding at once take turns: every source is kept, none written twice (a folder lock)")
  func concurrentAdds() async throws {
    let (folder, list) = try file("{\"sources\": {}}")
    defer { _ = folder }
    await withTaskGroup(of: Void.self) { group in
      for index in 1...12 {
        // A list value per task, as separate `news add` processes have: each reads the file afresh.
        let own = SubscriptionFile(path: list.path, environment: list.environment)
        group.addTask {
          _ = try? await own.subscribe([
            NewsSource(
              name: index % 2 == 0 ? "Same name" : "Feed \(index)", url: URL(string: "https://f\(index).example/feed")!)
          ])
        }
      }
    }
    let sources = try await list.sources()
    #expect(sources.count == 12)
    #expect(Set(sources.map { $0.name.lowercased() }).count == 12, "\(sources.map(\.name))")
  }

  @Test("a source written twice is an error naming it; nothing is silently dropped")
  func writtenTwice() async throws {
    let (folder, list) = try file(
      "{\"sources\": {\"a\": {\"feed\": \"https://a.example/\"}, \"a\": {\"feed\": \"https://b.example/\"}}}")
    defer { _ = folder }
    do {
      _ = try await list.sources()
      Issue.record("a repeated name was accepted")
    } catch {
      #expect(error.description == "\(list.path): sources.a is written twice")
    }
  }

  @Test("a byte order mark, a trailing comma and CRLF line ends: edited as the reader reads them, each kept")
  func handWrittenQuirks() async throws {
    let original = "\u{FEFF}{\r\n  \"sources\": {\r\n    \"a\": { \"feed\": \"https://a.example/\" },\r\n  }\r\n}\r\n"
    let (folder, list) = try file(original)
    defer { _ = folder }
    #expect(try await list.sources().map(\.name) == ["a"])
    try await list.subscribe([NewsSource(name: "b", url: URL(string: "https://b.example/")!)])
    let written = try text(list)
    // (String(contentsOfFile:) drops a byte order mark: the bytes show it is kept.)
    #expect(try Data(contentsOf: URL(fileURLWithPath: list.path)).starts(with: [0xEF, 0xBB, 0xBF, 0x7B, 0x0D, 0x0A]))
    #expect(
      written.contains(
        "\"a\": { \"feed\": \"https://a.example/\" },\r\n    \"b\": { \"feed\": \"https://b.example/\" },"))
    #expect(!written.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
    #expect(try await list.sources().map(\.name) == ["a", "b"])
  }

  @Test("relink leaves a feed alone when its new address is another source's (no two sources of one feed)")
  func relinkOntoAnother() async throws {
    let (folder, list) = try file(
      "{\"sources\": {\"old\": {\"feed\": \"https://a.example/old\"}, \"new\": {\"feed\": \"https://a.example/new\"}}}")
    defer { _ = folder }
    let before = try text(list)
    try await list.relink("old", to: URL(string: "HTTPS://A.example:443/new")!)
    #expect(try text(list) == before)
  }
}
