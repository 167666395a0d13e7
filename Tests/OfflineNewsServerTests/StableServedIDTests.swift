import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The ids the sync APIs give an article (Miniflux entry ids, Reader item ids in their long and short forms) stay
/// when the store re-keys it: a publisher fixes a post's slug (the same guid under a new link, as in NetNewsWire#3286
/// and lion-reader#1535), and the client must see the one article it knows, under its id, read and starred as it
/// left it, and find it by that id; a later article under the old link is another article with an id of its own.
/// The feed is fetched from a loopback server through the real HTTP stack, and read through the APIs' handlers.
@Suite("served ids stay when an item is re-keyed")
struct StableServedIDTests {
  static let typo = "https://blog.example.org/2026/12/01/build-a-your-own-shop/"
  static let fixed = "https://blog.example.org/2026/12/01/build-your-own-shop/"

  /// A WordPress-shaped RSS 2.0 feed: `?p=N` guids beside the posts' links.
  static func rss(_ items: [(guid: String, link: String, title: String)]) -> Data {
    let body = items.map { item in
      "<item><title>\(item.title)</title><link>\(item.link)</link>"
        + "<guid isPermaLink=\"false\">\(item.guid)</guid><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate>"
        + "<description>Text of \(item.title).</description></item>"
    }.joined()
    return Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <rss version="2.0"><channel><title>Blog</title><link>https://blog.example.org/</link>\(body)</channel></rss>
      """.utf8)
  }

  static func serve(_ items: [(guid: String, link: String, title: String)]) -> LoopbackHTTPServer.Behaviour {
    .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: rss(items))
  }

  static let other = (guid: "https://blog.example.org/?p=2", link: "https://blog.example.org/other/", title: "Other")

  /// The Miniflux entries of the store, by title.
  static func entries(_ api: MinifluxAPI) async throws -> [String: [String: Any]] {
    let response = await api.handle(ServedTestLibrary.request("GET", "/v1/entries?limit=100"))
    let entries = try #require(try object(response)["entries"] as? [[String: Any]])
    return Dictionary(entries.map { ($0["title"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
  }

  /// The Reader API's reading list, by title.
  static func items(_ api: ReaderAPI) async throws -> [String: [String: Any]] {
    let response = await api.handle(
      ServedTestLibrary.request("GET", "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=100"))
    let items = try #require(try object(response)["items"] as? [[String: Any]])
    return Dictionary(items.map { ($0["title"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
  }

  /// The short (decimal) ids of `stream/items/ids` of the reading list.
  static func shortIDs(_ api: ReaderAPI) async throws -> [String] {
    let response = await api.handle(
      ServedTestLibrary.request("GET", "/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&n=100"))
    let refs = try #require(try object(response)["itemRefs"] as? [[String: Any]])
    return refs.compactMap { $0["id"] as? String }
  }

  static func categories(_ item: [String: Any]?) -> [String] { item?["categories"] as? [String] ?? [] }

  @Test("a slug fixed between two refreshes: same entry id and item ids, read and starred kept, found by the old ids")
  func slugFixed() async throws {
    let server = try LoopbackHTTPServer(
      Self.serve([(guid: "https://blog.example.org/?p=1", link: Self.typo, title: "Shop"), Self.other]))
    defer { server.stop() }
    let directory = TemporaryDirectory("served-ids")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let repository = NewsRepository(
      storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 5, decoder: ArticleDecoder()))
    let source = NewsSource(name: "Blog", url: server.url("/feed.xml"))
    let library = ServedLibrary(repository: repository, sources: { [source] }, now: { Date() })
    let miniflux = MinifluxAPI(library: library, user: "reader")
    let reader = ReaderAPI(library: library, user: "reader")

    let first = await repository.refresh([source])
    #expect(first.sources.first?.inserted == 2, "\(first.sources.map(\.status))")
    let before = try #require(try await Self.entries(miniflux)["Shop"])
    let entryID = try #require((before["id"] as? NSNumber)?.int64Value)
    let itemID = try #require(try await Self.items(reader)["Shop"]?["id"] as? String)
    let shortIDs = try await Self.shortIDs(reader)
    #expect(entryID == ServedIdentifiers.entryID(forKey: Self.typo))
    #expect(itemID == ServedIdentifiers.readerItemID(forKey: Self.typo))
    #expect(shortIDs.contains(String(ServedIdentifiers.readerShortItemID(forKey: Self.typo))))

    // The client reads it (Miniflux) and stars it (Reader).
    let read = await miniflux.handle(
      ServedTestLibrary.request("PUT", "/v1/entries", json: #"{"entry_ids": [\#(entryID)], "status": "read"}"#))
    #expect(read.status == 204)
    let star = await reader.handle(
      ServedTestLibrary.request(
        "POST", "/reader/api/0/edit-tag", form: "i=\(itemID)&a=user/-/state/com.google/starred"))
    #expect(text(star) == "OK")

    // The publisher fixes the slug: the same guid under a new link. The store re-keys the row.
    server.behaviour = Self.serve([
      (guid: "https://blog.example.org/?p=1", link: Self.fixed, title: "Shop"), Self.other,
    ])
    let second = await repository.refresh([source])
    #expect(second.sources.first?.inserted == 0, "\(second.sources.map(\.status))")
    let keys = try await repository.read().map(\.url.absoluteString).sorted()
    #expect(keys == [Self.fixed, Self.other.link])

    let after = try #require(try await Self.entries(miniflux)["Shop"])
    #expect((after["id"] as? NSNumber)?.int64Value == entryID)
    #expect(after["status"] as? String == "read")
    #expect(after["starred"] as? Bool == true)
    #expect(after["url"] as? String == Self.fixed)
    let item = try await Self.items(reader)["Shop"]
    #expect(item?["id"] as? String == itemID)
    #expect(Self.categories(item).contains("user/-/state/com.google/read"))
    #expect(Self.categories(item).contains("user/-/state/com.google/starred"))
    #expect(try await Self.shortIDs(reader) == shortIDs)

    // The old ids still find it: one entry, its contents by item id, a change of state by entry id.
    let one = try object(await miniflux.handle(ServedTestLibrary.request("GET", "/v1/entries/\(entryID)")))
    #expect(one["url"] as? String == Self.fixed)
    let contents = try object(
      await reader.handle(
        ServedTestLibrary.request("POST", "/reader/api/0/stream/items/contents", form: "i=\(shortIDs[0])&i=\(itemID)")))
    #expect((contents["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }.contains("Shop") == true)
    let unread = await miniflux.handle(
      ServedTestLibrary.request("PUT", "/v1/entries", json: #"{"entry_ids": [\#(entryID)], "status": "unread"}"#))
    #expect(unread.status == 204)
    #expect(try await repository.read().first { $0.title == "Shop" }?.isRead == false)

    // A new post under the old link is another article: an id of its own, not the re-keyed one's.
    server.behaviour = Self.serve([
      (guid: "https://blog.example.org/?p=1", link: Self.fixed, title: "Shop"), Self.other,
      (guid: "https://blog.example.org/?p=3", link: Self.typo, title: "Another shop"),
    ])
    let third = await repository.refresh([source])
    #expect(third.sources.first?.inserted == 1, "\(third.sources.map(\.status))")
    let entries = try await Self.entries(miniflux)
    let newID = try #require((entries["Another shop"]?["id"] as? NSNumber)?.int64Value)
    #expect(newID != entryID)
    #expect((entries["Shop"]?["id"] as? NSNumber)?.int64Value == entryID)
    let items = try await Self.items(reader)
    #expect(items["Another shop"]?["id"] as? String != itemID)
    #expect(items["Shop"]?["id"] as? String == itemID)
    let found = try object(await miniflux.handle(ServedTestLibrary.request("GET", "/v1/entries/\(newID)")))
    #expect(found["title"] as? String == "Another shop")
    let old = try object(await miniflux.handle(ServedTestLibrary.request("GET", "/v1/entries/\(entryID)")))
    #expect(old["title"] as? String == "Shop")
  }
}
