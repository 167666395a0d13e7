import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// A served library over a fresh store, for the Miniflux and Reader API tests: three synthetic sources in nested
/// folders, or the real feeds of `../shared/fixtures/real/feeds`.
struct ServedTestLibrary {
  let directory = TemporaryDirectory("served-apis")
  let storage: StorageContext
  let repository: NewsRepository
  /// The sources of the "configuration" (the store's subscriptions are served too).
  let configured: [NewsSource]
  let library: ServedLibrary

  /// 2024-01-01T00:00:00Z.
  static let start = Date(timeIntervalSince1970: 1_704_067_200)

  /// - Parameter busyTimeout: seconds the store waits for another process's lock (``StorageContext``'s).
  init(configured: [NewsSource], busyTimeout: Double = 5) throws {
    storage = try StorageContext(path: directory.path("news.sqlite"), busyTimeout: busyTimeout)
    repository = NewsRepository(storage: storage, network: FileNewsNetwork(decoder: ArticleDecoder()))
    self.configured = configured
    let repository = self.repository
    library = ServedLibrary(
      repository: repository,
      sources: {
        (configured + (try await repository.subscriptions())).sorted { $0.name < $1.name }
      }, now: { ServedTestLibrary.start.addingTimeInterval(86_400 * 30) })
  }

  /// The synthetic sources: Alpha in Tech (4 articles; its feed's own title "Alpha Feed" a label, which clients are
  /// not shown: they show the subscription's name), Beta in Tech/Swift (3), Gamma at the top (2); article `n`
  /// of a source is published `n` hours after ``start`` plus the source's offset in minutes, and arrives then.
  static func synthetic(busyTimeout: Double = 5) async throws -> ServedTestLibrary {
    let sources = [
      NewsSource(name: "Alpha", url: feedURL("alpha"), title: "Alpha Feed", folder: ["Tech"]),
      NewsSource(name: "Beta", url: feedURL("beta"), folder: ["Tech", "Swift"]),
      NewsSource(name: "Gamma", url: feedURL("gamma")),
    ]
    let served = try ServedTestLibrary(configured: sources, busyTimeout: busyTimeout)
    for (index, (source, count)) in zip(sources, [4, 3, 2]).enumerated() {
      let articles = (1...count).map { n in
        Article(
          key: articleURL(source.name, n), link: articleURL(source.name, n), title: "\(source.name) \(n)",
          author: "Author \(n)", summary: "Summary of \(source.name) \(n) about owls",
          publishedAt: start.addingTimeInterval(TimeInterval(n * 3600 + index * 60)),
          content: "<p>Content of \(source.name) \(n)</p>")
      }
      // Each article arrives when it is published (its `firstSeenAt`, the Reader API's order and `ot`): the
      // source's list as it was then, saved at that time (the earlier articles unchanged, their arrival kept).
      for n in 1...count {
        try await served.storage.saveArticles(
          Array(articles.prefix(n)), forQuery: source.query.cacheKey,
          source: source.query.source ?? source.query.cacheKey, fetchedAt: Timestamp(articles[n - 1].publishedAt))
      }
    }
    return served
  }

  static func feedURL(_ name: String) -> URL {
    URL(string: "https://\(name).example.org/feed.xml") ?? URL(fileURLWithPath: "/")
  }

  static func articleURL(_ source: String, _ n: Int) -> URL {
    URL(string: "https://\(source.lowercased()).example.org/posts/\(n)") ?? URL(fileURLWithPath: "/")
  }

  /// The real feeds of `../shared/fixtures/real/feeds` (`Fixtures` guard), refreshed from their files: each source
  /// named after its file, every second one in folder `Blogs`.
  static func realFeeds(_ names: [String]) async throws -> ServedTestLibrary {
    var sources: [NewsSource] = []
    for (index, name) in names.enumerated() {
      let url = try Fixtures.sharedReal("feeds/" + name)
      sources.append(NewsSource(name: name, url: url, folder: index % 2 == 0 ? [] : ["Blogs"]))
    }
    let served = try ServedTestLibrary(configured: sources)
    let report = await served.repository.refresh(sources)
    for result in report.sources { #expect(result.inserted > 0, "\(result.source): \(result.status)") }
    return served
  }

  /// The real feeds the tests use.
  static let realFeedNames = ["DaringFireball.atom", "scriptingNews.rss", "inessential.json", "manton.rss"]

  /// The article whose title is `title`.
  func article(titled title: String) async throws -> Article {
    try #require(try await repository.read().first { $0.title == title })
  }

  /// Sends `method target` with a JSON or form body to `handler`.
  static func request(
    _ method: String, _ target: String, json: String? = nil, form: String? = nil
  ) -> ServerRequest {
    var headers: [(name: String, value: String)] = []
    var body = Data()
    if let json {
      headers.append((name: "Content-Type", value: "application/json"))
      body = Data(json.utf8)
    }
    if let form {
      headers.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
      body = Data(form.utf8)
    }
    return ServerRequest(method: method, target: target, headers: headers, body: body)
  }
}

/// A JSON answer's body as a dictionary or an array.
func json(_ response: ServerResponse) throws -> Any {
  try JSONSerialization.jsonObject(with: try #require(response.data))
}

/// A JSON object answer.
func object(_ response: ServerResponse) throws -> [String: Any] {
  try #require(try json(response) as? [String: Any])
}

/// A JSON array answer.
func array(_ response: ServerResponse) throws -> [[String: Any]] {
  try #require(try json(response) as? [[String: Any]])
}

/// The body of an answer as text.
func text(_ response: ServerResponse) -> String { String(decoding: response.data ?? Data(), as: UTF8.self) }
