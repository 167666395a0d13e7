import Foundation

/// An executor that runs every job it is given on one thread: the thread that calls ``run(_:)``, while the
/// operation runs. It is the task executor of that operation (its nonisolated async functions and child tasks run
/// here) and the serial executor of every connection of a storage context opened with it (the `executor` of
/// `StorageContext`'s package initializer).
///
/// For example (what `news` does):
/// ```swift
/// let executor = CallingThreadExecutor()
/// let status = executor.run {
///   let storage = try StorageContext(path: path, faults: StorageFaults(), executor: executor)
///   …
/// }
/// ```
///
/// For a one-shot command-line process: a read goes from the command to its connection and back without a thread
/// hop, and the process starts no cooperative-pool or dispatch thread to run it (docs/PERFORMANCE.md, "Command-line
/// latency"). Not for an app: every job waits for the one before it, so a long save holds every other task of the
/// operation, and the calling thread is blocked until the operation returns. Jobs run in the order they are
/// enqueued, from any thread; the calling thread sleeps while none is ready.
package final class CallingThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
  // @unchecked: `jobs` is only read and written with `condition` locked.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  package init() {}

  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
    UnownedTaskExecutor(ordinary: self)
  }

  /// Runs `operation` in a task that prefers this executor, and runs the jobs enqueued here on the calling thread
  /// until it returns; then returns its result. Jobs enqueued after that wait for the next call.
  ///
  /// Blocks the calling thread: call it from a thread that nothing else needs (a command-line program's main
  /// thread), never from a task of the cooperative pool or from inside `operation`.
  package func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let outcome = Outcome<T>()
    Task(executorPreference: self) {
      self.finish(outcome, with: await operation())
    }
    while true {
      condition.lock()
      while jobs.isEmpty && outcome.value == nil { condition.wait() }
      if let value = outcome.value {
        condition.unlock()
        return value
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
  }

  /// Stores the operation's result and wakes the calling thread.
  private func finish<T>(_ outcome: Outcome<T>, with value: T) {
    condition.lock()
    outcome.value = value
    condition.signal()
    condition.unlock()
  }

  /// The operation's result, written by its task with the executor's lock held.
  private final class Outcome<T>: @unchecked Sendable {
    // @unchecked: written and read only with the executor's `condition` locked.
    var value: T?
  }
}
