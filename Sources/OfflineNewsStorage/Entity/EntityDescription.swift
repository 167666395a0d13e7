/// An attribute of an entity: a named, typed value stored in a column of the entity's table.
public struct Attribute: Sendable, Hashable, Codable {
  /// The attribute's name, also its column name: letters, digits and `_`, not starting with a digit.
  public var name: String
  public var type: AttributeType
  /// Whether the attribute may be NULL. Identity attributes never are.
  public var isOptional: Bool
  /// Local-only: kept on this device, never written by a save or an import from a source (read state,
  /// bookmarks). Only explicit local updates change it.
  public var isLocalOnly: Bool
  /// The value a new row gets when none is given (required for a non-optional attribute added to an existing
  /// entity).
  public var defaultValue: DatabaseValue?

  public init(
    _ name: String, _ type: AttributeType, optional: Bool = true, localOnly: Bool = false,
    default defaultValue: DatabaseValue? = nil
  ) {
    self.name = name
    self.type = type
    isOptional = optional
    isLocalOnly = localOnly
    self.defaultValue = defaultValue
  }
}

/// A relationship from one entity to another.
///
/// - A to-one relationship is stored as a reference: a column named after the relationship holding the
///   destination's identity (the destination must have a single-attribute identity).
/// - A to-many relationship (one-to-many or many-to-many) is stored in a join table
///   `<entity>_<relationship>(owner, target[, position])`, with `position` when it is ordered.
///
/// References are not foreign-key constraints: an identity may arrive before its object (the importer then creates
/// a placeholder row), and a reference to a row that is not there reads as that identity all the same.
public struct Relationship: Sendable, Hashable, Codable {
  public enum Kind: String, Sendable, Hashable, Codable {
    case toOne, toMany
  }
  public var name: String
  /// The destination entity's name.
  public var destination: String
  public var kind: Kind
  /// For to-many: whether the order of the related rows is kept.
  public var isOrdered: Bool

  public init(_ name: String, to destination: String, _ kind: Kind, ordered: Bool = false) {
    self.name = name
    self.destination = destination
    self.kind = kind
    isOrdered = ordered
  }

  /// The join table of a to-many relationship of `entity`.
  package func joinTable(of entity: String) -> String { "\(entity)_\(name)" }
}

/// An index on one or more attributes, to make fetch requests that filter or sort on them fast.
public struct EntityIndex: Sendable, Hashable, Codable {
  public var name: String
  public var attributes: [String]
  public var isUnique: Bool

  public init(_ name: String, on attributes: [String], unique: Bool = false) {
    self.name = name
    self.attributes = attributes
    isUnique = unique
  }
}

/// An entity: a kind of record with typed attributes, an identity, indexes and relationships; one table.
///
/// Apps declare their entities the way the built-in ``EntityDescription/article`` is declared, and pass them to
/// ``StorageContext/init(path:entities:eviction:readers:busyTimeout:)``, which creates their tables, join tables
/// and indexes, and adds attributes and indexes declared later (a lightweight migration). Changing an attribute's
/// type, removing one or changing the identity needs a numbered migration; such a change is refused at open.
///
/// For example:
/// ```swift
/// let author = EntityDescription(
///   name: "author", identity: ["objectId"],
///   attributes: [Attribute("objectId", .text), Attribute("name", .text), Attribute("createdAt", .date)],
///   relationships: [Relationship("articles", to: "post", .toMany, ordered: true)])
/// ```
public struct EntityDescription: Sendable, Hashable, Codable {
  /// The entity's name, also its table's name.
  public var name: String
  /// The identity (primary key): one attribute, or several for a composite identity.
  public var identity: [String]
  public var attributes: [Attribute]
  public var relationships: [Relationship]
  public var indexes: [EntityIndex]

  public init(
    name: String, identity: [String], attributes: [Attribute], relationships: [Relationship] = [],
    indexes: [EntityIndex] = []
  ) {
    self.name = name
    self.identity = identity
    self.attributes = attributes.map { attribute in
      var attribute = attribute
      if identity.contains(attribute.name) { attribute.isOptional = false }
      return attribute
    }
    self.relationships = relationships
    self.indexes = indexes
  }

  /// The attribute named `name`, if any.
  public func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }

  /// The relationship named `name`, if any.
  public func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }

  /// The columns of the entity's table: its attributes, then one per to-one relationship.
  package var columns: [String] {
    attributes.map(\.name) + relationships.filter { $0.kind == .toOne }.map(\.name)
  }

  /// Whether `name` is a column that can be filtered and sorted on (an attribute or a to-one reference).
  package func isColumn(_ name: String) -> Bool { columns.contains(name) }
}
