import Foundation
import OfflineNewsModel
import Testing

@testable import OfflineNewsStorage

/// What one `CallingThreadExecutor.run` saw: on which threads its parts ran, and what it read.
private struct Observed: Sendable {
  var taskOnCaller = false
  var writerOnCaller = false
  var readerOnCaller = false
  var newest: [String] = []
  var failure: String?
}

/// Runs `body` on a new thread, as a program's main thread, and returns what it returns.
private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
    Thread { continuation.resume(returning: body()) }.start()
  }
}

@Suite("CallingThreadExecutor: a one-shot command on one thread")
struct CallingThreadExecutorTests {
  /// Opens the database on `executor`, saves `save` (if any), and reads the two newest articles, noting the thread
  /// of the task, of the writer and of the reader.
  private static func session(_ path: String, _ executor: CallingThreadExecutor, save: [Article]) async -> Observed {
    let caller = pthread_self()
    let onCaller: @Sendable () -> Bool = { pthread_equal(pthread_self(), caller) != 0 }
    var observed = Observed()
    do {
      let storage = try StorageContext(path: path, faults: StorageFaults(), executor: executor)
      if !save.isEmpty {
        try await storage.saveArticles(save, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
      }
      observed.writerOnCaller = try await storage.write { _ in onCaller() }
      observed.readerOnCaller = try await storage.read { _ in onCaller() }
      observed.newest = slugs(try await storage.articles(limit: 2))
      observed.taskOnCaller = onCaller()
      await storage.close()
    } catch {
      observed.failure = "\(error)"
    }
    return observed
  }

  @Test("the operation, the writer and the readers run on the calling thread; a second run reopens the database")
  func oneThread() async throws {
    let database = TestDatabase()
    let path = database.path
    let articles = [makeArticle("a", publishedAt: t0), makeArticle("b", publishedAt: t0 + 1)]
    let (created, reopened) = await onNewThread {
      let executor = CallingThreadExecutor()
      // The first run creates the database (the full open); the second finds it current (one reader at first).
      let created = executor.run { await Self.session(path, executor, save: articles) }
      let reopened = executor.run { await Self.session(path, executor, save: []) }
      return (created, reopened)
    }
    for observed in [created, reopened] {
      #expect(observed.failure == nil)
      #expect(observed.taskOnCaller && observed.writerOnCaller && observed.readerOnCaller)
      #expect(observed.newest == ["b", "a"])
    }
  }

  @Test("a job enqueued from another thread wakes the calling thread")
  func wakesFromAnotherThread() async {
    let value = await onNewThread {
      CallingThreadExecutor().run {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
          Thread { continuation.resume(returning: 42) }.start()
        }
      }
    }
    #expect(value == 42)
  }
}
