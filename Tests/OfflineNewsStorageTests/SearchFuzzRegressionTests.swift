import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// What the `search` fuzzer found (`Fuzz/SearchFuzz.swift`), each kept as a regression test; the inputs are also in
/// `Fuzz/crashers/search/`.
@Suite("Search: inputs found by the search fuzzer")
struct SearchFuzzRegressionTests {
  // Was a bug (SearchQuery.Term.ftsString): a NUL inside a quoted phrase was copied into the MATCH expression, and
  // FTS5 reads its query as a C string, so the expression ended inside the quotes: "SQLite error 1: unterminated
  // string" instead of a search. Found by the search fuzzer in its first 786 inputs.
  @Test("regression: a NUL inside a phrase is a word break, not the end of the FTS5 query")
  func nulInsidePhrase() async throws {
    let query = try SearchQuery("\"fined ro\u{0}bocallers\"")
    #expect(!query.matchExpression.contains("\u{0}"))
    #expect(query.matchExpression == "((\"fined ro bocallers\"))")

    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(
      [makeArticle("a", title: "Regulator fined ro bocallers"), makeArticle("b", title: "Fined robocallers")],
      forQuery: "q", fetchedAt: .now())
    let hits = try await storage.search("\"fined ro\u{0}bocallers\"")
    #expect(hits.map(\.article.url) == [articleURL("a")])
    // A title holding the NUL is indexed as two words as well.
    try await storage.saveArticles(
      [makeArticle("c", title: "Fined ro\u{0}bocallers")], forQuery: "q", fetchedAt: .now())
    let both = try await storage.search("\"fined ro\u{0}bocallers\"")
    #expect(Set(both.map(\.article.url)) == [articleURL("a"), articleURL("c")])
  }
}
