import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

extension TestDatabase {
  /// Opens the database with app entities and an eviction policy.
  func open(entities: [EntityDescription], eviction: EvictionPolicy = .none) throws -> StorageContext {
    try StorageContext(path: path, entities: entities, eviction: eviction)
  }

  /// The main file's bytes and modification date, to show that an open wrote nothing.
  func fileState() throws -> FileState {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return FileState(bytes: try bytes(), modified: attributes[.modificationDate] as? Date)
  }

  /// The rows of `sql`, read on a connection of its own (for a database no context has open).
  func rawRows(_ sql: String) throws -> [[DatabaseValue]] {
    let connection = try Connection(path: path, readOnly: true)
    return try connection.makeStatement(sql).fetchAll { $0.values(count: $0.count) }
  }
}

/// A file's content and modification date.
struct FileState: Equatable {
  var bytes: Data
  var modified: Date?
}

extension StorageContext {
  /// Every row of `sql`, as stored, read on a read connection.
  func rows(_ sql: String, _ arguments: [DatabaseValue] = []) async throws -> [[DatabaseValue]] {
    try await read { db in try db.makeStatement(sql).fetchAll(arguments) { $0.values(count: $0.count) } }
  }

  /// The writer connection's `total_changes()`: rows it has inserted, updated or deleted since it opened.
  func totalChanges() async throws -> Int64 {
    try await write { db in try db.scalarInt("SELECT total_changes()") ?? -1 }
  }
}

/// The ``StorageError`` that `body` throws; records an issue (and returns `nil`) when it throws nothing or another
/// error.
func storageError<T>(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> StorageError? {
  do {
    _ = try await body()
    Issue.record("expected a StorageError, nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as StorageError {
    return error
  } catch {
    Issue.record("expected a StorageError, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// The StorageError that `body` throws when it is `.invalidRequest`; its message, else an issue and `nil`.
@discardableResult
func invalidRequest<T>(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> String? {
  guard let error = await storageError(sourceLocation: sourceLocation, body) else { return nil }
  guard case .invalidRequest(let message) = error.kind else {
    Issue.record("expected .invalidRequest, got \(error)", sourceLocation: sourceLocation)
    return nil
  }
  return message
}

/// The StorageError that `body` throws when it is `.incompatibleSchema`; its message, else an issue and `nil`.
@discardableResult
func incompatibleSchema<T>(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> String? {
  guard let error = await storageError(sourceLocation: sourceLocation, body) else { return nil }
  guard case .incompatibleSchema(let message) = error.kind else {
    Issue.record("expected .incompatibleSchema, got \(error)", sourceLocation: sourceLocation)
    return nil
  }
  return message
}

/// The last path components of article identities (their URLs), sorted, for readable expectations.
func sortedSlugs(_ identities: [Identity]) -> [String] {
  identities.map { identity in URL(string: identity.description)?.lastPathComponent ?? identity.description }.sorted()
}

/// The last path components of article identities (their URLs), in order.
func identitySlugs(_ identities: [Identity]) -> [String] {
  identities.map { identity in URL(string: identity.description)?.lastPathComponent ?? identity.description }
}

/// Reads a storage context's committed changes, subscribed from the moment it is created.
///
/// A write publishes its changes before it returns, so ``next(_:)`` finds them buffered at once; no waiting on a
/// clock. A change that is never published leaves `next` waiting: the suites that use it have a time limit.
actor ChangeLog {
  private var iterator: AsyncStream<StorageEvent>.Iterator

  init(_ storage: StorageContext, bufferLimit: Int = 1000) {
    iterator = storage.changes(bufferLimit: bufferLimit).makeAsyncIterator()
  }

  /// The next `count` events.
  func nextEvents(_ count: Int = 1) async -> [StorageEvent] {
    var events: [StorageEvent] = []
    var iterator = self.iterator
    while events.count < count, let event = await iterator.next(isolation: self) { events.append(event) }
    self.iterator = iterator
    return events
  }

  /// The next `count` changes; a ``StorageEvent/missedChanges`` among them is an issue.
  func next(_ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> [StorageChange] {
    await nextEvents(count).compactMap { event in
      guard case .change(let change) = event else {
        Issue.record("missed changes", sourceLocation: sourceLocation)
        return nil
      }
      return change
    }
  }

  /// Every event not taken yet, once the stream has ended (after ``StorageContext/close()``).
  func rest() async -> [StorageEvent] { await nextEvents(Int.max) }
}

/// App entities for the record, fetch and change tests.
enum People {
  /// Every attribute type, a local-only attribute, a to-one and an ordered and an unordered to-many.
  static let person = EntityDescription(
    name: "person", identity: ["id"],
    attributes: [
      Attribute("id", .text), Attribute("name", .text, optional: false), Attribute("age", .integer),
      Attribute("score", .real), Attribute("active", .bool), Attribute("born", .date), Attribute("homepage", .url),
      Attribute("avatar", .data), Attribute("prefs", .json), Attribute("note", .text, localOnly: true),
    ],
    relationships: [
      Relationship("employer", to: "company", .toOne), Relationship("friends", to: "person", .toMany, ordered: true),
      Relationship("tags", to: "tag", .toMany),
    ])

  static let tag = EntityDescription(
    name: "tag", identity: ["name"], attributes: [Attribute("name", .text), Attribute("color", .text)])

  /// A composite identity.
  static let visit = EntityDescription(
    name: "visit", identity: ["person", "day"],
    attributes: [Attribute("person", .text), Attribute("day", .date), Attribute("minutes", .integer)])

  static let all = [person, tag, visit]

  /// The columns of `person`, in table order.
  static let personColumns = [
    "id", "name", "age", "score", "active", "born", "homepage", "avatar", "prefs", "note", "employer",
  ]

  /// A `person` record: its id, the given values, and the to-many lists given.
  static func person(
    _ id: String, _ values: [String: DatabaseValue] = [:], friends: [String]? = nil, tags: [String]? = nil
  ) -> Record {
    var record = Record(entity: "person", values: values.merging(["id": .text(id)]) { $1 })
    if let friends { record.toMany["friends"] = friends.map(DatabaseValue.text) }
    if let tags { record.toMany["tags"] = tags.map(DatabaseValue.text) }
    return record
  }

  static func tag(_ name: String, color: String? = nil) -> Record {
    Record(entity: "tag", values: ["name": .text(name), "color": color.databaseValue])
  }

  static func visit(_ person: String, day: Int64, minutes: DatabaseValue? = nil) -> Record {
    var record = Record(entity: "visit", values: ["person": .text(person), "day": .integer(day)])
    record["minutes"] = minutes
    return record
  }
}

/// Every row of the `People` tables, to show what a save changed (or that it changed nothing).
struct PeopleTables: Equatable {
  var person: [[DatabaseValue]]
  var friends: [[DatabaseValue]]
  var tags: [[DatabaseValue]]
  var tag: [[DatabaseValue]]
  var visit: [[DatabaseValue]]

  init(_ storage: StorageContext) async throws {
    person = try await storage.rows(
      "SELECT \(People.personColumns.joined(separator: ", ")) FROM person ORDER BY id")
    friends = try await storage.rows("SELECT owner, target, position FROM person_friends ORDER BY owner, position")
    tags = try await storage.rows("SELECT owner, target FROM person_tags ORDER BY owner, target")
    tag = try await storage.rows("SELECT name, color FROM tag ORDER BY name")
    visit = try await storage.rows("SELECT person, day, minutes FROM visit ORDER BY person, day")
  }
}

/// What a save of articles did, as `[saved, inserted, updated, unchanged, evicted]`.
func counts(_ result: ArticleSaveResult) -> [Int] {
  [result.saved, result.inserted, result.updated, result.unchanged, result.evicted]
}
