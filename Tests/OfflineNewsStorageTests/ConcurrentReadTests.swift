import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

/// A flag tasks share.
private final class Flag: Sendable {
  private let value = Atomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// Batches of articles handed out one by one, from any thread.
private final class Batches: Sendable {
  private let rest: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { rest = Mutex(batches.reversed()) }
  func next() -> [Article]? { rest.withLock { $0.popLast() } }
}

/// One read made during the save: what it saw and when.
private struct Observation: Sendable {
  var reader: Int
  var started: ContinuousClock.Instant
  var finished: ContinuousClock.Instant
  /// `true` for the new data, `false` for the old; a read that saw neither is recorded as an issue at once.
  var sawNew: Bool
}

@Suite("Concurrency: readers during a large save")
struct ConcurrentReadTests {
  @Test("reads during a 50,000-article save never fail, see the old or the new data, and finish before it")
  func readersDuringLargeSave() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let oldArticles = (0..<1000).map { makeArticle("old\($0)", publishedAt: t0 + Int64($0)) }
    try await storage.saveArticles(oldArticles, forQuery: "old", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let newArticles = (0..<50_000).map { makeArticle("new\($0)", publishedAt: t0 + 1_000_000 + Int64($0)) }
    let page = 1500
    let oldPage = oldArticles.reversed().map(\.url.lastPathComponent)
    let newPage = newArticles.reversed().prefix(page).map(\.url.lastPathComponent)
    #expect(slugs(try await storage.articles(limit: page)) == oldPage)

    let clock = ContinuousClock()
    let saveStarted = clock.now
    // The save reports each chunk of 500 it has written: the readers start once it is writing.
    let (writing, wrote) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let save = Task {
      let result = try await storage.saveArticles(
        newArticles, forQuery: "new", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1),
        progress: { _ in wrote.yield() })
      wrote.finish()
      return (result, clock.now)
    }
    for await _ in writing { break }

    let saveDone = Flag()
    let observations = try await withThrowingTaskGroup(of: [Observation].self) {
      group -> ([Observation], ContinuousClock.Instant) in
      for reader in 0..<8 {
        group.addTask {
          var seen: [Observation] = []
          // Read until the save is over, and a few times after.
          var after = 0
          while after < 3 {
            if saveDone.isSet { after += 1 }
            let started = clock.now
            let sawNew: Bool
            if reader.isMultiple(of: 2) {
              let count = try await storage.articleCount()
              #expect(count == 1000 || count == 51_000, "reader \(reader) counted \(count)")
              sawNew = count == 51_000
            } else {
              let rows = slugs(try await storage.articles(limit: page))
              #expect(rows == oldPage || rows == newPage, "reader \(reader) saw \(rows.count) rows: \(rows.prefix(3))…")
              sawNew = rows == newPage
            }
            seen.append(Observation(reader: reader, started: started, finished: clock.now, sawNew: sawNew))
          }
          return seen
        }
      }
      let (result, finished) = try await save.value
      saveDone.set()
      #expect(counts(result) == [50_000, 50_000, 0, 0, 0])
      var all: [Observation] = []
      for try await seen in group { all += seen }
      return (all, finished)
    }
    let (reads, saveFinished) = observations

    // Each reader, reading one after another, never goes back from the new data to the old.
    for reader in 0..<8 {
      let sequence = reads.filter { $0.reader == reader }.map(\.sawNew)
      #expect(sequence == sequence.sorted { !$0 && $1 }, "reader \(reader) went back to the old data")
    }
    // Reads that began after the save returned see all of it.
    #expect(reads.filter { $0.started > saveFinished }.allSatisfy { $0.sawNew })
    #expect(try await storage.articleCount() == 51_000)
    print("save took \(saveFinished - saveStarted); \(reads.count) reads during and after it")
  }

  /// That reads do not wait for a write in progress is shown by holding a save open in the middle of its
  /// transaction (its next batch does not come until the reads are done), not by timing reads against a save:
  /// on a busy machine the readers may be scheduled so late that no read falls inside even a long write.
  @Test("reads made while a save holds the write lock, its rows written but not committed, finish and see the old data")
  func readsDuringHeldSave() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let old = (0..<100).map { makeArticle("old\($0)", publishedAt: t0 + Int64($0)) }
    try await storage.saveArticles(old, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let batches = Batches([(0..<3000).map { makeArticle("new\($0)", publishedAt: t0 + 1_000_000 + Int64($0)) }])
    let release = DispatchSemaphore(value: 0)
    let (held, hold) = AsyncStream.makeStream(of: Void.self)
    let save = Task {
      try await storage.saveArticles(forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1)) {
        if let batch = batches.next() { return batch }
        // Every row is written, nothing committed: hold the transaction open until the reads are done.
        hold.yield()
        release.wait()
        return nil
      }
    }
    for await _ in held { break }
    #expect(try !writeLockIsFree(storage.path), "the save holds the write lock")
    let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
      for _ in 0..<8 {
        group.addTask {
          var counts: [Int] = []
          for _ in 0..<5 { counts.append(try await storage.articleCount()) }
          return counts
        }
      }
      var all: [Int] = []
      for try await counts in group { all += counts }
      return all
    }
    #expect(counts == Array(repeating: 100, count: 40), "every read saw the committed state")
    release.signal()
    #expect(try await save.value.inserted == 3000)
    #expect(try await storage.articleCount() == 3100)
  }
}

@Suite("Concurrency: closing the read pool")
struct ClosingTests {
  @Test(
    "on close the WAL is checkpointed: the database file alone holds the data, whichever connection closes last",
    arguments: ["a write", "a read"])
  func checkpointOnClose(lastOperation: String) async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(
      [makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    if lastOperation == "a read" { #expect(try await storage.articleCount() == 2) }
    await storage.close()
    #expect(!database.exists("-wal"), "the -wal file was left behind")
    // A copy of the database file alone (a backup, a move without its side files) holds every committed row.
    let copy = database.directory.path("copy.sqlite")
    try FileManager.default.copyItem(atPath: database.path, toPath: copy)
    let connection = try Connection(path: copy, readOnly: true)
    let count = try? connection.scalarInt("SELECT count(*) FROM article")
    #expect(count == 2, "the database file alone holds \(String(describing: count)) articles")
  }

  @Test("after close() every call throws .closed naming the file, and nothing is written; close() again is harmless")
  func callsAfterClose() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    await storage.close()
    await storage.close()
    let calls: [(String, @Sendable () async throws -> Void)] = [
      ("articles", { _ = try await storage.articles() }),
      ("articleCount", { _ = try await storage.articleCount() }),
      ("read", { _ = try await storage.read { db in try db.scalarInt("SELECT 1") } }),
      ("write", { try await storage.write { db in try db.execute("DELETE FROM article") } }),
      (
        "saveArticles",
        { _ = try await storage.saveArticles([makeArticle("b")], forQuery: "q", fetchedAt: .now()) }
      ),
      ("save", { _ = try await storage.save(ChangeSet()) }),
      ("traceWrites", { try await storage.traceWrites(nil) }),
    ]
    for (name, call) in calls {
      let error = await storageError { try await call() }
      #expect(error?.kind == .closed, "\(name): \(String(describing: error))")
      #expect(error?.path == database.path, "\(name)")
      #expect(error?.description.contains("closed") == true, "\(name): \(String(describing: error))")
    }
    let reopened = try database.open()
    #expect(try await reopened.articleCount() == 1)
  }

  @Test(
    "close() while a read runs: the read finishes with its result, then every connection closes",
    .timeLimit(.minutes(5)))
  func closeWaitsForRunningRead() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let held = await HeldRead(storage)
    let closing = Task { await storage.close() }
    #expect(try await held.finish() == 1)
    await closing.value
    #expect(!database.exists("-wal"))
  }
}
