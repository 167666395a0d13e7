import CSQLite

/// The rows a raw write (``StorageContext/write(_:)``) changes in the entities' tables, so that it is published like
/// every other write.
///
/// Temporary triggers on the writer connection (`CREATE TEMP TRIGGER … ON main.<table>`: they exist only in this
/// connection, and nothing is written to the database file) call the SQL function `offlinenews_changed(entity, op,
/// identity…)` for every row inserted, updated or deleted in an entity's table, and for every link written in its
/// to-many join tables (an update of the owner). They fire only while ``begin()`` has switched capturing on
/// (`WHEN offlinenews_capturing()`): the writers of articles and records report their changes themselves, and pay
/// for one function call per row, not for the capture.
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_createtrigger.html>,
/// <https://www.sqlite.org/c3ref/create_function.html>
final class ChangeCapture {
  private enum Outcome { case inserted, updated, deleted, undone }

  private var isCapturing = false
  /// Per entity, in first-seen order: each identity changed and its net outcome in this transaction.
  private var order: [String] = []
  private var outcomes: [String: (identities: [Identity], outcome: [Identity: Outcome])] = [:]

  private init() {}

  /// Registers the capture functions and creates the capture triggers for `entities` on the writer `db`, and
  /// keeps the capture as `db.changeCapture`.
  static func install(on db: Connection, entities: [EntityDescription]) throws(SQLiteError) {
    let capture = ChangeCapture()
    // SQLite keeps one reference to the capture for each function, released when the connection closes.
    try capture.register(on: db, name: "offlinenews_capturing", arguments: 0) { context, _, _ in
      guard let capture = ChangeCapture.from(context) else { return }
      sqlite3_result_int(context, capture.isCapturing ? 1 : 0)
    }
    try capture.register(on: db, name: "offlinenews_changed", arguments: -1) { context, count, values in
      guard let capture = ChangeCapture.from(context), let values, count >= 2 else { return }
      let arguments = (0..<Int(count)).map { ChangeCapture.value(values[$0]) }
      capture.record(arguments)
      sqlite3_result_null(context)
    }
    try createTriggers(on: db, entities: entities)
    db.changeCapture = capture
  }

  /// Creates the capture triggers of `entities` that `db` lacks (`IF NOT EXISTS`): at the install, and for the
  /// entities a store learns later (`StorageContext.learn(_:)`), whose tables are new.
  static func createTriggers(on db: Connection, entities: [EntityDescription]) throws(SQLiteError) {
    // Only on tables that exist: an entity recorded in schema_entity whose table someone dropped is no reason to
    // refuse the open.
    var tables = Set<String>()
    let statement = try db.makeStatement("SELECT name FROM sqlite_master WHERE type = 'table'")
    try statement.bind([])
    while try statement.step() { tables.insert(Row(statement: statement).string(0) ?? "") }
    for entity in entities {
      for (table, statement) in triggers(for: entity) where tables.contains(table) { try db.execute(sql: statement) }
    }
  }

  /// Starts capturing (the writer calls it before a raw write's body).
  func begin() {
    isCapturing = true
    order = []
    outcomes = [:]
  }

  /// Stops capturing and forgets what was captured (after the commit or the rollback).
  func stop() {
    isCapturing = false
    order = []
    outcomes = [:]
  }

  /// What was captured since ``begin()``: one change per entity, in the order the entities were first changed.
  func collected() -> [StorageChange] {
    order.compactMap { name in
      guard let entry = outcomes[name] else { return nil }
      var change = StorageChange(entity: name)
      for identity in entry.identities {
        switch entry.outcome[identity] {
        case .inserted: change.inserted.append(identity)
        case .updated: change.updated.append(identity)
        case .deleted: change.deleted.append(identity)
        case .undone, nil: break
        }
      }
      return change.isEmpty ? nil : change
    }
  }

  /// Operation codes the triggers pass.
  private static let insert: Int64 = 0
  private static let update: Int64 = 1
  private static let delete: Int64 = 2
  /// A to-many link written: the arguments are the owner's identity (an update of the owner).
  private static let link: Int64 = 3

  /// `[entity, op, identity…]` from a trigger; an update passes the old identity, then the new one.
  private func record(_ arguments: [DatabaseValue]) {
    guard case .text(let entity) = arguments[0], case .integer(let op) = arguments[1] else { return }
    let identity = Array(arguments.dropFirst(2))
    switch op {
    case Self.insert: note(entity, Identity(identity), .inserted)
    case Self.delete: note(entity, Identity(identity), .deleted)
    case Self.link: note(entity, Identity(identity), .updated)
    case Self.update:
      let half = identity.count / 2
      let old = Identity(Array(identity[..<half]))
      let new = Identity(Array(identity[half...]))
      if old == new {
        note(entity, new, .updated)
      } else {
        note(entity, old, .deleted)
        note(entity, new, .inserted)
      }
    default: break
    }
  }

  /// Folds one row's change into the transaction's net outcome for that row.
  private func note(_ entity: String, _ identity: Identity, _ event: Outcome) {
    if outcomes[entity] == nil {
      order.append(entity)
      outcomes[entity] = ([], [:])
    }
    guard var entry = outcomes[entity] else { return }
    outcomes[entity] = nil  // keeps the arrays uniquely referenced while they change
    let earlier = entry.outcome[identity]
    if earlier == nil { entry.identities.append(identity) }
    switch (earlier, event) {
    case (nil, _), (.undone?, _): entry.outcome[identity] = event
    // Inserted, then changed again: still an insert; inserted, then deleted: nothing happened.
    case (.inserted?, .deleted): entry.outcome[identity] = .undone
    case (.inserted?, _): break
    // Deleted, then inserted again: the row was replaced.
    case (.deleted?, .inserted), (.deleted?, .updated): entry.outcome[identity] = .updated
    case (.updated?, .deleted): entry.outcome[identity] = .deleted
    case (.updated?, _), (.deleted?, _): break
    }
    outcomes[entity] = entry
  }

  /// The name of the capture trigger of `event` (`INSERT`, `UPDATE`, `DELETE`) on `table`.
  static func triggerName(table: String, event: String) -> String {
    "offlinenews_capture_\(table)_\(event.lowercased())"
  }

  /// The `CREATE TEMP TRIGGER` statements that capture `entity`'s rows and its to-many links, with their tables.
  static func triggers(for entity: EntityDescription) -> [(table: String, sql: String)] {
    let q = EntityDescription.quote
    let literal = "'" + entity.name.replacingOccurrences(of: "'", with: "''") + "'"
    let old = entity.identity.map { "old.\(q($0))" }.joined(separator: ", ")
    let new = entity.identity.map { "new.\(q($0))" }.joined(separator: ", ")
    func trigger(_ table: String, _ event: String, _ calls: [String]) -> (String, String) {
      let body = calls.map { "SELECT offlinenews_changed(\(literal), \($0)); " }.joined()
      return (
        table,
        """
        CREATE TEMP TRIGGER IF NOT EXISTS \(q(triggerName(table: table, event: event))) \
        AFTER \(event) ON main.\(q(table)) WHEN offlinenews_capturing() BEGIN \(body)END
        """
      )
    }
    var statements = [
      trigger(entity.name, "INSERT", ["\(insert), \(new)"]),
      trigger(entity.name, "UPDATE", ["\(update), \(old), \(new)"]),
      trigger(entity.name, "DELETE", ["\(delete), \(old)"]),
    ]
    // A to-many relationship needs a single-attribute identity (RecordWriter refuses others): the owner column.
    if entity.identity.count == 1 {
      for relationship in entity.relationships where relationship.kind == .toMany {
        let table = relationship.joinTable(of: entity.name)
        statements += [
          trigger(table, "INSERT", ["\(link), new.owner"]),
          trigger(table, "UPDATE", ["\(link), old.owner", "\(link), new.owner"]),
          trigger(table, "DELETE", ["\(link), old.owner"]),
        ]
      }
    }
    return statements
  }

  private typealias Function =
    @convention(c) (
      OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?
    ) -> Void

  private func register(on db: Connection, name: String, arguments: Int32, _ function: Function)
    throws(SQLiteError)
  {
    let rc = sqlite3_create_function_v2(
      db.handle, name, arguments, SQLITE_UTF8, Unmanaged.passRetained(self).toOpaque(), function, nil, nil,
      { pointer in
        guard let pointer else { return }
        Unmanaged<ChangeCapture>.fromOpaque(pointer).release()
      })
    guard rc == SQLITE_OK else { throw db.error(rc, sql: nil) }
  }

  private static func from(_ context: OpaquePointer?) -> ChangeCapture? {
    guard let pointer = sqlite3_user_data(context) else { return nil }
    return Unmanaged<ChangeCapture>.fromOpaque(pointer).takeUnretainedValue()
  }

  private static func value(_ value: OpaquePointer?) -> DatabaseValue {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
      guard let text = sqlite3_value_text(value) else { return .null }
      let length = Int(sqlite3_value_bytes(value))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
    case SQLITE_BLOB:
      let count = Int(sqlite3_value_bytes(value))
      guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return .null
    }
  }
}
