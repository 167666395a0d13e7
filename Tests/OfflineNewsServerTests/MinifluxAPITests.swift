import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The Miniflux API v1 in process: request → handler → JSON, as the Miniflux API documents its answers
/// (<https://miniflux.app/docs/api.html>) and as newsboat's `urls-source "miniflux"` reads them.
@Suite("Miniflux API v1")
struct MinifluxAPITests {
  static func api(_ served: ServedTestLibrary) -> MinifluxAPI { MinifluxAPI(library: served.library, user: "reader") }

  static func get(_ served: ServedTestLibrary, _ target: String) async -> ServerResponse {
    await api(served).handle(ServedTestLibrary.request("GET", target))
  }

  static func titles(_ response: ServerResponse) throws -> [String] {
    let entries = try #require(try object(response)["entries"] as? [[String: Any]])
    return entries.compactMap { $0["title"] as? String }
  }

  static func feedID(_ name: String) -> Int64 { ServedIdentifiers.feedID(forSourceNamed: name) }

  @Test("an entry's created_at is when the store first saved it, published_at its date")
  func createdAtIsArrival() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let gamma = try #require(served.configured.first { $0.name == "Gamma" })
    let published = ServedTestLibrary.start.addingTimeInterval(-30 * 86_400)
    let arrival = Timestamp(ServedTestLibrary.start.addingTimeInterval(2 * 86_400))
    let late = Article(
      key: ServedTestLibrary.articleURL("Gamma", 9), link: ServedTestLibrary.articleURL("Gamma", 9),
      title: "Gamma late", publishedAt: published)
    try await served.storage.saveArticles(
      [late], forQuery: gamma.query.cacheKey, source: gamma.query.source ?? gamma.query.cacheKey, fetchedAt: arrival)
    let id = ServedIdentifiers.entryID(forKey: late.url.absoluteString)
    let entry = try object(await Self.get(served, "/v1/entries/\(id)"))
    #expect(entry["created_at"] as? String == MinifluxJSON.date(arrival.date))
    #expect(entry["published_at"] as? String == MinifluxJSON.date(published))
  }

  @Test("/v1/me, /v1/feeds and /v1/categories: sources with their folders as categories, “All” at the top")
  func feedsAndCategories() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let me = try object(await Self.get(served, "/v1/me"))
    #expect(me["username"] as? String == "reader")
    let feeds = try array(await Self.get(served, "/v1/feeds"))
    #expect(feeds.map { $0["title"] as? String } == ["Alpha", "Beta", "Gamma"])
    #expect(
      feeds.map { $0["feed_url"] as? String }
        == ["alpha", "beta", "gamma"].map { ServedTestLibrary.feedURL($0).absoluteString })
    #expect(feeds.map { ($0["id"] as? NSNumber)?.int64Value } == ["Alpha", "Beta", "Gamma"].map(Self.feedID))
    let categoryTitles = feeds.map { ($0["category"] as? [String: Any])?["title"] as? String }
    #expect(categoryTitles == ["Tech", "Tech / Swift", "All"])
    let categories = try array(await Self.get(served, "/v1/categories?counts=true"))
    #expect(categories.map { $0["title"] as? String } == ["All", "Tech", "Tech / Swift"])
    #expect(
      categories.map { ($0["id"] as? NSNumber)?.int64Value }
        == [[], ["Tech"], ["Tech", "Swift"]].map(ServedIdentifiers.categoryID(forFolder:)))
    #expect(categories.map { $0["total_unread"] as? Int } == [2, 4, 3])
    let tech = ServedIdentifiers.categoryID(forFolder: ["Tech"])
    let inTech = try array(await Self.get(served, "/v1/categories/\(tech)/feeds"))
    #expect(inTech.map { $0["title"] as? String } == ["Alpha"], "a nested folder is a category of its own")
    let one = try object(await Self.get(served, "/v1/feeds/\(Self.feedID("Gamma"))"))
    #expect(one["site_url"] as? String == ServedTestLibrary.feedURL("gamma").absoluteString)
    let missing = await Self.get(served, "/v1/feeds/12345")
    #expect(missing.status == 404)
    #expect(try object(missing)["error_message"] as? String == "Feed not found")
    #expect(await Self.get(served, "/v1/feeds/\(Self.feedID("Gamma"))/icon").status == 404)
  }

  @Test("a feed's entries as newsboat asks for them: newest first, with the entry's fields and its feed")
  func feedEntries() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let alpha = Self.feedID("Alpha")
    let response = await Self.get(served, "/v1/feeds/\(alpha)/entries?order=published_at&direction=desc&limit=3")
    #expect(response.status == 200)
    #expect(response.header("content-type") == "application/json")
    let document = try object(response)
    #expect(document["total"] as? Int == 4)
    let entries = try #require(document["entries"] as? [[String: Any]])
    #expect(entries.map { $0["title"] as? String } == ["Alpha 4", "Alpha 3", "Alpha 2"])
    let first = try #require(entries.first)
    let key = ServedTestLibrary.articleURL("Alpha", 4).absoluteString
    #expect((first["id"] as? NSNumber)?.int64Value == ServedIdentifiers.entryID(forKey: key))
    #expect((first["feed_id"] as? NSNumber)?.int64Value == alpha)
    #expect(first["status"] as? String == "unread")
    #expect(first["url"] as? String == key)
    #expect(first["published_at"] as? String == "2024-01-01T04:00:00Z")
    #expect(first["content"] as? String == "<p>Content of Alpha 4</p>")
    #expect(first["author"] as? String == "Author 4")
    #expect(first["starred"] as? Bool == false)
    #expect(first["enclosures"] as? [Any] != nil)
    let feed = try #require(first["feed"] as? [String: Any])
    #expect(feed["title"] as? String == "Alpha")
    #expect((feed["category"] as? [String: Any])?["title"] as? String == "Tech")
  }

  @Test("/v1/entries filters by status, starred, dates, entry ids, feed, category and search; pages and orders")
  func entriesFilters() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let repository = served.repository
    try await repository.markRead(url: ServedTestLibrary.articleURL("Alpha", 4).absoluteString)
    try await repository.bookmark(url: ServedTestLibrary.articleURL("Beta", 1).absoluteString)
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?limit=3&direction=desc")) == ["Alpha 4", "Beta 3", "Alpha 3"])
    #expect(try object(await Self.get(served, "/v1/entries?limit=3&direction=desc"))["total"] as? Int == 9)
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?limit=2&offset=3&direction=desc")) == ["Gamma 2", "Beta 2"])
    #expect(try Self.titles(await Self.get(served, "/v1/entries?status=read&direction=desc")) == ["Alpha 4"])
    let unread = try object(await Self.get(served, "/v1/entries?status=unread&limit=1"))
    #expect(unread["total"] as? Int == 8)
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?status=read&status=unread&limit=1&direction=desc")) == [
        "Alpha 4"
      ])
    #expect(try Self.titles(await Self.get(served, "/v1/entries?starred=true")) == ["Beta 1"])
    // starred=false (any of Go's spellings of a bool, as Miniflux parses it): the entries not starred; a value that
    // is no bool sets no condition.
    #expect(try object(await Self.get(served, "/v1/entries?starred=false"))["total"] as? Int == 8)
    #expect(!(try Self.titles(await Self.get(served, "/v1/entries?starred=0&limit=100")).contains("Beta 1")))
    #expect(try object(await Self.get(served, "/v1/entries?starred=maybe"))["total"] as? Int == 9)
    #expect(try Self.titles(await Self.get(served, "/v1/entries?starred=T")) == ["Beta 1"])
    // No direction: ascending, as Miniflux's default (`DefaultSortingDirection`), oldest first.
    #expect(try Self.titles(await Self.get(served, "/v1/entries?limit=3")) == ["Alpha 1", "Beta 1", "Gamma 1"])
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?direction=asc&limit=3")) == ["Alpha 1", "Beta 1", "Gamma 1"])
    // after/before are Unix seconds, exclusive: 02:00 is "Alpha 2" exactly.
    let twoHours = Int(ServedTestLibrary.start.timeIntervalSince1970) + 7200
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?after=\(twoHours)&before=\(twoHours + 3600)&direction=desc"))
        == ["Gamma 2", "Beta 2"])
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?feed_id=\(Self.feedID("Gamma"))&direction=desc")) == [
        "Gamma 2", "Gamma 1",
      ])
    let swift = ServedIdentifiers.categoryID(forFolder: ["Tech", "Swift"])
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?category_id=\(swift)&direction=desc")) == [
        "Beta 3", "Beta 2", "Beta 1",
      ])
    #expect(
      try Self.titles(await Self.get(served, "/v1/categories/\(swift)/entries?direction=asc"))
        == ["Beta 1", "Beta 2", "Beta 3"])
    #expect(
      try Self.titles(await Self.get(served, "/v1/entries?search=owls&feed_id=\(Self.feedID("Gamma"))")).sorted() == [
        "Gamma 1", "Gamma 2",
      ])
    // order=id: by the entry ids, whatever the dates.
    let byID = try #require(
      try object(await Self.get(served, "/v1/entries?order=id&direction=asc"))["entries"] as? [[String: Any]])
    let ids = byID.compactMap { ($0["id"] as? NSNumber)?.int64Value }
    #expect(ids.count == 9 && ids == ids.sorted())
    let middle = ids[4]
    let above = try #require(
      try object(await Self.get(served, "/v1/entries?after_entry_id=\(middle)&order=id&direction=asc"))["entries"]
        as? [[String: Any]])
    #expect(above.compactMap { ($0["id"] as? NSNumber)?.int64Value } == Array(ids[5...]))
    let below = try #require(
      try object(await Self.get(served, "/v1/entries?before_entry_id=\(middle)&order=id&direction=desc"))["entries"]
        as? [[String: Any]])
    #expect(below.compactMap { ($0["id"] as? NSNumber)?.int64Value } == Array(ids[..<4].reversed()))
    // order=status: unread first when ascending.
    #expect(try Self.titles(await Self.get(served, "/v1/entries?order=status&direction=desc&limit=1")) == ["Alpha 4"])
    // order=category_title: All (Gamma), Tech (Alpha), Tech / Swift (Beta).
    let byCategory = try Self.titles(await Self.get(served, "/v1/entries?order=category_title&direction=asc"))
    #expect(
      byCategory.map { $0.split(separator: " ")[0] } == [
        "Gamma", "Gamma", "Alpha", "Alpha", "Alpha", "Alpha", "Beta", "Beta", "Beta",
      ])
  }

  @Test(
    "invalid parameters are 400 with Miniflux's error_message naming them",
    arguments: [
      ("limit=5000", "limit"), ("limit=x", "limit"), ("offset=-1", "offset"), ("order=title", "order"),
      ("direction=up", "direction"), ("status=new", "status"), ("after=yesterday", "after"),
      ("category_id=abc", "category_id"), ("after_entry_id=1.5", "after_entry_id"),
    ])
  func invalid(_ query: String, _ name: String) async throws {
    let served = try await ServedTestLibrary.synthetic()
    let response = await Self.get(served, "/v1/entries?" + query)
    #expect(response.status == 400)
    let message = try #require(try object(response)["error_message"] as? String)
    #expect(message.contains(name), "\(message)")
  }

  @Test("PUT /v1/entries sets the status (also from ids a 32-bit client truncated); bookmark toggles; mark-all-as-read")
  func changes() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let api = Self.api(served)
    let alpha1 = ServedIdentifiers.entryID(forKey: ServedTestLibrary.articleURL("Alpha", 1).absoluteString)
    let beta2 = ServedIdentifiers.entryID(forKey: ServedTestLibrary.articleURL("Beta", 2).absoluteString)
    let truncated = Int64(Int32(truncatingIfNeeded: beta2))
    let put = await api.handle(
      ServedTestLibrary.request(
        "PUT", "/v1/entries", json: #"{"entry_ids":[\#(alpha1),\#(truncated)],"status":"read"}"#))
    #expect(put.status == 204)
    #expect(try await served.article(titled: "Alpha 1").isRead)
    #expect(try await served.article(titled: "Beta 2").isRead, "newsboat keeps ids in an int: \(truncated)")
    #expect(try await served.article(titled: "Alpha 2").isRead == false)
    let back = await api.handle(
      ServedTestLibrary.request("PUT", "/v1/entries", json: #"{"entry_ids":[\#(alpha1)],"status":"unread"}"#))
    #expect(back.status == 204)
    #expect(try await served.article(titled: "Alpha 1").isRead == false)
    let bad = await api.handle(
      ServedTestLibrary.request("PUT", "/v1/entries", json: #"{"entry_ids":[1],"status":"gone"}"#))
    #expect(bad.status == 400)
    #expect(await api.handle(ServedTestLibrary.request("PUT", "/v1/entries", json: "not json")).status == 400)

    #expect(await api.handle(ServedTestLibrary.request("PUT", "/v1/entries/\(alpha1)/bookmark")).status == 204)
    #expect(try await served.article(titled: "Alpha 1").isBookmarked)
    let entry = try object(await Self.get(served, "/v1/entries/\(alpha1)"))
    #expect(entry["starred"] as? Bool == true)
    #expect(await api.handle(ServedTestLibrary.request("PUT", "/v1/entries/\(alpha1)/bookmark")).status == 204)
    #expect(try await served.article(titled: "Alpha 1").isBookmarked == false)
    #expect(await Self.get(served, "/v1/entries/4503599627370495").status == 404)

    let gamma = Self.feedID("Gamma")
    #expect(await api.handle(ServedTestLibrary.request("PUT", "/v1/feeds/\(gamma)/mark-all-as-read")).status == 204)
    #expect(try await served.article(titled: "Gamma 2").isRead)
    let swift = ServedIdentifiers.categoryID(forFolder: ["Tech", "Swift"])
    #expect(
      await api.handle(ServedTestLibrary.request("PUT", "/v1/categories/\(swift)/mark-all-as-read")).status == 204)
    #expect(try await served.article(titled: "Beta 3").isRead)
    #expect(try await served.article(titled: "Alpha 3").isRead == false)
    let counters = try object(await Self.get(served, "/v1/feeds/counters"))
    let unreads = try #require(counters["unreads"] as? [String: Int])
    let reads = try #require(counters["reads"] as? [String: Int])
    #expect(unreads == [String(Self.feedID("Alpha")): 4, String(Self.feedID("Beta")): 0, String(gamma): 0])
    #expect(reads == [String(Self.feedID("Alpha")): 0, String(Self.feedID("Beta")): 3, String(gamma): 2])
  }

  @Test("POST /v1/feeds subscribes in the category's folder (409 when subscribed already); DELETE unsubscribes")
  func subscriptions() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let api = Self.api(served)
    let tech = ServedIdentifiers.categoryID(forFolder: ["Tech"])
    let created = await api.handle(
      ServedTestLibrary.request(
        "POST", "/v1/feeds", json: #"{"feed_url":"https://new.example.net/rss","category_id":\#(tech)}"#))
    #expect(created.status == 201)
    let id = try #require((try object(created)["feed_id"] as? NSNumber)?.int64Value)
    #expect(id == Self.feedID("new.example.net"))
    let subscribed = try await served.repository.subscriptions()
    #expect(subscribed.map(\.name) == ["new.example.net"])
    #expect(subscribed.first?.folder == ["Tech"])
    let again = await api.handle(
      ServedTestLibrary.request("POST", "/v1/feeds", json: #"{"feed_url":"https://new.example.net/rss"}"#))
    #expect(again.status == 409)
    #expect(
      await api.handle(ServedTestLibrary.request("POST", "/v1/feeds", json: #"{"feed_url":"ftp://x"}"#)).status == 400)
    #expect(await api.handle(ServedTestLibrary.request("DELETE", "/v1/feeds/\(id)")).status == 204)
    #expect(try await served.repository.subscriptions().isEmpty)
    let configured = await api.handle(ServedTestLibrary.request("DELETE", "/v1/feeds/\(Self.feedID("Alpha"))"))
    #expect(configured.status == 400, "a source of the configuration is not the store's to remove")
  }

  @Test("GET /v1/version answers this program's version in Miniflux's shape")
  func version() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let api = MinifluxAPI(library: served.library, user: "reader", version: "0.1.0", commit: "abc1234")
    let answer = await api.handle(ServedTestLibrary.request("GET", "/v1/version"))
    #expect(answer.status == 200)
    let document = try object(answer)
    #expect(Set(document.keys) == ["version", "commit", "build_date", "go_version", "compiler", "arch", "os"])
    #expect(document["version"] as? String == "0.1.0")
    #expect(document["commit"] as? String == "abc1234")
    #if os(Linux)
      #expect(document["os"] as? String == "linux")
    #endif
  }

  @Test("POST /v1/import subscribes an OPML list's feeds in their folders; GET /v1/export writes them back")
  func importAndExport() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let api = Self.api(served)
    let opml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <opml version="2.0"><head><title>Mine</title></head><body>
        <outline text="Owls" title="Owls" type="rss" xmlUrl="https://owls.example.net/feed" htmlUrl="https://owls.example.net/"/>
        <outline text="Work"><outline text="Swift Blog" type="rss" xmlUrl="https://swift.example.net/atom.xml"/></outline>
      </body></opml>
      """
    var request = ServedTestLibrary.request("POST", "/v1/import")
    request.body = Data(opml.utf8)
    let imported = await api.handle(request)
    #expect(imported.status == 201)
    #expect(try object(imported)["message"] as? String == "Feeds imported successfully")
    let subscribed = try await served.repository.subscriptions()
    #expect(subscribed.map(\.name).sorted() == ["Owls", "Swift Blog"])
    #expect(subscribed.first { $0.name == "Swift Blog" }?.folder == ["Work"])
    let feeds = try array(await Self.get(served, "/v1/feeds"))
    #expect(feeds.contains { $0["feed_url"] as? String == "https://owls.example.net/feed" })
    // The same list again adds nothing.
    #expect(await api.handle(request).status == 201)
    #expect(try await served.repository.subscriptions().count == 2)

    let exported = await Self.get(served, "/v1/export")
    #expect(exported.status == 200)
    #expect(exported.header("Content-Type")?.hasPrefix("text/xml") == true)
    // Every subscription served: the configuration's (here the test's three) and the store's, with their folders.
    let outlines = try OutlineURLs(exported.data ?? Data())
    #expect(
      Set(outlines.feeds)
        == Set(
          ["https://owls.example.net/feed", "https://swift.example.net/atom.xml"]
            + ["alpha", "beta", "gamma"].map { ServedTestLibrary.feedURL($0).absoluteString }))
    #expect(outlines.feeds.count == 5)
    #expect(Set(outlines.folders) == ["Work", "Tech", "Swift"])

    var notOPML = ServedTestLibrary.request("POST", "/v1/import")
    notOPML.body = Data("<rss version=\"2.0\"><channel/></rss>".utf8)
    let refused = await api.handle(notOPML)
    #expect(refused.status == 400)
    #expect((try object(refused)["error_message"] as? String)?.hasPrefix("Invalid OPML: ") == true)
    notOPML.body = Data("not xml at all".utf8)
    #expect(await api.handle(notOPML).status == 400)
    #expect(try await served.repository.subscriptions().count == 2, "a refused list subscribes nothing")
  }

  @Test("a Miniflux export imported (its feeds of no category in an outline \"All\") makes no second \"All\"")
  func importMinifluxExport() async throws {
    let served = try await ServedTestLibrary.synthetic()
    // As Miniflux 2 writes `GET /v1/export`: one outline per category, "All" included.
    let opml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <opml version="2.0"><head><title>Miniflux</title></head><body>
        <outline text="All"><outline title="Owls" text="Owls" xmlUrl="https://owls.example.net/feed" type="rss"/></outline>
        <outline text="Work"><outline title="Swift" text="Swift" xmlUrl="https://swift.example.net/atom.xml" type="rss"/></outline>
      </body></opml>
      """
    var request = ServedTestLibrary.request("POST", "/v1/import")
    request.body = Data(opml.utf8)
    #expect(await Self.api(served).handle(request).status == 201)
    let categories = try array(await Self.get(served, "/v1/categories"))
    #expect(categories.map { $0["title"] as? String } == ["All", "Tech", "Tech / Swift", "Work"])
    let owls = try #require(try array(await Self.get(served, "/v1/feeds")).first { $0["title"] as? String == "Owls" })
    #expect(
      ((owls["category"] as? [String: Any])?["id"] as? NSNumber)?.int64Value
        == ServedIdentifiers.categoryID(forFolder: []))
  }

  @Test(
    "POST /v1/import of a real NetNewsWire export: every feed subscribed", .enabled(if: Fixtures.hasSharedReal))
  func importRealOPML() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let data = try Data(contentsOf: try Fixtures.sharedReal("feeds/Subs.opml"))
    var request = ServedTestLibrary.request("POST", "/v1/import")
    request.body = data
    #expect(await Self.api(served).handle(request).status == 201)
    let expected = try OutlineURLs(data).feeds
    #expect(!expected.isEmpty)
    let exported = try OutlineURLs(await Self.get(served, "/v1/export").data ?? Data())
    // Equivalent URLs (`http://feed.katiefloyd.com` and `…com/`, both in the list) are one subscription; the
    // configuration's three are exported beside them.
    let key = { (text: String) in URL(string: text).map(NewsSource.subscriptionKey(for:)) ?? text }
    let configured = served.configured.map { NewsSource.subscriptionKey(for: $0.url) }
    #expect(Set(exported.feeds.map(key)) == Set(expected.map(key) + configured))
    #expect(exported.feeds.count == Set(expected.map(key)).count + configured.count)
  }

  @Test("POST /v1/categories makes a folder (409 when it exists) the list keeps, empty, until DELETE")
  func createCategory() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let api = Self.api(served)
    let made = await api.handle(ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":"Later"}"#))
    #expect(made.status == 201)
    let category = try object(made)
    #expect(category["title"] as? String == "Later")
    let id = try #require((category["id"] as? NSNumber)?.int64Value)
    #expect(id == ServedIdentifiers.categoryID(forFolder: ["Later"]))
    let listed = try array(await Self.get(served, "/v1/categories"))
    #expect(listed.map { $0["title"] as? String } == ["All", "Later", "Tech", "Tech / Swift"])
    for title in ["Later", "later", "Tech / Swift", "All"] {
      let again = await api.handle(
        ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":"\#(title)"}"#))
      #expect(again.status == 409, "\(title)")
    }
    #expect(
      await api.handle(ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":" / "}"#)).status == 400)
    #expect(await api.handle(ServedTestLibrary.request("POST", "/v1/categories", json: "[]")).status == 400)
    let filed = await api.handle(
      ServedTestLibrary.request(
        "POST", "/v1/feeds", json: #"{"feed_url":"https://new.example.net/rss","category_id":\#(id)}"#))
    #expect(filed.status == 201)
    #expect(try await served.repository.subscriptions().first?.folder == ["Later"])

    // Kept by the list (here the store's), not by the server: a new server over the same store has it, empty.
    let empty = await api.handle(ServedTestLibrary.request("POST", "/v1/categories", json: #"{"title":"Empty"}"#))
    #expect(empty.status == 201)
    let restarted = MinifluxAPI(
      library: ServedLibrary(repository: served.repository, sources: served.library.sources), user: "reader")
    let afterRestart = try array(await restarted.handle(ServedTestLibrary.request("GET", "/v1/categories")))
    #expect(afterRestart.map { $0["title"] as? String } == ["All", "Empty", "Later", "Tech", "Tech / Swift"])
    #expect(try await served.repository.storedSubscriptions.keptFolders() == [["Later"], ["Empty"]])
    // DELETE: the folder is no longer kept; the feed filed in "Later" moves to the top level, still subscribed.
    let emptyID = ServedIdentifiers.categoryID(forFolder: ["Empty"])
    #expect(await restarted.handle(ServedTestLibrary.request("DELETE", "/v1/categories/\(emptyID)")).status == 204)
    #expect(await restarted.handle(ServedTestLibrary.request("DELETE", "/v1/categories/\(id)")).status == 204)
    #expect(try await served.repository.subscriptions().map(\.folder) == [[]])
    let remaining = try array(await restarted.handle(ServedTestLibrary.request("GET", "/v1/categories")))
    #expect(remaining.map { $0["title"] as? String } == ["All", "Tech", "Tech / Swift"])
    let all = ServedIdentifiers.categoryID(forFolder: [])
    #expect(await restarted.handle(ServedTestLibrary.request("DELETE", "/v1/categories/\(all)")).status == 400)
    #expect(await restarted.handle(ServedTestLibrary.request("DELETE", "/v1/categories/12345")).status == 404)
  }

  @Test("an entry's content is the stored full text when there is one")
  func fullText() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let key = ServedTestLibrary.articleURL("Gamma", 1).absoluteString
    try await served.storage.saveFullText(
      FullText(html: "<article><p>The whole text</p></article>", text: "The whole text"), forKey: key, at: .now())
    let entry = try object(await Self.get(served, "/v1/entries/\(ServedIdentifiers.entryID(forKey: key))"))
    #expect(entry["content"] as? String == "<article><p>The whole text</p></article>")
  }

  @Test(
    "real feeds: every article of every source is served under its feed, with its title, link and date",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realFeeds() async throws {
    let served = try await ServedTestLibrary.realFeeds(ServedTestLibrary.realFeedNames)
    let feeds = try array(await Self.get(served, "/v1/feeds"))
    #expect(feeds.count == ServedTestLibrary.realFeedNames.count)
    for source in served.configured {
      let id = Self.feedID(source.name)
      let stored = try await served.repository.read(filter: ArticleFilter(source: source.name))
      let document = try object(await Self.get(served, "/v1/feeds/\(id)/entries?limit=1000&direction=desc"))
      let entries = try #require(document["entries"] as? [[String: Any]])
      #expect(document["total"] as? Int == stored.count, "\(source.name)")
      #expect(entries.map { $0["title"] as? String } == stored.map(\.title), "\(source.name)")
      #expect(entries.map { $0["url"] as? String } == stored.map { ($0.displayURL ?? $0.url).absoluteString })
      #expect(entries.map { $0["published_at"] as? String } == stored.map { ServedDates.rfc3339($0.publishedAt) })
      #expect(entries.allSatisfy { ($0["feed_id"] as? NSNumber)?.int64Value == id })
    }
  }
}

/// The `xmlUrl`s of an OPML document's outlines, in order, and the titles of the outlines that hold others: read
/// back with Foundation's XMLParser.
final class OutlineURLs: NSObject, XMLParserDelegate {
  var feeds: [String] = []
  var folders: [String] = []
  private var open: [(text: String, isFolder: Bool)] = []

  struct Malformed: Error {}

  init(_ data: Data) throws {
    super.init()
    let parser = XMLParser(data: data)
    parser.delegate = self
    guard parser.parse() else { throw Malformed() }
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    guard name == "outline" else { return }
    if let url = attributes["xmlUrl"] { feeds.append(url) }
    if !open.isEmpty, !open[open.count - 1].isFolder {
      open[open.count - 1].isFolder = true
      folders.append(open[open.count - 1].text)
    }
    open.append((attributes["text"] ?? attributes["title"] ?? "", false))
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    if name == "outline" { open.removeLast() }
  }
}
