import Dispatch

/// A serial executor that runs an actor's jobs on its own dispatch queue.
///
/// SQLite calls block their thread (disk I/O, a long import, a busy wait). Running them on the Swift concurrency
/// cooperative pool, which has one thread per core, would starve every other task while a large save runs; each
/// connection's actor therefore runs on a queue of its own.
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
  // @unchecked: a DispatchQueue is thread-safe, and it is the only stored property.
  private let queue: DispatchQueue

  init(label: String) {
    queue = DispatchQueue(label: label, qos: .userInitiated)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }
}
