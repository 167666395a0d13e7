import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsFeeds
import TestSupport
import Testing

/// ``FeedSubscriber``: what a URL is (a feed, a page announcing feeds, an OPML list), its candidates named after the
/// feed's own title, and the typed errors — over a loopback HTTP server and files.
@Suite("FeedSubscriber: subscribing and discovery")
struct FeedSubscriberTests {
  static func rss(_ title: String, home: String = "https://loop.example/") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0"><channel><title>\(title)</title><link>\(home)</link>
    <item><title>One</title><link>https://loop.example/1</link></item></channel></rss>
    """
  }

  static let atom = """
    <?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom"><title>  Loop   Comments </title>
    <link rel="alternate" href="https://loop.example/comments"/><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>
    </feed>
    """

  static let jsonFeed = """
    {"version": "https://jsonfeed.org/version/1.1", "title": "Loop JSON", "home_page_url": "https://loop.example/j",
     "items": []}
    """

  static let page = """
    <!doctype html><html><head><title>Loop Site</title>
    <link rel="alternate" type="application/rss+xml" title="Posts" href="/posts.rss">
    <link rel="alternate" type="application/atom+xml" title="Comments" href="/comments.atom">
    <link rel="alternate" type="application/feed+json" href="/feed.json">
    <link rel="alternate" type="application/rss+xml" title="Gone" href="/gone.rss">
    </head><body><p>hi</p></body></html>
    """

  static func respond(_ text: String, _ type: String) -> LoopbackHTTPServer.Behaviour {
    .respond(status: 200, headers: ["Content-Type": type], body: Data(text.utf8))
  }

  /// A site: the page at `/`, its feeds, `/gone.rss` a 404, and a feed with a permanent redirect.
  static func site() throws -> LoopbackHTTPServer {
    let server = try LoopbackHTTPServer(.respond(status: 404, body: Data("gone".utf8)))
    let port = server.port
    server.router = { request in
      switch request.target {
      case "/": respond(page, "text/html; charset=utf-8")
      case "/posts.rss": respond(rss("Loop Posts"), "application/rss+xml")
      case "/comments.atom": respond(atom, "application/atom+xml")
      case "/feed.json": respond(jsonFeed, "application/feed+json")
      case "/old.rss":
        .respond(status: 301, headers: ["Location": "http://127.0.0.1:\(port)/posts.rss"], body: Data())
      case "/list.opml":
        respond(
          #"<opml version="2.0"><body><outline text="Tech"><outline text="A" xmlUrl="https://a.example/f"/>"#
            + "</outline></body></opml>", "text/x-opml")
      case "/data.json": respond(#"{"status":"ok"}"#, "application/json")
      case "/bare": respond("<!doctype html><html><head><title>Bare</title></head></html>", "text/html")
      default: nil
      }
    }
    return server
  }

  let subscriber = FeedSubscriber(transport: CurlHTTPTransport(timeout: 5))

  @Test("a feed URL: one candidate named after the feed's title, with its home page; a 301 moves it")
  func feed() async throws {
    let server = try Self.site()
    defer { server.stop() }
    guard case .feed(let candidate) = try await subscriber.inspect(server.url("/posts.rss")) else {
      Issue.record("not a feed")
      return
    }
    #expect(candidate.source.name == "Loop Posts")
    #expect(candidate.feedTitle == "Loop Posts")
    #expect(candidate.source.url == server.url("/posts.rss"))
    #expect(candidate.source.homePage == URL(string: "https://loop.example/"))
    #expect(candidate.isResolved && candidate.failure == nil && candidate.announcement == nil)
    #expect(server.requests.first?.header("Accept") == FeedSubscriber.acceptHeader)

    guard case .feed(let moved) = try await subscriber.inspect(server.url("/old.rss")) else {
      Issue.record("not a feed")
      return
    }
    #expect(moved.source.url == server.url("/posts.rss"))

    guard case .feed(let json) = try await subscriber.inspect(server.url("/feed.json")) else {
      Issue.record("not a feed")
      return
    }
    #expect(json.source.name == "Loop JSON")
    #expect(json.source.homePage == URL(string: "https://loop.example/j"))
  }

  @Test("a page: its feeds as candidates; resolved, each is named after the feed's own title, else the link's, page's")
  func page() async throws {
    let server = try Self.site()
    defer { server.stop() }
    guard case .page(let page) = try await subscriber.inspect(server.url("/")) else {
      Issue.record("not a page")
      return
    }
    #expect(page.title == "Loop Site")
    #expect(page.url == server.url("/"))
    #expect(page.feeds.map(\.url) == ["/posts.rss", "/comments.atom", "/feed.json", "/gone.rss"].map(server.url))
    // Not read yet: the link's title, else the page's.
    #expect(page.candidates.map(\.source.name) == ["Posts", "Comments", "Loop Site", "Gone"])
    #expect(page.candidates.allSatisfy { !$0.isResolved && $0.source.homePage == server.url("/") })
    #expect(server.requests.count == 1, "the page only")

    let resolved = await subscriber.resolve(page.candidates)
    #expect(resolved.map(\.source.name) == ["Loop Posts", "Loop Comments", "Loop JSON", "Gone"])
    #expect(resolved.map(\.feedTitle) == ["Loop Posts", "Loop Comments", "Loop JSON", nil])
    #expect(resolved.allSatisfy { $0.isResolved && $0.source.homePage == server.url("/") })
    #expect(resolved.last?.failure == .httpStatus(server.url("/gone.rss"), 404))
    #expect(resolved.dropLast().allSatisfy { $0.failure == nil })
    #expect(resolved.first?.announcement?.title == "Posts")
    #expect(server.requests.count == 5)
    // Resolved already: not read again.
    _ = await subscriber.resolve(resolved)
    #expect(server.requests.count == 5)
  }

  @Test("a link titled only by its format (RSS, Atom Feed) is named after the page, as Six Colors' page announces")
  func formatLabels() {
    for label in ["RSS", "rss", "Atom Feed", "RSS 2.0", "JSON Feed", "Subscribe", "RSS/XML"] {
      #expect(FeedSubscriber.isFormatLabel(label), "\(label)")
    }
    for title in ["Posts", "Comments Feed", "Six Colors", "Podcast RSS", "", nil] as [String?] {
      #expect(!FeedSubscriber.isFormatLabel(title), "\(title ?? "nil")")
    }
  }

  @Test("an OPML list: a candidate per outline, with its folder")
  func subscriptionList() async throws {
    let server = try Self.site()
    defer { server.stop() }
    guard case .subscriptionList(let list) = try await subscriber.inspect(server.url("/list.opml")) else {
      Issue.record("not a list")
      return
    }
    #expect(list.candidates.map(\.source.name) == ["A"])
    #expect(list.candidates.first?.source.folder == ["Tech"])
    #expect(list.candidates.first?.source.url == URL(string: "https://a.example/f"))
  }

  @Test("typed errors: not a feed, a page announcing none, HTTP status, network, no transport, unsupported URL")
  func errors() async throws {
    let server = try Self.site()
    defer { server.stop() }
    await #expect(throws: SubscriptionError.notAFeed(server.url("/data.json"))) {
      try await subscriber.inspect(server.url("/data.json"))
    }
    await #expect(throws: SubscriptionError.noFeedAnnounced(server.url("/bare"))) {
      try await subscriber.inspect(server.url("/bare"))
    }
    await #expect(throws: SubscriptionError.httpStatus(server.url("/nothing"), 404)) {
      try await subscriber.inspect(server.url("/nothing"))
    }
    let port = try LoopbackHTTPServer.refusedPort()
    let refused = try #require(URL(string: "http://127.0.0.1:\(port)/feed"))
    do {
      _ = try await subscriber.inspect(refused)
      Issue.record("no error")
    } catch {
      guard case .network(let url, .transport(let failure, _)) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(url == refused)
      #expect(failure == .connectionRefused)
    }
    await #expect(throws: SubscriptionError.noTransport(server.url("/"))) {
      try await FeedSubscriber(transport: nil).inspect(server.url("/"))
    }
    let ftp = try #require(URL(string: "ftp://example.org/feed"))
    await #expect(throws: SubscriptionError.unsupportedURL(ftp)) { try await subscriber.inspect(ftp) }
    let small = FeedSubscriber(transport: CurlHTTPTransport(timeout: 5), maximumDocumentSize: 64)
    do {
      _ = try await small.inspect(server.url("/"))
      Issue.record("no error")
    } catch {
      guard case .tooLarge(_, _, let limit) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(limit == 64)
    }
  }

  @Test("files: a feed file, a saved page with relative feed links, a missing file, a cut-off feed")
  func files() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subscriber-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let feed = folder.appendingPathComponent("local.rss")
    try Data(Self.rss("").utf8).write(to: feed)
    guard case .feed(let candidate) = try await subscriber.inspect(feed) else {
      Issue.record("not a feed")
      return
    }
    #expect(candidate.source.name == "local", "untitled: the file's name")
    #expect(candidate.feedTitle == nil)
    #expect(candidate.source.url == feed)

    let saved = folder.appendingPathComponent("home.html")
    try Data(Self.page.utf8).write(to: saved)
    await #expect(throws: SubscriptionError.relativeFeedLinks(saved)) { try await subscriber.inspect(saved) }

    let missing = folder.appendingPathComponent("none.xml")
    do {
      _ = try await subscriber.inspect(missing)
      Issue.record("no error")
    } catch {
      guard case .unreadableFile(let url, _, let tooLarge) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(url == missing && !tooLarge)
    }

    let cut = folder.appendingPathComponent("cut.rss")
    try Data(Self.rss("Cut").prefix(120).utf8).write(to: cut)
    do {
      _ = try await subscriber.inspect(cut)
      Issue.record("no error")
    } catch {
      guard case .unreadableFeed = error else {
        Issue.record("\(error)")
        return
      }
    }
  }

  @Test("a feed whose DOCTYPE is never closed is an unreadable feed with libxml2's place, not 'not a feed'")
  func brokenPrologue() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subscriber-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let bodies = [
      #"<?xml version="1.0"?>\#n<!DOCTYPE rss PUBLIC "-//Netscape//DTD RSS 0.91//EN" "x.dtd"\#n"#,
      #"<!DOCTYPE rss PUBLIC "-//Netscape//DTD RSS 0.91//EN"\#n"#,
      "<!-- generated\n",
    ]
    for (index, start) in bodies.enumerated() {
      let file = folder.appendingPathComponent("broken\(index).rss")
      let feed = "<rss version=\"2.0\"><channel><title>Broken</title><item><title>One</title></item></channel></rss>"
      try Data((start + feed).utf8).write(to: file)
      do {
        _ = try await subscriber.inspect(file)
        Issue.record("no error: \(start)")
      } catch {
        guard case .unreadableFeed(_, let cause) = error, case .notWellFormed(_, let line, _, _) = cause else {
          Issue.record("\(start): \(error)")
          continue
        }
        #expect(line >= 2, "\(error)")
      }
    }
  }

  @Test("equivalent URLs are one subscription: host case, default port, empty path, #fragment")
  func subscriptionKeys() throws {
    let spellings = [
      "https://example.org/", "HTTPS://Example.ORG", "https://example.org:443/", "https://example.org/#top",
    ]
    let keys = Set(try spellings.map { NewsSource.subscriptionKey(for: try #require(URL(string: $0))) })
    #expect(keys == ["https://example.org/"])
    let other = try #require(URL(string: "http://example.org/"))
    #expect(NewsSource.subscriptionKey(for: other) != "https://example.org/", "http and https stay distinct")
    #expect(NewsSource.subscriptionKey(for: URL(fileURLWithPath: "/a/./b.xml")) == "/a/b.xml")
    let source = NewsSource(name: "x", url: try #require(URL(string: "https://Example.org:443/feed#x")))
    #expect(source.subscriptionKey == "https://example.org/feed")
  }
}
