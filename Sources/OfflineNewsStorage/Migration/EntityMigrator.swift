import Foundation

/// Creates and extends the tables of declared entities: a lightweight migration, run at open after the numbered
/// ones, in one transaction.
///
/// What it does on its own: create a missing entity's table, join tables and indexes; add an attribute (optional,
/// or with a default), a to-one reference, a to-many join table or an index declared since. What it refuses, so
/// that nothing is lost silently: a changed attribute type, a removed attribute or a changed identity — those need
/// a numbered migration. Each entity's description is recorded in `schema_entity`; when it is unchanged, nothing is
/// written.
struct EntityMigrator {
  var entities: [EntityDescription]

  func reconcile(_ db: Connection) throws {
    let recorded = try db.makeStatement("SELECT name, definition FROM schema_entity").fetchAll { row in
      (row.string(0) ?? "", row.string(1) ?? "")
    }
    let recordedByName = Dictionary(recorded, uniquingKeysWith: { first, _ in first })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var pending: [(EntityDescription, String)] = []
    for var entity in entities {
      // The built-in article keeps the extensions mappings gave it (recorded), whoever opens the store now.
      if entity.name == EntityDescription.article.name, let text = recordedByName[entity.name],
        let previous = try? JSONDecoder().decode(EntityDescription.self, from: Data(text.utf8))
      {
        entity = entity.extended(with: previous)
      }
      let definition = String(decoding: try encoder.encode(entity), as: UTF8.self)
      guard let recorded = recordedByName[entity.name] else {
        pending.append((entity, definition))
        continue
      }
      guard recorded != definition else { continue }
      // A type change that keeps the SQLite column type (integer → bool, text → json, url → text) is still a change
      // of meaning for the stored values: it needs a numbered migration, like any other type change.
      if let previous = try? JSONDecoder().decode(EntityDescription.self, from: Data(recorded.utf8)) {
        for attribute in entity.attributes {
          if let before = previous.attribute(attribute.name), before.type != attribute.type {
            throw StorageError(
              kind: .incompatibleSchema(
                "entity \(entity.name): attribute \(attribute.name) was \(before.type.rawValue), now \(attribute.type.rawValue); write a numbered migration"
              ), path: db.path)
          }
        }
      }
      pending.append((entity, definition))
    }
    guard !pending.isEmpty else { return }
    try db.inTransaction {
      for (entity, definition) in pending {
        try reconcile(entity, db)
        try db.execute(
          "INSERT INTO schema_entity (name, definition) VALUES (?1, ?2) "
            + "ON CONFLICT(name) DO UPDATE SET definition = excluded.definition",
          [.text(entity.name), .text(definition)])
      }
    }
  }

  private func reconcile(_ entity: EntityDescription, _ db: Connection) throws {
    let q = EntityDescription.quote
    let columns = try db.makeStatement("SELECT name, type, pk FROM pragma_table_info(?1)").fetchAll(
      [.text(entity.name)]
    ) { row in (name: row.string(0) ?? "", type: (row.string(1) ?? "").uppercased(), pk: row.int64(2) ?? 0) }
    if columns.isEmpty {
      for statement in entity.createStatements { try db.execute(sql: statement) }
      return
    }
    func refuse(_ problem: String) -> StorageError {
      StorageError(
        kind: .incompatibleSchema("entity \(entity.name): \(problem); write a numbered migration"), path: db.path)
    }
    var identity = columns.filter { $0.pk > 0 }.sorted { $0.pk < $1.pk }.map(\.name)
    if identity.isEmpty, try Self.hasUniqueIndex(on: entity.identity, of: entity.name, db) {
      // The table's key is a unique index instead of its primary key (`article`, migration 12).
      identity = entity.identity
    }
    guard identity == entity.identity else {
      throw refuse(
        "identity is (\(identity.joined(separator: ", "))) in the database, (\(entity.identity.joined(separator: ", "))) declared"
      )
    }
    let existing = Dictionary(columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
    for attribute in entity.attributes {
      if let type = existing[attribute.name] {
        guard type == attribute.type.sqlType else {
          throw refuse("attribute \(attribute.name) is \(type) in the database, \(attribute.type.sqlType) declared")
        }
      } else {
        guard attribute.isOptional || attribute.defaultValue != nil else {
          throw refuse("new attribute \(attribute.name) must be optional or have a default")
        }
        try db.execute(sql: "ALTER TABLE \(q(entity.name)) ADD COLUMN \(EntityDescription.columnDefinition(attribute))")
      }
    }
    for relationship in entity.relationships {
      switch relationship.kind {
      case .toOne where existing[relationship.name] == nil:
        try db.execute(sql: "ALTER TABLE \(q(entity.name)) ADD COLUMN \(q(relationship.name))")
        try db.execute(
          sql: "CREATE INDEX IF NOT EXISTS \(q("\(entity.name)_by_\(relationship.name)")) "
            + "ON \(q(entity.name))(\(q(relationship.name)))")
      case .toMany:
        let table = relationship.joinTable(of: entity.name)
        let exists = try db.makeStatement("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1").fetchOne(
          [.text(table)]
        ) { _ in true }
        if exists == nil {
          for statement in EntityDescription.joinTableStatements(table, ordered: relationship.isOrdered) {
            try db.execute(sql: statement)
          }
        }
      default: break
      }
    }
    let declared = Set(entity.columns)
    for column in columns where !declared.contains(column.name) {
      throw refuse("column \(column.name) is in the database but not declared (removing needs a migration)")
    }
    for index in entity.indexes {
      let sql = entity.createIndexStatement(index).replacingOccurrences(of: "INDEX ", with: "INDEX IF NOT EXISTS ")
      try db.execute(sql: sql)
    }
  }

  /// Whether `table` has a unique index, not partial, on exactly `columns` in that order: an identity (SQLite
  /// enforces it as it does a primary key, <https://www.sqlite.org/lang_createindex.html#unique_indexes>).
  private static func hasUniqueIndex(on columns: [String], of table: String, _ db: Connection) throws -> Bool {
    let indexes = try db.makeStatement(
      "SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1 AND partial = 0"
    ).fetchAll([.text(table)]) { $0.string(0) ?? "" }
    for index in indexes {
      let indexed = try db.makeStatement("SELECT name FROM pragma_index_info(?1) ORDER BY seqno").fetchAll(
        [.text(index)]
      ) { $0.string(0) ?? "" }
      if indexed == columns { return true }
    }
    return false
  }
}
