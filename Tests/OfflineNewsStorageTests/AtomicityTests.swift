import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("StorageContext: transactions and errors")
struct AtomicityTests {
  private static let insertSQL = """
    INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery) VALUES (?1, ?2, ?3, ?3, 'raw')
    """

  @Test("a write that throws midway leaves nothing behind")
  func throwingWrite() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.write { db in
        try db.execute(Self.insertSQL, [.text("https://example.com/1"), .text("One"), .integer(t0)])
        try db.execute(Self.insertSQL, [.text("https://example.com/2"), .text("Two"), .integer(t0)])
        throw Boom()
      }
    }
    #expect(try await storage.articleCount() == 0)
    #expect(try writeLockIsFree(storage.path), "the failed write left its transaction (and lock) open")
    // The connection is usable afterwards.
    #expect(try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: .now()).saved == 1)
    #expect(try await storage.articleCount() == 1)
  }

  @Test("a failing nested transaction undoes only its own work")
  func nestedTransaction() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.write { db in
      try db.execute(Self.insertSQL, [.text("https://example.com/outer"), .text("Outer"), .integer(t0)])
      do {
        try db.inTransaction {
          try db.execute(Self.insertSQL, [.text("https://example.com/inner"), .text("Inner"), .integer(t0)])
          throw Boom()
        }
        Issue.record("the inner transaction did not rethrow")
      } catch is Boom {}
      #expect(db.isInTransaction)
    }
    #expect(slugs(try await storage.articles()) == ["outer"])
  }

  @Test("a constraint failure rolls back the whole write and is described with code, message, SQL and path")
  func constraintFailure() async throws {
    let db = TestDatabase()
    let storage = try db.open()
    let error = await #expect(throws: StorageError.self) {
      try await storage.write { db in
        try db.execute(Self.insertSQL, [.text("https://example.com/ok"), .text("Fine"), .integer(t0)])
        try db.execute(Self.insertSQL, [.text("https://example.com/bad"), .null, .integer(t0)])
      }
    }
    #expect(try await storage.articleCount() == 0)
    let storageError = try #require(error)
    #expect(storageError.kind == .other)
    #expect(storageError.description.contains(db.path))
    let sqlite = try #require(storageError.underlying)
    #expect(sqlite.code == SQLiteError.constraint)
    #expect(sqlite.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
    #expect(sqlite.message.contains("NOT NULL constraint failed: article.title"))
    #expect(sqlite.sql == Self.insertSQL)
    let text = sqlite.description
    #expect(text.contains("19"), "\(text)")
    #expect(text.contains("NOT NULL constraint failed: article.title"), "\(text)")
    #expect(text.contains(Self.insertSQL), "\(text)")
    #expect(text.contains(db.path), "\(text)")
    #expect(storageError.description.contains("NOT NULL constraint failed"))
  }

  @Test("a save that fails on its last article changes nothing: rows, result list and fetch record")
  func failedSaveRollsBack() async throws {
    // Keep the folder alive as long as the database is open.
    let database = TestDatabase()
    let storage = try database.open()
    let a = makeArticle("a", title: "A as first saved", publishedAt: t0)
    let b = makeArticle("b", publishedAt: t0 + 1000)
    try await storage.saveArticles([a, b], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    // Make the insert of one particular url fail inside saveArticles, after earlier statements have run.
    try await storage.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER poison BEFORE INSERT ON article WHEN NEW.url LIKE '%/poison'
          BEGIN SELECT RAISE(ABORT, 'poisoned row'); END
          """)
    }

    let updatedA = makeArticle("a", title: "A updated", publishedAt: t0 + 5000)
    let c = makeArticle("c", publishedAt: t0 + 2000)
    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles(
        [updatedA, c, makeArticle("poison")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0 + 9000))
    }
    #expect(error?.underlying?.code == SQLiteError.constraint)
    #expect(error?.underlying?.message.contains("poisoned row") == true)

    #expect(try await storage.articles(forQuery: "q") == [b, a])
    #expect(try await storage.articles() == [b, a])
    let fetch = try await storage.fetchRecord(forQuery: "q")
    #expect(fetch?.fetchedAt == Timestamp(millisecondsSince1970: t0))
    #expect(fetch?.articleCount == 2)
    #expect(try writeLockIsFree(storage.path), "the failed write left its transaction (and lock) open")

    // Without the poisoned article the same save goes through.
    #expect(try await storage.saveArticles([updatedA, c], forQuery: "q", fetchedAt: .now()).saved == 2)
    #expect(try await storage.articles(forQuery: "q") == [updatedA, c])
  }

  @Test("SQLiteError from a raw connection names code, message, SQL and path")
  func sqliteErrorDescription() throws {
    let db = TestDatabase()
    let connection = try Connection(path: db.path)
    let error = try #require(#expect(throws: SQLiteError.self) { try connection.execute(sql: "SELEC 1") })
    #expect(error.code == 1)
    #expect(error.message.contains("syntax error"))
    #expect(error.sql == "SELEC 1")
    #expect(error.path == db.path)
    #expect(error.description.contains("SQLite error 1"))
    #expect(error.description.contains(error.message))
    #expect(error.description.contains("`SELEC 1`"))
    #expect(error.description.contains(db.path))

    let unique = SQLiteError(extendedCode: 2067, message: "UNIQUE constraint failed: t.x")
    #expect(unique.code == SQLiteError.constraint)
    #expect(unique.description == "SQLite error 19: UNIQUE constraint failed: t.x")
  }
}
