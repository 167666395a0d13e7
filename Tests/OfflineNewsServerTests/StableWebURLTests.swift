import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The web reader's article URLs are the article's served id (`article.servedID`), as the sync APIs' ids are: a URL
/// bookmarked before the store re-keys the row (a publisher fixes a post's link under the same guid) opens the same
/// article after, and so do its forms; a new article under the old link is another page. Before, `/article/{handle}`
/// followed the row's key, and the bookmark answered 404 after the re-key. The feed is fetched from a loopback server
/// through the real HTTP stack, twice.
@Suite("web reader URLs stay when an item is re-keyed")
struct StableWebURLTests {
  @Test func aBookmarkedArticleURLOpensTheArticleAfterItsLinkChanged() async throws {
    let typo = StableServedIDTests.typo
    let fixed = StableServedIDTests.fixed
    let guid = "https://blog.example.org/?p=1"
    let server = try LoopbackHTTPServer(
      StableServedIDTests.serve([(guid: guid, link: typo, title: "Shop"), StableServedIDTests.other]))
    defer { server.stop() }
    let directory = TemporaryDirectory("web-urls")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let repository = NewsRepository(
      storage: storage, network: HTTPNewsNetwork(apiKey: nil, timeout: 5, decoder: ArticleDecoder()))
    let source = NewsSource(name: "Blog", url: server.url("/feed.xml"))
    let library = ServedLibrary(repository: repository, sources: { [source] }, now: { Date() })
    let web = WebReader(library: library)
    let session = WebSession(csrfToken: "csrf", user: nil)
    func get(_ target: String) async -> ServerResponse {
      await web.handle(ServerRequest(method: "GET", target: target), session: session)
    }
    func page(_ response: ServerResponse) -> String { String(decoding: response.data ?? Data(), as: UTF8.self) }

    _ = await repository.refresh([source])
    // The link the list gives, as a reader bookmarks it.
    let list = page(await get("/articles"))
    let bookmark = "/article/\(ArticleIdentity.handle(forKey: typo))"
    #expect(list.contains("href=\"\(bookmark)?"), "\(list)")
    #expect(page(await get(bookmark)).contains("<h1>Shop</h1>"))

    // The publisher fixes the link under the same guid: the store re-keys the row.
    server.behaviour = StableServedIDTests.serve([(guid: guid, link: fixed, title: "Shop"), StableServedIDTests.other])
    _ = await repository.refresh([source])
    #expect(try await repository.read().map(\.url.absoluteString).sorted() == [fixed, StableServedIDTests.other.link])

    let reopened = await get(bookmark)
    #expect(reopened.status == 200)
    let html = page(reopened)
    #expect(html.contains("<h1>Shop</h1>"))
    #expect(html.contains("action=\"\(bookmark)/read\""), "the page's forms keep the served id")
    // The list links to the same URL, not to one that follows the new key.
    #expect(page(await get("/articles")).contains("href=\"\(bookmark)?"))
    // A URL made from the new key's handle (a bookmark of another version of this server) opens it too.
    #expect(page(await get("/article/\(ArticleIdentity.handle(forKey: fixed))")).contains("<h1>Shop</h1>"))
    // A change through the bookmark's form reaches the article.
    let read = await web.handle(
      ServerRequest(
        method: "POST", target: "\(bookmark)/read",
        headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")], body: Data("read=1".utf8)),
      session: session)
    #expect(read.status == 303)
    #expect(read.header("Location") == bookmark)
    #expect(try await repository.article(url: fixed)?.isRead == true)

    // A new article under the old link is another article, with a URL of its own.
    server.behaviour = StableServedIDTests.serve([
      (guid: guid, link: fixed, title: "Shop"), (guid: "https://blog.example.org/?p=3", link: typo, title: "Newer"),
    ])
    _ = await repository.refresh([source])
    #expect(page(await get(bookmark)).contains("<h1>Shop</h1>"))
    let newerList = page(await get("/articles"))
    #expect(newerList.contains(">Newer</a>"))
    #expect(newerList.components(separatedBy: "href=\"\(bookmark)?").count == 2, "one article at the bookmark's URL")
  }
}
