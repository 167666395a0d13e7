import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
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
        network: HTTPNewsNetwork(apiKey: nil, timeout: 5))
      library = ServedLibrary(
        repository: repository, sources: { try await file.sources() }, subscriptions: file,
        subscriber: FeedSubscriber(transport: CurlHTTPTransport(timeout: 5)))
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

  @Test("beyond loopback, API subscribe refuses loopback and private addresses before reading them; on loopback, reads")
  func privateTargetsRefusedBeyondLoopback() async throws {
    let local = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Local Feed")))
    defer { local.stop() }
    let fixture = try Fixture(configured: try #require(URL(string: "https://alpha.example/feed.xml")))
    let served = NewsServer(library: fixture.library, settings: NewsServer.Settings(listenHost: "0.0.0.0")).library
    #expect(served.refusesPrivateTargets)
    #expect(!NewsServer(library: fixture.library).library.refusesPrivateTargets, "127.0.0.1 by default")
    #expect(!NewsServer(library: fixture.library, settings: .init(listenHost: "::1")).library.refusesPrivateTargets)
    let before = try fixture.fileText()
    let miniflux = MinifluxAPI(library: served, user: "reader")
    let reader = ReaderAPI(library: served, user: "reader")
    let targets = [
      local.url("/feed.xml").absoluteString, "http://localhost:\(local.port)/feed.xml",
      "http://[::ffff:127.0.0.1]:\(local.port)/feed.xml", "http://169.254.169.254/latest/meta-data/",
      "http://10.1.2.3/feed", "http://192.168.0.1/rss", "http://[fe80::1]/feed",
    ]
    for target in targets {
      let refused = await miniflux.handle(
        ServedTestLibrary.request("POST", "/v1/feeds", json: #"{"feed_url":"\#(target)"}"#))
      #expect(refused.status == 400, "\(target): \(text(refused))")
      #expect(text(refused).contains("news serve reads no address on its own machine or network"), "\(text(refused))")
      let quick = await reader.handle(
        ServedTestLibrary.request("POST", "/reader/api/0/subscription/quickadd", form: "quickadd=\(target)"))
      #expect(quick.status == 400, "\(target): \(text(quick))")
    }
    #expect(local.requests.isEmpty, "nothing was read")
    #expect(try fixture.fileText() == before)
    // On loopback (the fixture's library as it is), the same loopback feed is read and subscribed.
    let allowed = await MinifluxAPI(library: fixture.library, user: "reader").handle(
      ServedTestLibrary.request("POST", "/v1/feeds", json: #"{"feed_url":"\#(local.url("/feed.xml").absoluteString)"}"#)
    )
    #expect(allowed.status == 201, "\(text(allowed))")
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

  @Test(
    "Miniflux PUT /v1/feeds/{id}: renames (articles follow), files and re-links the file's entry; 400 naming the field")
  func minifluxUpdateFeed() async throws {
    let alphaURL = try #require(URL(string: "https://alpha.example.org/feed.xml"))
    let fixture = try Fixture(configured: alphaURL)
    let bravo = NewsSource(name: "Bravo", url: try #require(URL(string: "https://bravo.example.org/rss")))
    try await fixture.file.subscribe([bravo])
    // An article of Alpha's, recorded under its name.
    let alpha = try #require(try await fixture.file.source(named: "Alpha"))
    let post = Article(
      url: try #require(URL(string: "https://alpha.example.org/1")), title: "Alpha post", publishedAt: Date())
    try await fixture.library.repository.save([post], for: alpha.query)
    let api = MinifluxAPI(library: fixture.library, user: "reader")
    func put(_ id: Int64, _ json: String) async -> ServerResponse {
      await api.handle(ServedTestLibrary.request("PUT", "/v1/feeds/\(id)", json: json))
    }
    let category = try object(
      await api.handle(ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":"Tech / Swift"}"#)))
    let categoryID = try #require((category["id"] as? NSNumber)?.int64Value)
    let alphaID = ServedIdentifiers.feedID(forSourceNamed: "Alpha")

    // Every field is checked before anything changes: nothing is written for a refused request.
    let before = try fixture.fileText()
    for (json, field) in [
      (#"{"title":"  "}"#, "Invalid title"), (#"{"title":"bravo"}"#, "Invalid title"),
      (#"{"category_id":12345}"#, "Invalid category_id"),
      (#"{"feed_url":"ftp://alpha.example.org/"}"#, "Invalid feed_url"),
      (#"{"feed_url":"HTTPS://BRAVO.example.org:443/rss","title":"Alpha 2"}"#, "Invalid feed_url"),
    ] {
      let refused = await put(alphaID, json)
      #expect(refused.status == 400, "\(json): \(text(refused))")
      let message = try object(refused)["error_message"] as? String ?? ""
      #expect(message.hasPrefix(field), "\(json): \(message)")
    }
    #expect(try fixture.fileText() == before)
    #expect(await put(12345, #"{"title":"X"}"#).status == 404)

    let newURL = "https://alpha.example.org/atom.xml"
    let updated = await put(
      alphaID, #"{"title":"Alpha Renamed","category_id":\#(categoryID),"feed_url":"\#(newURL)","crawler":true}"#)
    #expect(updated.status == 201, "\(text(updated))")
    let document = try object(updated)
    #expect(document["title"] as? String == "Alpha Renamed")
    #expect(document["feed_url"] as? String == newURL)
    #expect((document["category"] as? [String: Any])?["title"] as? String == "Tech / Swift")
    // The feed keeps its id (its source's identity, the name it was first recorded under): a client that retitled
    // it does not see it go and a new one come.
    #expect((document["id"] as? NSNumber)?.int64Value == alphaID)
    let listed = try array(await api.handle(ServedTestLibrary.request("GET", "/v1/feeds")))
    #expect(listed.first { $0["title"] as? String == "Alpha Renamed" }?["id"] as? NSNumber == NSNumber(value: alphaID))
    // The configuration file's entry changed in place; the CLI reads the same.
    let entry = try #require(try await fixture.file.source(named: "Alpha Renamed"))
    #expect(entry.url.absoluteString == newURL && entry.folder == ["Tech", "Swift"])
    #expect(try await fixture.file.source(named: "Alpha") == nil)
    // The renamed feed keeps its articles.
    let entries = try object(await api.handle(ServedTestLibrary.request("GET", "/v1/feeds/\(alphaID)/entries")))
    #expect((entries["entries"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Alpha post"])
    // A new feed under the old name is another feed: another id.
    try await fixture.file.subscribe([NewsSource(name: "Alpha", url: alphaURL)])
    let again = try array(await api.handle(ServedTestLibrary.request("GET", "/v1/feeds")))
    let ids = again.compactMap { ($0["id"] as? NSNumber)?.int64Value }
    #expect(ids.count == 3 && Set(ids).count == 3, "\(again)")
    #expect(again.first { $0["title"] as? String == "Alpha Renamed" }?["id"] as? NSNumber == NSNumber(value: alphaID))
  }

  @Test("Miniflux PUT /v1/feeds/{id} with the feed_url it served (password shown as ***): the password is kept")
  func minifluxUpdateKeepsPassword() async throws {
    let secret = try #require(URL(string: "https://ann:s3cret@alpha.example.org/feed.xml"))
    let fixture = try Fixture(configured: secret)
    let api = MinifluxAPI(library: fixture.library, user: "reader")
    let alphaID = ServedIdentifiers.feedID(forSourceNamed: "Alpha")
    let listed = try array(await api.handle(ServedTestLibrary.request("GET", "/v1/feeds")))
    let served = try #require(listed.first?["feed_url"] as? String)
    #expect(served == "https://ann:***@alpha.example.org/feed.xml")
    // A client's feed editor sends every field back, the feed_url as it was served.
    let updated = await api.handle(
      ServedTestLibrary.request(
        "PUT", "/v1/feeds/\(alphaID)", json: #"{"title":"Alpha Renamed","feed_url":"\#(served)"}"#))
    #expect(updated.status == 201, "\(text(updated))")
    let entry = try #require(try await fixture.file.source(named: "Alpha Renamed"))
    #expect(entry.url == secret, "\(entry.url)")
    #expect(try fixture.fileText().contains("ann:s3cret@"))
  }

  @Test("Miniflux POST /v1/categories: an empty folder is kept in news.json (\"folders\"), read after a restart")
  func minifluxEmptyCategoryInTheFile() async throws {
    let fixture = try Fixture(configured: try #require(URL(string: "https://alpha.example.org/feed.xml")))
    let api = MinifluxAPI(library: fixture.library, user: "reader")
    let made = await api.handle(
      ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":"Later / Podcasts"}"#))
    #expect(made.status == 201, "\(text(made))")
    let written = try fixture.fileText()
    #expect(written.contains(#""folders": ["Later/Podcasts"]"#), "\(written)")
    // The rest of the file is as it was, and the CLI's reader accepts it.
    #expect(try fixture.fileText().hasPrefix(#"{"sources": {"Alpha": {"feed": "https://alpha.example.org/feed.xml"}}"#))
    // A new server over the same file (a restart) serves it.
    let file = fixture.file
    let restarted = MinifluxAPI(
      library: ServedLibrary(
        repository: fixture.library.repository, sources: { try await file.sources() }, subscriptions: file),
      user: "reader")
    let categories = try array(await restarted.handle(ServedTestLibrary.request("GET", "/v1/categories")))
    #expect(categories.map { $0["title"] as? String } == ["All", "Later / Podcasts"])
    let id = ServedIdentifiers.categoryID(forFolder: ["Later", "Podcasts"])
    #expect(await restarted.handle(ServedTestLibrary.request("DELETE", "/v1/categories/\(id)")).status == 204)
    #expect(try await file.keptFolders().isEmpty)
    #expect(try await file.sources().map(\.name) == ["Alpha"])
  }
}
