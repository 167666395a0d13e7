import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The articles of a file imported (`news import FILE`) belong to no subscription; every door of `news serve` serves
/// them as a source of their own in the folder "Imported", as `news list` lists them (a tester's upgraded store had
/// 580 of 791 articles, 12 of 27 bookmarks, that no Miniflux or Reader client saw).
@Suite("news serve serves the articles of imported files")
struct ImportedArticlesServedTests {
  @Test("Miniflux feeds and entries and Reader subscriptions include an imported file; it is no subscription")
  func importedFileIsServed() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let file = URL(fileURLWithPath: served.directory.path("notes.json"))
    let articles = (1...3).map { n in
      Article(
        key: URL(string: "https://notes.example.org/\(n)") ?? file, link: nil, title: "Note \(n)",
        publishedAt: ServedTestLibrary.start.addingTimeInterval(TimeInterval(n * 60)))
    }
    try await served.repository.save(articles, for: NewsQuery(url: file))

    let sources = try await served.library.servedSources()
    let imported = try #require(sources.first { $0.name == file.path })
    #expect(imported.folder == ServedLibrary.importedFolder && ServedLibrary.isImported(imported))
    #expect(sources.filter(ServedLibrary.isImported).count == 1, "the subscriptions are not taken for imports")

    let miniflux = MinifluxAPI(library: served.library, user: "reader")
    let feeds = try json(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/feeds"))) as? [[String: Any]]
    let feed = try #require(feeds?.first { $0["title"] as? String == file.path })
    let id = try #require(feed["id"] as? Int64 ?? (feed["id"] as? Int).map(Int64.init))
    let entries = try object(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/feeds/\(id)/entries")))
    #expect(entries["total"] as? Int == 3)
    let all = try object(await miniflux.handle(ServerRequest(method: "GET", target: "/v1/entries?limit=100")))
    #expect(all["total"] as? Int == 4 + 3 + 2 + 3, "every cached article, as news list counts them")
    let removed = await miniflux.handle(ServerRequest(method: "DELETE", target: "/v1/feeds/\(id)"))
    #expect(removed.status == 400)
    #expect(text(removed).contains("no subscription; news delete removes articles"), "\(text(removed))")
    #expect(try await served.library.servedSources().contains { $0.name == file.path })

    let reader = ReaderAPI(library: served.library, user: "reader")
    let list = try object(
      await reader.handle(ServerRequest(method: "GET", target: "/reader/api/0/subscription/list?output=json")))
    let subscriptions = list["subscriptions"] as? [[String: Any]] ?? []
    #expect(subscriptions.contains { $0["title"] as? String == file.path }, "\(subscriptions)")
  }
}
