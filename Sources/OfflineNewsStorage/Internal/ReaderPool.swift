import Synchronization

/// The read-only connections of a storage context. A read checks out a free reader, and waits for one when every
/// reader is in use, so that a slow read never delays another while a reader is idle; waiting reads are served
/// in arrival order.
final class ReaderPool: Sendable {
  private struct Waiter {
    var id: Int
    var continuation: CheckedContinuation<SerialConnection, any Error>
  }

  private struct State {
    var free: [SerialConnection]
    var waiters: [Waiter] = []
    var nextWaiter = 0
    var isClosed = false
  }

  /// Every reader, free or checked out.
  let readers: [SerialConnection]
  private let path: String
  private let state: Mutex<State>

  init(_ readers: [SerialConnection], path: String) {
    self.readers = readers
    self.path = path
    state = Mutex(State(free: readers))
  }

  /// A free reader, for the caller's use alone until it gives it back with ``checkIn(_:)``; waits while none is
  /// free.
  ///
  /// - Throws: ``StorageError`` `.closed` once the pool is closed (also while waiting); `CancellationError` when
  ///   the task is cancelled while waiting.
  func checkOut() async throws -> SerialConnection {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SerialConnection, any Error>) in
        let outcome = state.withLock { state -> Result<SerialConnection, any Error>? in
          if state.isClosed { return .failure(StorageError(kind: .closed, path: path)) }
          // Checked under the lock that the cancellation handler takes: a cancellation is seen here or there.
          if Task.isCancelled { return .failure(CancellationError()) }
          if let reader = state.free.popLast() { return .success(reader) }
          state.waiters.append(Waiter(id: id, continuation: continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let waiter = state.withLock { state -> Waiter? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiters.remove(at: index)
      }
      waiter?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Gives back a reader checked out by ``checkOut()``: to the longest-waiting read, else to the free list.
  func checkIn(_ reader: SerialConnection) {
    let waiter = state.withLock { state -> Waiter? in
      if !state.waiters.isEmpty { return state.waiters.removeFirst() }
      state.free.append(reader)
      return nil
    }
    waiter?.continuation.resume(returning: reader)
  }

  /// Refuses every later ``checkOut()`` and every read still waiting, with ``StorageError/Kind/closed``.
  func close() {
    let waiters = state.withLock { state -> [Waiter] in
      state.isClosed = true
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.continuation.resume(throwing: StorageError(kind: .closed, path: path)) }
  }
}
