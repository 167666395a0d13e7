import Foundation
import OfflineNewsModel
import Synchronization
import Testing

@testable import OfflineNewsStorage

/// A streamed save into a store that holds nothing yet writes through a rollback journal instead of the WAL (its
/// pages once, not twice), and the store is in WAL mode again after it, whether it committed or failed. Observed
/// from inside the save: while the batches are read, the database has a `-journal` beside it (rollback mode) or a
/// `-wal` that grows (WAL mode).
@Suite("StorageContext: a first streamed import writes through a rollback journal", .timeLimit(.minutes(2)))
struct FirstImportJournalTests {
  private let at = Timestamp(millisecondsSince1970: t0)

  /// The journal files beside the database seen by the batches, read on the writer's thread inside the save.
  private final class Seen: Sendable {
    let journals = Mutex<[String]>([])
  }

  /// Three batches of 600 articles; before handing out each, records which journal file is beside `path`.
  private static func batches(path: String, seen: Seen, failAt: Int? = nil) -> @Sendable () throws -> [Article]? {
    let next = Mutex(0)
    return {
      let index = next.withLock { value in
        defer { value += 1 }
        return value
      }
      let journal = FileManager.default.fileExists(atPath: path + "-journal") ? "journal" : "wal"
      seen.journals.withLock { $0.append(journal) }
      if index == failAt { throw CocoaError(.fileReadCorruptFile) }
      guard index < 3 else { return nil }
      return (0..<600).map { makeArticle("journal\(index)-\($0)", publishedAt: t0 + Int64(index * 600 + $0)) }
    }
  }

  private func journalMode(_ path: String) throws -> String? {
    let connection = try Connection(path: path, busyTimeout: 1)
    return try connection.scalarString("PRAGMA journal_mode")?.lowercased()
  }

  @Test("an empty store: the rows go through a rollback journal, and the store is in WAL mode again after")
  func emptyStore() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    // A read first, as `news import` reads before it writes: this context's reader lets go of the WAL index.
    #expect(try await storage.int("SELECT count(*) FROM article") == 0)
    let seen = Seen()
    let result = try await storage.saveArticles(
      forQuery: "q", fetchedAt: at, batches: Self.batches(path: database.path, seen: seen))
    #expect(result.inserted == 1800)
    #expect(seen.journals.withLock { $0 }.contains("journal"))
    #expect(try journalMode(database.path) == "wal")
    #expect(try await storage.int("SELECT count(*) FROM article") == 1800)
    // A later save is a WAL write as any other.
    let again = Seen()
    _ = try await storage.saveArticles(
      forQuery: "q2", fetchedAt: at, batches: Self.batches(path: database.path, seen: again))
    #expect(again.journals.withLock { $0 }.allSatisfy { $0 == "wal" })
    #expect(try journalMode(database.path) == "wal")
  }

  @Test("a store with an article: WAL as always")
  func filledStore() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("before")], forQuery: "other", fetchedAt: at)
    let seen = Seen()
    _ = try await storage.saveArticles(
      forQuery: "q", fetchedAt: at, batches: Self.batches(path: database.path, seen: seen))
    #expect(seen.journals.withLock { $0 } == ["wal", "wal", "wal", "wal"])
    #expect(try await storage.int("SELECT count(*) FROM article") == 1801)
  }

  @Test("another connection that has read keeps the store in WAL mode, and the save does not wait for it")
  func otherConnection() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let other = try database.open()
    #expect(try await other.int("SELECT count(*) FROM article") == 0)
    let seen = Seen()
    let started = ContinuousClock.now
    let result = try await storage.saveArticles(
      forQuery: "q", fetchedAt: at, batches: Self.batches(path: database.path, seen: seen))
    #expect(result.inserted == 1800)
    #expect(seen.journals.withLock { $0 }.allSatisfy { $0 == "wal" })
    // Well under the busy timeout (5 s): the refused change was asked once, not waited for.
    #expect(ContinuousClock.now - started < .seconds(4))
    #expect(try await other.int("SELECT count(*) FROM article") == 1800)
  }

  @Test("a failed first import leaves the empty store, in WAL mode, that opens again")
  func failedImport() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      let seen = Seen()
      await #expect(throws: CocoaError.self) {
        _ = try await storage.saveArticles(
          forQuery: "q", fetchedAt: at, batches: Self.batches(path: database.path, seen: seen, failAt: 2))
      }
      #expect(seen.journals.withLock { $0 }.contains("journal"))
      #expect(try await storage.int("SELECT count(*) FROM article") == 0)
      #expect(try await storage.int("SELECT count(*) FROM query_fetch") == 0)
    }
    #expect(try journalMode(database.path) == "wal")
    #expect(!database.exists("-journal"))
    let reopened = try database.open()
    #expect(try await reopened.int("SELECT count(*) FROM article") == 0)
  }
}
