import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// `NewsRepository.importArticles(from:progress:)`: an app's one call to import a file, the one `news import FILE`
/// makes, on real files of every format: the rows are the file's articles as the network's decoder reads them.
@Suite("importArticles(from:) imports a real file of any format, whole or streamed, as news import does")
struct FileImportTests {
  static let files = [
    "newsapi-top-headlines-2023-removed-article.json", "newsapi-top-headlines-2020-empty-author-malformed-url.json",
    "jsonfeed-1.1-extension-offsets.json", "feeds/DaringFireball.rss", "feeds/allthis.atom", "feeds/bio.rdf",
    "feeds/inessential.json",
  ]

  /// Every progress report, in order.
  final class Reports: Sendable {
    let list = Mutex<[FileImportProgress]>([])
    func add(_ report: FileImportProgress) { list.withLock { $0.append(report) } }
  }

  @Test(
    "a real file: its articles saved with their source, issues reported, again: unchanged",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"), arguments: files)
  func realFile(_ name: String) async throws {
    let url = try Fixtures.sharedReal(name)
    let page = try await FileNewsNetwork(decoder: ArticleDecoder()).fetch(NewsQuery(url: url))
    let directory = TemporaryDirectory()
    let repository = NewsRepository(
      storage: try StorageContext(path: directory.path("news.sqlite")), network: FileNewsNetwork())
    let reports = Reports()
    let result = try await repository.importArticles(from: url) { reports.add($0) }
    #expect(!result.streamed)
    #expect(result.save.inserted == page.articles.count && result.save.saved == page.articles.count, "\(name)")
    #expect(result.issues == page.issues)
    #expect(result.skipped == page.issues.filter(\.skipped).count)
    let rows = try await repository.read()
    #expect(Set(rows.map(\.url)) == Set(page.articles.map(\.url)))
    #expect(rows.allSatisfy { $0.source == url.path })
    #expect(
      Dictionary(rows.map { ($0.url, $0.enclosures) }, uniquingKeysWith: { first, _ in first })
        == Dictionary(page.articles.map { ($0.url, $0.enclosures) }, uniquingKeysWith: { first, _ in first }))
    let events = reports.list.withLock { $0 }
    #expect(events.last == .finishing)
    #expect(events.contains(.writing(written: page.articles.count, total: page.articles.count)))

    let again = try await repository.importArticles(from: url)
    #expect(again.save.unchanged == page.articles.count && again.save.inserted == 0 && again.save.updated == 0)
  }

  @Test(
    "a NewsAPI export over the streaming threshold is streamed, with the rows and issues of a whole read",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func streamed() async throws {
    let source = try Fixtures.sharedReal("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
    let records = try #require(document["articles"] as? [[String: Any]])
    // The real records again and again, each copy under its own URLs, until the file is over the threshold.
    var copies: [[String: Any]] = []
    var size = 0
    var copy = 0
    while size < NewsRepository.streamingThreshold + 1_000_000 {
      for record in records {
        var changed = record
        if let link = record["url"] as? String {
          changed["url"] = link + (link.contains("?") ? "&" : "?") + "c=\(copy)"
        }
        copies.append(changed)
      }
      size = try JSONSerialization.data(withJSONObject: copies).count
      copy += 1
    }
    let directory = TemporaryDirectory()
    let file = URL(fileURLWithPath: directory.path("everything.json"))
    try JSONSerialization.data(withJSONObject: ["status": "ok", "totalResults": copies.count, "articles": copies])
      .write(to: file)
    let whole = try await FileNewsNetwork().fetch(NewsQuery(url: file))

    let repository = NewsRepository(
      storage: try StorageContext(path: directory.path("news.sqlite")), network: FileNewsNetwork())
    let reports = Reports()
    let result = try await repository.importArticles(from: file) { reports.add($0) }
    #expect(result.streamed)
    #expect(result.save.inserted == whole.articles.count && whole.articles.count > 1000)
    #expect(result.issues == whole.issues)
    #expect(try await repository.counts().total == whole.articles.count)
    let events = reports.list.withLock { $0 }
    #expect(events.last == .finishing)
    #expect(events.contains(.writing(written: whole.articles.count, total: nil)))
  }

  @Test(
    "a cut-off file throws the network's error naming it, and nothing is saved; a web URL is refused",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func refused() async throws {
    let directory = TemporaryDirectory()
    let whole = try Data(contentsOf: try Fixtures.sharedReal("feeds/DaringFireball.rss"))
    let file = URL(fileURLWithPath: directory.path("cut.rss"))
    try whole.prefix(whole.count / 2).write(to: file)
    let repository = NewsRepository(
      storage: try StorageContext(path: directory.path("news.sqlite")), network: FileNewsNetwork())
    await #expect {
      try await repository.importArticles(from: file)
    } throws: { error in
      guard let error = error as? NewsNetworkError, case .invalidResponse = error else { return false }
      return error.description.contains("cut off")
    }
    #expect(try await repository.counts().total == 0)
    let web = try #require(URL(string: "https://example.com/feed.rss"))
    await #expect {
      try await repository.importArticles(from: web)
    } throws: { error in
      guard case .unsupportedURL = error as? NewsNetworkError else { return false }
      return true
    }
  }
}
