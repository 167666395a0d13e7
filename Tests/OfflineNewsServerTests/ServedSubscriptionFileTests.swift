import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsStorage
import OfflineNewsURLSession
import TestSupport
import Testing

@testable import OfflineNewsServer

/// Subscriptions made through the sync APIs go into the app's list — for `news serve`, the configuration file the
/// CLI reads — by its rules, named after the feed's own title read while the client waits, as Miniflux does. A
/// fresh user's report: feeds added from Miniflux and Reader clients were kept apart in the store, invisible to
/// `news sources` and `news remove`, named `127.0.0.1`, `127.0.0.1 (2)`…, and a feed configured already was
/// subscribed a second time (201, where the docs say 409).
@Suite("Served subscriptions: into the configuration file, by its rules, named after the feed")
struct ServedSubscriptionFileTests {
  static func rss(_ title: String) -> Data {
    Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>\(title)</title><link>https://example.org/</link>
      <item><title>\(title) post</title><link>https://example.org/\(title.count)/post</link></item></channel></rss>
      """.utf8)
  }

  /// A library over a store and the configuration file `news.json` (holding `configured` as a feed), reading feeds
  /// through the real HTTP stack.
  struct Fixture {
    let directory = TemporaryDirectory("served-file")
    let file: SubscriptionFile
    let library: ServedLibrary

    init(configured: URL) throws {
      let path = directory.path("news.json")
      try #"{"sources": {"Alpha": {"feed": "\#(configured.absoluteString)"}}, "timeoutSeconds": 5}"#.write(
        toFile: path, atomically: true, encoding: .utf8)
      let file = SubscriptionFile(path: path)
      self.file = file
      let repository = NewsRepository(
        storage: try StorageContext(path: directory.path("news.sqlite")),
        network: URLSessionNewsNetwork(apiKey: nil, timeout: 5))
      library = ServedLibrary(
        repository: repository, sources: { try await file.sources() }, subscriptions: file,
        subscriber: FeedSubscriber(transport: URLSessionHTTPTransport(timeout: 5)))
    }

    func fileText() throws -> String { try String(contentsOfFile: file.path, encoding: .utf8) }
  }

  @Test("Miniflux POST /v1/feeds: into news.json, named after the feed; 409 for a URL any list holds; DELETE removes")
  func miniflux() async throws {
    let alpha = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Alpha Feed")))
    let bravo = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Bravo Blog")))
    let page = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<p>hi</p>".utf8)))
    defer {
      alpha.stop()
      bravo.stop()
      page.stop()
    }
    let fixture = try Fixture(configured: alpha.url("/feed.xml"))
    let api = MinifluxAPI(library: fixture.library, user: "reader")
    func post(_ url: String) async -> ServerResponse {
      await api.handle(ServedTestLibrary.request("POST", "/v1/feeds", json: #"{"feed_url":"\#(url)"}"#))
    }
    let created = await post(bravo.url("/rss").absoluteString)
    #expect(created.status == 201, "\(text(created))")
    #expect(try await fixture.file.sources().map(\.name) == ["Alpha", "Bravo Blog"])
    #expect(try fixture.fileText().contains(#""Bravo Blog""#))
    // The same feed again, written another way, and the feed the file held already: one subscription each.
    #expect(await post(bravo.url("/rss").absoluteString).status == 409)
    let shouting = bravo.url("/rss").absoluteString.replacingOccurrences(of: "http://", with: "HTTP://")
    #expect(await post(shouting).status == 409)
    let configured = await post(alpha.url("/feed.xml").absoluteString)
    #expect(configured.status == 409, "the configuration's own feed: \(text(configured))")
    // A page that is no feed and announces none is refused, and nothing is written.
    let before = try fixture.fileText()
    let refused = await post(page.url("/").absoluteString)
    #expect(refused.status == 400)
    #expect(text(refused).contains("announces no feed"), "\(text(refused))")
    #expect(try fixture.fileText() == before)
    // DELETE ends it in the file, and a configured source too: one list.
    let id = ServedIdentifiers.feedID(forSourceNamed: "Bravo Blog")
    #expect(await api.handle(ServedTestLibrary.request("DELETE", "/v1/feeds/\(id)")).status == 204)
    let alphaID = ServedIdentifiers.feedID(forSourceNamed: "Alpha")
    #expect(await api.handle(ServedTestLibrary.request("DELETE", "/v1/feeds/\(alphaID)")).status == 204)
    #expect(try await fixture.file.sources().isEmpty)
  }

  @Test("Reader quickadd and edit: into news.json; a rename and a label change the file's entry")
  func reader() async throws {
    let alpha = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Alpha Feed")))
    let charlie = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Charlie Casts")))
    defer {
      alpha.stop()
      charlie.stop()
    }
    let fixture = try Fixture(configured: alpha.url("/feed.xml"))
    let api = ReaderAPI(library: fixture.library, user: "reader")
    func post(_ call: String, _ form: String) async -> ServerResponse {
      await api.handle(ServedTestLibrary.request("POST", "/reader/api/0/" + call, form: form))
    }
    let url = charlie.url("/feed").absoluteString
    let added = try object(await post("subscription/quickadd", "quickadd=\(url)"))
    #expect(added["streamName"] as? String == "Charlie Casts")
    #expect(try await fixture.file.source(named: "Charlie Casts")?.url.absoluteString == url)
    let again = try object(await post("subscription/quickadd", "quickadd=\(url)"))
    #expect(again["streamName"] as? String == "Charlie Casts", "subscribed already: the name it has")
    #expect(try await fixture.file.sources().count == 2)
    let edit = "ac=edit&s=feed/\(url)&t=Charlie&a=user/-/label/Podcasts"
    #expect(text(await post("subscription/edit", edit)) == "OK")
    let edited = try #require(try await fixture.file.source(named: "Charlie"))
    #expect(edited.folder == ["Podcasts"])
    #expect(text(await post("subscription/edit", "ac=unsubscribe&s=feed/\(url)")) == "OK")
    #expect(try await fixture.file.sources().map(\.name) == ["Alpha"])
  }
}
