/// A committed change to one entity: which identities were inserted, updated and deleted by one transaction.
public struct StorageChange: Sendable, Hashable {
  /// The entity's name (`article` for the built-in article entity).
  public var entity: String
  /// The identities of the rows the transaction inserted.
  public var inserted: [Identity]
  /// The identities of the rows it updated (a to-many change counts as an update of the owner).
  public var updated: [Identity]
  /// The identities of the rows it deleted.
  public var deleted: [Identity]

  /// A change of `entity`; empty lists by default.
  package init(entity: String, inserted: [Identity] = [], updated: [Identity] = [], deleted: [Identity] = []) {
    self.entity = entity
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }

  /// Whether no row was inserted, updated or deleted.
  package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
