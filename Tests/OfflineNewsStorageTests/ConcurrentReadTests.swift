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
    let save = Task {
      let result = try await storage.saveArticles(
        newArticles, forQuery: "new", fetchedAt: Timestamp(millisecondsSince1970: t0 + 1))
      return (result, clock.now)
    }
    // Wait until the save holds the write lock: from here on it is running.
    var writing = false
    while clock.now < saveStarted.advanced(by: .seconds(30)) {
      if try !writeLockIsFree(storage.path) {
        writing = true
        break
      }
      try await Task.sleep(for: .milliseconds(1))
    }
    let writeBegan = clock.now
    #expect(writing, "the save never held the write lock")

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
    // A read that saw the old data took its snapshot before the commit: the commit came after the last such start.
    // Reads that began after the write took its lock and ended before then ran while the write was in progress,
    // and were not blocked by it.
    let lastOldStart = reads.filter { !$0.sawNew }.map(\.started).max() ?? writeBegan
    let whileWriting = reads.filter { $0.started >= writeBegan && $0.finished < lastOldStart }
    // At least one (on a quiet machine, dozens): with the 2 cores busy with other work, the readers can be scheduled
    // so late that only a few of their reads fall inside the write.
    #expect(
      whileWriting.count >= 1,
      "only \(whileWriting.count) reads ran inside the write (write lock held \(lastOldStart - writeBegan) or more)")
    // Reads that began after the save returned see all of it.
    #expect(reads.filter { $0.started > saveFinished }.allSatisfy { $0.sawNew })
    #expect(try await storage.articleCount() == 51_000)
    print("save took \(saveFinished - saveStarted); \(reads.count) reads, \(whileWriting.count) inside the write")
  }
}

@Suite("Concurrency: closing the read pool")
struct ClosingTests {
  @Test(
    "on close the WAL is checkpointed: the database file alone holds the data, whichever connection closes last",
    arguments: ["a write", "a read"])
  func checkpointOnClose(lastOperation: String) async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      try await storage.saveArticles(
        [makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
      if lastOperation == "a read" { #expect(try await storage.articleCount() == 2) }
    }
    // Let every connection's owner finish and close it.
    try await Task.sleep(for: .milliseconds(200))
    #expect(!database.exists("-wal"), "the -wal file was left behind")
    // A copy of the database file alone (a backup, a move without its side files) holds every committed row.
    let copy = database.directory.path("copy.sqlite")
    try FileManager.default.copyItem(atPath: database.path, toPath: copy)
    let connection = try Connection(path: copy, readOnly: true)
    let count = try? connection.scalarInt("SELECT count(*) FROM article")
    #expect(count == 2, "the database file alone holds \(String(describing: count)) articles")
  }
}
