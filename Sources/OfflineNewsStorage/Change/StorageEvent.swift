/// What a ``StorageContext/changes(bufferLimit:)`` stream delivers.
public enum StorageEvent: Sendable, Hashable {
  /// What one committed transaction changed in one entity. A transaction that changed several entities gives one
  /// event per entity, one after the other; transactions come in commit order.
  case change(StorageChange)
  /// The observer fell behind by more than its buffer: the changes it had not taken yet were dropped, and
  /// changes committed after this event follow. Read again whatever was derived from the store.
  case missedChanges
}
