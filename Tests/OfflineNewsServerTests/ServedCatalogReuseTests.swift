import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// Each request of `news serve` reuses the catalog of the last one (each feed's id, category, match and Miniflux
/// document) while its sources and kept folders are served alike, and the configuration file is parsed only when it
/// changed: what another shell changes (`news add`, `news remove`, a rename, a move, a folder kept, the store's list,
/// a file imported) is served by the very next request.
@Suite("news serve: the catalog reused between requests, never stale")
struct ServedCatalogReuseTests {
  static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

  @Test(
    "reused only for sources served alike, in the same order, with the same kept folders and identities; holding the new values"
  )
  func reuse() throws {
    let alpha = NewsSource(name: "Alpha", url: try Self.url("https://a.example.org/feed"), folder: ["Tech"])
    let beta = NewsSource(name: "Beta", url: try Self.url("https://b.example.org/feed?b=2&a=1"))
    let catalog = ServedCatalog(sources: [alpha, beta], folders: [["Empty"]])
    let none = SourceIdentities([:])
    let same = try #require(catalog.reused(for: [alpha, beta], folders: [["Empty"]], identities: none))
    #expect(same.feeds.map(\.match) == catalog.feeds.map(\.match))
    #expect(same.categories == catalog.categories)

    var titled = beta
    titled.title = "Beta's own title"
    let retitled = try #require(catalog.reused(for: [alpha, titled], folders: [["Empty"]], identities: none))
    #expect(retitled.feeds[1].source.title == "Beta's own title", "the feeds hold the sources as read now")

    var renamed = beta
    renamed.name = "Gamma"
    var moved = beta
    moved.folder = ["News"]
    var relinked = beta
    relinked.kind = .articles(try Self.url("https://b.example.org/other"))
    var homed = beta
    homed.homePage = try Self.url("https://b.example.org/")
    var whole = beta
    whole.fullText = true
    for changed in [renamed, moved, relinked, homed, whole] {
      #expect(catalog.reused(for: [alpha, changed], folders: [["Empty"]], identities: none) == nil, "\(changed)")
    }
    #expect(catalog.reused(for: [beta, alpha], folders: [["Empty"]], identities: none) == nil)
    #expect(catalog.reused(for: [alpha], folders: [["Empty"]], identities: none) == nil)
    #expect(catalog.reused(for: [alpha, beta], folders: [], identities: none) == nil)
    let renamedBefore = SourceIdentities(["Beta": "Old Beta"])
    #expect(catalog.reused(for: [alpha, beta], folders: [["Empty"]], identities: renamedBefore) == nil)
  }

  /// A library as `news serve` makes it: the configuration file's sources and the store's, sorted by name.
  struct Served {
    let directory = TemporaryDirectory("served-reuse")
    let path: String
    let repository: NewsRepository
    let library: ServedLibrary
    let miniflux: MinifluxAPI
    let reader: ReaderAPI

    init() throws {
      path = directory.path("news.json")
      try #"{"sources": {"Alpha": {"feed": "https://alpha.example.org/feed.xml"}}}"#.write(
        toFile: path, atomically: true, encoding: .utf8)
      let file = SubscriptionFile(path: path, environment: [:])
      let repository = NewsRepository(
        storage: try StorageContext(path: directory.path("news.sqlite")),
        network: FileNewsNetwork(decoder: ArticleDecoder()))
      self.repository = repository
      library = ServedLibrary(
        repository: repository,
        sources: {
          try await repository.everySubscription(besides: try await file.sources()).sorted { $0.name < $1.name }
        },
        subscriptions: file)
      miniflux = MinifluxAPI(library: library, user: "reader")
      reader = ReaderAPI(library: library, user: "reader")
    }

    /// `GET /v1/feeds`: title → category title.
    func feeds() async throws -> [String: String] {
      var feeds: [String: String] = [:]
      for feed in try array(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/feeds"))) {
        let category = feed["category"] as? [String: Any]
        feeds[feed["title"] as? String ?? "?"] = category?["title"] as? String ?? "?"
      }
      return feeds
    }

    /// `GET /v1/categories`: the titles.
    func categories() async throws -> [String] {
      try array(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/categories"))).compactMap {
        $0["title"] as? String
      }
    }

    /// Reader `subscription/list`: the titles.
    func subscriptions() async throws -> [String] {
      let list = try object(
        await reader.handle(ServerRequest(method: "GET", target: "/reader/api/0/subscription/list?output=json")))
      return (list["subscriptions"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    /// `GET /v1/entries`: each entry's title → its feed's title.
    func entries() async throws -> [String: String] {
      var entries: [String: String] = [:]
      let page = try object(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/entries?limit=100")))
      for entry in page["entries"] as? [[String: Any]] ?? [] {
        entries[entry["title"] as? String ?? "?"] = (entry["feed"] as? [String: Any])?["title"] as? String ?? "?"
      }
      return entries
    }
  }

  @Test("what another shell changes between two requests is served by the second")
  func otherShellsChanges() async throws {
    let served = try Served()
    let alphaFeed = try Self.url("https://alpha.example.org/feed.xml")
    try await served.repository.save(
      [Article(url: try Self.url("https://alpha.example.org/1"), title: "Alpha 1", publishedAt: Date())],
      for: NewsQuery(url: alphaFeed, source: "Alpha"))
    #expect(try await served.feeds() == ["Alpha": "All"])
    #expect(try await served.entries() == ["Alpha 1": "Alpha"])

    // `news add` (another program's list of the same file).
    let other = SubscriptionFile(path: served.path, environment: [:])
    try await other.subscribe([NewsSource(name: "Bravo", url: try Self.url("https://bravo.example.org/feed"))])
    #expect(try await served.feeds() == ["Alpha": "All", "Bravo": "All"])
    #expect(try await served.subscriptions() == ["Alpha", "Bravo"])
    // A rename: the feed's articles are served under the new name (its last results).
    try await other.rename("Alpha", to: "Aleph")
    #expect(try await served.feeds() == ["Aleph": "All", "Bravo": "All"])
    #expect(try await served.entries() == ["Alpha 1": "Aleph"])
    // A move, and a folder kept empty.
    try await other.move("Bravo", to: ["News"])
    #expect(try await served.feeds() == ["Aleph": "All", "Bravo": "News"])
    try await other.setFolderKept(["Later"], kept: true)
    #expect(try await served.categories() == ["All", "Later", "News"])
    // `news remove`.
    try await other.unsubscribe("Bravo")
    #expect(try await served.feeds() == ["Aleph": "All"])
    #expect(try await served.categories() == ["All", "Later"])
    // A subscription of the store's list, and a file imported: served at once too.
    try await served.repository.storedSubscriptions.subscribe([
      NewsSource(name: "Charlie", url: try Self.url("https://charlie.example.org/feed"), folder: ["Store"])
    ])
    #expect(try await served.feeds() == ["Aleph": "All", "Charlie": "Store"])
    let imported = URL(fileURLWithPath: served.directory.path("notes.json"))
    try await served.repository.save(
      [Article(url: try Self.url("https://notes.example.org/1"), title: "Note 1", publishedAt: Date())],
      for: NewsQuery(url: imported))
    #expect(try await served.feeds() == ["Aleph": "All", "Charlie": "Store", imported.path: "Imported"])
    #expect(try await served.entries() == ["Alpha 1": "Aleph", "Note 1": imported.path])
  }
}
