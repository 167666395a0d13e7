import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

@Suite("Store compaction: VACUUM into 16 KiB pages, every row and search answer kept")
struct StoreCompactionTests {
  /// Words of the articles' titles and summaries, from several scripts (the search index folds and tokenizes them).
  static let words = [
    "storm", "ferry", "election", "market", "Zürich", "café", "القاهرة", "حريق", "東京", "hospital", "budget",
    "wildfire", "strike", "orbit", "vaccine",
  ]

  /// `count` articles whose titles and summaries mix ``words``, one second apart from `t0`.
  static func articles(_ count: Int, prefix: String, from start: Int = 0) -> [Article] {
    (start..<start + count).map { index in
      let pick = { (offset: Int) in words[(index * 7 + offset * 3) % words.count] }
      return makeArticle(
        "\(prefix)-\(index)", title: "\(pick(0)) \(pick(1)) \(index)", publishedAt: t0 + Int64(index) * 1000,
        summary: (0..<12).map(pick).joined(separator: " ") + " " + String(repeating: "report ", count: 40),
        content: String(repeating: "\(pick(2)) paragraph \(index). ", count: 30))
    }
  }

  /// Every row of every table but the search index's own (FTS5 merges those), each as JSON text with its rowid
  /// first for a rowid table (the search index finds articles by rowid), sorted: what compaction must keep.
  static func rows(_ storage: StorageContext) async throws -> [String: [String]] {
    try await storage.read { db in
      let tables = try db.makeStatement(
        "SELECT name, sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'article_fts%'"
      ).fetchAll { ($0.string(0) ?? "", $0.int64(1) == 1) }
      var rows: [String: [String]] = [:]
      for (table, withoutRowid) in tables {
        let columns = try db.makeStatement("SELECT name FROM pragma_table_info(?1)").fetchAll([.text(table)]) {
          "\"\($0.string(0) ?? "")\""
        }
        let values = (withoutRowid ? [] : ["rowid"]) + columns
        rows[table] = try db.makeStatement(
          "SELECT json_array(\(values.joined(separator: ", "))) AS r FROM \"\(table)\" ORDER BY r"
        ).fetchAll { $0.string(0) ?? "" }
      }
      return rows
    }
  }

  /// What each of ``words`` finds, in rank order, with its rank.
  static func answers(_ storage: StorageContext) async throws -> [String: [String]] {
    var answers: [String: [String]] = [:]
    for word in words + ["report", "paragraph", "storm ferry", "\"market Zürich\""] {
      answers[word] = try await storage.search(word, limit: 5000).map { "\($0.article.url) \($0.rank)" }
    }
    return answers
  }

  /// A store made as before 16 KiB pages: its header page written by `VACUUM` with SQLite's default 4 KiB.
  static func oldStore(_ db: TestDatabase) throws -> StorageContext {
    do {
      let connection = try Connection(path: db.path)
      try connection.execute(sql: "VACUUM")
    }
    return try db.open()
  }

  @Test("a 4 KiB store after deletions: smaller, 16 KiB pages, WAL, every row, state and search answer as before")
  func compactsAnOldStore() async throws {
    let db = TestDatabase()
    let storage = try Self.oldStore(db)
    let fetchedAt = Timestamp(millisecondsSince1970: t0 + 10_000_000)
    // A first bulk import, a second save that changes 400 of its articles and adds 300 (the search index gets
    // tombstones), local state, then a batch delete.
    try await storage.saveArticles(Self.articles(3000, prefix: "a"), forQuery: "q1", fetchedAt: fetchedAt)
    var changed = Self.articles(400, prefix: "a")
    for index in changed.indices { changed[index].title += " updated" }
    try await storage.saveArticles(
      changed + Self.articles(300, prefix: "b", from: 3000), forQuery: "q2", fetchedAt: fetchedAt)
    for index in [5, 17, 2500] {
      #expect(try await storage.setBookmarked(true, url: articleURL("a-\(index)").absoluteString))
    }
    #expect(try await storage.setRead(true, url: articleURL("a-2600").absoluteString))
    let deleted = try await storage.deleteArticles(
      publishedBefore: Timestamp(millisecondsSince1970: t0 + 2_000_000).date, keepingBookmarks: true)
    #expect(deleted == 1998)
    let rowsBefore = try await Self.rows(storage)
    let answersBefore = try await Self.answers(storage)
    #expect(answersBefore["storm"]?.isEmpty == false)
    #expect(answersBefore["القاهرة"]?.isEmpty == false)
    #expect(try await storage.int("PRAGMA page_size") == 4096)
    await storage.close()

    let compaction = try StorageContext.compact(path: db.path)
    #expect(compaction.pageSizeBefore == 4096)
    #expect(compaction.pageSizeAfter == 16_384)
    #expect(compaction.bytesAfter < compaction.bytesBefore * 3 / 4, "\(compaction)")
    #expect(compaction.bytesAfter == Int64(try db.bytes().count))
    #expect(!compaction.rebuiltSearchIndex, "SQLite 3.40's VACUUM keeps the rowids of a table with indexes")
    #expect(!db.exists("-journal"))

    let reopened = try db.open()
    #expect(try await reopened.text("PRAGMA journal_mode") == "wal")
    #expect(try await reopened.int("PRAGMA page_size") == 16_384)
    #expect(try await reopened.int("PRAGMA freelist_count") == 0)
    #expect(try await reopened.text("PRAGMA integrity_check") == "ok")
    try await reopened.write { db in
      try db.execute(sql: "INSERT INTO article_fts(article_fts, rank) VALUES ('integrity-check', 1)")
    }
    #expect(try await Self.rows(reopened) == rowsBefore)
    #expect(try await Self.answers(reopened) == answersBefore)

    // And the store works on: a save, a search of what it saved, a delete.
    try await reopened.saveArticles(Self.articles(50, prefix: "c", from: 5000), forQuery: "q3", fetchedAt: fetchedAt)
    #expect(try await reopened.search("\"paragraph 5010\"").map(\.article.url) == [articleURL("c-5010")])
    #expect(try await reopened.articleCount() == 3300 - 1998 + 50)
    #expect(try await reopened.text("PRAGMA integrity_check") == "ok")

    // Compacting again: nothing left to give back, the rows as they are.
    let rowsNow = try await Self.rows(reopened)
    await reopened.close()
    let again = try StorageContext.compact(path: db.path)
    #expect(again.pageSizeBefore == 16_384 && again.pageSizeAfter == 16_384)
    #expect(again.bytesAfter <= again.bytesBefore)
    let third = try db.open()
    #expect(try await Self.rows(third) == rowsNow)
  }

  @Test("a store another context has open: .busy after the timeout, left as it was; closed, it compacts")
  func refusedWhileOpen() async throws {
    let db = TestDatabase()
    let storage = try Self.oldStore(db)
    try await storage.saveArticles(
      Self.articles(1200, prefix: "a"), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let rowsBefore = try await Self.rows(storage)
    let error = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path, busyTimeout: 0.2) }
    #expect(error?.kind == .busy, "\(String(describing: error))")
    #expect(error?.description.contains(db.path) == true)
    #expect(try await storage.text("PRAGMA journal_mode") == "wal")
    #expect(try await storage.int("PRAGMA page_size") == 4096)
    #expect(try await Self.rows(storage) == rowsBefore)
    // The open context still writes.
    try await storage.saveArticles(
      Self.articles(10, prefix: "b"), forQuery: "q2", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let rowsNow = try await Self.rows(storage)
    await storage.close()

    #expect(try StorageContext.compact(path: db.path).pageSizeAfter == 16_384)
    #expect(try await Self.rows(db.open()) == rowsNow)
  }

  @Test("no file, a SQLite file that is no store, a newer store: refused, nothing created or changed")
  func refusals() throws {
    let db = TestDatabase()
    let missing = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path) }
    #expect(missing?.kind == .cannotOpen)
    #expect(!db.exists())

    do {
      let connection = try Connection(path: db.path)
      try connection.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')")
    }
    let other = try db.bytes()
    let notAStore = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path) }
    #expect(notAStore?.description.contains("not an OfflineNews store") == true, "\(String(describing: notAStore))")
    #expect(try db.bytes() == other)

    do {
      let connection = try Connection(path: db.path)
      try connection.execute(sql: "CREATE TABLE article (url TEXT PRIMARY KEY); PRAGMA user_version = 99")
    }
    let newer = try db.bytes()
    let newerError = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path) }
    #expect(newerError?.kind == .newerSchema(found: 99, supported: Schema.migrations.count))
    #expect(try db.bytes() == newer)
  }

  @Test(
    "a disk too full for the rewrite: .diskFull, every row as it was, still WAL; with space, it compacts",
    .enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
  func diskFull() async throws {
    let mount = try ScratchMount.make("8m")
    let path = mount.path("news.sqlite")
    let db = TestDatabase()
    do {
      // Made elsewhere with 4 KiB pages, then copied onto the small file system.
      let storage = try Self.oldStore(db)
      try await storage.saveArticles(
        Self.articles(1500, prefix: "a"), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
      _ = try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0 + 700_000).date)
      await storage.close()
    }
    try FileManager.default.copyItem(atPath: db.path, toPath: path)
    let rowsBefore = try await Self.rows(StorageContext(path: path))
    let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
    // Room for the -shm and -wal of opening, not for a rollback journal of the rewritten pages.
    #expect(mount.fill(leaving: size / 4) > 0)

    let error = #expect(throws: StorageError.self) { try StorageContext.compact(path: path) }
    #expect(error?.kind == .diskFull, "\(String(describing: error))")
    #expect(error?.description.contains(path) == true)
    #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    do {
      let connection = try Connection(path: path, readOnly: true)
      #expect(try connection.scalarString("PRAGMA journal_mode") == "wal")
      #expect(try connection.scalarInt("PRAGMA page_size") == 4096)
      #expect(try connection.scalarString("PRAGMA integrity_check") == "ok")
    }

    mount.unfill()
    do {
      let storage = try StorageContext(path: path)
      #expect(try await Self.rows(storage) == rowsBefore)
      await storage.close()
    }
    let compaction = try StorageContext.compact(path: path)
    #expect(compaction.pageSizeAfter == 16_384)
    let storage = try StorageContext(path: path)
    #expect(try await Self.rows(storage) == rowsBefore)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
    #expect(try await storage.text("PRAGMA journal_mode") == "wal")
  }

  @Test(
    "another connection that stays open: refused only after the busy timeout (SQLite's busy handler skips journal mode changes)"
  )
  func waitsTheBusyTimeout() async throws {
    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(
      Self.articles(20, prefix: "a"), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let start = ContinuousClock.now
    let error = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path, busyTimeout: 0.6) }
    let waited = ContinuousClock.now - start
    #expect(error?.kind == .busy, "\(String(describing: error))")
    #expect(waited >= .milliseconds(550), "refused after \(waited), not after the 0.6 s busy timeout")
    #expect(try await storage.text("PRAGMA journal_mode") == "wal")
    await storage.close()
  }

  @Test("a store mid-compaction (journal mode DELETE, another connection writing): an open waits the busy timeout")
  func openWaitsForACompaction() async throws {
    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(
      Self.articles(20, prefix: "a"), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    await storage.close()
    // What a compaction holds while FTS5 merges and VACUUM copies: the rollback journal's write lock.
    let compaction = try Connection(path: db.path)
    #expect(try compaction.scalarString("PRAGMA journal_mode = DELETE") == "delete")
    try compaction.execute(sql: "BEGIN IMMEDIATE")
    let start = ContinuousClock.now
    let error = #expect(throws: StorageError.self) {
      _ = try StorageContext(path: db.path, busyTimeout: 0.6)
    }
    let waited = ContinuousClock.now - start
    #expect(error?.kind == .busy, "\(String(describing: error))")
    #expect(waited >= .milliseconds(550), "refused after \(waited), not after the 0.6 s busy timeout")
    try compaction.execute(sql: "COMMIT")
    #expect(try compaction.scalarString("PRAGMA journal_mode = WAL") == "wal")
  }

  /// Permission bits do not stop root, so as root the file is made immutable (`chattr +i`), as in StorageOpenTests.
  @Test(
    "a read-only store file: .readOnly naming it, not an I/O error; the file left as it was",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func readOnlyFile() async throws {
    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(
      Self.articles(20, prefix: "a"), forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    await storage.close()
    try #require(FaultCapabilities.makeReadOnly(db.path), "could not make \(db.path) read-only")
    defer { FaultCapabilities.undoReadOnly(db.path) }
    let before = try db.bytes()
    let error = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path) }
    #expect(error?.kind == .readOnly, "\(String(describing: error))")
    #expect(error?.description.contains(db.path) == true)
    #expect(try db.bytes() == before)
  }

  @Test("a directory, or a symbolic link to one, at the path: refused, the message says what is there")
  func notARegularFile() throws {
    let db = TestDatabase()
    try FileManager.default.createDirectory(atPath: db.path, withIntermediateDirectories: true)
    let directory = #expect(throws: StorageError.self) { try StorageContext.compact(path: db.path) }
    #expect(directory?.kind == .cannotOpen)
    #expect(
      directory?.description.contains("\(db.path): it is a directory") == true, "\(String(describing: directory))")

    let link = db.path + "-link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db.path)
    defer { unlink(link) }
    let linked = #expect(throws: StorageError.self) { try StorageContext.compact(path: link) }
    #expect(linked?.kind == .cannotOpen)
    #expect(linked?.description.contains("\(link): it is a directory") == true, "\(String(describing: linked))")
  }
}
