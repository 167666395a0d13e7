import OfflineNewsModel

/// A row of any entity, as attribute values keyed by name: the generic record view that code working with any
/// entity uses (the importer, `news records`).
///
/// `values` holds attributes and to-one references (the destination's identity); `toMany` holds, per to-many
/// relationship, the identities of the related rows in order. A key that is absent from `values` means "not
/// given": a save leaves the stored value as it is. `.null` means "clear it".
///
/// For example:
/// ```swift
/// var record = Record(entity: "author", values: ["objectId": .text("u1"), "name": .text("Ada")])
/// record.toMany["articles"] = [.text("a1"), .text("a2")]
/// ```
public struct Record: Sendable, Hashable {
  /// The entity's name.
  public var entity: String
  /// Attribute values and to-one references by name; an absent key is "not given", `.null` clears.
  public var values: [String: DatabaseValue]
  /// Per to-many relationship, the identities of the related rows, in order; replaces the stored list on save.
  public var toMany: [String: [DatabaseValue]]
  /// Per to-many relationship, identities to add to the stored list (kept, and appended after it when ordered),
  /// rather than replacing it.
  package var toManyAdditions: [String: [DatabaseValue]]

  /// A record of `entity`; nothing given by default.
  package init(
    entity: String, values: [String: DatabaseValue] = [:], toMany: [String: [DatabaseValue]] = [:],
    toManyAdditions: [String: [DatabaseValue]] = [:]
  ) {
    self.entity = entity
    self.values = values
    self.toMany = toMany
    self.toManyAdditions = toManyAdditions
  }

  /// The value of the attribute or to-one reference `name`; `nil` when not given.
  public subscript(_ name: String) -> DatabaseValue? {
    get { values[name] }
    set { values[name] = newValue }
  }
}

/// The identity (primary key) of a row: one value, or several for a composite identity, in the order of
/// `EntityDescription/identity`.
public struct Identity: Sendable, Hashable, CustomStringConvertible {
  /// The values, in the order of the identity attributes.
  public var values: [DatabaseValue]

  /// A composite identity.
  public init(_ values: [DatabaseValue]) { self.values = values }
  /// A one-value identity.
  public init(_ value: DatabaseValue) { values = [value] }

  public var description: String {
    values.map { value -> String in
      switch value {
      case .null: return "null"
      case .integer(let v): return String(v)
      case .real(let v): return String(v)
      case .text(let v): return v
      case .blob(let v): return "<\(v.count) bytes>"
      }
    }.joined(separator: "|")
  }
}

/// A unit of work: records to upsert and rows to delete, saved together or not at all.
package struct ChangeSet: Sendable {
  /// Records to insert, or to update where a row with the same identity exists (only the keys they hold).
  package var upserts: [Record]
  /// Rows to delete: entity name and identity.
  package var deletes: [(entity: String, identity: Identity)]
  /// Sync deletion: rows in a scope that are absent from the payload.
  package var deleteMissing: [MissingRowsDeletion]
  /// Per entity, how its records are written; an entity not listed is upserted.
  package var operations: [String: WriteOperation]
  /// To-many relationships whose children are deleted when they leave: after the save, a row removed from such a
  /// list (or whose owner was deleted) that no owner lists any more in that relationship is deleted.
  package var orphanDeletion: Set<RelationshipReference>

  /// How `article` records of this save are recorded as a fetch (``ArticleFetch``): the query or source they
  /// came from. `nil`: each record's `fetchQuery` value, else `"import"`, fetched now.
  package var articleFetch: ArticleFetch?

  package init(
    upserts: [Record] = [], deletes: [(entity: String, identity: Identity)] = [],
    deleteMissing: [MissingRowsDeletion] = [], operations: [String: WriteOperation] = [:],
    orphanDeletion: Set<RelationshipReference> = [], articleFetch: ArticleFetch? = nil
  ) {
    self.upserts = upserts
    self.deletes = deletes
    self.deleteMissing = deleteMissing
    self.articleFetch = articleFetch
    self.operations = operations
    self.orphanDeletion = orphanDeletion
  }
}

/// How a save writes the records of one entity.
package enum WriteOperation: String, Sendable, Hashable {
  /// Insert new rows, update existing ones (the default).
  case upsert
  /// Insert new rows; leave existing rows (and their links) as they are, counted ``SaveSummary/skipped``.
  case insertOnly
  /// Update existing rows; records without a row are not inserted, counted ``SaveSummary/skipped``.
  case updateOnly

  /// Whether a record whose row exists (`rowExists`), or does not, is left out by this operation.
  func skips(rowExists: Bool) -> Bool {
    switch self {
    case .upsert: false
    case .insertOnly: rowExists
    case .updateOnly: !rowExists
    }
  }
}

/// A relationship of an entity, named by both: `feed_item.attachments`.
package struct RelationshipReference: Sendable, Hashable {
  package var entity: String
  package var relationship: String

  package init(entity: String, relationship: String) {
    self.entity = entity
    self.relationship = relationship
  }
}

/// The fetch that `article` records of a ``ChangeSet`` are saved as: they are written by the same writer as every
/// other article save, so they join the query's result list, update its fetch record and run eviction.
package struct ArticleFetch: Sendable, Hashable {
  /// The query's cache key (a source's name, a feed's URL, a file's path).
  package var query: String
  /// The source written on the articles (``Article/source``); `nil` writes none.
  package var source: String?
  /// When the payload was received (UTC, milliseconds).
  package var fetchedAt: Timestamp
  /// `true` when the payload is one page of many (an incremental sync): its articles are added to the query's
  /// result list; `false` when it is the whole of the query's current answer, which replaces the list.
  package var accumulates: Bool

  /// Creates a fetch description.
  package init(query: String, source: String? = nil, fetchedAt: Timestamp, accumulates: Bool = false) {
    self.query = query
    self.source = source
    self.fetchedAt = fetchedAt
    self.accumulates = accumulates
  }
}

/// Sync deletion: delete the rows of `entity` that match `scope` and whose identity is not in `keep`.
///
/// The scope is required — a query, a page, a parent — so that sync deletion can never empty a whole table
/// because a payload was short.
package struct MissingRowsDeletion: Sendable {
  package var entity: String
  package var scope: FetchPredicate
  package var keep: Set<Identity>

  package init(entity: String, scope: FetchPredicate, keep: Set<Identity>) {
    self.entity = entity
    self.scope = scope
    self.keep = keep
  }
}

/// What a save did, per entity.
package struct SaveSummary: Sendable, Hashable {
  package var inserted = 0
  package var updated = 0
  package var unchanged = 0
  package var deleted = 0
  /// Articles the store's eviction policy removed right after this save of `article` rows (bookmarks are kept).
  package var evicted = 0
  /// Links added through ``Record/toManyAdditions`` (not counting those already there).
  package var linksAdded = 0
  /// Records left out by their entity's ``WriteOperation`` (an existing row under insert-only, a new one under
  /// update-only).
  package var skipped = 0
  /// `article` records left out because a deletion or an eviction remembers their keys (`article_tombstone`;
  /// ``ArticleSaveResult/remembered``): not skipped by a rule, and said apart.
  package var remembered = 0
  /// Of ``remembered``, those the eviction policy removed (``ArticleSaveResult/rememberedEvicted``).
  package var rememberedEvicted = 0
  /// Records that would be new rows but lack a required attribute: not written, with the reason. (An update may
  /// leave out any attribute; an insert cannot.)
  package var rejected: [Rejection] = []

  /// A record left out of a save.
  package struct Rejection: Sendable, Hashable {
    package var identity: Identity
    package var reason: String
  }

  package init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, deleted: Int = 0) {
    self.inserted = inserted
    self.updated = updated
    self.unchanged = unchanged
    self.deleted = deleted
  }
}

extension Record {
  /// The article a built-in `article` record describes, as the article writer reads it: its key (`url`), `link`,
  /// title (derived from its summary or content when it has none: ``ArticleTitle/derived(from:)``), publication date
  /// (`firstSeen` when it has none) and the other built-in attributes; `nil` for a record of another entity, or one
  /// without a key or any text for a title. Extension attributes are not part of an ``Article``.
  package func article(firstSeen: Timestamp) -> Article? {
    guard entity == EntityDescription.article.name else { return nil }
    return ArticleWriter.article(from: values, firstSeen: firstSeen)
  }
}
