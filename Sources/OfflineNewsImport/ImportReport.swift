import OfflineNewsStorage

/// What an import did. `inserted`, `updated` and `unchanged` count rows of the root entity; `entities` has every
/// entity's counts (relationship destinations and placeholders included).
public struct ImportReport: Sendable, Hashable, Encodable {
  public var inserted = 0
  public var updated = 0
  public var unchanged = 0
  /// Root records left out by a skip rule or a `shouldImport` hook.
  public var skipped = 0
  /// Root records not imported because of an error (listed in ``errors``).
  public var failed = 0
  /// Root rows deleted by sync deletion.
  public var deleted = 0
  /// Root records whose identity appeared earlier in the same payload (one row: the later wins).
  public var duplicates = 0
  /// Each problem: the record's entity, identity, key path and reason.
  public var errors: [RecordError] = []
  /// Per entity: inserted, updated, unchanged, deleted.
  public var entities: [String: EntityCounts] = [:]

  public struct EntityCounts: Sendable, Hashable, Encodable {
    public var inserted: Int
    public var updated: Int
    public var unchanged: Int
    public var deleted: Int
  }

  /// Where each imported root record was, by entity and identity (for messages about rows the store refused).
  var recordPlaces: [String: String] = [:]
  /// Join records read (links given), for a join root.
  var joinLinks = 0

  static func placeKey(_ entity: String, _ identity: Identity) -> String { "\(entity)\u{1F}\(identity)" }

  public init() {}

  enum CodingKeys: String, CodingKey {
    case inserted, updated, unchanged, skipped, failed, deleted, duplicates, errors, entities
  }
}
