import Foundation
import OfflineNewsModel

/// The generic save of a ``ChangeSet`` inside the writer's transaction.
///
/// Every statement comes from the connection's statement cache (``Connection/cachedStatement(_:)``): a sync saves
/// page after page of the same shape, so after the first page nothing is prepared again.
struct RecordWriter {
  let db: Connection
  let entities: [EntityDescription]
  /// The eviction policy run after a save that wrote `article` rows.
  var eviction: EvictionPolicy = .none
  /// Children that left a list of a relationship in ``ChangeSet/orphanDeletion`` during this save.
  private let orphans = OrphanCandidates()

  static let chunk = 500

  /// Per relationship, the targets removed from its lists (or whose owner was deleted) during one save.
  final class OrphanCandidates {
    var tracked: Set<RelationshipReference> = []
    var targets: [RelationshipReference: Set<DatabaseValue>] = [:]
  }

  func save(_ changes: ChangeSet) throws -> ([String: SaveSummary], [StorageChange]) {
    orphans.tracked = changes.orphanDeletion
    var summaries: [String: SaveSummary] = [:]
    var published: [String: StorageChange] = [:]
    // Group by entity, keeping first-seen order; within an entity the last record per identity wins.
    var order: [String] = []
    var byEntity: [String: [Record]] = [:]
    for record in changes.upserts {
      if byEntity[record.entity] == nil { order.append(record.entity) }
      byEntity[record.entity, default: []].append(record)
    }
    for name in order {
      let entity = try description(name)
      var summary = SaveSummary()
      var change = StorageChange(entity: name)
      if name == EntityDescription.article.name {
        try upsertArticles(
          entity, byEntity[name] ?? [], changes.articleFetch, changes.operations[name] ?? .upsert, &summary, &change)
      } else {
        try upsert(entity, byEntity[name] ?? [], changes.operations[name] ?? .upsert, &summary, &change)
      }
      summaries[name] = summary
      published[name] = change
    }
    for deletion in changes.deleteMissing {
      let entity = try description(deletion.entity)
      let compiler = SQLCompiler(entity: entity, path: db.path)
      let condition = try compiler.whereClause(deletion.scope)
      // A mirror keeps bookmarked articles, as eviction and `delete --before` do: a bookmark is the reader's own.
      let keepBookmarks =
        entity.name == EntityDescription.article.name
        ? (condition.sql.isEmpty ? " WHERE " : " AND ") + "\"bookmarkedAt\" IS NULL" : ""
      let candidates = try db.cachedStatement(
        "SELECT \(compiler.identityColumns()) FROM \(EntityDescription.quote(entity.name))\(condition.sql)"
          + keepBookmarks
      ).fetchAll(condition.arguments) { Identity($0.values(count: entity.identity.count)) }
      for identity in candidates where !deletion.keep.contains(identity) {
        let match = entity.identity.map { "\(EntityDescription.quote($0)) = ?" }.joined(separator: " AND ")
        try db.execute("DELETE FROM \(EntityDescription.quote(entity.name)) WHERE \(match)", identity.values)
        try deleteJoinRows(entity, owners: [identity])
        summaries[entity.name, default: SaveSummary()].deleted += 1
        published[entity.name, default: StorageChange(entity: entity.name)].deleted.append(identity)
      }
    }
    for (name, identity) in changes.deletes {
      let entity = try description(name)
      guard identity.values.count == entity.identity.count else {
        throw invalid("delete of \(name) \(identity): the identity needs \(entity.identity.count) value(s)")
      }
      let condition = entity.identity.map { "\(EntityDescription.quote($0)) = ?" }.joined(separator: " AND ")
      try db.execute("DELETE FROM \(EntityDescription.quote(name)) WHERE \(condition)", identity.values)
      if db.changes > 0 {
        try deleteJoinRows(entity, owners: [identity])
        summaries[name, default: SaveSummary()].deleted += 1
        published[name, default: StorageChange(entity: name)].deleted.append(identity)
      }
    }
    try deleteOrphans(&summaries, &published)
    return (summaries, order.compactMap { published[$0] } + published.filter { !order.contains($0.key) }.map(\.value))
  }

  private func description(_ name: String) throws -> EntityDescription {
    guard let entity = entities.first(where: { $0.name == name }) else { throw invalid("no entity named \"\(name)\"") }
    return entity
  }

  private func invalid(_ problem: String) -> StorageError {
    StorageError(kind: .invalidRequest(problem), path: db.path)
  }

  private func identity(of record: Record, _ entity: EntityDescription) throws -> Identity {
    var values: [DatabaseValue] = []
    for key in entity.identity {
      guard let value = record.values[key], value != .null else {
        throw invalid("\(entity.name) record has no identity \"\(key)\"")
      }
      values.append(value)
    }
    return Identity(values)
  }

  /// The article's search texts of its summary and content (migration 11): local-only, as they are no source's
  /// field, but derived from the source's HTML by an import (the `jsonfeed` mapping's hooks), so a record may carry
  /// them; every other local-only value (read state, bookmark, full text) is the reader's own.
  static let searchTexts: Set<String> = ["summaryText", "contentText"]

  private func validate(_ record: Record, _ entity: EntityDescription, _ identity: Identity) throws {
    for (key, value) in record.values {
      if let attribute = entity.attribute(key) {
        if attribute.isLocalOnly, !(entity.name == EntityDescription.article.name && Self.searchTexts.contains(key)) {
          throw invalid("\(entity.name) \(identity): \"\(key)\" is local-only and cannot be saved from a source")
        }
        guard attribute.type.accepts(value) else {
          throw invalid("\(entity.name) \(identity): \"\(key)\" is \(attribute.type.rawValue), got \(value)")
        }
      } else if entity.relationship(key)?.kind != .toOne {
        throw invalid("\(entity.name) \(identity): no attribute \"\(key)\"")
      }
    }
    for key in Array(record.toMany.keys) + Array(record.toManyAdditions.keys)
    where entity.relationship(key)?.kind != .toMany {
      throw invalid("\(entity.name) \(identity): no to-many relationship \"\(key)\"")
    }
    if !record.toMany.isEmpty || !record.toManyAdditions.isEmpty, entity.identity.count != 1 {
      throw invalid("\(entity.name): to-many relationships need a single-attribute identity")
    }
  }

  /// `records` validated and keyed by identity, in the order each identity first appears. The same object twice in
  /// one save is one row: later keys win, earlier keys not repeated are kept, to-many additions add up.
  private func mergedByIdentity(
    _ records: [Record], _ entity: EntityDescription
  ) throws -> (order: [Identity], merged: [Identity: Record]) {
    var order: [Identity] = []
    var merged: [Identity: Record] = [:]
    for record in records {
      let identity = try identity(of: record, entity)
      try validate(record, entity, identity)
      if var earlier = merged[identity] {
        earlier.values.merge(record.values) { $1 }
        earlier.toMany.merge(record.toMany) { $1 }
        earlier.toManyAdditions.merge(record.toManyAdditions) { $0 + $1 }
        merged[identity] = earlier
      } else {
        order.append(identity)
        merged[identity] = record
      }
    }
    return (order, merged)
  }

  private func upsert(
    _ entity: EntityDescription, _ records: [Record], _ operation: WriteOperation, _ summary: inout SaveSummary,
    _ change: inout StorageChange
  ) throws {
    let (order, merged) = try mergedByIdentity(records, entity)
    var start = 0
    while start < order.count {
      let identities = Array(order[start..<min(start + Self.chunk, order.count)])
      start += identities.count
      let stored = try existing(entity, identities)
      // Rows to write, grouped by the set of keys they hold (one multi-row statement per shape).
      var shapes: [[String]: [[DatabaseValue]]] = [:]
      for identity in identities {
        guard var record = merged[identity] else { continue }
        record.values = normalized(record.values, entity)
        let keys = record.values.keys.sorted()
        if operation.skips(rowExists: stored[identity] != nil) {
          summary.skipped += 1
          continue
        }
        if let current = stored[identity] {
          let differs = keys.contains { current[$0] != record.values[$0] }
          let links = try replaceToMany(entity, identity, record)
          summary.linksAdded += links.added
          if differs || links.changed {
            summary.updated += 1
            change.updated.append(identity)
          } else {
            summary.unchanged += 1
          }
          guard differs else { continue }
          // An update writes the whole row — the stored values with the given keys over them — because SQLite checks
          // NOT NULL on the row it would insert before it finds the conflict: a partial row would fail.
          let full = current.merging(record.values) { $1 }
          let columns = entity.columns.sorted()
          shapes[columns, default: []].append(columns.map { full[$0] ?? .null })
        } else {
          let required = entity.attributes.filter { !$0.isOptional && $0.defaultValue == nil }
          if let missing = required.first(where: { (record.values[$0.name] ?? .null) == .null }) {
            summary.rejected.append(
              .init(
                identity: identity, reason: "a new \(entity.name) row needs \(missing.name), which is missing or null"))
            continue
          }
          summary.inserted += 1
          change.inserted.append(identity)
          shapes[keys, default: []].append(keys.map { record.values[$0] ?? .null })
          // Links are written after the row, below, so that they never point at a row that was rejected.
        }
      }
      for (keys, rows) in shapes { try write(entity, keys, rows) }
      for identity in identities where stored[identity] == nil && change.inserted.contains(identity) {
        if let record = merged[identity] { summary.linksAdded += try replaceToMany(entity, identity, record).added }
      }
    }
  }

  /// `article` records go through ``ArticleWriter``, the one writer of that table: each record's values over the
  /// stored row's become an ``Article`` (a record need not repeat what is stored), its extension attributes and
  /// to-one references (a mapping's own, such as Parse's `category`) are written beside it, and its to-many lists
  /// by the join-table code every entity uses. A new row without a title or a publication date is rejected and
  /// reported, as for any entity.
  private func upsertArticles(
    _ entity: EntityDescription, _ records: [Record], _ fetch: ArticleFetch?, _ operation: WriteOperation,
    _ summary: inout SaveSummary, _ change: inout StorageChange
  ) throws {
    let (order, merged) = try mergedByIdentity(records, entity)
    let first = order.first.flatMap { merged[$0] }
    let query = fetch?.query ?? first?.values["fetchQuery"]?.textValue ?? "import"
    let fetchedAt =
      fetch?.fetchedAt ?? first?.values["fetchedAt"]?.integerValue.map(Timestamp.init(millisecondsSince1970:))
      ?? .now()
    var session = ArticleWriter.Session(db: db, query: query, source: fetch?.source, fetchedAt: fetchedAt)
    // The declared article columns are the article writer's; a mapping's extension columns are written here.
    let core = Set(ArticleColumn.all.map(\.name))
    let extensionColumns = entity.columns.filter { !core.contains($0) }
    var written: [Identity] = []
    var linksOnly: [Identity] = []
    var start = 0
    while start < order.count {
      let identities = Array(order[start..<min(start + Self.chunk, order.count)])
      start += identities.count
      let stored = try existing(entity, identities)
      var articles: [Article] = []
      var extensions: [(key: String, values: [DatabaseValue])] = []
      for identity in identities {
        guard let record = merged[identity] else { continue }
        if record.values.keys.allSatisfy(entity.identity.contains) {
          // Only links (a join record, or a reference to an article not imported yet): the article row is neither
          // written nor needed — its to-many lists are written below, and attach to it whenever it arrives.
          linksOnly.append(identity)
          continue
        }
        if operation.skips(rowExists: stored[identity] != nil) {
          summary.skipped += 1
          continue
        }
        var full = (stored[identity] ?? [:]).merging(normalized(record.values, entity)) { $1 }
        // The search texts follow the record's summary and content, never a stored row's: a record without them
        // (most mappings) is searched as it is; the `jsonfeed` mapping's are set by its import hooks.
        for column in Self.searchTexts { full[column] = record.values[column] ?? .null }
        guard let article = ArticleWriter.article(from: full, firstSeen: fetchedAt) else {
          summary.rejected.append(
            .init(identity: identity, reason: "an article needs a title, or a summary or content to derive one from"))
          continue
        }
        articles.append(article)
        written.append(identity)
        if !extensionColumns.isEmpty {
          extensions.append((article.url.absoluteString, extensionColumns.map { full[$0] ?? .null }))
        }
      }
      try session.add(articles)
      if !extensions.isEmpty {
        let q = EntityDescription.quote
        let sets = extensionColumns.enumerated().map { "\(q($1)) = ?\($0 + 2)" }.joined(separator: ", ")
        let differs = extensionColumns.enumerated().map { "\(q($1)) IS NOT ?\($0 + 2)" }.joined(separator: " OR ")
        let statement = try db.cachedStatement("UPDATE article SET \(sets) WHERE url = ?1 AND (\(differs))")
        for (key, values) in extensions { try statement.execute([.text(key)] + values) }
      }
    }
    // A record whose key a deletion or an eviction remembers (`news delete --before`) is left out by the article
    // writer, as on every path that writes articles: counted apart, so that the report accounts for it and says why.
    summary.remembered += session.deletedSkipped
    summary.rememberedEvicted += session.evictedSkipped
    let (result, changes) = try session.finish(
      eviction: eviction, skipIfEmpty: true, accumulate: fetch?.accumulates ?? false)
    summary.inserted += result.inserted
    summary.updated += result.updated
    summary.unchanged += result.unchanged
    summary.evicted += result.evicted
    for identity in written + linksOnly {
      guard let record = merged[identity] else { continue }
      let links = try replaceToMany(entity, identity, record)
      summary.linksAdded += links.added
    }
    for published in changes {
      change.inserted += published.inserted
      change.updated += published.updated
      change.deleted += published.deleted
    }
  }

  /// Values as they will be stored: an integer given for a `real` attribute is a real (so that re-saving `3` over a
  /// stored `3.0` is unchanged).
  private func normalized(_ values: [String: DatabaseValue], _ entity: EntityDescription) -> [String: DatabaseValue] {
    var values = values
    for (key, value) in values {
      if case .integer(let number) = value, entity.attribute(key)?.type == .real { values[key] = .real(Double(number)) }
    }
    return values
  }

  /// The stored values of those of `identities` that exist.
  private func existing(_ entity: EntityDescription, _ identities: [Identity]) throws -> [Identity: [String:
    DatabaseValue]]
  {
    let q = EntityDescription.quote
    let columns = entity.columns
    let key = entity.identity.map(q).joined(separator: ", ")
    let tuple = "(" + Array(repeating: "?", count: entity.identity.count).joined(separator: ",") + ")"
    let list = Array(repeating: tuple, count: identities.count).joined(separator: ",")
    let sql =
      entity.identity.count == 1
      ? "SELECT \(columns.map(q).joined(separator: ", ")) FROM \(q(entity.name)) WHERE \(key) IN (\(list))"
      : "SELECT \(columns.map(q).joined(separator: ", ")) FROM \(q(entity.name)) WHERE (\(key)) IN (VALUES \(list))"
    let identityIndexes = entity.identity.compactMap { columns.firstIndex(of: $0) }
    var stored: [Identity: [String: DatabaseValue]] = [:]
    for values in try db.cachedStatement(sql).fetchAll(
      identities.flatMap(\.values), { $0.values(count: columns.count) })
    {
      stored[Identity(identityIndexes.map { values[$0] })] = Dictionary(uniqueKeysWithValues: zip(columns, values))
    }
    return stored
  }

  private func write(_ entity: EntityDescription, _ keys: [String], _ rows: [[DatabaseValue]]) throws {
    let q = EntityDescription.quote
    let row = "(" + Array(repeating: "?", count: keys.count).joined(separator: ",") + ")"
    let updates = keys.filter { !entity.identity.contains($0) }
    let conflict =
      updates.isEmpty
      ? "DO NOTHING" : "DO UPDATE SET " + updates.map { "\(q($0)) = excluded.\(q($0))" }.joined(separator: ", ")
    let sql =
      "INSERT INTO \(q(entity.name)) (\(keys.map(q).joined(separator: ", "))) VALUES "
      + Array(repeating: row, count: rows.count).joined(separator: ",")
      + " ON CONFLICT(\(entity.identity.map(q).joined(separator: ", "))) \(conflict)"
    try db.cachedStatement(sql).execute(rows.flatMap { $0 })
  }

  /// Writes a record's to-many lists (replacements and additions); returns whether any link changed. A list equal
  /// to the stored one is not rewritten.
  private func replaceToMany(_ entity: EntityDescription, _ identity: Identity, _ record: Record) throws -> (
    changed: Bool, added: Int
  ) {
    guard let owner = identity.values.first else { return (false, 0) }
    var changed = false
    var added = 0
    for (name, targets) in record.toManyAdditions {
      guard let relationship = entity.relationship(name) else { continue }
      let table = EntityDescription.quote(relationship.joinTable(of: entity.name))
      if relationship.isOrdered {
        let last = try db.cachedStatement("SELECT coalesce(max(position), -1) + 1 FROM \(table) WHERE owner = ?")
          .fetchOne([owner]) { $0.int64(0) }
        var next = (last ?? nil) ?? 0
        for target in targets {
          try db.execute(
            "INSERT INTO \(table) (owner, target, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [owner, target, .integer(next)])
          if db.changes > 0 {
            next += 1
            changed = true
            added += 1
          }
        }
      } else {
        for target in targets {
          try db.execute("INSERT INTO \(table) (owner, target) VALUES (?, ?) ON CONFLICT DO NOTHING", [owner, target])
          if db.changes > 0 {
            changed = true
            added += 1
          }
        }
      }
    }
    for (name, targets) in record.toMany {
      guard let relationship = entity.relationship(name) else { continue }
      var seen = Set<DatabaseValue>()
      let unique = targets.filter { seen.insert($0).inserted }
      let joinTable = relationship.joinTable(of: entity.name)
      let current = try Self.targets(db, joinTable, owners: [owner])[owner] ?? []
      if relationship.isOrdered ? current == unique : Set(current) == Set(unique) { continue }
      changed = true
      let reference = RelationshipReference(entity: entity.name, relationship: name)
      if orphans.tracked.contains(reference) {
        orphans.targets[reference, default: []].formUnion(Set(current).subtracting(unique))
      }
      let table = EntityDescription.quote(joinTable)
      try db.execute("DELETE FROM \(table) WHERE owner = ?", [owner])
      var start = 0
      while start < unique.count {
        let end = min(start + Self.chunk, unique.count)
        let width = relationship.isOrdered ? 3 : 2
        let row = "(" + Array(repeating: "?", count: width).joined(separator: ",") + ")"
        let columns = relationship.isOrdered ? "owner, target, position" : "owner, target"
        let sql =
          "INSERT INTO \(table) (\(columns)) VALUES " + Array(repeating: row, count: end - start).joined(separator: ",")
        var arguments: [DatabaseValue] = []
        for position in start..<end {
          arguments += [owner, unique[position]]
          if relationship.isOrdered { arguments.append(.integer(Int64(position))) }
        }
        try db.cachedStatement(sql).execute(arguments)
        start = end
      }
    }
    return (changed, added)
  }

  func deleteJoinRows(_ entity: EntityDescription, owners: [Identity]) throws {
    let toMany = entity.relationships.filter { $0.kind == .toMany }
    guard !toMany.isEmpty, !owners.isEmpty else { return }
    for relationship in toMany {
      let reference = RelationshipReference(entity: entity.name, relationship: relationship.name)
      if orphans.tracked.contains(reference) {
        let owned = try Self.targets(
          db, relationship.joinTable(of: entity.name), owners: owners.compactMap(\.values.first))
        orphans.targets[reference, default: []].formUnion(owned.values.joined())
      }
      let table = EntityDescription.quote(relationship.joinTable(of: entity.name))
      var start = 0
      while start < owners.count {
        let slice = owners[start..<min(start + Self.chunk, owners.count)].compactMap { $0.values.first }
        start += Self.chunk
        let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
        try db.execute("DELETE FROM \(table) WHERE owner IN (\(marks))", slice)
      }
    }
  }

  /// Deletes the rows that left a list of a relationship in ``ChangeSet/orphanDeletion`` and that no owner lists
  /// any more in it; their own children follow (a deleted owner's lists leave with it).
  private func deleteOrphans(
    _ summaries: inout [String: SaveSummary], _ published: inout [String: StorageChange]
  ) throws {
    let q = EntityDescription.quote
    while let (reference, targets) = orphans.targets.first {
      orphans.targets[reference] = nil
      guard let owner = entities.first(where: { $0.name == reference.entity }),
        let relationship = owner.relationship(reference.relationship),
        let destination = entities.first(where: { $0.name == relationship.destination }),
        destination.identity.count == 1, let key = destination.identity.first
      else { continue }
      let sql =
        "DELETE FROM \(q(destination.name)) WHERE \(q(key)) = ?1 AND NOT EXISTS "
        + "(SELECT 1 FROM \(q(relationship.joinTable(of: owner.name))) WHERE target = ?1)"
      for target in targets {
        try db.execute(sql, [target])
        guard db.changes > 0 else { continue }
        try deleteJoinRows(destination, owners: [Identity(target)])
        summaries[destination.name, default: SaveSummary()].deleted += 1
        published[destination.name, default: StorageChange(entity: destination.name)].deleted.append(Identity(target))
      }
    }
  }

  /// The targets of `owners` in a join table, in order, by owner.
  static func targets(_ db: Connection, _ table: String, owners: [DatabaseValue]) throws -> [DatabaseValue:
    [DatabaseValue]]
  {
    var result: [DatabaseValue: [DatabaseValue]] = [:]
    guard !owners.isEmpty else { return result }
    let q = EntityDescription.quote(table)
    let hasPosition =
      try db.cachedStatement("SELECT 1 FROM pragma_table_info(?1) WHERE name = 'position'").fetchOne(
        [.text(table)]) { _ in true } ?? false
    var start = 0
    while start < owners.count {
      let slice = Array(owners[start..<min(start + chunk, owners.count)])
      start += chunk
      let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
      let order = hasPosition ? "owner, position" : "owner, target"
      for pair in try db.cachedStatement("SELECT owner, target FROM \(q) WHERE owner IN (\(marks)) ORDER BY \(order)")
        .fetchAll(slice, { ($0.value(0), $0.value(1)) })
      {
        result[pair.0, default: []].append(pair.1)
      }
    }
    return result
  }
}
