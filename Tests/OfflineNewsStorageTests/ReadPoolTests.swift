import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("Read pool: a read checks out a free reader, or waits for one", .timeLimit(.minutes(5)))
struct ReadPoolTests {
  @Test("while one read holds a reader, reads one after another all take the other: none waits behind the slow one")
  func freeReaderIsTaken() async throws {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, readers: 2)
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let slow = await HeldRead(storage)
    // Picked in turn, every other read would queue behind the held one, which waits for these to finish.
    for _ in 0..<6 { #expect(try await storage.articleCount() == 1) }
    #expect(try await slow.finish() == 1)
  }

  @Test("with every reader held, a read waits and takes the first reader given back")
  func waitsForAReader() async throws {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, readers: 2)
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let first = await HeldRead(storage)
    let second = await HeldRead(storage)
    let waiting = Task { try await storage.articleCount() }
    #expect(try await first.finish() == 1)
    // The waiting read can only have the first reader: the second is still held (until after this line).
    #expect(try await waiting.value == 1)
    #expect(try await second.finish() == 1)
  }

  @Test(
    "a read cancelled while it waits for a reader throws StorageError .cancelled (a raw read too); the pool still serves reads"
  )
  func cancelledWhileWaiting() async throws {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, readers: 1)
    let held = await HeldRead(storage)
    let waiting = Task { try await storage.articleCount() }
    waiting.cancel()
    await #expect(throws: StorageError.self) { try await waiting.value }
    do {
      _ = try await waiting.value
    } catch {
      #expect((error as? StorageError)?.kind == .cancelled)
    }
    let raw = Task { try await storage.read { try $0.scalarInt("SELECT count(*) FROM article") } }
    raw.cancel()
    do {
      _ = try await raw.value
      Issue.record("a cancelled raw read returned")
    } catch {
      #expect((error as? StorageError)?.kind == .cancelled)
    }
    #expect(try await held.finish() == 0)
    #expect(try await storage.articleCount() == 0)
  }

  @Test("a read whose COMMIT fails throws, and its reader's transaction is ended: the next read sees new data")
  func failedCommitResetsReader() async throws {
    let database = TestDatabase()
    let failures = Countdown(1)
    let storage = try StorageContext(
      path: database.path, readers: 1,
      faults: StorageFaults(beforeReadCommit: { if failures.take() { throw Boom() } }))
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.read { try $0.scalarInt("SELECT count(*) FROM article") }
    }
    // One reader: had its transaction stayed open, this read would fail to BEGIN, or see the old snapshot.
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    #expect(try await storage.articleCount() == 1)
    #expect(try await storage.articles().map(\.url) == [articleURL("a")])
  }

  @Test("a read whose body throws ends its transaction too")
  func failedBodyResetsReader() async throws {
    let database = TestDatabase()
    let storage = try StorageContext(path: database.path, readers: 1)
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.read { db -> Int in
        _ = try db.scalarInt("SELECT count(*) FROM article")
        throw Boom()
      }
    }
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    #expect(try await storage.articleCount() == 1)
  }
}
