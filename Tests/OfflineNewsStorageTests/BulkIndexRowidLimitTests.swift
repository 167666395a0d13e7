import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// A bulk save into a filled table sets the index's insert trigger aside when the largest rowid is below
/// `Int64.max`, and indexes the rows above the largest rowid it saw. When that rowid is a few below `Int64.max`,
/// SQLite gives the first new rows `max(rowid) + 1` and, once it reaches `Int64.max`, picks the others at random
/// (<https://www.sqlite.org/autoinc.html>): those rows are below the range the save indexes, and below the rowid
/// by which it tells an insert.
@Suite("StorageContext: a bulk save whose new rowids reach Int64.max")
struct BulkIndexRowidLimitTests {
  @Test("every new row is searchable and the index passes FTS5's integrity-check")
  func rowidsNearTheLimit() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let fetched = Timestamp(millisecondsSince1970: t0)
    try await storage.saveArticles(
      (0..<20).map { makeArticle("old\($0)", title: "Old story \($0)") }, forQuery: "old", fetchedAt: fetched)
    // The stored rows moved to just below Int64.max (rowids 1…20 become max − 24 … max − 5), the index rebuilt.
    try await storage.write { db in
      try db.execute(sql: "UPDATE article SET rowid = 9223372036854775807 - 25 + rowid")
      try db.execute(sql: "INSERT INTO article_fts (article_fts) VALUES ('rebuild')")
    }

    let articles = (0..<1_200).map { makeArticle("new\($0)", title: "Quokka story \($0)") }
    let result = try await storage.saveArticles(articles, forQuery: "new", fetchedAt: fetched)

    #expect(result.inserted == 1_200 && result.updated == 0)

    #expect(try await storage.int("SELECT count(*) FROM article") == 1_220)
    #expect(try await storage.search("quokka", limit: 5_000).count == 1_200)
    await #expect(throws: Never.self) {
      try await storage.write { db in
        try db.execute(sql: "INSERT INTO article_fts (article_fts, rank) VALUES ('integrity-check', 1)")
      }
    }
  }
}
