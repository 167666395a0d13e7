/// Turns fetch requests into SQL with bound arguments, checking every attribute name against the entity.
struct SQLCompiler {
  let entity: EntityDescription
  /// The database file, which every error names.
  let path: String

  /// What an unknown entity or attribute error says of a mapping's.
  static let mappingHint =
    "a mapping's entities and attributes are there once it has imported into this store, or when the store is "
    + "opened with them: StorageContext(path:entities: mapping.entityDescriptions)"

  struct Fragment: Sendable {
    var sql: String
    var arguments: [DatabaseValue]
  }

  func column(_ name: String) throws(StorageError) -> String {
    guard entity.isColumn(name) else {
      let known = entity.columns.joined(separator: ", ")
      throw StorageError(
        kind: .invalidRequest(
          "entity \(entity.name) has no attribute \"\(name)\" (its attributes: \(known); \(Self.mappingHint))"),
        path: path)
    }
    return EntityDescription.quote(name)
  }

  func whereClause(_ predicate: FetchPredicate?) throws(StorageError) -> Fragment {
    guard let predicate else { return Fragment(sql: "", arguments: []) }
    let fragment = try compile(predicate)
    return Fragment(sql: " WHERE " + fragment.sql, arguments: fragment.arguments)
  }

  func compile(_ predicate: FetchPredicate) throws(StorageError) -> Fragment {
    switch predicate {
    case .compare(let name, let op, let value):
      return Fragment(sql: "\(try column(name)) \(op.rawValue) ?", arguments: [value])
    case .isIn(let name, let values):
      let column = try column(name)
      if values.isEmpty { return Fragment(sql: "0", arguments: []) }
      let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
      return Fragment(sql: "\(column) IN (\(marks))", arguments: values)
    case .like(let name, let pattern):
      return Fragment(sql: "\(try column(name)) LIKE ? ESCAPE '\\'", arguments: [.text(pattern)])
    case .contains(let name, let text):
      let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
        .replacingOccurrences(of: "_", with: "\\_")
      return Fragment(sql: "\(try column(name)) LIKE ? ESCAPE '\\'", arguments: [.text("%\(escaped)%")])
    case .isNull(let name):
      return Fragment(sql: "\(try column(name)) IS NULL", arguments: [])
    case .isNotNull(let name):
      return Fragment(sql: "\(try column(name)) IS NOT NULL", arguments: [])
    case .and(let parts), .or(let parts):
      if parts.isEmpty {
        if case .and = predicate { return Fragment(sql: "1", arguments: []) }
        return Fragment(sql: "0", arguments: [])
      }
      let joiner: String
      if case .and = predicate { joiner = " AND " } else { joiner = " OR " }
      var sql: [String] = []
      var arguments: [DatabaseValue] = []
      for part in parts {
        let fragment = try compile(part)
        sql.append("(\(fragment.sql))")
        arguments += fragment.arguments
      }
      return Fragment(sql: sql.joined(separator: joiner), arguments: arguments)
    case .not(let inner):
      let fragment = try compile(inner)
      return Fragment(sql: "NOT (\(fragment.sql))", arguments: fragment.arguments)
    }
  }

  func orderClause(_ sorts: [SortDescriptor]) throws(StorageError) -> String {
    if sorts.isEmpty { return "" }
    var terms: [String] = []
    for sort in sorts { terms.append("\(try column(sort.attribute)) \(sort.ascending ? "ASC" : "DESC")") }
    return " ORDER BY " + terms.joined(separator: ", ")
  }

  func select(_ request: FetchRequest) throws(StorageError) -> Fragment {
    let q = EntityDescription.quote
    var fragment = try whereClause(request.predicate)
    fragment.sql =
      "SELECT \(entity.columns.map(q).joined(separator: ", ")) FROM \(q(entity.name))" + fragment.sql
      + (try orderClause(request.sortDescriptors)) + " LIMIT ? OFFSET ?"
    fragment.arguments += [.integer(Int64(request.limit ?? -1)), .integer(Int64(max(0, request.offset)))]
    return fragment
  }

  func count(_ request: FetchRequest) throws(StorageError) -> Fragment {
    var fragment = try whereClause(request.predicate)
    fragment.sql = "SELECT count(*) FROM \(EntityDescription.quote(entity.name))" + fragment.sql
    return fragment
  }

  func identityColumns() -> String { entity.identity.map(EntityDescription.quote).joined(separator: ", ") }
}
