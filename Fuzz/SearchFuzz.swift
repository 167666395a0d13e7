// libFuzzer target: the search query translator, `SearchQuery(_:)` and its FTS5 `MATCH` expression, run against a
// real FTS5 index (the schema's `article_fts`, same tokenizer) and through `StorageContext.search` end to end.
//
// Built by scripts/fuzz.sh against the OfflineNewsStorage module compiled with `-enable-testing`. The input is the
// user's text (UTF-8, invalid bytes replaced). Properties checked, each a crash when broken:
// - parsing never traps; it refuses a text only with `.noTerms` (exactly when the text holds no letter, digit or
//   private-use character) or `.tooManyTerms` (more than `SearchQuery.maximumTerms` terms);
// - an accepted query's `matchExpression`, and every term's `ftsString` alone, are accepted by SQLite's FTS5: no
//   "fts5: syntax error", no other SQLite error; each `ftsString` is one FTS5 string (quotes inside doubled, no NUL),
//   so no operator can slip through even where FTS5 would accept the result;
// - `StorageContext.search` with the same text returns hits or throws nothing but `.invalidRequest` for a refused
//   text; every hit is an article of the store.
import Foundation
import OfflineNewsModel

@testable import OfflineNewsStorage

/// A private in-memory database with the whole schema and a few articles (Latin, CJK, Arabic, punctuation).
/// `nonisolated(unsafe)`: libFuzzer calls the target from one thread, the only one that uses this connection.
nonisolated(unsafe) private let connection: Connection = {
  do {
    let db = try Connection(path: ":memory:")
    try Migrator(migrations: Schema.migrations).migrate(db)
    for (index, title) in sampleTitles.enumerated() {
      try db.execute(
        "INSERT INTO article (url, title, publishedAt, fetchedAt, fetchQuery, content) VALUES (?1, ?2, ?3, 0, 'q', ?2)",
        [.text("https://example.com/\(index)"), .text(title), .integer(Int64(index))])
    }
    return db
  } catch {
    fatalError("cannot set up the FTS5 database: \(error)")
  }
}()

private let sampleTitles = [
  "Storm Isolde: ferries cancelled", "Covid-19 and the U.S. e-mail", "東京で地震 中国", "Müller wins the cup",
  "\"quoted\" NOT an operator AND OR", "طقس عاصف في المدينة", "a*b (c) [d] {e} f:g h^i",
]

/// The same articles in a storage context, for the end-to-end call.
private let storage: StorageContext = {
  do {
    let storage = try StorageContext(path: ":memory:")
    let articles = sampleTitles.enumerated().compactMap { index, title in
      URL(string: "https://example.com/\(index)").map {
        Article(url: $0, title: title, publishedAt: Date(timeIntervalSince1970: Double(index)), content: title)
      }
    }
    switch blocking({ try await storage.saveArticles(articles, forQuery: "q", fetchedAt: .now()) }) {
    case .success: return storage
    case .failure(let error): fatalError("cannot set up the storage context: \(error)")
    }
  } catch {
    fatalError("cannot open the storage context: \(error)")
  }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let query: SearchQuery?
  do {
    query = try SearchQuery(text)
  } catch {
    switch error {
    case .noTerms:
      guard !SearchQuery.hasWordContent(text) else {
        fatalError("noTerms for a text with word content: \(text.debugDescription)")
      }
    case .tooManyTerms(let count, let maximum):
      guard count > maximum else { fatalError("tooManyTerms with \(count) ≤ \(maximum)") }
    }
    query = nil
  }
  if let query {
    guard SearchQuery.hasWordContent(text), !query.clauses.isEmpty, query.terms.count <= SearchQuery.maximumTerms
    else { fatalError("accepted \(text.debugDescription) as \(query.matchExpression)") }
    match(query.matchExpression, text)
    for term in query.terms {
      checkQuoted(term, text)
      match(term.ftsString, text)
    }
  }
  switch blocking({ try await storage.search(text, limit: 10) }) {
  case .success(let hits):
    guard query != nil else { fatalError("search accepted a refused text \(text.debugDescription)") }
    for hit in hits where !hit.article.url.absoluteString.hasPrefix("https://example.com/") {
      fatalError("a hit that is not in the store: \(hit.article.url)")
    }
  case .failure(let error):
    guard query == nil, let error = error as? StorageError, case .invalidRequest = error.kind else {
      fatalError("search(\(text.debugDescription)) failed: \(error)")
    }
  }
  return 0
}

/// A term's FTS5 string is one string token: `"…"` or `"…"*`, every quote inside doubled, no NUL. (FTS5 accepting
/// the query is not enough: a bare quote can end the string early and still leave valid FTS5 syntax behind it.)
private func checkQuoted(_ term: SearchQuery.Term, _ text: String) {
  var scalars = Array(term.ftsString.unicodeScalars)
  if term.isPrefix, scalars.last == "*" { scalars.removeLast() }
  guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else {
    fatalError("\(term.ftsString.debugDescription) is not one quoted string (from \(text.debugDescription))")
  }
  var run = 0
  for scalar in scalars.dropFirst().dropLast() + [" "] {
    if scalar == "\"" {
      run += 1
      continue
    }
    guard run.isMultiple(of: 2), scalar != "\u{0}" else {
      fatalError("\(term.ftsString.debugDescription) has a bare quote or a NUL (from \(text.debugDescription))")
    }
    run = 0
  }
}

/// Runs `expression` as a bound `MATCH` argument; any SQLite error is a crash.
private func match(_ expression: String, _ text: String) {
  do {
    _ = try connection.cachedStatement("SELECT count(*) FROM article_fts WHERE article_fts MATCH ?1").fetchOne(
      [.text(expression)]
    ) { $0.int64(0) }
  } catch {
    fatalError("FTS5 refused \(expression.debugDescription) (from \(text.debugDescription)): \(error)")
  }
}
