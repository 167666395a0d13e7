import Foundation
import OfflineNewsStorage

/// A declarative mapping from an API's JSON to entities of the store: where the records are, which entity they
/// become, and how each attribute and relationship is read. Loaded from a mapping file (`Config/mappings/*.json`,
/// documented in `docs/MAPPING.md`) or built in Swift.
public struct ImportMapping: Sendable {
  /// The mapping's name, e.g. `newsapi`.
  public var name: String
  /// Where the array of records is: `articles`, `results`, `items`; empty for a top-level array.
  public var records: KeyPath
  /// The entity each record of ``records`` becomes.
  public var rootEntity: String
  /// How to import each entity the mapping touches (the root and the destinations of relationships).
  public var entities: [EntityMapping]
  /// For join exports (Parse `_Join:<field>:<Class>`): each record adds one target to a to-many relationship.
  public var join: JoinMapping?
  /// Named roots, for a mapping that covers several exports (one per Parse class): name → entity or join. Choose
  /// one with ``selecting(root:)``.
  public var roots: [String: MappingRoot] = [:]

  public init(
    name: String, records: KeyPath, rootEntity: String, entities: [EntityMapping], join: JoinMapping? = nil
  ) {
    self.name = name
    self.records = records
    self.rootEntity = rootEntity
    self.entities = entities
    self.join = join
  }

  /// This mapping with the root named `name` selected.
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` when there is no such root.
  public func selecting(root name: String) throws(ImportError) -> ImportMapping {
    guard let root = roots[name] else {
      throw .invalidMapping(
        "mapping \(self.name) has no root \"\(name)\" (roots: \(roots.keys.sorted().joined(separator: ", ")))")
    }
    var copy = self
    switch root {
    case .entity(let entity):
      copy.rootEntity = entity
      copy.join = nil
    case .join(let join):
      copy.rootEntity = join.entity
      copy.join = join
    }
    return copy
  }

  /// The root whose name the file name ends with (`…Article.json` → `Article`; `_Join_tags_Article` matches
  /// `_Join:tags:Article`), the longest such name winning; `nil` when none does.
  public func root(matchingFileName fileName: String) -> String? {
    let base = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
    let normalized = base.replacingOccurrences(of: ":", with: "_")
    return roots.keys.filter { normalized.hasSuffix($0.replacingOccurrences(of: ":", with: "_")) }
      .max { $0.count < $1.count }
  }

  /// The mapping of entity `name`.
  public func entity(_ name: String) -> EntityMapping? { entities.first { $0.entity.name == name } }

  /// The entity descriptions the store needs for this mapping.
  public var entityDescriptions: [EntityDescription] { entities.map(\.entity) }
}

/// How to import one entity.
public struct EntityMapping: Sendable {
  /// The entity's schema (types, identity, relationships), created in the store if needed.
  public var entity: EntityDescription
  /// How each attribute is read; attributes without a mapping are read from the key of the same name (or its
  /// snake_case / PascalCase form).
  public var attributes: [String: AttributeMapping]
  /// Where each relationship is read from; default: the key of the same name (or its snake/Pascal form).
  public var relationships: [String: RelationshipMapping]
  /// Records to leave out, e.g. NewsAPI's `[Removed]` placeholders.
  public var skip: [SkipRule]
  /// When `true`, a key missing from a record means "clear it" (the record is the full representation);
  /// when `false` (default), a missing key leaves the stored value.
  public var fullRepresentation: Bool
  /// What to do with a value that cannot be converted: skip the record (default) or keep the stored value.
  public var onInvalidValue: InvalidValuePolicy
  /// Values set on every record: a literal, or `$importTime` / `$source`.
  public var constants: [String: Constant]
  /// For the built-in `article`: how its key is derived (``ArticleKeyRule``); `nil` for the `url` attribute's
  /// canonical form.
  public var articleKey: ArticleKeyRule?

  public init(
    entity: EntityDescription, attributes: [String: AttributeMapping] = [:],
    relationships: [String: RelationshipMapping] = [:], skip: [SkipRule] = [], fullRepresentation: Bool = false,
    onInvalidValue: InvalidValuePolicy = .skipRecord, constants: [String: Constant] = [:],
    articleKey: ArticleKeyRule? = nil
  ) {
    self.articleKey = articleKey
    self.entity = entity
    self.attributes = attributes
    self.relationships = relationships
    self.skip = skip
    self.fullRepresentation = fullRepresentation
    self.onInvalidValue = onInvalidValue
    self.constants = constants
  }
}

/// How one attribute is read.
public struct AttributeMapping: Sendable, Hashable {
  /// The key path in the record; `nil` for the attribute's own name (or its snake_case / PascalCase form).
  public var keyPath: KeyPath?
  /// Text transforms applied in order before conversion.
  public var transforms: [ValueTransform]
  /// For `date` attributes given as numbers: Unix time in seconds or milliseconds. Text dates are RFC 3339.
  public var unixTime: UnixTime?
  /// For `date` attributes given without an offset: the offset to assume, in seconds east of UTC.
  public var assumedOffset: Int?

  public init(
    keyPath: KeyPath? = nil, transforms: [ValueTransform] = [], unixTime: UnixTime? = nil, assumedOffset: Int? = nil
  ) {
    self.keyPath = keyPath
    self.transforms = transforms
    self.unixTime = unixTime
    self.assumedOffset = assumedOffset
  }
}

public enum UnixTime: String, Sendable, Hashable {
  case seconds, milliseconds
}

public enum ValueTransform: String, Sendable, Hashable {
  /// Remove leading and trailing whitespace.
  case trim
  /// `""` (after other transforms) becomes `null`.
  case emptyIsNull
  /// Decode HTML character references once (`&#x27;` → `'`).
  case decodeHTMLEntities
  case lowercase
}

public enum InvalidValuePolicy: String, Sendable, Hashable {
  case skipRecord, keepOldValue
}

/// A value set on every record by the mapping.
public enum Constant: Sendable, Hashable {
  case value(JSONValue)
  /// When the import ran (a `date`).
  case importTime
  /// The import's source (the file path or URL), as text.
  case source
}

/// How one relationship is read.
public struct RelationshipMapping: Sendable, Hashable {
  public var keyPath: KeyPath?
  /// For to-many: `replace` the stored list (default), or `add` to it.
  public var mode: ToManyMode

  public init(keyPath: KeyPath? = nil, mode: ToManyMode = .replace) {
    self.keyPath = keyPath
    self.mode = mode
  }
}

public enum ToManyMode: String, Sendable, Hashable {
  case replace, add
}

/// Leave out records whose value at `keyPath` equals `equals`.
public struct SkipRule: Sendable, Hashable {
  public var keyPath: KeyPath
  public var equals: JSONValue

  public init(keyPath: KeyPath, equals: JSONValue) {
    self.keyPath = keyPath
    self.equals = equals
  }
}

/// A named root of a mapping: the entity its records become, or a join.
public enum MappingRoot: Sendable, Hashable {
  case entity(String)
  case join(JoinMapping)
}

/// A join export: each record links `owner` (an identity of `entity`) to `target` through `relationship`.
public struct JoinMapping: Sendable, Hashable {
  public var entity: String
  public var relationship: String
  public var owner: KeyPath
  public var target: KeyPath

  public init(entity: String, relationship: String, owner: KeyPath, target: KeyPath) {
    self.entity = entity
    self.relationship = relationship
    self.owner = owner
    self.target = target
  }
}

/// How a mapping derives the key of a built-in `article` record (``ArticleIdentity``): the canonical form of the
/// link at ``link``; else the identifier at ``id`` scoped to ``scope``. In a mapping file:
/// `"key": {"link": "url", "id": "id", "scope": "$source"}` (JSON Feed: an item's `id` is unique within its feed) or
/// `"key": {"id": "objectId", "scope": "parse:Article"}` (Parse objects have no link).
public struct ArticleKeyRule: Sendable, Hashable {
  /// Where the item's link is; `nil` when the source has none.
  public var link: KeyPath?
  /// Where the item's own identifier is; `nil` when it has none.
  public var id: KeyPath?
  /// What the identifier is unique within: a fixed text (`parse:Article`), or `nil` for the payload's source (the
  /// feed's URL or the file's path, `$source` in a mapping file).
  public var scope: String?

  /// Creates a rule.
  public init(link: KeyPath? = nil, id: KeyPath? = nil, scope: String? = nil) {
    self.link = link
    self.id = id
    self.scope = scope
  }
}
