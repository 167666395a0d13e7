import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// `news serve` over a store that cannot be written (its file made read-only: `chattr +i` as root, mode 0444
/// otherwise, as the CLI's read-only tests make it): every door reads as before, and every change — read and star
/// marks, subscribing, a category, a refresh — is answered `503 Service Unavailable` with the reason in the door's
/// error shape (Miniflux: `{"error_message"}`), without `Retry-After` (waiting does not help), and changes nothing.
/// (A tester got a bare `500` for each.)
@Suite("news serve on a read-only store", .serialized)
struct ReadOnlyStoreTests {
  /// The synthetic library's store, closed, made read-only and opened again.
  struct ReadOnlyLibrary {
    let served: ServedTestLibrary
    let database: String
    let repository: NewsRepository
    let library: ServedLibrary

    init() async throws {
      served = try await ServedTestLibrary.synthetic()
      await served.storage.close()
      database = served.directory.path("news.sqlite")
      try #require(FaultCapabilities.makeReadOnly(database), "could not make \(database) read-only")
      let storage = try StorageContext(path: database)
      repository = NewsRepository(storage: storage, network: FileNewsNetwork(decoder: ArticleDecoder()))
      let configured = served.configured
      let repository = repository
      library = ServedLibrary(
        repository: repository, sources: { configured }, now: { ServedTestLibrary.start.addingTimeInterval(86_400) })
    }

    func close() async {
      await repository.close()
      FaultCapabilities.undoReadOnly(database)
    }

    /// The article titled `title`, read from the read-only store.
    func article(titled title: String) async throws -> Article {
      try #require(try await repository.read().first { $0.title == title })
    }
  }

  @Test(
    "Miniflux and Reader changes get 503 with the reason in each API's shape; reads work; nothing changes",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func apisRefuseChangesWith503() async throws {
    let store = try await ReadOnlyLibrary()
    let server = try startServer(library: store.library)
    let client = TestClient(port: server.port)
    let key = ServedTestLibrary.articleURL("Alpha", 1).absoluteString
    let entryID = ServedIdentifiers.entryID(forKey: key)
    let feedID = ServedIdentifiers.feedID(forSourceNamed: "Alpha")
    #expect(store.repository.isReadOnly)

    // Reads keep working.
    let entries = try await client.request("GET", "/v1/entries?limit=100")
    #expect(entries.status == 200, "\(entries.text)")
    #expect(entries.text.contains("Alpha 1"))

    let json = ["Content-Type": "application/json"]
    let changes: [(String, String, String?)] = [
      ("PUT", "/v1/entries", #"{"entry_ids":[\#(entryID)],"status":"read"}"#),
      ("PUT", "/v1/entries/\(entryID)/bookmark", nil),
      ("PUT", "/v1/feeds/\(feedID)/mark-all-as-read", nil),
      ("POST", "/v1/categories", #"{"title":"Later"}"#),
      ("POST", "/v1/feeds", #"{"feed_url":"https://delta.example.org/feed.xml"}"#),
      ("PUT", "/v1/feeds/refresh", nil),
      ("PUT", "/v1/feeds/\(feedID)/refresh", nil),
    ]
    for (method, path, body) in changes {
      let response = try await client.request(
        method, path, headers: body == nil ? [:] : json, body: body.map { Data($0.utf8) })
      #expect(response.status == 503, "\(method) \(path): \(response.status) \(response.text)")
      #expect(response.header("Retry-After") == nil, "\(method) \(path)")
      let message = try #require(
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["error_message"] as? String,
        "\(method) \(path): \(response.text)")
      #expect(message.contains("read-only"), "\(method) \(path): \(message)")
      #expect(message.contains("nothing is saved"), "\(method) \(path): \(message)")
    }

    // The Reader API: its text error shape, the same status.
    let reader = ReaderAPI(library: store.library, user: "reader")
    let itemID = ServedIdentifiers.readerItemID(forKey: key)
    for form in [
      "i=\(itemID)&a=user/-/state/com.google/read", "i=\(itemID)&a=user/-/state/com.google/starred",
    ] {
      let answer = await reader.handle(ServedTestLibrary.request("POST", "/reader/api/0/edit-tag", form: form))
      #expect(answer.status == 503, "\(form): \(text(answer))")
      #expect(text(answer).contains("read-only"), "\(text(answer))")
    }
    let quickAdd = await reader.handle(
      ServedTestLibrary.request(
        "POST", "/reader/api/0/subscription/quickadd", form: "quickadd=https://delta.example.org/feed.xml"))
    #expect(quickAdd.status == 503, "\(text(quickAdd))")
    let stream = await reader.handle(
      ServedTestLibrary.request("GET", "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=50"))
    #expect(stream.status == 200)

    // Nothing changed.
    let article = try await store.article(titled: "Alpha 1")
    #expect(!article.isRead)
    #expect(!article.isBookmarked)
    #expect(try await store.repository.subscriptions().isEmpty)
    await server.stop()
    await store.close()
  }

  @Test(
    "the web reader's read and star changes get 503 and the reason; its pages are served",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func webReaderRefusesChangesWith503() async throws {
    let store = try await ReadOnlyLibrary()
    let reader = WebReader(library: store.library)
    let session = WebSession(csrfToken: "csrf", user: nil)
    let list = await reader.handle(ServerRequest(method: "GET", target: "/articles"), session: session)
    #expect(list.status == 200)
    #expect(text(list).contains("Alpha 1"))
    let handle = ArticleIdentity.handle(forKey: ServedTestLibrary.articleURL("Alpha", 1).absoluteString)
    for (action, field) in [("read", "read=1"), ("star", "star=1")] {
      let change = await reader.handle(
        ServerRequest(
          method: "POST", target: "/article/\(handle)/\(action)",
          headers: [
            (name: "Content-Type", value: "application/x-www-form-urlencoded"),
            (name: "Accept", value: "application/json"),
          ], body: Data(field.utf8)), session: session)
      #expect(change.status == 503, "\(action): \(text(change))")
      #expect(text(change).hasPrefix("could not save: "), "\(text(change))")
      #expect(text(change).contains("read-only"), "\(text(change))")
    }
    let all = await reader.handle(
      ServerRequest(
        method: "POST", target: "/articles/read",
        headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")], body: Data("unread=1".utf8)),
      session: session)
    #expect(all.status == 503, "\(text(all))")
    #expect(try await store.article(titled: "Alpha 1").isRead == false)
    await store.close()
  }

  @Test("a busy store is retried later (Retry-After); an unwritable one is not; anything else is a 500")
  func causes() {
    let busy = StorageError(kind: .busy, path: "news.sqlite")
    let readOnly = StorageError(kind: .readOnly, path: "news.sqlite")
    #expect(ServedFailure.miniflux(busy).status == 503)
    #expect(ServedFailure.miniflux(busy).header("Retry-After") == String(ServedFailure.retryAfterSeconds))
    #expect(ServedFailure.miniflux(readOnly).status == 503)
    #expect(ServedFailure.miniflux(readOnly).header("Retry-After") == nil)
    #expect(ServedFailure.text(StorageError(kind: .diskFull, path: "news.sqlite")).status == 503)
    #expect(ServedFailure.status(of: SubscriptionChangeError.storage(readOnly)) == 503)
    #expect(ServedFailure.status(of: ServedSubscriptions.Failure.list(.storage(readOnly))) == 503)
    #expect(ServedFailure.status(of: RefreshFailure.storage(readOnly)) == 503)
    let unwritable = SubscriptionFileError(.unwritable, path: "news.json", "news.json: cannot write")
    #expect(ServedFailure.status(of: SubscriptionChangeError.file(unwritable)) == 503)
    #expect(ServedFailure.status(of: StorageError(kind: .other, path: "news.sqlite")) == 500)
    #expect(ServedFailure.status(of: SubscriptionChangeError.nameTaken("A")) == 500)
  }
}
