import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import Testing

@Suite("StorageContext: statements per save")
struct StatementCountTests {
  final class Counter: Sendable {
    let statements = Mutex<[String]>([])
  }

  @Test("saving 100 articles runs a bounded number of statements, not one per row")
  func boundedStatements() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let counter = Counter()
    try await storage.traceWrites { sql in counter.statements.withLock { $0.append(sql) } }
    let articles = (0..<100).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }

    try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let first = counter.statements.withLock { $0 }
    // BEGIN, lookup, upsert, clear the result list, insert it, fetch record, COMMIT.
    #expect(first.count <= 8, "\(first.count) statements:\n\(first.joined(separator: "\n"))")
    #expect(!first.contains { $0.contains("INSERT OR REPLACE") })

    // 1,200 articles: still a handful (one lookup and one upsert per 500 rows).
    counter.statements.withLock { $0.removeAll() }
    let many = (0..<1200).map { makeArticle("b\($0)", publishedAt: t0 + Int64($0)) }
    try await storage.saveArticles(many, forQuery: "q2", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let second = counter.statements.withLock { $0.count }
    #expect(second <= 14, "\(second) statements for 1,200 articles")

    // Re-saving unchanged articles writes no article row.
    counter.statements.withLock { $0.removeAll() }
    let again = try await storage.saveArticles(articles, forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    #expect(again.unchanged == 100 && again.inserted == 0 && again.updated == 0)
    #expect(!counter.statements.withLock { $0 }.contains { $0.hasPrefix("INSERT INTO article") })
    try await storage.traceWrites(nil)
  }
}
