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

/// The Google Reader API in process, as FreshRSS documents its answers
/// (<https://freshrss.github.io/FreshRSS/en/developers/06_GoogleReader_API.html>) and as newsboat's
/// `urls-source "feedhq"` reads them (`subscription/list`, the Atom streams, `edit-tag`, `mark-all-as-read`).
@Suite("Google Reader API")
struct ReaderAPITests {
  static func api(_ served: ServedTestLibrary) -> ReaderAPI { ReaderAPI(library: served.library, user: "reader") }

  static func get(_ served: ServedTestLibrary, _ call: String) async -> ServerResponse {
    await api(served).handle(ServedTestLibrary.request("GET", "/reader/api/0/" + call))
  }

  static func post(_ served: ServedTestLibrary, _ call: String, _ form: String) async -> ServerResponse {
    await api(served).handle(ServedTestLibrary.request("POST", "/reader/api/0/" + call, form: form))
  }

  static func items(_ response: ServerResponse) throws -> [[String: Any]] {
    try #require(try object(response)["items"] as? [[String: Any]])
  }

  static func titles(_ response: ServerResponse) throws -> [String] {
    try items(response).compactMap { $0["title"] as? String }
  }

  static let alphaStream = "feed/" + ServedTestLibrary.feedURL("alpha").absoluteString

  @Test("user-info, subscription/list, tag/list and unread-count")
  func lists() async throws {
    let served = try await ServedTestLibrary.synthetic()
    #expect(try object(await Self.get(served, "user-info"))["userName"] as? String == "reader")
    let subscriptions = try #require(
      try object(await Self.get(served, "subscription/list?output=json"))["subscriptions"] as? [[String: Any]])
    #expect(
      subscriptions.map { $0["id"] as? String }
        == ["alpha", "beta", "gamma"].map { "feed/" + ServedTestLibrary.feedURL($0).absoluteString })
    #expect(subscriptions.map { $0["title"] as? String } == ["Alpha", "Beta", "Gamma"])
    let labels = subscriptions.map { ($0["categories"] as? [[String: Any]])?.compactMap { $0["id"] as? String } }
    #expect(labels == [["user/-/label/Tech"], ["user/-/label/Tech/Swift"], []])
    let tags = try #require(try object(await Self.get(served, "tag/list?output=json"))["tags"] as? [[String: Any]])
    #expect(
      tags.map { $0["id"] as? String } == [ReaderStream.starredID, "user/-/label/Tech", "user/-/label/Tech/Swift"])
    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Beta", 1).absoluteString)
    let counts = try #require(
      try object(await Self.get(served, "unread-count?output=json"))["unreadcounts"] as? [[String: Any]])
    var byID: [String: Int] = [:]
    for count in counts { byID[count["id"] as? String ?? ""] = count["count"] as? Int }
    #expect(byID[Self.alphaStream] == 4)
    #expect(byID["user/-/label/Tech/Swift"] == 2)
    #expect(byID[ReaderStream.readingListID] == 8)
  }

  @Test("stream/contents pages the reading list with a continuation; filters by feed, label, state and dates")
  func streams() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let first = await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=4")
    #expect(try Self.titles(first) == ["Alpha 4", "Beta 3", "Alpha 3", "Gamma 2"])
    let continuation = try #require(try object(first)["continuation"] as? String)
    let second = await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=4&c=\(continuation)")
    #expect(try Self.titles(second) == ["Beta 2", "Alpha 2", "Gamma 1", "Beta 1"])
    let next = try #require(try object(second)["continuation"] as? String)
    let last = try object(
      await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=4&c=\(next)"))
    #expect(last["continuation"] == nil)
    #expect((last["items"] as? [Any])?.count == 1)

    let item = try #require(try Self.items(first).first)
    let key = ServedTestLibrary.articleURL("Alpha", 4).absoluteString
    #expect(item["id"] as? String == ServedIdentifiers.readerItemID(forKey: key))
    #expect(item["published"] as? Int == Int(ServedTestLibrary.start.timeIntervalSince1970) + 4 * 3600)
    #expect(
      item["timestampUsec"] as? String
        == String((Int64(ServedTestLibrary.start.timeIntervalSince1970) + 4 * 3600) * 1_000_000))
    #expect((item["canonical"] as? [[String: Any]])?.first?["href"] as? String == key)
    #expect((item["summary"] as? [String: Any])?["content"] as? String == "<p>Content of Alpha 4</p>")
    #expect(item["categories"] as? [String] == [ReaderStream.readingListID, "user/-/label/Tech"])
    let origin = try #require(item["origin"] as? [String: Any])
    #expect(origin["streamId"] as? String == Self.alphaStream)
    #expect(origin["title"] as? String == "Alpha")

    try await served.repository.markRead(url: key)
    try await served.repository.bookmark(url: ServedTestLibrary.articleURL("Beta", 1).absoluteString)
    let unread = "stream/contents/user/-/state/com.google/reading-list?n=2&xt=user/-/state/com.google/read"
    #expect(try Self.titles(await Self.get(served, unread)) == ["Beta 3", "Alpha 3"])
    #expect(try Self.titles(await Self.get(served, "stream/contents/user/-/state/com.google/read")) == ["Alpha 4"])
    #expect(try Self.titles(await Self.get(served, "stream/contents/user/-/state/com.google/starred")) == ["Beta 1"])
    let starred = try #require(
      try Self.items(await Self.get(served, "stream/contents/user/-/state/com.google/starred")).first)
    #expect((starred["categories"] as? [String])?.contains(ReaderStream.starredID) == true)
    #expect(
      try Self.titles(await Self.get(served, "stream/contents/\(Self.alphaStream)?n=2&r=o")) == ["Alpha 1", "Alpha 2"])
    #expect(
      try Self.titles(await Self.get(served, "stream/contents/user/-/label/Tech/Swift")) == [
        "Beta 3", "Beta 2", "Beta 1",
      ])
    #expect(try Self.titles(await Self.get(served, "stream/contents?s=user/-/label/Tech&n=1")) == ["Alpha 4"])
    let two = Int(ServedTestLibrary.start.timeIntervalSince1970) + 7200
    #expect(
      try Self.titles(
        await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?ot=\(two)&nt=\(two + 3600)"))
        == ["Gamma 2", "Beta 2", "Alpha 2"])
    #expect(await Self.get(served, "stream/contents/feed/https://unknown.example/").status == 404)
    #expect(await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=zero").status == 400)
  }

  @Test("ot, nt, crawlTimeMsec and mark-all-as-read's ts are about arrival: an old-dated article arriving late is seen")
  func arrivalNotPublication() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let gamma = try #require(served.configured.first { $0.name == "Gamma" })
    // The client's last sync, a day after every synthetic article arrived; then Gamma's feed gains an item dated a
    // month before (a backdated post, a feed added late to a planet), which the store first saves an hour later.
    let lastSync = ServedTestLibrary.start.addingTimeInterval(86_400)
    let published = ServedTestLibrary.start.addingTimeInterval(-30 * 86_400)
    let arrival = Timestamp(lastSync.addingTimeInterval(3600))
    let late = Article(
      key: ServedTestLibrary.articleURL("Gamma", 9), link: ServedTestLibrary.articleURL("Gamma", 9),
      title: "Gamma late", publishedAt: published)
    let listed = try await served.repository.read().filter { $0.url.host == "gamma.example.org" } + [late]
    try await served.storage.saveArticles(
      listed, forQuery: gamma.query.cacheKey, source: gamma.query.source ?? gamma.query.cacheKey, fetchedAt: arrival)

    let since = Int(lastSync.timeIntervalSince1970)
    let incremental = await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?ot=\(since)")
    #expect(try Self.titles(incremental) == ["Gamma late"])
    let item = try #require(try Self.items(incremental).first)
    #expect(item["crawlTimeMsec"] as? String == String(arrival.millisecondsSince1970))
    #expect(item["timestampUsec"] as? String == String(arrival.millisecondsSince1970 * 1000))
    #expect(item["published"] as? Int == Int(published.timeIntervalSince1970))
    let refs = try #require(
      try object(await Self.get(served, "stream/items/ids?s=\(ReaderStream.readingListID)&ot=\(since)"))["itemRefs"]
        as? [[String: Any]])
    #expect(refs.map { $0["timestampUsec"] as? String } == [String(arrival.millisecondsSince1970 * 1000)])
    // The newest arrival comes first in the reading list, though it is the oldest by date.
    #expect(
      try Self.titles(await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=2")) == [
        "Gamma late", "Alpha 4",
      ])
    // nt: what arrived before the last sync, which it is not.
    let earlier = try Self.titles(
      await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=100&nt=\(since)"))
    #expect(earlier.count == 9 && !earlier.contains("Gamma late"))

    // The feed edits the item the next day: it is rewritten, and its arrival stays (a client synced since does not
    // see it again as new).
    var edited = late
    edited.title = "Gamma late, edited"
    let nextDay = arrival.date.addingTimeInterval(86_400)
    try await served.storage.saveArticles(
      listed.dropLast() + [edited], forQuery: gamma.query.cacheKey, source: gamma.query.source ?? gamma.query.cacheKey,
      fetchedAt: Timestamp(nextDay))
    let afterArrival = Int(arrival.date.timeIntervalSince1970) + 1
    #expect(
      try Self.titles(
        await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?ot=\(afterArrival)")) == [])

    // mark-all-as-read up to the client's newest item before the late one: the late one stays unread.
    let ts = Int64(lastSync.timeIntervalSince1970) * 1_000_000
    #expect(
      text(await Self.post(served, "mark-all-as-read", "s=\(ReaderStream.readingListID)&ts=\(ts)")) == "OK")
    #expect(try await served.article(titled: "Gamma late, edited").isRead == false)
    #expect(try await served.article(titled: "Alpha 4").isRead)
  }

  @Test("a continuation is the last item's place: marking a page read or new articles do not shift the next page")
  func keysetContinuation() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let unread = "stream/contents/user/-/state/com.google/reading-list?xt=user/-/state/com.google/read&n=3"
    let first = await Self.get(served, unread)
    #expect(try Self.titles(first) == ["Alpha 4", "Beta 3", "Alpha 3"])
    let c = try #require(try object(first)["continuation"] as? String)
    // The client marks page 1 read, then asks for page 2: an offset would skip the 3 items after it.
    let ids = try Self.items(first).compactMap { $0["id"] as? String }.map { "i=\($0)" }.joined(separator: "&")
    #expect(text(await Self.post(served, "edit-tag", "\(ids)&a=user/-/state/com.google/read")) == "OK")
    #expect(try Self.titles(await Self.get(served, "\(unread)&c=\(c)")) == ["Gamma 2", "Beta 2", "Alpha 2"])

    // Articles arriving between pages (newer than page 1): page 2 does not repeat page 1's.
    let alpha = try #require(served.configured.first { $0.name == "Alpha" })
    let arrived = (5...7).map { n in
      Article(
        key: ServedTestLibrary.articleURL("Alpha", n), link: nil, title: "Alpha \(n)",
        publishedAt: ServedTestLibrary.start.addingTimeInterval(TimeInterval(n * 3600)))
    }
    let all = "stream/contents/user/-/state/com.google/reading-list?n=3"
    let page1 = await Self.get(served, all)
    try await served.repository.save(arrived, for: alpha.query)
    let after = try #require(try object(page1)["continuation"] as? String)
    #expect(try Self.titles(await Self.get(served, "\(all)&c=\(after)")) == ["Gamma 2", "Beta 2", "Alpha 2"])

    // stream/items/ids continues the same way, oldest first too.
    let idsCall = "stream/items/ids?s=\(Self.alphaStream)&n=2&r=o"
    let refs = try object(await Self.get(served, idsCall))
    let idsNext = try #require(refs["continuation"] as? String)
    let page2 = try #require(
      try object(await Self.get(served, "\(idsCall)&c=\(idsNext)"))["itemRefs"] as? [[String: Any]])
    #expect(
      page2.compactMap { $0["id"] as? String }
        == [3, 4].map {
          String(ServedIdentifiers.readerShortItemID(forKey: ServedTestLibrary.articleURL("Alpha", $0).absoluteString))
        })

    // A continuation this server did not give (an offset, garbled text) is refused, naming it.
    for garbled in ["10", "bm90IGEgcGxhY2U", "%25%25"] {
      let refused = await Self.get(served, "\(all)&c=\(garbled)")
      #expect(refused.status == 400, "c=\(garbled)")
      #expect(text(refused).hasPrefix("c: "), "c=\(garbled)")
    }
  }

  @Test("stream/items/ids gives short ids that stream/items/contents reads back, in every id form")
  func itemIDs() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let ids = try #require(
      try object(await Self.get(served, "stream/items/ids?s=\(Self.alphaStream)&n=3"))["itemRefs"] as? [[String: Any]])
    let short = ids.compactMap { $0["id"] as? String }
    #expect(short.count == 3)
    let keys = [4, 3, 2].map { ServedTestLibrary.articleURL("Alpha", $0).absoluteString }
    #expect(short == keys.map { String(ServedIdentifiers.readerShortItemID(forKey: $0)) })
    let long = ServedIdentifiers.readerItemID(forKey: keys[2])
    let handle = String(
      ServedIdentifiers.readerItemID(forKey: keys[1]).dropFirst(ServedIdentifiers.readerItemPrefix.count))
    let form = "i=\(short[0])&i=\(handle)&i=\(long)&i=bogus"
    let contents = await Self.post(served, "stream/items/contents", form)
    #expect(try Self.titles(contents) == ["Alpha 4", "Alpha 3", "Alpha 2"])
  }

  @Test("edit-tag marks read, unread (kept-unread as newsboat sends it), starred; mark-all-as-read honours ts")
  func changes() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let key = ServedTestLibrary.articleURL("Gamma", 1).absoluteString
    let id = ServedIdentifiers.readerItemID(forKey: key)
    let read = "i=\(id)&a=user/-/state/com.google/read&r=user/-/state/com.google/kept-unread&ac=edit&T=token"
    #expect(text(await Self.post(served, "edit-tag", read)) == "OK")
    #expect(try await served.article(titled: "Gamma 1").isRead)
    let unread = "i=\(id)&r=user/-/state/com.google/read&a=user/-/state/com.google/kept-unread&ac=edit"
    #expect(text(await Self.post(served, "edit-tag", unread)) == "OK")
    #expect(try await served.article(titled: "Gamma 1").isRead == false)
    #expect(text(await Self.post(served, "edit-tag", "i=\(id)&a=user/-/state/com.google/starred")) == "OK")
    #expect(try await served.article(titled: "Gamma 1").isBookmarked)
    #expect(text(await Self.post(served, "edit-tag", "i=\(id)&r=user/-/state/com.google/starred")) == "OK")
    #expect(try await served.article(titled: "Gamma 1").isBookmarked == false)
    #expect(await Self.get(served, "edit-tag?i=\(id)&a=user/-/state/com.google/read").status == 405)

    // ts: microseconds; items that arrived at or before it (here each arrived when it was published).
    let ts = (Int64(ServedTestLibrary.start.timeIntervalSince1970) + 2 * 3600) * 1_000_000
    #expect(text(await Self.post(served, "mark-all-as-read", "s=\(Self.alphaStream)&ts=\(ts)")) == "OK")
    #expect(try await served.article(titled: "Alpha 2").isRead)
    #expect(try await served.article(titled: "Alpha 1").isRead)
    #expect(try await served.article(titled: "Alpha 3").isRead == false)
    #expect(text(await Self.post(served, "mark-all-as-read", "s=user/-/label/Tech/Swift")) == "OK")
    #expect(try await served.article(titled: "Beta 3").isRead)
    #expect(try await served.article(titled: "Gamma 2").isRead == false)
    #expect(await Self.post(served, "mark-all-as-read", "s=feed/nothing").status == 400)
  }

  @Test("subscription/quickadd and subscription/edit subscribe, rename, file under a label, unsubscribe")
  func subscriptions() async throws {
    let served = try await ServedTestLibrary.synthetic()
    let added = try object(await Self.post(served, "subscription/quickadd", "quickadd=https://quick.example.net/feed"))
    #expect(added["numResults"] as? Int == 1)
    #expect(added["streamId"] as? String == "feed/https://quick.example.net/feed")
    #expect(try await served.repository.subscriptions().map(\.name) == ["quick.example.net"])
    let stream = "feed/https://quick.example.net/feed"
    let edit = "ac=edit&s=\(stream)&t=Quick&a=user/-/label/Reading/Later"
    #expect(text(await Self.post(served, "subscription/edit", edit)) == "OK")
    let renamed = try #require(try await served.repository.subscriptions().first)
    #expect(renamed.name == "Quick")
    #expect(renamed.folder == ["Reading", "Later"])
    let remove = "ac=edit&s=\(stream)&r=user/-/label/Reading/Later"
    #expect(text(await Self.post(served, "subscription/edit", remove)) == "OK")
    #expect(try await served.repository.subscriptions().first?.folder == [])
    let subscribe = "ac=subscribe&s=feed/https://other.example.net/atom&t=Other&a=user/-/label/News"
    #expect(text(await Self.post(served, "subscription/edit", subscribe)) == "OK")
    #expect(try await served.repository.subscription(named: "Other")?.folder == ["News"])
    #expect(text(await Self.post(served, "subscription/edit", "ac=unsubscribe&s=\(stream)")) == "OK")
    #expect(try await served.repository.subscriptions().map(\.name) == ["Other"])
    #expect(await Self.post(served, "subscription/edit", "ac=unsubscribe&s=\(Self.alphaStream)").status == 400)
    #expect(await Self.post(served, "subscription/edit", "ac=merge&s=\(stream)").status == 400)
  }

  @Test("the Atom stream newsboat reads: entries with their state as Google Reader's labels")
  func atom() async throws {
    let served = try await ServedTestLibrary.synthetic()
    try await served.repository.markRead(url: ServedTestLibrary.articleURL("Alpha", 4).absoluteString)
    let escaped = Self.alphaStream.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    let request = ServerRequest(method: "GET", target: "/reader/atom/\(escaped)?n=2")
    let response = await Self.api(served).handle(request)
    #expect(response.status == 200)
    #expect(response.header("content-type")?.hasPrefix("application/atom+xml") == true)
    let document = try AtomDocument(text(response))
    #expect(document.title == "Alpha")
    #expect(document.entries.map(\.title) == ["Alpha 4", "Alpha 3"])
    #expect(document.entries.map(\.labels) == [["reading-list", "read"], ["reading-list", "fresh"]])
    #expect(document.entries.first?.published == "2024-01-01T04:00:00Z")
    #expect(
      document.entries.first?.id
        == ServedIdentifiers.readerItemID(forKey: ServedTestLibrary.articleURL("Alpha", 4).absoluteString))
    #expect(document.entries.first?.link == ServedTestLibrary.articleURL("Alpha", 4).absoluteString)
    #expect(document.entries.first?.content == "<p>Content of Alpha 4</p>")
  }

  @Test(
    "real feeds: the reading list holds every article of every source, with its title, link and feed",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realFeeds() async throws {
    let served = try await ServedTestLibrary.realFeeds(ServedTestLibrary.realFeedNames)
    let stored = try await served.repository.read()
    var items: [[String: Any]] = []
    var continuation: String? = ""
    while let next = continuation {
      let page = try object(
        await Self.get(served, "stream/contents/user/-/state/com.google/reading-list?n=50&c=\(next)"))
      items += try #require(page["items"] as? [[String: Any]])
      continuation = page["continuation"] as? String
    }
    // In arrival order (each feed's refresh saved its articles at once), then newest first.
    let facts = try await served.repository.syncFacts(of: stored)
    func arrival(_ article: Article) -> Int64 {
      Timestamp(facts[article.url.absoluteString]?.firstSeen ?? .distantPast).millisecondsSince1970
    }
    let arrived = stored.sorted { a, b in
      if arrival(a) != arrival(b) { return arrival(a) > arrival(b) }
      let (pa, pb) = (Timestamp(a.publishedAt).millisecondsSince1970, Timestamp(b.publishedAt).millisecondsSince1970)
      if pa != pb { return pa > pb }
      return a.url.absoluteString < b.url.absoluteString
    }
    #expect(facts.compactMapValues(\.firstSeen).count == stored.count)
    #expect(items.map { $0["title"] as? String } == arrived.map(\.title))
    #expect(
      items.map { ($0["alternate"] as? [[String: Any]])?.first?["href"] as? String }
        == arrived.map { ($0.displayURL ?? $0.url).absoluteString })
    let origins = Set(items.compactMap { ($0["origin"] as? [String: Any])?["title"] as? String })
    #expect(origins.count == ServedTestLibrary.realFeedNames.count)
    for source in served.configured {
      let escaped =
        ("feed/" + source.url.absoluteString).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
      let atom = try AtomDocument(
        text(await Self.api(served).handle(ServerRequest(method: "GET", target: "/reader/atom/\(escaped)?n=1000"))))
      let own = try await served.repository.read(filter: ArticleFilter(source: source.name))
      #expect(atom.entries.map(\.title) == own.map(\.title), "\(source.name)")
    }
  }
}

/// An Atom document read back with Foundation's XMLParser: the feed's title and each entry's id, title, link,
/// published date, content and Google Reader state labels.
final class AtomDocument: NSObject, XMLParserDelegate {
  struct Entry {
    var id = ""
    var title = ""
    var link = ""
    var published = ""
    var content = ""
    var labels: [String] = []
  }

  var title = ""
  var entries: [Entry] = []
  private var path: [String] = []
  private var text = ""

  struct Malformed: Error {}

  init(_ xml: String) throws {
    super.init()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = self
    guard parser.parse() else { throw Malformed() }
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    path.append(name)
    text = ""
    if name == "entry" { entries.append(Entry()) }
    guard path.count == 3, path[1] == "entry", !entries.isEmpty else { return }
    if name == "category", attributes["scheme"] == "http://www.google.com/reader/", let label = attributes["label"] {
      entries[entries.count - 1].labels.append(label)
    }
    if name == "link", attributes["rel"] == "alternate" { entries[entries.count - 1].link = attributes["href"] ?? "" }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    defer { path.removeLast() }
    if path == ["feed", "title"] { title = text }
    guard path.count == 3, path[1] == "entry", !entries.isEmpty else { return }
    switch name {
    case "id": entries[entries.count - 1].id = text
    case "title": entries[entries.count - 1].title = text
    case "published": entries[entries.count - 1].published = text
    case "content": entries[entries.count - 1].content = text
    default: break
    }
  }
}
