/// An attribute of an entity: a named, typed value stored in a column of the entity's table.
package struct Attribute: Sendable, Hashable, Codable {
  /// The attribute's name, also its column name: letters, digits and `_`, not starting with a digit.
  package var name: String
  package var type: AttributeType
  /// Whether the attribute may be NULL. Identity attributes never are.
  package var isOptional: Bool
  /// Local-only: kept on this device, never written by a save or an import from a source (read state,
  /// bookmarks). Only explicit local updates change it.
  package var isLocalOnly: Bool
  /// The value a new row gets when none is given (required for a non-optional attribute added to an existing
  /// entity).
  package var defaultValue: DatabaseValue?

  package init(
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
package struct Relationship: Sendable, Hashable, Codable {
  package enum Kind: String, Sendable, Hashable, Codable {
    case toOne, toMany
  }
  package var name: String
  /// The destination entity's name.
  package var destination: String
  package var kind: Kind
  /// For to-many: whether the order of the related rows is kept.
  package var isOrdered: Bool

  package init(_ name: String, to destination: String, _ kind: Kind, ordered: Bool = false) {
    self.name = name
    self.destination = destination
    self.kind = kind
    isOrdered = ordered
  }

  /// The join table of a to-many relationship of `entity`.
  package func joinTable(of entity: String) -> String { "\(entity)_\(name)" }
}

/// An index on one or more attributes, to make fetch requests that filter or sort on them fast.
package struct EntityIndex: Sendable, Hashable, Codable {
  package var name: String
  package var attributes: [String]
  package var isUnique: Bool

  package init(_ name: String, on attributes: [String], unique: Bool = false) {
    self.name = name
    self.attributes = attributes
    isUnique = unique
  }
}

/// An entity: a kind of record with typed attributes, an identity, indexes and relationships; one table.
///
/// Apps declare their entities the way the built-in `EntityDescription/article` is declared, and pass them to
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
  package var identity: [String]
  package var attributes: [Attribute]
  package var relationships: [Relationship]
  package var indexes: [EntityIndex]

  package init(
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
  package func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }

  /// The relationship named `name`, if any.
  package func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }

  /// The columns of the entity's table: its attributes, then one per to-one relationship.
  package var columns: [String] {
    attributes.map(\.name) + relationships.filter { $0.kind == .toOne }.map(\.name)
  }

  /// Whether `name` is a column that can be filtered and sorted on (an attribute or a to-one reference).
  package func isColumn(_ name: String) -> Bool { columns.contains(name) }
}
