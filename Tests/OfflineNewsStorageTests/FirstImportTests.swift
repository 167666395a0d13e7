import Foundation
import OfflineNewsModel
import Synchronization
import Testing

@testable import OfflineNewsStorage

/// The batches of one streamed save, handed out in order.
private final class Batches: Sendable {
  private let rest: Mutex<[[Article]]>
  init(_ batches: [[Article]]) { rest = Mutex(batches.reversed()) }
  func next() -> [Article]? { rest.withLock { $0.popLast() } }
}

/// A first import (into an empty article table) keeps nothing per URL: the result list is read back from the rows
/// it wrote (each URL's place is the order of its row), and the inserted identities of its change are read only
/// when someone observes. It must end exactly as the same save into a table that already holds an article, which
/// takes the path that records every URL.
@Suite("StorageContext: a first import keeps nothing per URL and ends as any other save", .timeLimit(.minutes(5)))
struct FirstImportTests {
  private let at = Timestamp(millisecondsSince1970: t0)

  /// 2,500 records in three batches, 2,497 distinct URLs: article 7 again later in its own batch and again in the
  /// third batch (the later record wins at the first one's place), article 1,200 again at the end of the third.
  private static func batches() -> [[Article]] {
    var all = (0..<2500).map { makeArticle("first\($0)", publishedAt: t0 + Int64($0)) }
    all[400] = makeArticle("first7", title: "Seven, corrected", publishedAt: t0 + 7)
    all[2100] = makeArticle("first7", title: "Seven, corrected again", publishedAt: t0 + 7)
    all[2499] = makeArticle("first1200", title: "Twelve hundred, corrected", publishedAt: t0 + 1200)
    return [Array(all[0..<1000]), Array(all[1000..<2000]), Array(all[2000...])]
  }

  /// The distinct URLs of `articles`, in the order each first came: their places in the result list, derived
  /// from the input and not from what the store wrote.
  private static func firstOccurrences(_ articles: [Article]) -> [String] {
    var seen: Set<String> = []
    return articles.map(\.url.absoluteString).filter { seen.insert($0).inserted }
  }

  /// The query's result list, by place.
  private func resultList(_ storage: StorageContext, _ query: String) async throws -> [String] {
    try await storage.read { db in
      try db.makeStatement("SELECT url, position FROM query_result WHERE query = ?1 ORDER BY position").fetchAll(
        [.text(query)]
      ) { "\($0.int64(1) ?? -1) \($0.string(0) ?? "")" }
    }
  }

  @Test("the same result list, counts, rows and search answers as a save into a filled table")
  func sameAsLaterSave() async throws {
    let batches = Self.batches()
    let all = batches.flatMap { $0 }
    let expected = Self.firstOccurrences(all)
    #expect(expected.count == 2497)

    let firstDatabase = TestDatabase()
    let first = try firstDatabase.open()
    let log = ChangeLog(first)
    let queue = Batches(batches)
    let firstResult = try await first.saveArticles(forQuery: "q", fetchedAt: at, batches: { queue.next() })

    // The other path: the article table already holds one article (of another query) when the same save comes.
    let laterDatabase = TestDatabase()
    let later = try laterDatabase.open()
    try await later.saveArticles([makeArticle("elsewhere")], forQuery: "other", fetchedAt: at)
    let laterQueue = Batches(batches)
    let laterResult = try await later.saveArticles(forQuery: "q", fetchedAt: at, batches: { laterQueue.next() })

    for result in [firstResult, laterResult] {
      let counts: [Int] = [result.saved, result.inserted, result.updated, result.unchanged, result.evicted]
      #expect(counts == [2497, 2497, 0, 0, 0])
    }
    let places = expected.enumerated().map { "\($0.offset) \($0.element)" }
    #expect(try await resultList(first, "q") == places)
    #expect(try await resultList(later, "q") == places)
    for storage in [first, later] {
      #expect(try await storage.int("SELECT articleCount FROM query_fetch WHERE query = 'q'") == 2497)
      #expect(try await storage.text("SELECT title FROM article WHERE url LIKE '%/first7'") == "Seven, corrected again")
    }
    // Observed, the change lists every inserted URL once, in the order it first came.
    let change = await log.next()
    #expect(change.map(\.inserted) == [expected.map { Identity(.text($0)) }])

    let firstPage = try await first.articles(forQuery: "q").map(\.url.absoluteString)
    #expect(firstPage == (try await later.articles(forQuery: "q").map(\.url.absoluteString)))
    for text in ["corrected", "seven", "twelve"] {
      let answer = try await first.search(text, limit: 3000).map(\.article.url.absoluteString)
      #expect(answer == (try await later.search(text, limit: 3000).map(\.article.url.absoluteString)), "\(text)")
    }
  }

  @Test("a result list longer than one statement writes is placed whole, in the order each URL first came")
  func resultListInSeveralStatements() async throws {
    // Two full statements and one of a single row (the list is written in `url` order, `membershipChunk` rows per
    // statement); the URL that ends the first statement comes three times (it keeps its first place).
    let count = 2 * ArticleWriter.membershipChunk + 1
    var all = (0..<count).map { makeArticle("many\($0)", publishedAt: t0 + Int64($0)) }
    let boundary = all.map(\.url.absoluteString).sorted()[ArticleWriter.membershipChunk - 1]
    let repeated = all.first { $0.url.absoluteString == boundary }.map { [$0] } ?? []
    all = Array(all[..<3000]) + repeated + Array(all[3000...]) + repeated
    let expected = Self.firstOccurrences(all).enumerated().map { "\($0.offset) \($0.element)" }
    #expect(expected.count == count)

    let database = TestDatabase()
    let storage = try database.open()
    let queue = Batches(stride(from: 0, to: all.count, by: 2000).map { Array(all[$0..<min($0 + 2000, all.count)]) })
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { queue.next() })
    #expect(result.saved == count && result.inserted == count)
    #expect(try await resultList(storage, "q") == expected)
  }

  @Test("unobserved, a first import still counts and places every article, from 0")
  func unobserved() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let queue = Batches(Self.batches())
    let result = try await storage.saveArticles(forQuery: "q", fetchedAt: at, batches: { queue.next() })
    #expect(result.saved == 2497 && result.inserted == 2497)
    #expect(try await storage.int("SELECT min(position) FROM query_result WHERE query = 'q'") == 0)
    #expect(try await storage.int("SELECT max(position) FROM query_result WHERE query = 'q'") == 2496)
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query = 'q'") == 2497)
  }
}
