import Synchronization

/// Hands committed changes to every observer's bounded buffer (``ChangeSubscription``).
final class ChangeBroadcaster: Sendable {
  /// Observers, held weakly: a stream nobody iterates any more goes away with its buffer.
  private struct Observer {
    weak var subscription: ChangeSubscription?
  }

  private struct State {
    var observers: [Observer] = []
    var isFinished = false
  }

  private let state = Mutex(State())

  /// A stream of the changes published from now on, at most `bufferLimit` of them waiting for the observer.
  func stream(bufferLimit: Int) -> AsyncStream<StorageEvent> {
    let subscription = ChangeSubscription(limit: max(1, bufferLimit))
    let finished = state.withLock { state in
      if !state.isFinished { state.observers.append(Observer(subscription: subscription)) }
      return state.isFinished
    }
    if finished { subscription.finish() }
    return AsyncStream(unfolding: { await subscription.next() }, onCancel: { subscription.finish() })
  }

  /// Whether some stream made by ``stream(bufferLimit:)`` is still held: a write may then skip listing what nobody
  /// can read (``ArticleWriter/Session/listsInserted``).
  var hasObservers: Bool {
    state.withLock { state in state.observers.contains { $0.subscription != nil } }
  }

  /// Delivers `changes` (those that are not empty) to every observer, in order.
  func publish(_ changes: [StorageChange]) {
    let changes = changes.filter { !$0.isEmpty }
    guard !changes.isEmpty else { return }
    let subscriptions = state.withLock { state -> [ChangeSubscription] in
      state.observers.removeAll { $0.subscription == nil }
      return state.observers.compactMap(\.subscription)
    }
    for subscription in subscriptions { subscription.deliver(changes) }
  }

  /// Ends every stream, and every stream made later.
  func finish() {
    let subscriptions = state.withLock { state -> [ChangeSubscription] in
      state.isFinished = true
      defer { state.observers.removeAll() }
      return state.observers.compactMap(\.subscription)
    }
    for subscription in subscriptions { subscription.finish() }
  }

  deinit { finish() }
}

/// One observer's buffer of published changes: at most `limit` wait; when one more comes, those waiting are dropped
/// and a single ``StorageEvent/missedChanges`` takes their place, so memory stays bounded however slow the observer.
final class ChangeSubscription: Sendable {
  private struct State {
    var events: [StorageEvent] = []
    /// The index of the next event to hand out: events before it were taken.
    var head = 0
    var waiters: [(id: Int, continuation: CheckedContinuation<StorageEvent?, Never>)] = []
    var nextWaiter = 0
    var isFinished = false

    var pending: Int { events.count - head }

    mutating func take() -> StorageEvent? {
      guard head < events.count else { return nil }
      let event = events[head]
      head += 1
      if head == events.count {
        events.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 256, head * 2 >= events.count {
        events.removeFirst(head)
        head = 0
      }
      return event
    }
  }

  private let limit: Int
  private let state = Mutex(State())

  init(limit: Int) { self.limit = limit }

  func deliver(_ changes: [StorageChange]) {
    var handed: [(CheckedContinuation<StorageEvent?, Never>, StorageEvent)] = []
    state.withLock { state in
      guard !state.isFinished else { return }
      for change in changes {
        if !state.waiters.isEmpty {
          handed.append((state.waiters.removeFirst().continuation, .change(change)))
        } else if state.pending >= limit {
          state.events = [.missedChanges, .change(change)]
          state.head = 0
        } else {
          state.events.append(.change(change))
        }
      }
    }
    for (continuation, event) in handed { continuation.resume(returning: event) }
  }

  /// The next event; waits for one. `nil` once finished and drained, or when the waiting task is cancelled.
  func next() async -> StorageEvent? {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<StorageEvent?, Never>) in
        let ready = state.withLock { state -> StorageEvent?? in
          if let event = state.take() { return .some(event) }
          if state.isFinished || Task.isCancelled { return .some(nil) }
          state.waiters.append((id, continuation))
          return .none
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiter = state.withLock { state -> CheckedContinuation<StorageEvent?, Never>? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiters.remove(at: index).continuation
      }
      waiter?.resume(returning: nil)
    }
  }

  /// Ends the stream once the events already buffered are taken; later deliveries are ignored.
  func finish() {
    let waiters = state.withLock { state -> [CheckedContinuation<StorageEvent?, Never>] in
      state.isFinished = true
      defer { state.waiters.removeAll() }
      return state.waiters.map(\.continuation)
    }
    for waiter in waiters { waiter.resume(returning: nil) }
  }
}
