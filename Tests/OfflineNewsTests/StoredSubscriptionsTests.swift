import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsFeeds
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// The subscription list kept in the store (`NewsRepository.subscribe(_:)` and its siblings), refreshed, counted and
/// marked read by folder, as an app that keeps no list of its own uses it; and `refresh(_:options:progress:)`'s
/// typed results.
@Suite("Subscriptions kept in the store, refreshed by folder")
struct StoredSubscriptionsTests {
  /// An RSS 2.0 document with `count` items linking to `/<site>/<n>` of `server`.
  static func rss(_ site: String, count: Int, server: LoopbackHTTPServer) -> Data {
    var items = ""
    for index in 1...count {
      items += """
        <item><title>\(site) \(index)</title><link>\(server.url("/\(site)/\(index)"))</link>
        <guid>\(site)-\(index)</guid><pubDate>Mon, 0\(index) Jan 2024 10:00:00 GMT</pubDate></item>
        """
    }
    return Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>\(site) feed</title>
      <link>\(server.url("/\(site)/"))</link>\(items)</channel></rss>
      """.utf8)
  }

  struct Setup {
    let directory = TemporaryDirectory("stored-subscriptions")
    let server: LoopbackHTTPServer
    let storage: StorageContext
    let repository: NewsRepository

    init() throws {
      server = try LoopbackHTTPServer(.respond(status: 404, body: Data("no such feed".utf8)))
      let routes = [
        "/atp/feed": StoredSubscriptionsTests.rss("atp", count: 3, server: server),
        "/swift/feed": StoredSubscriptionsTests.rss("swift", count: 2, server: server),
        "/ruby/feed": StoredSubscriptionsTests.rss("ruby", count: 4, server: server),
      ]
      server.router = { request in
        routes[request.target].map { .conditional(etag: "\"\(request.target)\"", lastModified: nil, body: $0) }
      }
      storage = try StorageContext(path: directory.path("news.sqlite"))
      repository = NewsRepository(
        storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 5, decoder: ArticleDecoder()))
    }

    func subscribeAll() async throws {
      try await repository.subscribe(NewsSource(name: "ATP", url: server.url("/atp/feed"), folder: ["Podcasts"]))
      try await repository.subscribe(
        NewsSource(name: "Swift", url: server.url("/swift/feed"), folder: ["Tech", "Swift"]))
      try await repository.subscribe(NewsSource(name: "Ruby", url: server.url("/ruby/feed"), folder: ["Tech"]))
    }
  }

  @Test("subscribe in two folders, refresh all, count and mark read by folder; a second refresh is not modified")
  func refreshByFolder() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    let repository = setup.repository
    try await setup.subscribeAll()
    #expect(try await repository.subscriptions().map(\.name) == ["ATP", "Swift", "Ruby"])
    #expect(try await repository.subscriptionFolders() == [["Podcasts"], ["Tech"], ["Tech", "Swift"]])

    let first = try await repository.refreshSubscriptions()
    #expect(first.sources.map(\.source) == ["ATP", "Ruby", "Swift"])
    #expect(first.sources.map(\.status) == [.new, .new, .new])
    #expect(first.sources.map(\.inserted) == [3, 4, 2])
    #expect(try await repository.counts(inFolder: ["Tech"]) == ArticleCounts(total: 6, unread: 6))
    #expect(try await repository.counts(inFolder: ["Tech", "Swift"]) == ArticleCounts(total: 2, unread: 2))
    // Folders are compared exactly: `tech/swift` is another folder (empty here), as the folder list shows them.
    #expect(try await repository.counts(inFolder: ["tech", "swift"]) == ArticleCounts(total: 0, unread: 0))

    #expect(try await repository.markRead(inFolder: ["Tech"]) == 6)
    #expect(try await repository.counts(inFolder: []) == ArticleCounts(total: 9, unread: 3))

    // Only the Podcasts folder, and the server says 304: nothing rewritten, read marks kept.
    let second = try await repository.refreshSubscriptions(inFolder: ["Podcasts"])
    #expect(second.sources.map(\.source) == ["ATP"])
    #expect(second.sources.map(\.status) == [.notModified])
    #expect(second.sources.first?.cached == 3)
    #expect(try await repository.counts(inFolder: ["Tech"]) == ArticleCounts(total: 6, unread: 0))
  }

  @Test("offline: every source is served from the cache with its typed network failure")
  func offline() async throws {
    let setup = try Setup()
    try await setup.subscribeAll()
    _ = try await setup.repository.refreshSubscriptions()
    setup.server.stop()
    let report = try await setup.repository.refreshSubscriptions()
    #expect(report.sources.map(\.status) == [.failed, .failed, .failed])
    #expect(report.sources.map(\.cached) == [3, 4, 2])
    #expect(report.unavailable.isEmpty, "each has a cache to serve")
    for result in report.sources {
      guard case .network(.transport(let failure, _)) = result.failure else {
        Issue.record("\(result.source): \(String(describing: result.failure))")
        continue
      }
      #expect(failure == .connectionRefused)
    }
  }

  @Test("names unique in any case, an equivalent URL is one subscription; rename keeps the articles; move; remove")
  func editTheList() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    let repository = setup.repository
    try await setup.subscribeAll()
    _ = try await repository.refreshSubscriptions()

    await #expect(throws: SubscriptionChangeError.self) {
      try await repository.subscribe(NewsSource(name: "atp", url: setup.server.url("/other")))
    }
    // A URL no feed can be read from is refused before anything is written (it was kept, and failed at refresh).
    let count = try await repository.subscriptions().count
    for text in ["ftp://feeds.example.org/rss", "mailto:news@example.org", "gopher://example.org/1"] {
      let url = try #require(URL(string: text))
      do {
        try await repository.subscribe(NewsSource(name: "odd", url: url))
        Issue.record("\(text) was subscribed")
      } catch {
        guard case .unsupportedURL(let refused) = error else { throw error }
        #expect(refused == url)
      }
    }
    #expect(try await repository.subscriptions().count == count)
    // The same feed with a fragment (`#top`): one subscription (CanonicalURL drops it).
    var spelled = URLComponents(url: setup.server.url("/atp/feed"), resolvingAgainstBaseURL: false)
    spelled?.fragment = "top"
    let again = try #require(spelled?.url)
    do {
      try await repository.subscribe(NewsSource(name: "ATP again", url: again))
      Issue.record("an equivalent URL was subscribed twice")
    } catch {
      guard case .alreadySubscribed(_, let name) = error else { throw error }
      #expect(name == "ATP")
    }

    try await repository.renameSubscription("swift", to: "Swift.org")
    let renamed = try #require(try await repository.subscription(named: "swift.org"))
    #expect(renamed.folder == ["Tech", "Swift"])
    #expect(try await repository.counts(matching: ArticleFilter(anyOfSources: [renamed.match])).total == 2)
    // Its articles were recorded under the old name, and follow the new one.
    #expect(try await repository.read(filter: ArticleFilter(source: "Swift.org")).count == 2)

    try await repository.moveSubscription("Ruby", to: ["Languages"])
    #expect(try await repository.subscriptionFolders() == [["Languages"], ["Podcasts"], ["Tech"], ["Tech", "Swift"]])
    try await repository.unsubscribe("ATP")
    #expect(try await repository.subscriptions().map(\.name) == ["Swift.org", "Ruby"])
    #expect(try await repository.counts().total == 9, "unsubscribing keeps the cached articles")
    await #expect(throws: SubscriptionChangeError.self) { try await repository.unsubscribe("ATP") }
  }

  @Test("OPML: import files feeds in their folders (skipping those subscribed), export gives the same list back")
  func opml() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    let repository = setup.repository
    try await repository.subscribe(NewsSource(name: "ATP", url: setup.server.url("/atp/feed"), folder: ["Podcasts"]))
    let list = Data(
      """
      <?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
      <outline text="Tech"><outline text="Swift" title="Swift" type="rss" xmlUrl="\(setup.server.url("/swift/feed"))"/>
      <outline text="Ruby" type="rss" xmlUrl="\(setup.server.url("/ruby/feed"))" htmlUrl="\(setup.server.url("/ruby/"))"/>
      </outline><outline text="ATP" type="rss" xmlUrl="\(setup.server.url("/atp/feed"))"/></body></opml>
      """.utf8)
    let added = try await repository.importOPML(list, url: setup.directory.url.appendingPathComponent("mine.opml"))
    #expect(added.map(\.name) == ["Swift", "Ruby"])
    #expect(added.map(\.folder) == [["Tech"], ["Tech"]])

    let exported = try await repository.exportOPML(title: "Mine")
    let document = try OPML.read(exported, url: setup.directory.url.appendingPathComponent("out.opml"))
    #expect(document.subscriptions.map(\.title) == ["ATP", "Swift", "Ruby"])
    #expect(document.subscriptions.map(\.folder) == [["Podcasts"], ["Tech"], ["Tech"]])
    #expect(document.subscriptions.last?.homePageURL == setup.server.url("/ruby/"))

    // A list that is no OPML is the one typed error, naming the document; nothing is subscribed.
    let before = try await repository.subscriptions().count
    let file = setup.directory.url.appendingPathComponent("feed.xml")
    do {
      _ = try await repository.importOPML(Data(#"<rss version="2.0"/>"#.utf8), url: file)
      Issue.record("an RSS document was imported as a subscription list")
    } catch {
      guard case .invalidList(.notOPML(let named, let root)) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(named == file && root == "rss")
      #expect(error.description.contains("not <opml>"), "\(error.description)")
    }
    #expect(try await repository.subscriptions().count == before)
  }

  @Test("the list survives reopening the store; a store only read before version 14 has none")
  func persisted() async throws {
    let setup = try Setup()
    defer { setup.server.stop() }
    try await setup.subscribeAll()
    await setup.storage.close()
    let reopened = NewsRepository(
      storage: try StorageContext(path: setup.directory.path("news.sqlite")), network: FileNewsNetwork())
    #expect(try await reopened.subscriptions().map(\.folder) == [["Podcasts"], ["Tech", "Swift"], ["Tech"]])
  }

  @Test("an article deleted by its key stays deleted when the feed still lists it; forgetting lets it return")
  func deleteOne() async throws {
    let (setup, atp, _) = try await BulkReadingStateTests.saved()
    defer { setup.server.stop() }
    let repository = setup.repository
    let listed = try await repository.cachedArticles(for: atp).articles
    let second = try #require(listed.first { $0.title == "atp 2" })
    #expect(try await repository.delete([second]) == 1)
    #expect(try await repository.delete([second]) == 0, "gone already")
    try await repository.save(listed, for: atp)
    #expect(try await repository.cachedArticles(for: atp).articles.map(\.title) == ["atp 3", "atp 1"])
    #expect(try await repository.forgetDeletedArticles() == 1)
    try await repository.save(listed, for: atp)
    #expect(try await repository.cachedArticles(for: atp).articles.count == 3)
  }
}
