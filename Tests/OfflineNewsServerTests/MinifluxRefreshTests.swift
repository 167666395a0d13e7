import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

@testable import OfflineNewsServer

/// Miniflux's "Refresh all feeds" (`PUT /v1/feeds/refresh`, 204 at once, the refresh in the background) and "Refresh
/// a feed" (`PUT /v1/feeds/{id}/refresh`, 204 once it is done), through the library's refresh — the path of
/// `news fetch --all` and of the server's periodic refresh — one at a time. (A tester's client got 404 for the first,
/// and the second answered 204 without reading anything.)
@Suite("Miniflux refresh of all feeds and of one", .serialized)
struct MinifluxRefreshTests {
  /// A network that reads feed files (``FileNewsNetwork``), counting the reads of each URL, and holds every read
  /// until ``release()`` once ``hold()`` was called.
  final class CountingNetwork: NewsNetwork {
    private struct State {
      var reads: [String: Int] = [:]
      var held = false
      var waiting: [CheckedContinuation<Void, Never>] = []
      var entered: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let files = FileNewsNetwork(decoder: ArticleDecoder())

    /// How many times `url` was read.
    func reads(_ url: URL) -> Int { state.withLock { $0.reads[url.absoluteString, default: 0] } }

    /// Holds the reads from now on.
    func hold() { state.withLock { $0.held = true } }

    /// Lets every held read go, and the later ones.
    func release() {
      let waiting = state.withLock { state in
        state.held = false
        defer { state.waiting = [] }
        return state.waiting
      }
      for continuation in waiting { continuation.resume() }
    }

    /// Returns once a read is held.
    func waitForHeldRead() async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let already = state.withLock { state in
          if !state.waiting.isEmpty { return true }
          state.entered.append(continuation)
          return false
        }
        if already { continuation.resume() }
      }
    }

    func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let (held, entered) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
          state.reads[query.url.absoluteString, default: 0] += 1
          guard state.held else { return (false, []) }
          state.waiting.append(continuation)
          defer { state.entered = [] }
          return (true, state.entered)
        }
        for waiter in entered { waiter.resume() }
        if !held { continuation.resume() }
      }
      return try await files.fetch(query)
    }
  }

  /// The reports ``ServedLibrary/refreshed`` was given.
  final class Reports: Sendable {
    private let reports = Mutex<[RefreshReport]>([])
    func append(_ report: RefreshReport) { reports.withLock { $0.append(report) } }
    var all: [RefreshReport] { reports.withLock { $0 } }
  }

  /// Two feed files as subscriptions (and one whose file is missing), served over a ``CountingNetwork``.
  struct Fixture {
    let reports = Reports()
    let directory = TemporaryDirectory("miniflux-refresh")
    let network = CountingNetwork()
    let repository: NewsRepository
    let library: ServedLibrary
    let sources: [NewsSource]

    init() throws {
      var sources: [NewsSource] = []
      for name in ["Harbour", "Tech"] {
        let items = (1...3).map { n in
          "<item><title>\(name) \(n)</title><link>https://\(name.lowercased()).example/\(n)</link>"
            + "<pubDate>Mon, 0\(n) Dec 2026 10:00:00 GMT</pubDate></item>"
        }.joined()
        let path = directory.path("\(name).rss")
        try Data(
          #"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(name)</title>\#(items)</channel></rss>"#.utf8
        )
        .write(to: URL(fileURLWithPath: path))
        sources.append(NewsSource(name: name, url: URL(fileURLWithPath: path)))
      }
      sources.append(NewsSource(name: "Missing", url: URL(fileURLWithPath: directory.path("missing.rss"))))
      self.sources = sources
      let storage = try StorageContext(path: directory.path("news.sqlite"))
      repository = NewsRepository(storage: storage, network: network)
      let listed = sources
      let reports = reports
      library = ServedLibrary(repository: repository, sources: { listed }, refreshed: { reports.append($0) })
    }

    func feedID(_ name: String) -> Int64 { ServedIdentifiers.feedID(forSourceNamed: name) }

    func titles(of name: String) async throws -> [String] {
      try await repository.read().filter { $0.title.hasPrefix(name) }.map(\.title).sorted()
    }
  }

  @Test("PUT /v1/feeds/{id}/refresh reads that feed now and answers 204 when it is saved; a failure says why")
  func refreshOneFeed() async throws {
    let fixture = try Fixture()
    let api = MinifluxAPI(library: fixture.library)
    #expect(try await fixture.titles(of: "Harbour").isEmpty)
    let response = await api.handle(ServedTestLibrary.request("PUT", "/v1/feeds/\(fixture.feedID("Harbour"))/refresh"))
    #expect(response.status == 204, "\(text(response))")
    #expect(try await fixture.titles(of: "Harbour") == ["Harbour 1", "Harbour 2", "Harbour 3"])
    // Only that feed was read.
    #expect(fixture.network.reads(fixture.sources[0].url) == 1)
    #expect(fixture.network.reads(fixture.sources[1].url) == 0)
    #expect(try await fixture.titles(of: "Tech").isEmpty)

    // A feed whose refresh fails: Miniflux's error shape, naming the file.
    let missing = await api.handle(ServedTestLibrary.request("PUT", "/v1/feeds/\(fixture.feedID("Missing"))/refresh"))
    #expect(missing.status == 500, "\(text(missing))")
    #expect(try object(missing)["error_message"] as? String ?? "" != "")
    #expect(text(missing).contains("missing.rss"), "\(text(missing))")
    let unknown = await api.handle(ServedTestLibrary.request("PUT", "/v1/feeds/12345/refresh"))
    #expect(unknown.status == 404)
  }

  @Test(
    "PUT /v1/feeds/refresh answers 204 at once; a refresh under way is joined, never started twice",
    .timeLimit(.minutes(2)))
  func refreshAllIsBounded() async throws {
    let fixture = try Fixture()
    let server = try startServer(library: fixture.library)
    let client = TestClient(port: server.port)
    fixture.network.hold()

    // 204 before any feed is read: the refresh runs in the background.
    let first = try await client.request("PUT", "/v1/feeds/refresh")
    #expect(first.status == 204, "\(first.text)")
    await fixture.network.waitForHeldRead()
    #expect(try await fixture.titles(of: "Harbour").isEmpty)

    // Asked again while it runs: nothing more is started, and one feed's refresh waits for that one.
    let again = try await client.request("PUT", "/v1/feeds/refresh")
    #expect(again.status == 204)
    async let one = client.request("PUT", "/v1/feeds/\(fixture.feedID("Tech"))/refresh")
    // Both join the refresh under way: the second "refresh all" (in the background) and the feed's.
    while fixture.library.refreshes.counts.joined < 2 { try await Task.sleep(for: .milliseconds(5)) }
    #expect(fixture.library.refreshes.counts.started == 1)
    fixture.network.release()
    #expect(try await one.status == 204)

    // Every feed was read once, by the one refresh, and is saved.
    for source in fixture.sources { #expect(fixture.network.reads(source.url) == 1, "\(source.name)") }
    #expect(try await fixture.titles(of: "Harbour") == ["Harbour 1", "Harbour 2", "Harbour 3"])
    #expect(try await fixture.titles(of: "Tech") == ["Tech 1", "Tech 2", "Tech 3"])
    #expect(fixture.library.refreshes.counts.started == 1)
    // Reported once (news serve's line), with every source.
    #expect(fixture.reports.all.map { $0.sources.map(\.source) } == [["Harbour", "Missing", "Tech"]])

    // Once it is over, the next one is a new refresh.
    let report = try await fixture.library.refresh()
    #expect(report?.sources.count == 3)
    #expect(fixture.library.refreshes.counts.started == 2)
    await server.stop()
  }

  @Test("after stopRefreshing nothing is refreshed")
  func stoppedRefreshesNothing() async throws {
    let fixture = try Fixture()
    await fixture.library.stopRefreshing()
    #expect(try await fixture.library.refresh() == nil)
    #expect(fixture.network.reads(fixture.sources[0].url) == 0)
  }
}
