extension EntityDescription {
  /// Checks names and references; returns the first problem found, or `nil`.
  package func validationProblem() -> String? {
    let toMany = relationships.filter { $0.kind == .toMany }
    for name in [name] + columns + indexes.map(\.name) + toMany.map(\.name)
      + toMany.map({ $0.joinTable(of: self.name) })
    where !Self.isIdentifier(name) {
      return "entity \(self.name): \"\(name)\" is not a valid name (letters, digits and _, not starting with a digit)"
    }
    if identity.isEmpty { return "entity \(name): no identity attribute" }
    for key in identity where attribute(key) == nil {
      return "entity \(name): identity \"\(key)\" is not an attribute"
    }
    let names = columns + toMany.map(\.name)
    if Set(names).count != names.count { return "entity \(name): two attributes or relationships share a name" }
    for index in indexes {
      for column in index.attributes where !isColumn(column) {
        return "entity \(name): index \(index.name) names \"\(column)\", which is not an attribute"
      }
    }
    for attribute in attributes
    where !attribute.isOptional && attribute.defaultValue == nil
      && attribute.isLocalOnly
    {
      return "entity \(name): local-only attribute \(attribute.name) must be optional or have a default"
    }
    return nil
  }

  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, !text.lowercased().hasPrefix("sqlite_") else { return false }
    let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
    return letters.unicodeScalars.contains(first)
      && text.unicodeScalars.allSatisfy { letters.unicodeScalars.contains($0) || ("0"..."9").contains($0) }
  }

  /// `"name"`: an identifier quoted for SQL. Names are validated before they get here.
  static func quote(_ identifier: String) -> String { "\"\(identifier)\"" }

  /// The column definition of an attribute.
  static func columnDefinition(_ attribute: Attribute) -> String {
    var sql = "\(quote(attribute.name)) \(attribute.type.sqlType)"
    if !attribute.isOptional { sql += " NOT NULL" }
    if let value = attribute.defaultValue { sql += " DEFAULT \(literal(value))" }
    switch attribute.type {
    case .bool: sql += " CHECK (\(quote(attribute.name)) IN (0, 1))"
    // json_valid(NULL) is 0, not NULL: an absent value must be allowed explicitly.
    case .json: sql += " CHECK (\(quote(attribute.name)) IS NULL OR json_valid(\(quote(attribute.name))))"
    default: break
    }
    return sql
  }

  /// A SQL literal for a default value (numbers as written, text and blobs escaped).
  static func literal(_ value: DatabaseValue) -> String {
    switch value {
    case .null: return "NULL"
    case .integer(let v): return String(v)
    case .real(let v): return "\(v)"
    case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let v):
      let hex = "0123456789ABCDEF".map { $0 }
      return "X'" + String(v.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }) + "'"
    }
  }

  /// `CREATE TABLE` for the entity, its join tables and its indexes.
  var createStatements: [String] {
    let q = Self.quote
    var definitions = attributes.map(Self.columnDefinition)
    definitions += relationships.filter { $0.kind == .toOne }.map { q($0.name) }
    definitions.append("PRIMARY KEY (\(identity.map(q).joined(separator: ", ")))")
    var statements = ["CREATE TABLE \(q(name)) (\n  \(definitions.joined(separator: ",\n  "))\n)"]
    for relationship in relationships {
      switch relationship.kind {
      case .toOne:
        statements.append("CREATE INDEX \(q("\(name)_by_\(relationship.name)")) ON \(q(name))(\(q(relationship.name)))")
      case .toMany:
        statements += Self.joinTableStatements(relationship.joinTable(of: name), ordered: relationship.isOrdered)
      }
    }
    statements += indexes.map(createIndexStatement)
    return statements
  }

  static func joinTableStatements(_ table: String, ordered: Bool) -> [String] {
    let position = ordered ? ", position INTEGER NOT NULL" : ""
    return [
      "CREATE TABLE \(quote(table)) (owner NOT NULL, target NOT NULL\(position), PRIMARY KEY (owner, target)) WITHOUT ROWID",
      "CREATE INDEX \(quote("\(table)_by_target")) ON \(quote(table))(target)",
    ]
  }

  func createIndexStatement(_ index: EntityIndex) -> String {
    let q = Self.quote
    return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(q(index.name)) ON \(q(name))"
      + "(\(index.attributes.map(q).joined(separator: ", ")))"
  }
}
