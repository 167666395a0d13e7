/// Failures a test injects into a storage context's transactions, to show what a crash or a failing `COMMIT` leaves
/// behind. Set only through ``StorageContext/init(path:entities:eviction:readers:busyTimeout:faults:)`` by tests and
/// test helpers (it is `package`, not public); the product never reads it from the environment or anywhere else.
package struct StorageFaults: Sendable {
  /// Called on the writer's thread at the end of every write transaction, after the body wrote its last row and
  /// right before `COMMIT` — the worst moment for a crash. If it throws, the transaction is rolled back and the
  /// error rethrown, as if the body had thrown it.
  package var beforeWriteCommit: (@Sendable () throws -> Void)?
  /// Called on a reader's thread at the end of every read transaction, right before its `COMMIT`. If it throws,
  /// that `COMMIT` counts as failed: the read throws the error, and the reader's transaction is ended (or the
  /// reader replaced) before another read may use it.
  package var beforeReadCommit: (@Sendable () throws -> Void)?

  package init(
    beforeWriteCommit: (@Sendable () throws -> Void)? = nil, beforeReadCommit: (@Sendable () throws -> Void)? = nil
  ) {
    self.beforeWriteCommit = beforeWriteCommit
    self.beforeReadCommit = beforeReadCommit
  }
}
