import Foundation
import OfflineNewsStorage
import Testing

@Suite("Statement: arguments are counted when they are bound")
struct StatementBindingTests {
  @Test(
    "binding fewer or more arguments than the statement's parameters throws SQLITE_MISUSE naming the SQL; nothing is written",
    arguments: [[DatabaseValue.text("only one")], [.text("a"), .text("b"), .text("c")], []])
  func wrongArgumentCount(arguments: [DatabaseValue]) throws {
    let database = TestDatabase()
    let connection = try Connection(path: database.path)
    try connection.execute(sql: "CREATE TABLE pair (a TEXT, b TEXT)")
    let sql = "INSERT INTO pair (a, b) VALUES (?1, ?2)"
    do {
      try connection.execute(sql, arguments)
      Issue.record("\(arguments.count) arguments were accepted for 2 parameters")
    } catch {
      #expect(error.code == 21, "SQLITE_MISUSE, got \(error)")
      #expect(error.sql == sql)
      #expect(
        error.message
          == "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") bound to a statement with 2 parameters")
      #expect(error.description.contains(sql))
    }
    #expect(try connection.scalarInt("SELECT count(*) FROM pair") == 0)
    // The same statement with the right count works.
    try connection.execute(sql, [.text("x"), .null])
    #expect(try connection.scalarInt("SELECT count(*) FROM pair") == 1)
  }

  @Test("numbered parameters count up to the largest number; a statement without parameters takes none")
  func parameterCounts() throws {
    let connection = try Connection(path: ":memory:")
    #expect(try connection.makeStatement("SELECT ?1, ?1, ?3").parameterCount == 3)
    #expect(try connection.makeStatement("SELECT ?, ?").parameterCount == 2)
    #expect(try connection.makeStatement("SELECT 1").parameterCount == 0)
    #expect(throws: SQLiteError.self) { try connection.makeStatement("SELECT 1").fetchOne([.integer(1)]) { _ in 1 } }
  }

  @Test("through a storage context: a StorageError whose SQLite error names the SQL; the write is rolled back")
  func throughStorageContext() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let error = await storageError {
      try await storage.write { db in
        try db.execute(sql: "DELETE FROM query_fetch")
        try db.execute("INSERT INTO query_fetch (query, fetchedAt, articleCount) VALUES (?1, ?2, ?3)", [.text("q")])
      }
    }
    #expect(error?.underlying?.code == 21)
    #expect(error?.underlying?.sql?.hasPrefix("INSERT INTO query_fetch") == true)
  }

  @Test("the statement cache keeps the most recently used statements, at most its limit, and finalizes the oldest")
  func statementCacheIsBounded() throws {
    let connection = try Connection(path: ":memory:")
    let limit = Connection.statementCacheLimit
    let first = try connection.cachedStatement("SELECT 0")
    for index in 1..<limit { _ = try connection.cachedStatement("SELECT \(index)") }
    let full = connection.preparedStatementCount
    #expect(full == limit)
    // Within the limit: found again, nothing prepared.
    #expect(try connection.cachedStatement("SELECT 0") === first)
    #expect(connection.preparedStatementCount == full)
    // One more: the least recently used ("SELECT 1"; "SELECT 0" was just used) makes room.
    _ = try connection.cachedStatement("SELECT \(limit)")
    _ = try connection.cachedStatement("SELECT 0")
    #expect(connection.preparedStatementCount == full + 1)
    _ = try connection.cachedStatement("SELECT 1")
    #expect(connection.preparedStatementCount == full + 2)
    // A statement evicted while a caller holds it still works.
    #expect(try first.fetchOne { $0.int64(0) } == 0)
  }
}
