import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// A declarative mapping from an API's JSON to entities of the store: where the records are, which entity they
/// become, and how each attribute and relationship is read. Loaded from a mapping file (`Config/mappings/*.json`,
/// documented in `docs/MAPPING.md`) or built in Swift.
public struct ImportMapping: Sendable {
  /// The mapping's name, e.g. `newsapi`.
  public var name: String
  /// Where the records are: `articles`, `results`, `items`; empty for the top-level value.
  package var records: JSONPath
  /// What is at ``records``: an array of objects (default), an array of identifiers, or one object.
  package var recordShape: RecordShape = .objects
  /// The entity each record of ``records`` becomes (the default entity when ``entityBy`` is set).
  package var rootEntity: String
  /// Picks each record's entity from one of its values (`type`: `story` → `hn_story`), instead of ``rootEntity``.
  package var entityBy: EntitySelector?
  /// How to import each entity the mapping touches (the root and the destinations of relationships).
  package var entities: [EntityMapping]
  /// For join exports (Parse `_Join:<field>:<Class>`): each record adds one target to a to-many relationship.
  package var join: JoinMapping?
  /// Named roots, for a mapping that covers several exports (one per Parse class): name → entity or join. Choose
  /// one with ``selecting(root:)``.
  package var roots: [String: MappingRoot] = [:]
  /// The UTC offset (seconds east of UTC) of every date-time without one, in every `date` attribute that does not
  /// declare its own; each value read this way is reported as a warning. `nil`: such text is not a date.
  package var assumedOffset: Int?

  package init(
    name: String, records: JSONPath, rootEntity: String, entities: [EntityMapping], join: JoinMapping? = nil
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
  package func root(matchingFileName fileName: String) -> String? {
    let base = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
    let normalized = base.replacingOccurrences(of: ":", with: "_")
    return roots.keys.filter { normalized.hasSuffix($0.replacingOccurrences(of: ":", with: "_")) }
      .max { $0.count < $1.count }
  }

  /// The mapping of entity `name`.
  package func entity(_ name: String) -> EntityMapping? { entities.first { $0.entity.name == name } }

  /// The entity descriptions the store needs for this mapping.
  public var entityDescriptions: [EntityDescription] { entities.map(\.entity) }

  /// The entities root records can become: ``rootEntity``, or every entity ``entityBy`` names.
  package var rootEntities: [String] {
    if let join { return [join.entity] }
    guard let entityBy else { return [rootEntity] }
    var names = Set(entityBy.map.values)
    if let fallback = entityBy.fallback { names.insert(fallback) }
    return names.sorted()
  }
}

/// What a mapping's ``ImportMapping/records`` holds.
package enum RecordShape: String, Sendable, Hashable {
  /// An array of objects, one record each.
  case objects
  /// An array of identifiers (text or numbers): one row each, with its identity and the mapping's `set` values.
  case identifiers
  /// One object: the document (or the value at the key path) is one record.
  case single
}

/// Chooses a record's entity by one of its values: `{"keyPath": "type", "map": {"story": "hn_story"}}`.
package struct EntitySelector: Sendable, Hashable {
  /// Where the value is in each record.
  package var keyPath: JSONPath
  /// Value (as text) → entity name.
  package var map: [String: String]
  /// The entity of records whose value is not in ``map``; `nil`: such records are skipped, with a warning.
  package var fallback: String?
}

/// How to import one entity.
package struct EntityMapping: Sendable {
  /// The entity's schema (types, identity, relationships), created in the store if needed.
  package var entity: EntityDescription
  /// How each attribute is read; attributes without a mapping are read from the key of the same name (or its
  /// PascalCase or snake_case form).
  package var attributes: [String: AttributeMapping]
  /// Where each relationship is read from; default: the key of the same name (or its PascalCase / snake_case form).
  package var relationships: [String: RelationshipMapping]
  /// Records to leave out, e.g. NewsAPI's `[Removed]` placeholders.
  package var skip: [SkipRule]
  /// When `true`, a key missing from a record means "clear it" (the record is the full representation);
  /// when `false` (default), a missing key leaves the stored value.
  package var fullRepresentation: Bool
  /// What a value that cannot be converted costs: that value alone (`keepOldValue`, the default: a new row goes
  /// without it, an existing row keeps what it had, and a warning is reported) or the whole record (`skipRecord`).
  /// An identity, or a required attribute without a default, that cannot be read always skips the record.
  package var onInvalidValue: InvalidValuePolicy
  /// Values set on every record: a literal, or `$importTime` / `$source`.
  package var constants: [String: Constant]
  /// Per identity attribute, the attributes tried after it, in order, when it is missing or cannot be an
  /// identifier: `["id": ["url"]]` identifies a JSON Feed item without `id` by its `url` (as that attribute reads it).
  package var identityCandidates: [String: [String]]
  /// `true` for value rows with no identity of their own, owned by their parent: reached only through a to-many
  /// relationship, identified by their owner and position (``EntityMapping/ownedKey``), replaced with the parent's
  /// list and deleted when they leave it.
  package var isOwned: Bool

  /// For the built-in `article`: how its key is derived (``ArticleKeyRule``); `nil` for the `url` attribute's
  /// canonical form.
  package var articleKey: ArticleKeyRule?

  /// The identity attribute the store gives an owned entity's rows: `owner-entity:owner-identity/relationship/index`.
  package static let ownedKey = "_key"
}

/// How one attribute is read.
package struct AttributeMapping: Sendable, Hashable {
  /// The key paths tried in order, the first present one winning (`["UserId", "User"]`); empty for the attribute's
  /// own name, or its PascalCase or snake_case form.
  package var keyPaths: [JSONPath] = []
  /// Text transforms applied in order before conversion.
  package var transforms: [ValueTransform] = []
  /// For `date` attributes given as numbers (or numeric text): the unit of the Unix time.
  package var unixTime: UnixTime?
  /// For `date` attributes given without an offset: the offset to assume, in seconds east of UTC. Overrides the
  /// mapping's ``ImportMapping/assumedOffset`` and is not reported.
  package var assumedOffset: Int?
  /// For `date` attributes in a pattern other than ISO 8601: the pattern and its time zone.
  package var dateFormat: DateFormat?
  /// For `url` attributes (and the built-in article's `url`): where to find the base a relative reference is
  /// resolved against (RFC 3986 §5), tried in order.
  package var baseURL: [BaseURLSource] = []
}

/// The unit of a Unix time (time since 1970-01-01T00:00:00Z, leap seconds not counted).
package enum UnixTime: String, Sendable, Hashable, CaseIterable {
  case seconds, milliseconds, microseconds, nanoseconds
}

/// A date pattern in the Unicode Technical Standard #35 syntax (`M/d/yyyy H-mm-ss`,
/// <https://unicode.org/reports/tr35/tr35-dates.html#Date_Field_Symbol_Table>), read with the `en_US_POSIX`
/// locale, and the time zone of values whose pattern has no zone field.
package struct DateFormat: Sendable, Hashable {
  package var pattern: String
  /// An IANA time zone name (`Europe/Berlin`, `UTC`); `nil` when the pattern has a zone field.
  package var timeZone: String?
}

/// Where a base URL comes from.
package enum BaseURLSource: Sendable, Hashable {
  /// A key path from the top of the document: `home_page_url`.
  case document(JSONPath)
  /// The import's source, when it is an `http` or `https` URL (RFC 3986 §5.1.3, the retrieval URI).
  case source
}

package enum ValueTransform: String, Sendable, Hashable, CaseIterable {
  /// Remove leading and trailing whitespace.
  case trim
  /// `""` (after other transforms) becomes `null`.
  case emptyIsNull
  /// Text with nothing but white space (after other transforms; `""` included) becomes `null`; other text is kept
  /// as it is, untrimmed: what the NewsAPI decoder does with its text fields.
  case blankIsNull
  /// Decode HTML character references once (`&#x27;` → `'`).
  case decodeHTMLEntities
  case lowercase
}

package enum InvalidValuePolicy: String, Sendable, Hashable, CaseIterable {
  case skipRecord, keepOldValue
}

/// A value set on every record by the mapping.
package enum Constant: Sendable, Hashable {
  case value(JSONValue)
  /// When the import ran (a `date`).
  case importTime
  /// The import's source (the file path or URL), as text.
  case source
  /// A value of the document itself, at a key path from its top (`$document.title`: a JSON Feed's title as each
  /// item's publisher); absent or `null` there sets nothing.
  case document(JSONPath)
}

/// How one relationship is read.
package struct RelationshipMapping: Sendable, Hashable {
  /// The key paths tried in order, the first present one winning; empty for the relationship's own name (or its
  /// PascalCase / snake_case form).
  package var keyPaths: [JSONPath] = []
  /// For to-many: `replace` the stored list (default), or `add` to it.
  package var mode: ToManyMode = .replace
  /// For to-many: delete the children that left the list (and that no other owner lists), so that the store holds
  /// what the payload holds. Always on for a relationship to an owned entity.
  package var deleteOrphans = false
}

package enum ToManyMode: String, Sendable, Hashable, CaseIterable {
  case replace, add
}

/// Leave out records whose value at `keyPath` equals `equals`.
package struct SkipRule: Sendable, Hashable {
  package var keyPath: JSONPath
  package var equals: JSONValue
}

/// A named root of a mapping: the entity its records become, or a join.
package enum MappingRoot: Sendable, Hashable {
  case entity(String)
  case join(JoinMapping)
}

/// A join export: each record links `owner` (an identity of `entity`) to `target` through `relationship`.
package struct JoinMapping: Sendable, Hashable {
  package var entity: String
  package var relationship: String
  package var owner: JSONPath
  package var target: JSONPath
}

/// How a mapping derives the key of a built-in `article` record (``ArticleIdentity``): the canonical form of the
/// first absolute `http(s)` link found at ``link``; else the first identifier found at ``id``, scoped to ``scope``.
/// In a mapping file: `"key": {"link": "url", "id": "id", "scope": "$source"}` (JSON Feed: an item's `id` is unique
/// only within its feed) or `"key": {"id": "objectId", "scope": "parse:Article"}` (Parse objects have no link). A
/// relative link is resolved against the `url` attribute's `baseURL` when it has one.
package struct ArticleKeyRule: Sendable, Hashable {
  /// Where the item's link may be, tried in order; empty when the source has none.
  package var link: [JSONPath] = []
  /// Where the item's own identifier may be, tried in order; empty when it has none.
  package var id: [JSONPath] = []
  /// What the identifier is unique within: a fixed text (`parse:Article`), or `nil` for the payload's source (the
  /// feed's URL or the file's path, `$source` in a mapping file).
  package var scope: String?
  /// Where the scope is read instead, tried in order: the first absolute `http(s)` URL among these key paths of the
  /// document (a feed's `home_page_url`, `feed_url`), in canonical form, else the payload's source; empty for
  /// ``scope``. A feed's items are then one article whether the feed was read from a file or from its URL
  /// (`ArticleIdentity.feedScope(homePage:origin:)`). In a mapping file: `"scope": ["home_page_url", "feed_url",
  /// "$source"]`.
  package var scopeFrom: [BaseURLSource] = []
  /// The item's own page on its site, for an item keyed by its identifier (no link of its own): a URL with `{id}`
  /// where the identifier goes (percent-encoded), stored as the article's link so that it can be opened and shown —
  /// a Hacker News "Ask HN" item's discussion, `https://news.ycombinator.com/item?id={id}`, as HN's own RSS feed
  /// links it. The key stays the scoped identifier. `nil`: such an item has no link. In a mapping file: `"page":
  /// "https://news.ycombinator.com/item?id={id}"`.
  package var page: String?

  /// The page of the item whose identifier is `id` (``page`` with `{id}` filled in), when the rule has one and it
  /// makes an absolute http(s) URL.
  package func page(ofID id: String) -> String? {
    guard let page else { return nil }
    let encoded = id.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+", "#"]))
    let text = page.replacingOccurrences(of: "{id}", with: encoded ?? id)
    guard let url = URL(string: text), url.isWebURL else { return nil }
    return text
  }
}
