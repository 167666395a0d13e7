import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// `fetch --all` of many feeds on one host: a feed's place among the host's requests in flight is given back once its
/// request is answered, so the next feed is asked while the answered one waits for the writer (before, the place was
/// held through the save, and the requests waited for the saves).
@Suite("A refresh asks the next source of a host while the last answered one is being saved")
struct RefreshPipelineTests {
  /// Answers every URL with a page of one article of its own, and remembers what was asked.
  final class OneArticleEach: NewsNetwork {
    let asked = Mutex<[String]>([])
    func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
      asked.withLock { $0.append(query.url.path) }
      let link = URL(string: "https://example.org/posts\(query.url.path)") ?? query.url
      return NewsPage(articles: [Article(url: link, title: "Post \(query.url.path)", publishedAt: Date())])
    }
  }

  @Test("one request per host at a time: the second source is asked while the first's save waits for the writer")
  func nextRequestDuringSave() async throws {
    let directory = TemporaryDirectory("refresh-pipeline")
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let network = OneArticleEach()
    let repository = NewsRepository(storage: storage, network: network)
    // The writer held by a write of the test's until it lets go.
    let release = DispatchSemaphore(value: 0)
    let (started, didStart) = AsyncStream.makeStream(of: Void.self)
    let held = Task {
      try await storage.write { _ in
        didStart.yield()
        release.wait()
      }
    }
    for await _ in started { break }
    var options = RefreshOptions()
    options.perHostLimit = 1
    let sources = ["a", "b"].compactMap { name in
      URL(string: "https://feeds.example.org/\(name)").map { NewsSource(name: name, url: $0) }
    }
    let refresh = Task { await repository.refresh(sources, options: options) }
    // Both asked while the writer is held (bounded: without the early release the second is never asked meanwhile).
    var asked: [String] = []
    for _ in 0..<2000 {
      asked = network.asked.withLock { $0 }
      if asked.count == 2 { break }
      try await Task.sleep(for: .milliseconds(5))
    }
    release.signal()
    try await held.value
    let report = await refresh.value
    #expect(asked.sorted() == ["/a", "/b"], "the second source was not asked while the first's save waited")
    #expect(report.sources.map(\.source) == ["a", "b"])
    #expect(report.sources.map(\.inserted) == [1, 1])
    #expect(report.sources.allSatisfy { $0.status == .new && $0.failure == nil })
    await storage.close()
  }
}
