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
