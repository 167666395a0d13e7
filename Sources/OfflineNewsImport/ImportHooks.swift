import OfflineNewsStorage

/// Per-entity code run during an import — the MagicalRecord idea, in Swift. Everything is optional.
///
/// For example:
/// ```swift
/// var hooks = ImportHooks()
/// hooks["article"] = EntityHooks(shouldImport: { json in json[path: "title"] != .string("[Removed]") })
/// ```
public struct ImportHooks: Sendable {
  public var byEntity: [String: EntityHooks] = [:]

  public init(_ byEntity: [String: EntityHooks] = [:]) { self.byEntity = byEntity }

  public subscript(_ entity: String) -> EntityHooks? {
    get { byEntity[entity] }
    set { byEntity[entity] = newValue }
  }
}

/// The hooks of one entity.
public struct EntityHooks: Sendable {
  /// Return `false` to leave a record out (counted as skipped).
  public var shouldImport: (@Sendable (JSONValue) -> Bool)?
  /// Rewrite a record's JSON before it is mapped.
  public var willImport: (@Sendable (JSONValue) -> JSONValue)?
  /// Called with each mapped record; it may change the record, and return rows to delete in the same
  /// transaction (e.g. an orphan).
  public var didImport: (@Sendable (inout Record) -> [(entity: String, identity: Identity)])?
  /// Custom import of single attributes: given the record's JSON, return the stored value, `nil` to leave the
  /// attribute out, or throw to report the record's value as invalid.
  public var attributes: [String: @Sendable (JSONValue) throws -> DatabaseValue?]

  public init(
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
