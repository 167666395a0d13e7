import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization

/// What one refresh of a query (network, then store) came to. Shared by every read that joined it.
enum RefreshOutcome: Sendable {
  /// A good response was saved, or a `304 Not Modified` confirmed the cached rows (`notModified`), at `fetchedAt`.
  /// `movedTo`: where permanent redirects took the request (``NewsResponse/movedPermanently``); `movedSeen`: how many
  /// answered refreshes in a row, this one included, they took there (the fetch log's pending move); `feedTitle`:
  /// the title the feed's document gave (``NewsPage/feedTitle``), `nil` for a `304`.
  case saved(
    fetchedAt: Timestamp, issues: [RecordIssue], notModified: Bool, counts: ArticleSaveResult?, movedTo: URL? = nil,
    movedSeen: Int = 0, feedTitle: String? = nil)
  /// The network failed, or answered nothing usable; the cache was not changed.
  case failed(NewsNetworkError)
  /// The network answered, and the store failed to save it.
  case storageFailed(StorageError)
}

/// One refresh in flight: its task, and its outcome as soon as it is known (before the task's value is read).
final class Refresh: Sendable {
  let task: Task<RefreshOutcome, Never>
  private let outcome: OutcomeBox

  fileprivate init(
    _ operation: @escaping @Sendable () async -> RefreshOutcome, finished: @escaping @Sendable () async -> Void
  ) {
    let outcome = OutcomeBox()
    self.outcome = outcome
    task = Task {
      let result = await operation()
      outcome.value.withLock { $0 = result }
      await finished()
      return result
    }
  }

  /// The outcome, if the refresh has finished.
  var settled: RefreshOutcome? { outcome.value.withLock { $0 } }
}

private final class OutcomeBox: Sendable {
  let value = Mutex<RefreshOutcome?>(nil)
}

/// The refreshes in flight, one per key: concurrent reads of the same query join the refresh already running
/// instead of sending their own request.
///
/// A refresh is an unstructured task: it goes on (and saves) when the reads waiting for it stop waiting, which is
/// how a read can serve the cache at its deadline while the request finishes in the background.
actor InFlightRefreshes {
  private var running: [String: (id: Int, refresh: Refresh, readers: Int)] = [:]
  private var nextID = 0
  /// Callers of ``waitForReaders(_:key:)``.
  private var readerWaiters: [(key: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// The refresh running for `key`, or a new one running `operation`.
  func refresh(for key: String, _ operation: @escaping @Sendable () async -> RefreshOutcome) -> Refresh {
    let refresh: Refresh
    if let entry = running[key] {
      refresh = entry.refresh
      running[key]?.readers += 1
    } else {
      let id = nextID
      nextID += 1
      refresh = Refresh(operation) { await self.finished(key, id: id) }
      running[key] = (id, refresh, 1)
    }
    let readers = running[key]?.readers ?? 0
    let ready = readerWaiters.filter { $0.key == key && $0.count <= readers }
    readerWaiters.removeAll { $0.key == key && $0.count <= readers }
    for waiter in ready { waiter.continuation.resume() }
    return refresh
  }

  /// Returns once `count` reads (the first included) share the refresh running for `key`: for tests, which start
  /// concurrent reads and must know that they have all joined before letting the refresh finish.
  func waitForReaders(_ count: Int, key: String) async {
    if let readers = running[key]?.readers, readers >= count { return }
    await withCheckedContinuation { readerWaiters.append((key, count, $0)) }
  }

  /// The refreshes running now.
  var tasks: [Task<RefreshOutcome, Never>] { running.values.map(\.refresh.task) }

  private func finished(_ key: String, id: Int) {
    if running[key]?.id == id { running[key] = nil }
  }
}

/// Waits for a task's value, or `nil` once `seconds` have passed, whichever comes first. The task is not
/// cancelled either way.
func value<T: Sendable>(of task: Task<T, Never>, within seconds: TimeInterval) async -> T? {
  await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
    let once = ResumeOnce(continuation)
    let timer = Task {
      try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 86_400)) * 1_000_000_000))
      once.resume(nil)
    }
    Task {
      let value = await task.value
      timer.cancel()
      once.resume(value)
    }
  }
}

/// A continuation resumed by the first of several racers; later resumes do nothing.
private final class ResumeOnce<T: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<T?, Never>?>

  init(_ continuation: CheckedContinuation<T?, Never>) {
    self.continuation = Mutex(continuation)
  }

  func resume(_ value: T?) {
    let pending = continuation.withLock { pending in
      defer { pending = nil }
      return pending
    }
    pending?.resume(returning: value)
  }
}
