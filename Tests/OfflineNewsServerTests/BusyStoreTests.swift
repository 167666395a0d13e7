import Foundation
import OfflineNewsHTTP
import TestSupport
import Testing

@testable import OfflineNewsServer
@testable import OfflineNewsStorage

/// A store another process writes to for longer than the busy timeout (a `news import` of a large file holds the
/// write lock for its whole transaction): a change asked for meanwhile is answered `503` with `Retry-After` by every
/// door — Miniflux, Reader, the web reader (``ServedFailure``) — not `500` with SQLite's text, and changes nothing; once the lock is
/// gone, the same request works. (A tester's 200k-article import gave newsboat and the web reader 500s.)
@Suite("news serve while another process holds the store's write lock", .serialized)
struct BusyStoreTests {
  @Test("changes get 503 + Retry-After while the lock is held, and work once it is released")
  func busyIsServiceUnavailable() async throws {
    let served = try await ServedTestLibrary.synthetic(busyTimeout: 0.2)
    let server = try startServer(library: served.library)
    let client = TestClient(port: server.port)
    let alpha1 = ServedIdentifiers.entryID(forKey: ServedTestLibrary.articleURL("Alpha", 1).absoluteString)
    let put = { () async throws -> ClientResponse in
      try await client.request(
        "PUT", "/v1/entries", headers: ["Content-Type": "application/json"],
        body: Data(#"{"entry_ids":[\#(alpha1)],"status":"read"}"#.utf8))
    }
    let readerID = ServedIdentifiers.readerItemID(forKey: ServedTestLibrary.articleURL("Alpha", 1).absoluteString)

    // Another process: a writer that holds the lock (BEGIN IMMEDIATE) and commits nothing yet.
    let other = try Connection(path: served.directory.path("news.sqlite"), busyTimeout: 0)
    try other.execute(sql: "BEGIN IMMEDIATE")
    let response = try await put()
    #expect(response.status == 503, "\(response.status) \(response.text)")
    #expect(response.header("Retry-After") == String(ServedFailure.retryAfterSeconds))
    #expect(response.text.contains("the store is busy"), "\(response.text)")
    #expect(!response.text.contains("SQLITE"), "\(response.text)")
    // The Reader API's handler answers the same (the front door adds Retry-After to any 503).
    let reader = await ReaderAPI(library: served.library, user: "reader").handle(
      ServedTestLibrary.request(
        "POST", "/reader/api/0/edit-tag", form: "i=\(readerID)&a=user/-/state/com.google/read&ac=edit&T=token"))
    #expect(reader.status == 503, "\(text(reader))")
    #expect(text(reader).contains("the store is busy"), "\(text(reader))")
    #expect(try await served.article(titled: "Alpha 1").isRead == false)

    try other.execute(sql: "ROLLBACK")
    #expect(try await put().status == 204)
    #expect(try await served.article(titled: "Alpha 1").isRead)
    await server.stop()
  }

  @Test("any other failure is still a 500")
  func otherFailures() {
    #expect(ServedFailure.status(of: StorageError(kind: .busy, path: "x")) == 503)
    #expect(ServedFailure.status(of: StorageError(kind: .other, path: "x")) == 500)
    // A full disk cannot be written now either: 503, without Retry-After (ReadOnlyStoreTests).
    #expect(ServedFailure.status(of: StorageError(kind: .diskFull, path: "x")) == 503)
    #expect(ServedFailure.status(of: CocoaError(.fileReadNoSuchFile)) == 500)
  }
}
