import OfflineNewsStorage

/// What an import did. `inserted`, `updated` and `unchanged` count rows of the root entity (of every root entity,
/// with `entityBy`); `entities` has every entity's counts (relationship destinations and placeholders included).
///
/// Problems come in two lists: ``failures`` are records that were not imported (no readable identity, a required
/// attribute that cannot be read, a value refused under `onInvalidValue: skipRecord`, a new row the store
/// refused); ``warnings`` are values that were not stored while their record was (an unconvertible optional value,
/// a relationship of the wrong shape, a date read with an assumed offset, text the JSON reader repaired).
public struct ImportReport: Sendable, Hashable, Encodable {
  /// Root records inserted as new rows.
  public var inserted = 0
  /// Root records whose stored row changed.
  public var updated = 0
  /// Root records whose stored row already held exactly these values (not rewritten).
  public var unchanged = 0
  /// Root records left out by a skip rule, a `shouldImport` hook, an `entityBy` value the mapping does not map,
  /// or the import's operation (an existing row under insert-only, a new one under update-only).
  public var skipped = 0
  /// Article records left out because `news delete` or the store's eviction removed them before and their keys are
  /// remembered (``ArticleSaveResult/remembered``; `news delete --forget-deleted` lets them back): neither skipped
  /// by a rule nor failed.
  public var remembered = 0
  /// Of ``remembered``, those the store's eviction policy removed (the others were deleted): a larger eviction
  /// limit must come before `--forget-deleted` for them to stay.
  public var rememberedEvicted = 0
  /// Root records not imported because of an error (listed in ``failures``).
  public var failed = 0
  /// Root rows deleted by sync deletion.
  public var deleted = 0
  /// Articles the store's eviction policy (the configuration's `eviction`) removed right after the save: the oldest past
  /// `maxArticles`, those not seen for `maxAgeDays`; bookmarked articles are never evicted. 0 without a policy.
  public var evicted = 0
  /// Root records whose identity appeared earlier in the same payload (one row: the later wins).
  public var duplicates = 0
  /// Records not imported: the record's entity, identity (when readable), key path and reason.
  public var failures: [RecordError] = []
  /// Values not stored, or stored with a caveat, in records that were imported.
  public var warnings: [RecordError] = []
  /// Per entity: inserted, updated, unchanged, deleted.
  public var entities: [String: EntityCounts] = [:]

  /// One entity's rows, roots and related rows alike.
  public struct EntityCounts: Sendable, Hashable, Encodable {
    /// Rows inserted.
    public var inserted: Int
    /// Rows changed.
    public var updated: Int
    /// Rows already as given.
    public var unchanged: Int
    /// Rows deleted by sync deletion.
    public var deleted: Int
  }

  /// Where each imported root record was, by entity and identity (for messages about rows the store refused).
  var recordPlaces: [String: String] = [:]
  /// Join records read (links given), for a join root.
  var joinLinks = 0

  static func placeKey(_ entity: String, _ identity: Identity) -> String { "\(entity)\u{1F}\(identity)" }

  package init() {}

  enum CodingKeys: String, CodingKey {
    case inserted, updated, unchanged, skipped, remembered, rememberedEvicted, failed, deleted, evicted, duplicates
    case failures, warnings, entities
  }
}

extension ImportReport: CustomStringConvertible {
  /// One line of counts, then the first failures and warnings (at most 5 each, with how many more), e.g.
  /// `inserted 20, updated 0, unchanged 0, skipped 1, failed 0, deleted 0, duplicates 0` — what `print(report)`
  /// shows, instead of every field (the places of every record read, kept for messages, ran to tens of KB).
  public var description: String {
    var lines = [
      "inserted \(inserted), updated \(updated), unchanged \(unchanged), skipped \(skipped), failed \(failed), "
        + "deleted \(deleted), duplicates \(duplicates)" + (evicted > 0 ? ", evicted \(evicted)" : "")
        + (remembered > 0 ? ", left out (deleted or evicted before) \(remembered)" : "")
    ]
    for (label, errors) in [("failed", failures), ("warning", warnings)] where !errors.isEmpty {
      lines += errors.prefix(5).map { "\(label): \($0)" }
      if errors.count > 5 {
        lines.append("… and \(errors.count - 5) more \(label == "failed" ? "failures" : "warnings")")
      }
    }
    return lines.joined(separator: "\n")
  }
}
