import Foundation
import OfflineNewsModel

/// One article found by a search, with its rank and a highlighted excerpt.
public struct SearchHit: Sendable, Hashable {
  /// The article, every field included.
  public var article: Article
  /// How well it matches: lower is better, and the hits come sorted by it. For a word search it is FTS5's `bm25()`
  /// with the columns weighted title 10, author 3, source 3, summary 2, content 1 (a negative number); for a
  /// substring search (see `StorageContext.search(_:filter:limit:offset:)`) it is minus the sum of the weights of
  /// the columns holding each term. Compare ranks within one search only.
  public var rank: Double
  /// An excerpt of about 16 words, with each match between ``highlightStart`` and ``highlightEnd``, and ``ellipsis``
  /// where the text was cut: from the summary or the content when they match (whichever has more matches), as they
  /// say more than the title shown beside a result; otherwise from the best-matching column (title, author or
  /// source). The text is as stored: it may hold line breaks.
  public var snippet: String

  /// A hit, as ``StorageContext/search(_:filter:limit:offset:)`` makes them.
  package init(article: Article, rank: Double, snippet: String) {
    self.article = article
    self.rank = rank
    self.snippet = snippet
  }

  /// The mark before a match in ``snippet``: U+27E8, chosen because news text rarely holds it (« » and 「 」 are
  /// everyday quotation marks in French, Russian, Arabic and Japanese news).
  public static let highlightStart = "\u{27E8}"
  /// The mark after a match in ``snippet``: U+27E9.
  public static let highlightEnd = "\u{27E9}"
  /// Where ``snippet`` cuts the text: U+2026.
  public static let ellipsis = "\u{2026}"
}

extension StorageContext {
  /// Searches the cached articles' title, summary, content, author and source name, best match first.
  ///
  /// The text is parsed by ``SearchQuery``: words, `"phrases"`, `prefix*`, and `AND`/`OR`/`NOT` between terms;
  /// anything else is plain text, never FTS5 syntax, and never SQL (the expression is a bound parameter).
  ///
  /// - Words in spaced scripts (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari…) are matched through the
  ///   FTS5 index `article_fts` (migration 4): whole words, case and Latin diacritics folded (`muller` finds
  ///   Müller), ranked by `bm25()` with the title weighted above the body, with a `snippet()` (see
  ///   ``SearchHit/snippet``).
  /// - When any term is in a script written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer,
  ///   Myanmar; see `SearchQuery/Term/isSubstring`), the unicode61 tokenizer has no words to offer, so such terms
  ///   are matched anywhere inside the text (`地震` finds 東京都で大きな地震が発生); the other terms of the query
  ///   go through the index, or are found as substrings too (`iphone 発売` finds 新型iPhoneを発売, one token for
  ///   the index). This scans the articles (about 0.1 s per 20,000 articles); ranking and snippets are then
  ///   computed here, with the same column weights.
  ///
  /// Ties are ordered newest first (`publishedAt` descending, then `url`).
  ///
  /// For example:
  /// ```swift
  /// let hits = try await storage.search("storm NOT \"ferry\"", filter: ArticleFilter(unreadOnly: true), limit: 10)
  /// for hit in hits { print(hit.article.title, hit.snippet) }  // "… an amber ⟨storm⟩ warning …"
  /// ```
  ///
  /// - Parameters:
  ///   - text: what the user typed.
  ///   - filter: source, publication dates, unread, bookmarked.
  ///   - limit: at most this many hits; `nil` for all.
  ///   - offset: hits to skip first (for paging).
  /// - Throws: ``StorageError`` `.invalidRequest` naming the problem when the text has no word to look for (empty,
  ///   or only punctuation) or more than `SearchQuery.maximumTerms` terms; other ``StorageError``s when the
  ///   database fails.
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/fts5.html> (query syntax, `bm25()`, `snippet()`,
  /// external content tables).
  package func search(_ text: String, filter: ArticleFilter = .all, limit: Int? = nil, offset: Int = 0)
    async throws(StorageError)
    -> [SearchHit]
  {
    let query: SearchQuery
    do {
      query = try SearchQuery(text)
    } catch {
      throw StorageError(kind: .invalidRequest(error.description), path: path)
    }
    return try await search(query, filter: filter, limit: limit, offset: offset)
  }

  /// Searches with an already parsed query, as the text-taking `search` does.
  ///
  /// - Throws: ``StorageError``.
  package func search(_ query: SearchQuery, filter: ArticleFilter = .all, limit: Int? = nil, offset: Int = 0)
    async throws(StorageError) -> [SearchHit]
  {
    try await read { db in
      // The filter's arguments, then the search's (``ArticleConditions/bind(_:)``).
      var sql = filter.conditions(firstParameter: 1)
      let conditions = sql.conditions
      if query.needsSubstringSearch {
        return try Self.substringSearch(query, conditions, &sql, db, limit: limit, offset: offset)
      }
      return try Self.indexSearch(query, conditions, &sql, db, limit: limit, offset: offset)
    }
  }

  // MARK: - Index search

  /// Registers the search's ranking function (``SearchRanking``) on `db`, as every search does on its connection:
  /// for tests that call it themselves.
  package static func installSearchRanking(on db: Connection) throws {
    try SearchRanking.install(on: db)
  }

  /// Column weights for `bm25()`, in the order of `article_fts`'s columns.
  static let searchWeights: [Double] = [10, 2, 1, 3, 3]
  /// Tokens in a `snippet()`: about two lines of text.
  static let snippetTokens = 16

  /// Two steps, in one read transaction: the page of matches ranked by `bm25()`, then the articles and snippets of
  /// that page only (a `snippet()` tokenizes the text again, so it is not computed for every match).
  ///
  /// The ranking is ``SearchRanking``'s function, `bm25()`'s values for every match that can be on the page (so
  /// the order is `bm25()`'s, ties included); without a filter it reads only the index, and the articles of the
  /// page and of the matches tied with its last one are looked up for the order of ties (newest first, then `url`).
  private static func indexSearch(
    _ query: SearchQuery, _ conditions: [String], _ sql: inout ArticleConditions, _ db: Connection, limit: Int?,
    offset: Int
  ) throws -> [SearchHit] {
    try SearchRanking.install(on: db)
    let weights = searchWeights.map { String($0) }.joined(separator: ", ")
    let match = sql.bind(.text(query.matchExpression))
    // The rows that can be on the page are the first `offset + limit` by rank; 0: every row (no page, or one too
    // far to be worth it).
    let end = limit.map { max(0, offset).addingReportingOverflow($0) }
    let best = end.flatMap { $0.overflow || $0.partialValue > 1_000_000 ? nil : $0.partialValue }
    let rank = "\(SearchRanking.functionName)(article_fts, \(sql.bind(.integer(Int64(best ?? 0)))), \(weights))"
    let page: [(rowid: Int64, rank: Double)]
    if conditions.isEmpty, let limit, let best {
      page = try pageFromIndex(
        rank: rank, match: match, arguments: sql.arguments, db, best: best, limit: limit, offset: offset)
    } else {
      page = try db.makeStatement(
        """
        SELECT a.rowid, \(rank) AS score
        FROM article_fts JOIN article a ON a.rowid = article_fts.rowid
        WHERE article_fts MATCH \(match)\(conditions.map { " AND " + $0 }.joined())
        ORDER BY score, a.publishedAt DESC, a.url
        LIMIT \(sql.bind(.integer(Int64(limit ?? -1)))) OFFSET \(sql.bind(.integer(Int64(max(0, offset)))))
        """
      ).fetchAll(sql.arguments) { row in (rowid: row.int64(0) ?? 0, rank: row.double(1) ?? 0) }
    }
    guard !page.isEmpty else { return [] }

    // The snippets of the summary and the content; the best column's (FTS5's choice, often the title) only for a
    // hit whose body has no match: `snippet(…, -1)` tokenizes every column to choose one.
    let snippet = { (column: Int) in "snippet(article_fts, \(column), ?3, ?4, ?5, \(snippetTokens))" }
    let details = try db.makeStatement(
      """
      SELECT \(articleColumns), \(snippet(1)), \(snippet(2))
      FROM article_fts JOIN article a ON a.rowid = article_fts.rowid
      WHERE article_fts MATCH ?1 AND article_fts.rowid = ?2
      """)
    let bestColumn = try db.makeStatement(
      "SELECT \(snippet(-1)) FROM article_fts WHERE article_fts MATCH ?1 AND article_fts.rowid = ?2")
    var hits: [SearchHit] = []
    for (rowid, rank) in page {
      let arguments: [DatabaseValue] = [
        .text(query.matchExpression), .integer(rowid), .text(SearchHit.highlightStart),
        .text(SearchHit.highlightEnd), .text(SearchHit.ellipsis),
      ]
      let found = try details.fetchOne(arguments) { row in
        article(row).map { (article: $0, body: bodySnippet(row, columns: bodySnippetColumns)) }
      }
      guard let found = found ?? nil else { continue }
      let snippet = try found.body ?? bestColumn.fetchOne(arguments) { $0.string(0) ?? "" } ?? ""
      hits.append(SearchHit(article: found.article, rank: rank, snippet: snippet))
    }
    return hits
  }

  /// The page `offset..<offset + limit` of the matches in rank order, ties newest first then by `url`, from the
  /// index alone, in one pass over the matches: every row the ranking function computed exactly (the rows that were
  /// among the `best` (= offset + limit) first when it reached them: a superset of the `best` first and every match
  /// tied with the last of them), the `best` first of those by rank and the rows tied with the last, then their
  /// `publishedAt` and `url` for the order of ties.
  private static func pageFromIndex(
    rank: String, match: String, arguments: [DatabaseValue], _ db: Connection, best: Int, limit: Int, offset: Int
  ) throws -> [(rowid: Int64, rank: Double)] {
    guard best > 0 else { return [] }
    // Not `ORDER BY score LIMIT`: rows tied at the limit would need the scan again with a larger one (three scans
    // for two common words on the benchmark's payload, where 50 rows share the two best scores). The outer
    // `WHERE` computes the function once per match; SQLite computes it again for the rows it returns, which the
    // function answers exactly as the first time.
    let ranked = try db.makeStatement(
      """
      SELECT rowid, score FROM (SELECT rowid, \(rank) AS score FROM article_fts WHERE article_fts MATCH \(match))
      WHERE score < \(SearchRanking.outranked)
      """)
    var rows = try ranked.fetchAll(arguments) { row in (rowid: row.int64(0) ?? 0, rank: row.double(1) ?? 0) }
    rows.sort { $0.rank < $1.rank }
    if rows.count > best {
      let last = rows[best - 1].rank
      rows = Array(rows.prefix { $0.rank <= last })
    }
    // Every row kept has its exact rank (SearchRanking): only those past the page can be outranked.
    let order = try db.cachedStatement("SELECT publishedAt, url FROM article WHERE rowid = ?1")
    let keyed = try rows.map { row in
      let key = try order.fetchOne([.integer(row.rowid)]) { ($0.int64(0) ?? 0, Array(($0.string(1) ?? "").utf8)) }
      return (row: row, publishedAt: key?.0 ?? 0, url: key?.1 ?? [])
    }
    let sorted = keyed.sorted { a, b in
      if a.row.rank != b.row.rank { return a.row.rank < b.row.rank }
      if a.publishedAt != b.publishedAt { return a.publishedAt > b.publishedAt }
      return a.url.lexicographicallyPrecedes(b.url)  // SQLite's BINARY collation: byte order
    }
    let start = min(sorted.count, max(0, offset))
    return sorted[start..<min(sorted.count, start + limit)].map(\.row)
  }

  /// The two body snippets' places (summary, content) in a row of ``articleColumns`` followed by them.
  private static let bodySnippetColumns: [Int] = {
    let first = articleColumns.split(separator: ",").count
    return [first, first + 1]
  }()

  /// The body's snippet with the most matches (the summary on a tie), or `nil` when the body has no match: then
  /// the snippet of FTS5's best column is shown, as the body's says more than the title shown beside it.
  private static func bodySnippet(_ row: Row, columns: [Int]) -> String? {
    // Characters compared, as Foundation's `components(separatedBy:)` compares them, without its first-use cost.
    let start = Character(SearchHit.highlightStart)
    let marks = { (text: String) in text.reduce(0) { $1 == start ? $0 + 1 : $0 } }
    var best: (text: String, marks: Int)?
    for column in columns {
      guard let text = row.string(column) else { continue }
      let count = marks(text)
      if count > 0 && count > (best?.marks ?? 0) { best = (text, count) }
    }
    return best?.text
  }

  // MARK: - Substring search

  /// The searched columns, in `article_fts` order, as the index sees them: the folded columns of the view
  /// `article_search_text s` (migration 7).
  private static let searchColumns = ["s.title", "s.summary", "s.content", "s.author", "s.sourceName"]

  private static func substringSearch(
    _ query: SearchQuery, _ conditions: [String], _ sql: inout ArticleConditions, _ db: Connection, limit: Int?,
    offset: Int
  ) throws -> [SearchHit] {
    // A word beside CJK text is not a token of its own ("新型iPhoneを発売" is one token), so in such a query the
    // other words are also looked for as substrings. Column by column (cheaper than one concatenation), lowercased
    // only when the needle has ASCII letters (SQLite's lower() folds nothing else without ICU).
    func predicate(_ term: SearchQuery.Term) -> String {
      let needle = term.needle
      let parameter = sql.bind(.text(needle))
      let folds = needle.unicodeScalars.contains { $0.properties.isLowercase && $0.isASCII }
      let substring =
        "("
        + searchColumns.map { column in
          "coalesce(instr(\(folds ? "lower(\(column))" : column), \(parameter)), 0) > 0"
        }.joined(separator: " OR ") + ")"
      if term.isSubstring { return substring }
      return "(a.rowid IN (SELECT rowid FROM article_fts WHERE article_fts MATCH \(sql.bind(.text(term.ftsString))))"
        + " OR \(substring))"
    }
    let clauses = query.clauses.map { clause in
      var text = "(" + clause.required.map(predicate).joined(separator: " AND ")
      if !clause.excluded.isEmpty {
        text += " AND NOT (" + clause.excluded.map(predicate).joined(separator: " OR ") + ")"
      }
      return text + ")"
    }
    let condition = (["(" + clauses.joined(separator: " OR ") + ")"] + conditions).joined(separator: " AND ")
    let articles = try db.makeStatement(
      "SELECT \(articleColumns) FROM article a JOIN article_search_text s ON s.docid = a.rowid WHERE \(condition)"
    ).fetchAll(
      sql.arguments, article
    ).compactMap { $0 }
    let highlighter = SearchHighlighter(terms: query.positiveTerms)
    let hits = articles.map { article in
      let (score, snippet) = highlighter.scoreAndSnippet(article)
      return SearchHit(article: article, rank: -score, snippet: snippet)
    }.sorted { a, b in
      if a.rank != b.rank { return a.rank < b.rank }
      if a.article.publishedAt != b.article.publishedAt { return a.article.publishedAt > b.article.publishedAt }
      return a.article.url.absoluteString < b.article.url.absoluteString
    }
    let start = min(hits.count, max(0, offset))
    let count = min(hits.count - start, max(0, limit ?? .max))
    return Array(hits[start..<(start + count)])
  }
}

/// Ranking and snippets for a substring search, where FTS5's `bm25()` and `snippet()` are not available.
private struct SearchHighlighter {
  var terms: [SearchQuery.Term]

  /// The characters of context kept before the first match, and the longest snippet, in characters.
  static let leadingContext = 20
  static let snippetLength = 80

  /// The sum, over terms, of the weights of the columns holding the term; and an excerpt of the best column. The
  /// columns are folded as the index folds them (``SearchQuery/folded(_:)``), so snippets read as FTS5's do.
  func scoreAndSnippet(_ article: Article) -> (Double, String) {
    let columns = [article.title, article.summary, article.content, article.author, article.sourceName].map {
      $0.map(SearchQuery.folded)
    }
    var score = 0.0
    var found: [Int: (text: String, ranges: [Range<String.Index>], terms: Int)] = [:]
    for (index, column) in columns.enumerated() {
      guard let text = column, !text.isEmpty else { continue }
      var ranges: [Range<String.Index>] = []
      var matched = 0
      for term in terms {
        let termRanges = Self.ranges(of: term, in: text)
        if !termRanges.isEmpty {
          matched += 1
          score += StorageContext.searchWeights[index]
          ranges += termRanges
        }
      }
      if matched > 0 { found[index] = (text, ranges, matched) }
    }
    // As for an index search: the summary or the content when one matches (the one holding more terms), as they
    // say more than the title shown beside the snippet; otherwise the column holding the most terms.
    var best: (text: String, ranges: [Range<String.Index>], terms: Int)?
    for group in [[1, 2], [0, 3, 4]] where best == nil {
      for index in group {
        guard let candidate = found[index] else { continue }
        if candidate.terms > (best?.terms ?? 0) { best = candidate }
      }
    }
    guard let best else { return (score, Self.excerpt(columns.compactMap { $0 }.first ?? "", [])) }
    return (score, Self.excerpt(best.text, best.ranges))
  }

  /// Where `term` occurs in `text`: as a substring (ASCII case folded) for a substring term; otherwise case and
  /// diacritics folded, starting at a word boundary (and ending at one, unless a prefix).
  static func ranges(of term: SearchQuery.Term, in text: String) -> [Range<String.Index>] {
    let needle = term.isSubstring ? term.needle : term.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    guard !needle.isEmpty else { return [] }
    let options: String.CompareOptions =
      term.isSubstring ? [.caseInsensitive] : [.caseInsensitive, .diacriticInsensitive]
    var ranges: [Range<String.Index>] = []
    var start = text.startIndex
    while start < text.endIndex, let found = text.range(of: needle, options: options, range: start..<text.endIndex) {
      let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
      let after = found.upperBound < text.endIndex ? text[found.upperBound] : nil
      let isWordy = { (character: Character?) in
        guard let character, character.isLetter || character.isNumber else { return false }
        return !character.unicodeScalars.contains(where: SearchQuery.isUnspacedScript)
      }
      if term.isSubstring || (!isWordy(before) && (term.isPrefix || !isWordy(after))) { ranges.append(found) }
      start = found.upperBound > found.lowerBound ? found.upperBound : text.index(after: found.lowerBound)
    }
    return ranges
  }

  /// At most ``snippetLength`` characters of `text` around its first match, each match marked.
  static func excerpt(_ text: String, _ ranges: [Range<String.Index>]) -> String {
    let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
    var merged: [Range<String.Index>] = []
    for range in sorted {
      if let last = merged.last, range.lowerBound <= last.upperBound {
        merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    let first = merged.first?.lowerBound ?? text.startIndex
    let start =
      text.index(first, offsetBy: -leadingContext, limitedBy: text.startIndex) ?? text.startIndex
    let end = text.index(start, offsetBy: snippetLength, limitedBy: text.endIndex) ?? text.endIndex
    var result = start > text.startIndex ? SearchHit.ellipsis : ""
    var position = start
    for range in merged where range.lowerBound < end && range.upperBound > start {
      let lower = max(range.lowerBound, start)
      let upper = min(range.upperBound, end)
      result += text[position..<lower] + SearchHit.highlightStart + text[lower..<upper] + SearchHit.highlightEnd
      position = upper
    }
    result += text[position..<end]
    if end < text.endIndex { result += SearchHit.ellipsis }
    return result
  }
}
