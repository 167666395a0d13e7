import Foundation

extension StorageContext {
  /// Adds to the store what `declared` has and the store lacks: the tables, join tables and indexes of entities
  /// it does not have, and the attributes, relationships and indexes of entities it has (the built-in `article`
  /// extended by a mapping, say). The importer calls it before it saves, so that a store opened without a
  /// mapping's entities (`StorageContext(path:)`) learns them when that mapping first imports; an app may call it
  /// itself.
  ///
  /// It goes through the store's one schema path, the lightweight migration an open with `declared` runs
  /// (`EntityMigrator`: create and add, never remove; each entity's description recorded in `schema_entity`), in
  /// its own transaction on the writer; the learned entities' changes are published like every other's. Nothing is
  /// removed, and an entity the store has is never narrowed: what `declared` lacks of it stays. When the store has
  /// everything already (the usual case), it returns at once, without a write.
  ///
  /// - Throws: ``StorageError`` naming the database: `.incompatibleSchema` when what is declared cannot be added so
  ///   (a new attribute that is required and has no default; a changed type is not added, and is refused by an open
  ///   with `declared`); `.readOnly` (or the cause) on a store opened read-only; `.closed` after ``close()``; a
  ///   SQLite failure (rolled back: nothing was added).
  package func learn(_ declared: [EntityDescription]) async throws(StorageError) {
    let missing = Self.missing(declared, from: entities)
    guard !missing.isEmpty else { return }
    if let readOnlyCause { throw readOnlyCause }
    try await storageErrors {
      try await writer.run { db in
        try EntityMigrator(entities: missing).reconcile(db)
        try ChangeCapture.createTriggers(on: db, entities: missing)
      }
    }
    entityList.withLock { list in
      for entity in missing {
        if let index = list.firstIndex(where: { $0.name == entity.name }) {
          list[index] = list[index].extended(with: entity)
        } else {
          list.append(entity)
        }
      }
    }
  }

  /// The entities of `declared` that `known` lacks, or has without some of their attributes, relationships or
  /// indexes: each as `known`'s description extended with the declared one's (``EntityDescription/extended(with:)``),
  /// or the declared one when it is new.
  static func missing(_ declared: [EntityDescription], from known: [EntityDescription]) -> [EntityDescription] {
    var missing: [EntityDescription] = []
    for entity in declared {
      guard let existing = known.first(where: { $0.name == entity.name }) else {
        if !missing.contains(where: { $0.name == entity.name }) { missing.append(entity) }
        continue
      }
      let extended = existing.extended(with: entity)
      if extended != existing { missing.append(extended) }
    }
    return missing
  }

  /// The entity named `name` and what `body` compiles of a request on it. When the entity is not known, or `body`
  /// fails (an attribute it lacks), the entities are read again from the database (`schema_entity`) first and
  /// `body` runs once more: another process, or an import through another context, may have added them since this
  /// context was opened. What is read is kept in ``entities``.
  ///
  /// - Throws: ``StorageError`` `.invalidRequest` naming the database and the entity's attributes when there is
  ///   still no such entity, or attribute.
  func compiled<T>(_ name: String, _ body: (SQLCompiler) throws(StorageError) -> T) async throws(StorageError) -> (
    EntityDescription, T
  ) {
    if let entity = entities.first(where: { $0.name == name }),
      let result = try? body(SQLCompiler(entity: entity, path: path))
    {
      return (entity, result)
    }
    let path = self.path
    let recorded = try await read { db in
      try Self.recordedDefinitions(db, path: path).compactMap { Self.decodedDefinition($0.definition) }
    }
    let merged = entityList.withLock { list in
      for entity in recorded {
        if let index = list.firstIndex(where: { $0.name == entity.name }) {
          list[index] = list[index].extended(with: entity)
        } else {
          list.append(entity)
        }
      }
      return list
    }
    guard let entity = merged.first(where: { $0.name == name }) else {
      throw StorageError(
        kind: .invalidRequest(
          "no entity named \"\(name)\" (its entities: \(merged.map(\.name).joined(separator: ", ")); "
            + SQLCompiler.mappingHint),
        path: path)
    }
    return (entity, try body(SQLCompiler(entity: entity, path: path)))
  }
}
