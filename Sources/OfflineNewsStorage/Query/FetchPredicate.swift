/// A condition on the rows of an entity, built from attribute names and values — never from SQL text.
///
/// Values are bound as statement parameters; attribute names are checked against the entity before any SQL is
/// built, so no user text can become SQL.
///
/// For example:
/// ```swift
/// let recent: FetchPredicate = .attribute("publishedAt") >= Date().addingTimeInterval(-86_400)
///   && .attribute("sourceName").in(["BBC News", "Reuters"])
///   && !.attribute("title").contains("[Removed]")
/// ```
public indirect enum FetchPredicate: Sendable, Hashable {
  public enum Comparison: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
  }

  /// `attribute <op> value`. Comparing with `.null` is never true (SQL); use ``isNull(_:)``.
  case compare(String, Comparison, DatabaseValue)
  /// `attribute IN (values…)`; false for an empty list.
  case isIn(String, [DatabaseValue])
  /// SQL `LIKE` with a pattern (`%` any run, `_` one character, `\` escapes them); ASCII case-insensitive.
  case like(String, String)
  /// The attribute's text contains `text` (ASCII case-insensitive), with no wildcards.
  case contains(String, String)
  case isNull(String)
  case isNotNull(String)
  case and([FetchPredicate])
  case or([FetchPredicate])
  case not(FetchPredicate)

  /// The start of a condition on an attribute: `.attribute("title") == "x"`.
  public static func attribute(_ name: String) -> AttributeReference { AttributeReference(name: name) }

  public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and([lhs, rhs]) }
  public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or([lhs, rhs]) }
  public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}

/// An attribute named in a predicate or a sort descriptor.
public struct AttributeReference: Sendable, Hashable {
  public var name: String

  public init(name: String) { self.name = name }

  /// Lets `.attribute("isRead") == false` read naturally where a `FetchPredicate` is expected.
  public static func attribute(_ name: String) -> AttributeReference { AttributeReference(name: name) }

  public static func == (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .equal, rhs.databaseValue)
  }
  public static func != (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .notEqual, rhs.databaseValue)
  }
  public static func < (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .less, rhs.databaseValue)
  }
  public static func <= (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .lessOrEqual, rhs.databaseValue)
  }
  public static func > (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .greater, rhs.databaseValue)
  }
  public static func >= (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .greaterOrEqual, rhs.databaseValue)
  }
  public func `in`(_ values: [some DatabaseValueConvertible]) -> FetchPredicate {
    .isIn(name, values.map(\.databaseValue))
  }
  public func contains(_ text: String) -> FetchPredicate { .contains(name, text) }
  public func like(_ pattern: String) -> FetchPredicate { .like(name, pattern) }
  public var isNull: FetchPredicate { .isNull(name) }
  public var isNotNull: FetchPredicate { .isNotNull(name) }
  public var ascending: SortDescriptor { SortDescriptor(name, ascending: true) }
  public var descending: SortDescriptor { SortDescriptor(name, ascending: false) }
}

/// An order for fetched rows: an attribute, ascending or descending. NULLs sort first ascending (SQLite's rule).
public struct SortDescriptor: Sendable, Hashable {
  public var attribute: String
  public var ascending: Bool

  public init(_ attribute: String, ascending: Bool = true) {
    self.attribute = attribute
    self.ascending = ascending
  }
}

/// What to fetch, count or batch delete: an entity, a predicate, an order and a window.
///
/// For example:
/// ```swift
/// let request = FetchRequest(entity: "article", predicate: .attribute("isRead") == false,
///                            sortDescriptors: [.init("publishedAt", ascending: false)], limit: 20)
/// let rows = try await storage.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
  public var entity: String
  public var predicate: FetchPredicate?
  public var sortDescriptors: [SortDescriptor]
  public var limit: Int?
  public var offset: Int

  public init(
    entity: String, predicate: FetchPredicate? = nil, sortDescriptors: [SortDescriptor] = [], limit: Int? = nil,
    offset: Int = 0
  ) {
    self.entity = entity
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
    self.limit = limit
    self.offset = offset
  }
}
