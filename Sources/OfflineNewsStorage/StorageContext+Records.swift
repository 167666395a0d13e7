import Foundation

extension StorageContext {
  /// Fetches the records of an entity that match a request, with their to-many relationships.
  ///
  /// For example:
  /// ```swift
  /// let unread = try await storage.fetch(FetchRequest(
  ///   entity: "article", predicate: .attribute("isRead") == false,
  ///   sortDescriptors: [FetchPredicate.attribute("publishedAt").descending], limit: 20))
  /// ```
  ///
  /// - Throws: ``StorageError`` `.invalidRequest` for an unknown entity or attribute (nothing is run), or a SQLite
  ///   failure.
  public func fetch(_ request: FetchRequest) async throws(StorageError) -> [Record] {
    let (entity, select) = try await compiled(request.entity) { compiler throws(StorageError) in
      try compiler.select(request)
    }
    let columns = entity.columns
    let toMany = entity.relationships.filter { $0.kind == .toMany }
    return try await read { db in
      var records = try db.cachedStatement(select.sql).fetchAll(select.arguments) { row in
        Record(
          entity: entity.name,
          values: Dictionary(uniqueKeysWithValues: zip(columns, row.values(count: columns.count))))
      }
      guard !toMany.isEmpty, entity.identity.count == 1, let key = entity.identity.first else { return records }
      let owners = records.compactMap { $0.values[key] }
      for relationship in toMany {
        let targets = try RecordWriter.targets(db, relationship.joinTable(of: entity.name), owners: owners)
        for index in records.indices {
          if let owner = records[index].values[key] { records[index].toMany[relationship.name] = targets[owner] ?? [] }
        }
      }
      return records
    }
  }

  /// Counts the rows of an entity that match a request (its limit and offset are ignored).
  ///
  /// - Throws: ``StorageError``.
  public func count(_ request: FetchRequest) async throws(StorageError) -> Int {
    let (_, count) = try await compiled(request.entity) { compiler throws(StorageError) in try compiler.count(request) }
    return try await read { db in
      let value: Int64?? = try db.cachedStatement(count.sql).fetchOne(count.arguments) { $0.int64(0) }
      return Int((value ?? nil) ?? 0)
    }
  }

  /// Batch delete: removes the rows of an entity that match the request's predicate (all rows when it has none),
  /// with their to-many join rows, in one transaction — the role of Core Data's `NSBatchDeleteRequest`.
  ///
  /// - Returns: the number of rows deleted.
  /// - Throws: ``StorageError``.
  @discardableResult
  public func batchDelete(_ request: FetchRequest) async throws(StorageError) -> Int {
    let (entity, (compiler, condition)) = try await compiled(request.entity) { compiler throws(StorageError) in
      (compiler, try compiler.whereClause(request.predicate))
    }
    let sql =
      "DELETE FROM \(EntityDescription.quote(entity.name))\(condition.sql) RETURNING \(compiler.identityColumns())"
    return try await writeAndPublish { db in
      let deleted = try db.cachedStatement(sql).fetchAll(condition.arguments) { row in
        Identity(row.values(count: entity.identity.count))
      }
      try RecordWriter(db: db, entities: [entity]).deleteJoinRows(entity, owners: deleted)
      return (deleted.count, [StorageChange(entity: entity.name, deleted: deleted)])
    }
  }

  /// Saves a unit of work: every upsert and delete of `changes`, all or nothing.
  ///
  /// - An upsert inserts the record, or updates only the keys it holds on the row with the same identity; a row
  ///   whose stored values already equal them is left unwritten (counted unchanged). A to-many relationship given
  ///   in ``Record/toMany`` is replaced by the given identities (`[]` empties it); one not given is left as is.
  /// - Existing rows are found with one `IN` query per entity per 500 records, and written with multi-row upserts.
  /// - Local-only attributes cannot be written this way (they belong to the user, not to a source).
  ///
  /// - Returns: per entity, what was inserted, updated, left unchanged and deleted.
  /// - Throws: ``StorageError`` `.invalidRequest` naming the record and key for an unknown entity or attribute, a
  ///   missing identity, a value of the wrong type or a local-only attribute — nothing is written; SQLite
  ///   failures (e.g. a NOT NULL attribute left empty on insert) roll the whole save back.
  @discardableResult
  package func save(_ changes: ChangeSet) async throws(StorageError) -> [String: SaveSummary] {
    let entities = self.entities
    let eviction = self.eviction
    return try await writeAndPublish { db in
      try RecordWriter(db: db, entities: entities, eviction: eviction).save(changes)
    }
  }

  /// Row counts of every entity.
  package func entityCounts() async throws(StorageError) -> [(entity: String, count: Int)] {
    let names = entities.map(\.name)
    return try await read { db in
      try names.map { name in
        (name, Int(try db.scalarInt("SELECT count(*) FROM \(EntityDescription.quote(name))") ?? 0))
      }
    }
  }
}
