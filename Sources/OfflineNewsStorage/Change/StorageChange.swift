import Synchronization

/// A committed change to one entity: which identities were inserted, updated and deleted by one transaction.
public struct StorageChange: Sendable, Hashable {
  public var entity: String
  public var inserted: [Identity]
  public var updated: [Identity]
  public var deleted: [Identity]

  public init(entity: String, inserted: [Identity] = [], updated: [Identity] = [], deleted: [Identity] = []) {
    self.entity = entity
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }

  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Hands committed changes to every observer's stream.
final class ChangeBroadcaster: Sendable {
  private let observers = Mutex<[Int: AsyncStream<StorageChange>.Continuation]>([:])
  private let nextID = Atomic<Int>(0)

  func stream() -> AsyncStream<StorageChange> {
    let (stream, continuation) = AsyncStream.makeStream(of: StorageChange.self, bufferingPolicy: .unbounded)
    let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    observers.withLock { $0[id] = continuation }
    continuation.onTermination = { [weak self] _ in
      self?.observers.withLock { _ = $0.removeValue(forKey: id) }
    }
    return stream
  }

  func publish(_ changes: [StorageChange]) {
    let changes = changes.filter { !$0.isEmpty }
    guard !changes.isEmpty else { return }
    let continuations = observers.withLock { Array($0.values) }
    for continuation in continuations {
      for change in changes { continuation.yield(change) }
    }
  }

  deinit {
    for continuation in observers.withLock({ Array($0.values) }) { continuation.finish() }
  }
}
