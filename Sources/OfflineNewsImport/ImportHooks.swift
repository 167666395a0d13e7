import OfflineNewsStorage

/// Per-entity code run during an import — the MagicalRecord idea, in Swift. Everything is optional.
///
/// For example:
/// ```swift
/// var hooks = ImportHooks()
/// hooks["article"] = EntityHooks(shouldImport: { json in json[path: "title"] != .string("[Removed]") })
/// ```
package struct ImportHooks: Sendable {
  package var byEntity: [String: EntityHooks] = [:]

  package init(_ byEntity: [String: EntityHooks] = [:]) { self.byEntity = byEntity }

  package subscript(_ entity: String) -> EntityHooks? {
    get { byEntity[entity] }
    set { byEntity[entity] = newValue }
  }
}

/// The hooks of one entity.
package struct EntityHooks: Sendable {
  /// Return `false` to leave a record out (counted as skipped).
  package var shouldImport: (@Sendable (JSONValue) -> Bool)?
  /// Rewrite a record's JSON before it is mapped.
  package var willImport: (@Sendable (JSONValue) -> JSONValue)?
  /// Called with each mapped record; it may change the record, and return rows to delete in the same
  /// transaction (e.g. an orphan).
  package var didImport: (@Sendable (inout Record) -> [(entity: String, identity: Identity)])?
  /// Custom import of single attributes: given the record's JSON, return the stored value, `nil` to leave the
  /// attribute out, or throw to report the record's value as invalid.
  package var attributes: [String: @Sendable (JSONValue) throws -> DatabaseValue?]

  package init(
    shouldImport: (@Sendable (JSONValue) -> Bool)? = nil, willImport: (@Sendable (JSONValue) -> JSONValue)? = nil,
    didImport: (@Sendable (inout Record) -> [(entity: String, identity: Identity)])? = nil,
    attributes: [String: @Sendable (JSONValue) throws -> DatabaseValue?] = [:]
  ) {
    self.shouldImport = shouldImport
    self.willImport = willImport
    self.didImport = didImport
    self.attributes = attributes
  }
}
