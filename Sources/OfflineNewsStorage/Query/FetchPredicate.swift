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
  /// How ``compare(_:_:_:)`` compares an attribute with a value (SQL comparison operators; text compares by code point).
  public enum Comparison: String, Sendable, Hashable {
    /// `=`.
    case equal = "="
    /// `<>`.
    case notEqual = "<>"
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
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
  /// The attribute is `NULL` (missing).
  case isNull(String)
  /// The attribute is not `NULL`.
  case isNotNull(String)
  /// Every predicate holds (true for an empty list).
  case and([FetchPredicate])
  /// At least one predicate holds (false for an empty list).
  case or([FetchPredicate])
  /// The predicate does not hold.
  case not(FetchPredicate)

  /// The start of a condition on an attribute: `.attribute("title") == "x"`.
  public static func attribute(_ name: String) -> AttributeReference { AttributeReference(name: name) }

  /// Both hold.
  public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and([lhs, rhs]) }
  /// Either holds.
  public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or([lhs, rhs]) }
  /// It does not hold.
  public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}

/// An attribute named in a predicate or a sort descriptor.
public struct AttributeReference: Sendable, Hashable {
  /// The attribute's name, checked against the entity when the request runs.
  package var name: String

  /// A reference to the attribute `name`.
  package init(name: String) { self.name = name }

  /// Lets `.attribute("isRead") == false` read naturally where a `FetchPredicate` is expected.
  public static func attribute(_ name: String) -> AttributeReference { AttributeReference(name: name) }

  /// `attribute = value`; a `Date` compares as milliseconds since 1970 UTC.
  public static func == (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .equal, rhs.databaseValue)
  }
  /// `attribute <> value`.
  public static func != (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .notEqual, rhs.databaseValue)
  }
  /// `attribute < value`.
  public static func < (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .less, rhs.databaseValue)
  }
  /// `attribute <= value`.
  public static func <= (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .lessOrEqual, rhs.databaseValue)
  }
  /// `attribute > value`.
  public static func > (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .greater, rhs.databaseValue)
  }
  /// `attribute >= value`.
  public static func >= (lhs: Self, rhs: some DatabaseValueConvertible) -> FetchPredicate {
    .compare(lhs.name, .greaterOrEqual, rhs.databaseValue)
  }
  /// `attribute IN (values…)`; false for an empty list.
  public func `in`(_ values: [some DatabaseValueConvertible]) -> FetchPredicate {
    .isIn(name, values.map(\.databaseValue))
  }
  /// The text contains `text`, ASCII case-insensitive, no wildcards.
  public func contains(_ text: String) -> FetchPredicate { .contains(name, text) }
  /// SQL `LIKE` `pattern` (`%`, `_`, `\\` escapes), ASCII case-insensitive.
  public func like(_ pattern: String) -> FetchPredicate { .like(name, pattern) }
  /// The attribute is `NULL`.
  public var isNull: FetchPredicate { .isNull(name) }
  /// The attribute is not `NULL`.
  public var isNotNull: FetchPredicate { .isNotNull(name) }
  /// Sort by this attribute, smallest first.
  public var ascending: SortDescriptor { SortDescriptor(name, ascending: true) }
  /// Sort by this attribute, largest first.
  public var descending: SortDescriptor { SortDescriptor(name, ascending: false) }
}

/// An order for fetched rows: an attribute, ascending or descending. NULLs sort first ascending (SQLite's rule).
public struct SortDescriptor: Sendable, Hashable {
  /// The attribute sorted by.
  public var attribute: String
  /// Smallest first when `true`; largest first when `false`.
  public var ascending: Bool

  /// Sorts by `attribute`, ascending by default.
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
  /// The entity's name.
  public var entity: String
  /// Which rows; `nil` for all.
  public var predicate: FetchPredicate?
  /// The order, first descriptor first; rows that tie come in an unspecified order.
  public var sortDescriptors: [SortDescriptor]
  /// At most this many rows; `nil` for all.
  public var limit: Int?
  /// Rows skipped first.
  public var offset: Int

  /// A request for `entity`; by default every row, in no particular order.
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
