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

  // Was a bug (SearchQuery.Term.ftsString): a double quote followed by a combining mark (`"` + U+0301 is one Swift
  // Character) was not doubled, because the replacement compared Characters: the quote reached FTS5 bare, ended the
  // string early and left the rest unterminated ("SQLite error 1: unterminated string"). Found by the search fuzzer
  // (`„…Geschäft "\u{0734}…`); escaping now works on Unicode scalars.
  @Test(
    "regression: a quote followed by a combining mark inside a phrase is escaped like any quote",
    arguments: [
      "\"x\"\u{301}y\"", "\u{201E}fut\"\u{0734} Gesch\u{E4}ft\"", "\"a\"\u{301}\"\u{301} OR b\"*",
      "\"x\"\u{301} OR y\"\u{301}\"",
    ])
  func quoteWithCombiningMark(_ text: String) async throws {
    let query = try SearchQuery(text)
    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(
      [makeArticle("a", title: "x y fut Gesch\u{E4}ft a b")], forQuery: "q", fetchedAt: .now())
    // The whole expression is valid FTS5 (no error), through the real search.
    _ = try await storage.search(query)
    for term in query.terms {
      let inner = term.ftsString.unicodeScalars.dropFirst().dropLast(term.isPrefix ? 2 : 1)
      // Inside the quotes, every quote is doubled: no odd run of quotes.
      var run = 0
      for scalar in inner {
        if scalar == "\"" {
          run += 1
        } else {
          #expect(run.isMultiple(of: 2), "\(term.ftsString)")
          run = 0
        }
      }
      #expect(run.isMultiple(of: 2), "\(term.ftsString)")
    }
  }
}
