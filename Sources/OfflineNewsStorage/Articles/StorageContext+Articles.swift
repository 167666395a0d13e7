import Foundation
import OfflineNewsModel
import Synchronization

/// What one save of articles did.
public struct ArticleSaveResult: Sendable, Hashable {
  /// Distinct articles in the save (one per URL).
  public var saved: Int
  /// Articles that were not in the store.
  public var inserted: Int
  /// Articles whose content changed.
  public var updated: Int
  /// Articles already stored with exactly this content: not rewritten.
  public var unchanged: Int
  /// Articles removed by the eviction policy afterwards.
  public var evicted: Int
  /// Articles left out because a deletion or an eviction remembers their keys (`article_tombstone`, migration 13):
  /// not saved again, not counted in ``saved``.
  public var remembered = 0
  /// Of ``remembered``, those the eviction policy removed (migration 22); the others were deleted (`news delete`).
  public var rememberedEvicted = 0
  /// How many answered refreshes of the query in a row, this one included, permanent redirects took to the same new
  /// address (the fetch log's pending move, migration 16); `0` when this one was not redirected, or the save was
  /// not a refresh's.
  public var permanentRedirects = 0
}

extension ArticleSaveResult {
  /// No save: nothing written, nothing evicted or left out (a file that held no article).
  package static let nothing = ArticleSaveResult(saved: 0, inserted: 0, updated: 0, unchanged: 0, evicted: 0)
}

/// One source's articles, as a filter selects them: the articles whose ``Article/source`` is ``source`` (compared
/// exactly), whose publisher (``Article/sourceName``) is it (without regard to case), or that the last results
/// of ``queries`` hold.
public struct SourceMatch: Sendable, Hashable {
  /// The text compared with ``Article/source``: a configured source's name, or the feed, file or URL articles came
  /// from (the publisher's name, ``Article/sourceName``, is ``ArticleFilter/source``'s alone).
  public var source: String
  /// Cache keys (`NewsQuery.cacheKey`) whose last results also belong to the source; may be empty.
  public var queries: [String]

  /// The articles of `source`, and of the last results of `queries` (cache keys).
  public init(source: String, queries: [String] = []) {
    self.source = source
    self.queries = queries
  }
}

/// Which fields of each article a read of a list fills.
public enum ArticleFields: Sendable, Hashable {
  /// Every stored field: each ``Article`` as saved, its whole text included.
  case all
  /// What a list of articles shows: the key, link, title, author, image URL, date, publisher, source, whole-text
  /// date, read mark and bookmark. The body is not read: ``Article/summary``, ``Article/content``,
  /// ``Article/fullTextHTML`` and ``Article/fullText`` are `nil`, ``Article/tags`` and ``Article/enclosures``
  /// empty (most of a row's bytes; `news read` lists 2,000 articles at a time). Read the article itself
  /// (`NewsRepository.article(url:)`) to show it.
  case listing
}

/// Which cached articles to read.
public struct ArticleFilter: Sendable, Hashable {
  /// Only articles not marked read.
  public var unreadOnly: Bool
  /// Only bookmarked articles.
  public var bookmarkedOnly: Bool
  /// Only articles from this source: the configured source's name or the feed, file or URL they came from
  /// (``Article/source``, compared exactly), or the publisher's name (``Article/sourceName``, without regard to
  /// case, beyond ASCII too) unless the source's queries are given (``sourceQueries``: then it is a subscription,
  /// file or URL, and another feed's publisher of that name is not it); `nil` for every source.
  public var source: String?
  /// With ``source``: also the articles of these queries' last results (cache keys, `NewsQuery.cacheKey`), so that a
  /// source matches the articles its last fetch held even where another source brought them first (an article
  /// keeps the ``Article/source`` that saved it first: a file import of a feed, then a fetch of the same feed); and
  /// not the articles of a publisher of that name.
  package var sourceQueries: [String] = []
  /// Only articles of any of these sources (a folder's sources, for instance); `nil` for every source, and `[]`
  /// for none at all. Combined with ``source`` (when both are given, an article must match both).
  public var anyOfSources: [SourceMatch]?
  /// Only articles of the publisher with this display name (``Article/sourceName``), compared whole and without
  /// regard to case (`bbc news` is `BBC News`; `Süddeutsche` is `SÜDDEUTSCHE`); `nil` for every publisher.
  public var sourceName: String?
  /// Only articles published at or after this instant (`publishedAt >= date`); `nil` for no bound.
  public var publishedSince: Date?
  /// Only articles published strictly before this instant (`publishedAt < date`); `nil` for no bound.
  public var publishedBefore: Date?

  /// A filter; by default none (every cached article). The listing calls and the search take it alike.
  public init(
    unreadOnly: Bool = false, bookmarkedOnly: Bool = false, source: String? = nil, sourceName: String? = nil,
    anyOfSources: [SourceMatch]? = nil, publishedSince: Date? = nil, publishedBefore: Date? = nil
  ) {
    self.unreadOnly = unreadOnly
    self.bookmarkedOnly = bookmarkedOnly
    self.source = source
    self.sourceName = sourceName
    self.anyOfSources = anyOfSources
    self.publishedSince = publishedSince
    self.publishedBefore = publishedBefore
  }

  /// No condition.
  public static let all = ArticleFilter()

  /// The `WHERE` clause over `article a` and its arguments, numbered from `firstParameter`.
  func sql(firstParameter: Int) -> (sql: String, arguments: [DatabaseValue]) {
    let conditions = self.conditions(firstParameter: firstParameter)
    return (conditions.whereClause, conditions.arguments)
  }

  /// The condition that `article a`'s publisher (``Article/sourceName``) is `name`, bound as `parameter`: without
  /// regard to case, beyond ASCII too — SQLite's `NOCASE` when `name` is ASCII (the same, and faster), else
  /// ``Connection/unicodeNoCase``. The one rule of `list`, `mark-read` and `search`.
  static func publisherCondition(_ parameter: String, name: String) -> String {
    let collation = name.utf8.allSatisfy { $0 < 0x80 } ? "NOCASE" : Connection.unicodeNoCase
    return "a.sourceName = \(parameter) COLLATE \(collation)"
  }

  /// The conditions over `article a` (all must hold) and their arguments, numbered from `firstParameter`.
  func conditions(firstParameter: Int) -> ArticleConditions {
    var all = ArticleConditions(firstParameter: firstParameter)
    if unreadOnly { all.conditions.append("a.isRead = 0") }
    if bookmarkedOnly { all.conditions.append("a.bookmarkedAt IS NOT NULL") }
    /// One source's condition, its arguments bound.
    func match(_ source: String, _ queries: [String], publisher: Bool) -> String {
      let name = all.bind(.text(source))
      var members = ""
      if !queries.isEmpty {
        let marks = queries.map { all.bind(.text($0)) }.joined(separator: ", ")
        members = " OR a.url IN (SELECT url FROM query_result WHERE query IN (\(marks)))"
      }
      let byPublisher = publisher ? " OR " + Self.publisherCondition(name, name: source) : ""
      return "(a.source = \(name)\(byPublisher)\(members))"
    }
    if let source {
      // A subscription, file or URL (its queries known) is its own articles only: another feed whose publisher bears
      // its name is not it (a source "Daring Fireball" beside "df2", whose feed is titled Daring Fireball).
      let condition = match(source, sourceQueries, publisher: sourceQueries.isEmpty)
      all.conditions.append(condition)
    }
    if let anyOfSources {
      // A subscription's articles: recorded under its name or held by its query, never another feed's whose
      // publisher happens to bear its name (two sources "Daring Fireball" and "Daring Fireball (2)").
      var matches: [String] = []
      for source in anyOfSources { matches.append(match(source.source, source.queries, publisher: false)) }
      all.conditions.append(matches.isEmpty ? "0" : "(" + matches.joined(separator: " OR ") + ")")
    }
    if let sourceName {
      let parameter = all.bind(.text(sourceName))
      all.conditions.append(Self.publisherCondition(parameter, name: sourceName))
    }
    all.bound("a.publishedAt", ">=", publishedSince)
    all.bound("a.publishedAt", "<", publishedBefore)
    return all
  }
}

/// Conditions over `article a` that must all hold, with their arguments numbered from a first parameter: the one
/// builder of the `WHERE` clauses of ``ArticleFilter``, ``ArticleSelection`` and the search.
struct ArticleConditions {
  /// The number of the first argument (`?1` for 1).
  let firstParameter: Int
  /// The conditions, each SQL over `article a`.
  var conditions: [String] = []
  /// Their arguments, in parameter order.
  private(set) var arguments: [DatabaseValue] = []

  init(firstParameter: Int) { self.firstParameter = firstParameter }

  /// ` WHERE c1 AND c2…`, or `""` when there is no condition.
  var whereClause: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }

  /// Binds `value` as the next argument; its parameter (`?n`).
  mutating func bind(_ value: DatabaseValue) -> String {
    arguments.append(value)
    return "?\(firstParameter + arguments.count - 1)"
  }

  /// Adds `column op date` when there is a date, the date bound as the store keeps dates (UTC milliseconds):
  /// `op` is one of `<`, `<=`, `>`, `>=`.
  mutating func bound(_ column: String, _ op: String, _ date: Date?) {
    guard let date else { return }
    let parameter = bind(.integer(Timestamp(date).millisecondsSince1970))
    conditions.append("\(column) \(op) \(parameter)")
  }

  /// Adds `column op text` when there is a text (compared as SQLite compares text: `BINARY`).
  mutating func bound(_ column: String, _ op: String, _ text: String?) {
    guard let text else { return }
    let parameter = bind(.text(text))
    conditions.append("\(column) \(op) \(parameter)")
  }
}

/// How many cached articles a filter selects, and how many of them are unread.
public struct ArticleCounts: Sendable, Hashable {
  /// The articles selected.
  public var total: Int
  /// Those of them not marked read.
  public var unread: Int
  /// Those of them whose whole text is not stored because the last attempt to fetch their page failed (retried by
  /// a later full-text fetch; see `NewsRepository.fullTextFailure(of:limits:)`).
  public var fullTextFailed: Int

  /// Counts of `total` articles, `unread` of them unread, `fullTextFailed` of them with a failed full-text page.
  public init(total: Int, unread: Int, fullTextFailed: Int = 0) {
    self.total = total
    self.unread = unread
    self.fullTextFailed = fullTextFailed
  }
}

extension StorageContext {
  /// Saves the articles of one successful response for a query, as one transaction.
  ///
  /// - Each article is upserted by its identity, `url`, with multi-row `INSERT … ON CONFLICT(url) DO UPDATE …
  ///   WHERE` statements (never `INSERT OR REPLACE`, which deletes the row first): a row whose content is unchanged
  ///   is not rewritten (nor re-indexed for search), and `fetchedAt`/`fetchQuery` record the last save that wrote it.
  /// - Local-only attributes (`isRead`, `bookmarkedAt`) are never written.
  /// - The query's result list becomes these articles in this order (members that stay are not rewritten unless
  ///   they moved; members that left are deleted), and the fetch time is recorded.
  /// - Articles with the same URL appear once (the last wins, at the first one's place).
  /// - Then the ``eviction`` policy runs.
  ///
  /// Either all of this is committed or, on any error, none of it. Observers of ``changes()`` then receive one
  /// `article` change with the inserted, updated and evicted URLs.
  ///
  /// - Parameters:
  ///   - articles: the response's articles, in response order.
  ///   - query: the query's cache key (``NewsQuery/cacheKey``).
  ///   - source: the source written on articles whose ``Article/source`` is `nil` (the configured source's name, or
  ///     the feed, file or URL; the repository gives the query's); `nil` writes none.
  ///   - fetchedAt: when the response was received.
  ///   - progress: called with the number of distinct articles written so far, after each chunk of 500 (on the
  ///     writer's thread; keep it short).
  /// - Throws: ``StorageError``.
  /// Related SQLite documentation: <https://www.sqlite.org/lang_upsert.html>
  @discardableResult
  package func saveArticles(
    _ articles: [Article], forQuery query: String, source: String? = nil, fetchedAt: Timestamp,
    progress: (@Sendable (Int) -> Void)? = nil
  ) async throws(StorageError) -> ArticleSaveResult {
    let eviction = self.eviction
    let broadcaster = self.broadcaster
    return try await writeAndPublish { db in
      try ArticleWriter(db: db, progress: progress, listsInserted: broadcaster.hasObservers).save(
        articles, query: query, source: source, fetchedAt: fetchedAt, eviction: eviction)
    }
  }

  /// Saves the articles of one successful response that arrive in batches (for instance the chunks of a large file
  /// decoded while this writes), as one transaction, like ``saveArticles(_:forQuery:fetchedAt:progress:)``.
  ///
  /// For example:
  /// ```swift
  /// let stream = try NewsAPIFileStream(path: "everything.json")  // OfflineNewsNetwork
  /// try await storage.saveArticles(forQuery: key, fetchedAt: .now(), batches: { try stream.next() })
  /// ```
  ///
  /// `batches` is called on the writer's thread, inside the transaction, until it returns `nil`; it may block
  /// while the next batch is prepared. If it throws, nothing is committed and its error is rethrown as it is.
  /// Memory is bounded by one batch plus one entry per distinct URL, not by the whole response; a first import
  /// (into an empty article table) keeps nothing per URL, so its memory is flat in the size of the response (a
  /// million articles: 154 MB, docs/PERFORMANCE.md). When the batches
  /// hold no article at all, nothing is written (the query's cache stays as it was) and the result is all zeros.
  ///
  /// - Parameters:
  ///   - query: the query's cache key (``NewsQuery/cacheKey``).
  ///   - source: the source written on articles that do not name theirs; `nil` writes none.
  ///   - fetchedAt: when the response was received.
  ///   - progress: called with the number of distinct articles written so far, after each chunk of 500.
  ///   - searchIndexBuild: how a first import (into an empty article table) builds its search index once its rows
  ///     are written (``SearchIndexBuild``; tests lower its numbers to reach every path with a few thousand rows).
  ///   - batches: the next articles in response order, or `nil` at the end.
  /// - Throws: ``StorageError``, or what `batches` throws.
  @discardableResult
  package func saveArticles(
    forQuery query: String, source: String? = nil, fetchedAt: Timestamp, progress: (@Sendable (Int) -> Void)? = nil,
    searchIndexBuild: SearchIndexBuild = .standard, batches: @escaping @Sendable () throws -> [Article]?
  ) async throws -> ArticleSaveResult {
    let eviction = self.eviction
    // The write's errors are storage errors only; the batches' own error is kept aside and rethrown as it is.
    let batchFailure = BatchFailure()
    let broadcaster = self.broadcaster
    let rollbackJournal = try await enterRollbackJournalForFirstImport()
    do {
      let result = try await writeAndPublish { db in
        var writer = ArticleWriter.Session(
          db: db, query: query, source: source, fetchedAt: fetchedAt, progress: progress)
        writer.searchIndexBuild = searchIndexBuild
        while let batch = try batchFailure.keeping(batches) { try writer.add(batch) }
        writer.listsInserted = broadcaster.hasObservers
        return try writer.finish(eviction: eviction, skipIfEmpty: true)
      }
      if rollbackJournal { await leaveRollbackJournal() }
      return result
    } catch {
      if rollbackJournal { await leaveRollbackJournal() }
      if let failure = batchFailure.error.withLock({ $0 }) { throw failure }
      throw error
    }
  }

  /// Before a streamed save into a store that holds nothing yet (no article, no fetch record): the writer leaves WAL
  /// for a rollback journal (`PRAGMA journal_mode = DELETE`) for the length of that one transaction, and says whether
  /// it did. In WAL mode every page of a first import is written twice, to the `-wal` file and again by the
  /// checkpoint at its commit; with a rollback journal, pages past the file's old end are written once, into the
  /// database file, and the journal keeps only the few pages that existed (a crash or a failed save still rolls back
  /// to the empty store, from that journal, at the next open). 100,000 articles: the work after the last batch
  /// takes about 0.2 s less CPU and the import 0.35–0.5 s less time (A/B pairs in docs/PERFORMANCE.md).
  ///
  /// This context's idle readers close their connections first (``SerialConnection/releaseIdle()``). SQLite refuses
  /// the change while another connection has the database open in WAL mode (a read of this context in progress,
  /// another process): the save then runs in WAL mode as every other. While it runs, a
  /// process opening the store waits for its commit instead of reading the empty store (there is nothing to read).
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>,
  /// <https://www.sqlite.org/wal.html> (checkpoints), <https://www.sqlite.org/atomiccommit.html>
  private func enterRollbackJournalForFirstImport() async throws(StorageError) -> Bool {
    guard path != ":memory:", readOnlyCause == nil else { return false }
    let empty = try await storageErrors {
      try await writer.run { db in
        try db.scalarInt("SELECT NOT EXISTS (SELECT 1 FROM article) AND NOT EXISTS (SELECT 1 FROM query_fetch)") == 1
      }
    }
    guard empty else { return false }
    // This context's idle readers let go of the WAL index (each opens again at its next read).
    for reader in readers.readers { await reader.releaseIdle() }
    return try await storageErrors {
      try await writer.run { db in
        // Asked once, without waiting: a refusal costs nothing.
        let milliseconds = Int(max(0, min(db.busyTimeout * 1000, Double(Int32.max))))
        try db.execute(sql: "PRAGMA busy_timeout = 0")
        defer { try? db.execute(sql: "PRAGMA busy_timeout = \(milliseconds)") }
        do {
          return try db.scalarString("PRAGMA journal_mode = DELETE")?.lowercased() == "delete"
        } catch let error as SQLiteError where error.code == SQLiteError.busy {
          return false  // another connection has the database open in WAL mode
        }
      }
    }
  }

  /// Gives the writer its WAL journal back after ``enterRollbackJournalForFirstImport()``, whether the save committed
  /// or rolled back (waiting the busy timeout for readers of the new rows). Should that fail, the save's outcome stands
  /// and the store is in WAL mode again at its next open (every writer's open sets it).
  private func leaveRollbackJournal() async {
    let path = self.path
    _ = try? await storageErrors {
      try await writer.run { db in try Self.switchJournalMode(db, to: "WAL", path: path, refused: .busy) }
    }
  }

  /// The error the batches of a save threw, kept apart from the write's storage errors.
  private final class BatchFailure: Sendable {
    let error = Mutex<(any Error)?>(nil)

    /// Calls `next`, keeping its error before passing it on.
    func keeping(_ next: () throws -> [Article]?) throws -> [Article]? {
      do {
        return try next()
      } catch {
        self.error.withLock { $0 = error }
        throw error
      }
    }
  }

  /// The articles of a query's last successful response, newest first (`publishedAt` descending, then `url`).
  ///
  /// - Parameters:
  ///   - query: the query's cache key.
  ///   - limit: at most this many rows; `nil` for all.
  ///   - offset: rows to skip first.
  /// - Throws: ``StorageError``.
  package func articles(forQuery query: String, limit: Int? = nil, offset: Int = 0) async throws(StorageError)
    -> [Article]
  {
    try await read { db in
      try db.cachedStatement(
        """
        SELECT \(Self.articleColumns) FROM query_result r JOIN article a ON a.url = r.url
        WHERE r.query = ?1 ORDER BY a.publishedAt DESC, a.url LIMIT ?2 OFFSET ?3
        """
      ).fetchAll([.text(query), .integer(Int64(limit ?? -1)), .integer(Int64(max(0, offset)))], Self.article)
        .compactMap { $0 }
    }
  }

  /// Cached articles, newest first (`publishedAt` descending, then `url`).
  ///
  /// - Parameters:
  ///   - limit: at most this many rows; `nil` for all.
  ///   - offset: rows to skip first.
  ///   - filter: only unread, only bookmarked, or all.
  ///   - fields: every field, or what a list shows (``ArticleFields/listing``).
  /// - Throws: ``StorageError``.
  package func articles(
    limit: Int? = nil, offset: Int = 0, filter: ArticleFilter = .all, fields: ArticleFields = .all
  ) async throws(StorageError) -> [Article] {
    try await read { db in try Self.articles(db, limit: limit, offset: offset, filter: filter, fields: fields) }
  }

  /// The newest `limit` articles `filter` selects (as ``articles(limit:offset:filter:fields:)``) and the counts of
  /// every article `counting` selects (as ``articleCounts(matching:)``), read in one transaction: the two describe
  /// the same committed state, so that a list and the counts over it never disagree (a delete committed between
  /// two reads would show the new rows under the old counts).
  ///
  /// - Throws: ``StorageError``.
  package func articlesAndCounts(
    limit: Int?, filter: ArticleFilter, fields: ArticleFields = .all, counting: ArticleFilter
  ) async throws(StorageError) -> (articles: [Article], counts: ArticleCounts) {
    try await read { db in
      (
        try Self.articles(db, limit: limit, offset: 0, filter: filter, fields: fields),
        try Self.articleCounts(db, matching: counting)
      )
    }
  }

  private static func articles(
    _ db: Connection, limit: Int?, offset: Int, filter: ArticleFilter, fields: ArticleFields
  ) throws -> [Article] {
    let condition = filter.sql(firstParameter: 3)
    let columns = fields == .all ? Self.articleColumns : Self.listingColumns
    return try db.cachedStatement(
      "SELECT \(columns) FROM article a\(condition.sql) ORDER BY a.publishedAt DESC, a.url LIMIT ?1 OFFSET ?2"
    ).fetchAll([.integer(Int64(limit ?? -1)), .integer(Int64(max(0, offset)))] + condition.arguments, Self.article)
      .compactMap { $0 }
  }

  /// The article with this key or link, in any equivalent form (`CanonicalURL`: `HTTPS://Example.com:443/a#x`
  /// finds `https://example.com/a`), or `nil`.
  package func article(url: String) async throws(StorageError) -> Article? {
    let keys = Self.candidateKeys(url)
    return try await read { db in
      for key in keys {
        if let found = try db.cachedStatement("SELECT \(Self.articleColumns) FROM article a WHERE a.url = ?1")
          .fetchOne([.text(key)], Self.article) ?? nil
        {
          return found
        }
      }
      return try db.cachedStatement("SELECT \(Self.articleColumns) FROM article a WHERE a.link = ?1 LIMIT 1")
        .fetchOne([.text(url)], Self.article) ?? nil
    }
  }

  /// The key of the article each of `texts` finds, by text: what ``article(url:)`` finds (its key or link, in any
  /// equivalent form), else, with `itemIDs`, the article whose item identifier (``Article/itemID``: a feed item's
  /// guid scoped to its feed, ``ArticleIdentity``) the text is — the article of an item keyed by its link. Asked of
  /// many at once: one read, up to three queries per chunk of ``lookupChunk`` texts (their keys, then the links and
  /// item identifiers of those not found by key) instead of up to five per text; a text that finds nothing is left
  /// out.
  ///
  /// - Throws: ``StorageError``.
  package func keys(findingArticles texts: [String], itemIDs: Bool = false) async throws(StorageError)
    -> [String: String]
  {
    let chunks = stride(from: 0, to: texts.count, by: Self.lookupChunk).map {
      Array(texts[$0..<min($0 + Self.lookupChunk, texts.count)])
    }
    @Sendable func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
    return try await read { db in
      var found: [String: String] = [:]
      for chunk in chunks {
        let keyed = chunk.map { ($0, Self.candidateKeys($0)) }
        let keys = Array(Set(keyed.flatMap(\.1)))
        let stored = Set(
          try db.makeStatement("SELECT url FROM article WHERE url IN (\(marks(keys.count)))")
            .fetchAll(keys.map { .text($0) }) { $0.string(0) ?? "" })
        var rest: [String] = []
        for (text, candidates) in keyed {
          if let key = candidates.first(where: stored.contains) { found[text] = key } else { rest.append(text) }
        }
        guard !rest.isEmpty else { continue }
        let others = Array(Set(rest))
        var byOther: [String: String] = [:]
        for column in itemIDs ? ["itemID", "link"] : ["link"] {
          for (value, key) in try db.makeStatement(
            "SELECT \(column), url FROM article WHERE \(column) IN (\(marks(others.count)))"
          ).fetchAll(others.map { .text($0) }, { ($0.string(0) ?? "", $0.string(1) ?? "") }) {
            byOther[value] = byOther[value] ?? key
          }
        }
        for text in rest { if let key = byOther[text] { found[text] = key } }
      }
      return found
    }
  }

  /// The keys of every article whose link (``Article/link``, as the feed gave it) is one of `links`, exactly, by
  /// link: what finds the items a feed lists twice, under one link and guid, which are keyed apart
  /// (``ArticleIdentity``: a link or guid two items share identifies neither). Links that find nothing are left out.
  ///
  /// - Throws: ``StorageError``.
  package func articleKeys(linkedTo links: [String]) async throws(StorageError) -> [String: [String]] {
    let chunks = stride(from: 0, to: links.count, by: Self.lookupChunk).map {
      Array(links[$0..<min($0 + Self.lookupChunk, links.count)])
    }
    return try await read { db in
      var found: [String: [String]] = [:]
      for chunk in chunks {
        let (statement, arguments) = try db.listStatement(
          "SELECT DISTINCT link, url FROM article WHERE link IN (?LIST) ORDER BY rowid", list: chunk.map { .text($0) })
        for (link, key) in try statement.fetchAll(arguments, { ($0.string(0) ?? "", $0.string(1) ?? "") }) {
          found[link, default: []].append(key)
        }
      }
      return found
    }
  }

  /// How many texts ``keys(findingArticles:itemIDs:)`` looks up in one query: up to 4 keys each, within SQLite's
  /// default limit of 32,766 bound parameters.
  static let lookupChunk = 500

  /// The keys `text` may stand for: as typed, and its canonical form.
  static func candidateKeys(_ text: String) -> [String] {
    var keys = [text]
    // As typed, as a URL would be stored (non-ASCII percent-encoded), and the canonical form of either.
    let encoded = URL(string: text)?.absoluteString
    for candidate in [encoded, CanonicalURL.canonical(text), encoded.flatMap(CanonicalURL.canonical)] {
      if let candidate, !keys.contains(candidate) { keys.append(candidate) }
    }
    return keys
  }

  /// The number of cached articles.
  package func articleCount() async throws(StorageError) -> Int {
    try await read { Int(try $0.scalarInt("SELECT count(*) FROM article") ?? 0) }
  }

  /// The time of the most recent successful fetch of any query, or `nil` if none is recorded.
  package func latestFetch() async throws(StorageError) -> Timestamp? {
    try await read { db in
      try db.scalarInt("SELECT max(fetchedAt) FROM query_fetch").map(Timestamp.init(millisecondsSince1970:))
    }
  }

  /// Marks an article read or unread (a local-only attribute that refreshes never change).
  ///
  /// - Returns: `false` when no article has this URL.
  @discardableResult
  package func setRead(_ read: Bool, url: String) async throws(StorageError) -> Bool {
    try await setLocal(url: url, sql: "UPDATE article SET isRead = ?2 WHERE url = ?1", value: .integer(read ? 1 : 0))
  }

  /// Marks every article `filter` selects read (or unread), in one `UPDATE` (one transaction). Articles already
  /// in that state are not written. Observers of ``changes()`` receive one `article` change with the URLs changed.
  ///
  /// - Returns: the number of articles whose state changed.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func setRead(_ read: Bool, matching filter: ArticleFilter) async throws(StorageError) -> Int {
    try await setRead(read, selecting: ArticleSelection(filter: filter))
  }

  /// How many cached articles `filter` selects, and how many of them are unread.
  ///
  /// - Throws: ``StorageError``.
  package func articleCounts(matching filter: ArticleFilter = .all) async throws(StorageError) -> ArticleCounts {
    try await read { db in try Self.articleCounts(db, matching: filter) }
  }

  private static func articleCounts(_ db: Connection, matching filter: ArticleFilter) throws -> ArticleCounts {
    let condition = filter.sql(firstParameter: 1)
    let counts = try db.cachedStatement(
      """
      SELECT count(*), coalesce(sum(a.isRead = 0), 0),
        coalesce(sum(a.fullText IS NULL AND a.fullTextError IS NOT NULL), 0) FROM article a\(condition.sql)
      """
    ).fetchAll(condition.arguments) { (Int($0.int64(0) ?? 0), Int($0.int64(1) ?? 0), Int($0.int64(2) ?? 0)) }
    return ArticleCounts(
      total: counts.first?.0 ?? 0, unread: counts.first?.1 ?? 0, fullTextFailed: counts.first?.2 ?? 0)
  }

  /// Bookmarks an article (at `date`), or removes its bookmark. Bookmarked articles are never evicted.
  ///
  /// - Returns: `false` when no article has this URL.
  @discardableResult
  package func setBookmarked(_ bookmarked: Bool, url: String, at date: Date = Date()) async throws(StorageError)
    -> Bool
  {
    try await setLocal(
      url: url, sql: "UPDATE article SET bookmarkedAt = ?2 WHERE url = ?1",
      value: bookmarked ? .integer(Timestamp(date).millisecondsSince1970) : .null)
  }

  private func setLocal(url: String, sql: String, value: DatabaseValue) async throws(StorageError) -> Bool {
    let keys = Self.candidateKeys(url)
    return try await writeAndPublish { db in
      for key in keys {
        try db.execute(sql, [.text(key), value])
        if db.changes > 0 { return (true, [StorageChange(entity: "article", updated: [Identity(.text(key))])]) }
      }
      return (false, [])
    }
  }

  /// Batch delete: removes every cached article (and every query's result list and fetch record).
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func deleteAllArticles() async throws(StorageError) -> Int {
    try await writeAndPublish { db in
      let urls = try db.makeStatement("DELETE FROM article RETURNING url").fetchAll { $0.string(0) ?? "" }
      try db.execute("DELETE FROM query_result")
      try db.execute("DELETE FROM query_fetch")
      // Emptying the store is a reset: what a refresh lists is saved again.
      try db.execute("DELETE FROM article_tombstone")
      return (urls.count, [StorageChange(entity: "article", deleted: urls.map { Identity(.text($0)) })])
    }
  }

  /// Batch delete: removes the articles published strictly before `date` (and their places in query results), and
  /// remembers their keys (`article_tombstone`), so that a refresh of a feed that still lists them does not bring
  /// them back: the article writer skips a remembered key. A key is remembered for ``tombstoneLifetime`` and among
  /// the newest ``maximumTombstones``; ``forgetDeletedArticles()`` lets them all return.
  ///
  /// - Parameters:
  ///   - date: the cut-off instant; articles with `publishedAt < date` go.
  ///   - keepingBookmarks: keep bookmarked articles whatever their date (as eviction does); default `false`.
  ///   - now: when the deletion happens (the tombstones' time).
  /// - Returns: the number of articles deleted.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func deleteArticles(
    publishedBefore date: Date, keepingBookmarks: Bool = false, now: Timestamp = .now()
  ) async throws(StorageError) -> Int {
    let cutoff = Timestamp(date).millisecondsSince1970
    let condition = keepingBookmarks ? "publishedAt < ?1 AND bookmarkedAt IS NULL" : "publishedAt < ?1"
    return try await writeAndPublish { db in
      let urls = try db.makeStatement("DELETE FROM article WHERE \(condition) RETURNING url").fetchAll(
        [.integer(cutoff)]
      ) { $0.string(0) ?? "" }
      try Self.remember(deleted: urls, at: now, in: db)
      return (urls.count, [StorageChange(entity: "article", deleted: urls.map { Identity(.text($0)) })])
    }
  }

  /// Deletes the articles whose keys (``Article/url``) are `urls`, and remembers the keys as
  /// ``deleteArticles(publishedBefore:keepingBookmarks:now:)`` does, so a refresh does not bring them back.
  ///
  /// - Returns: the number of articles deleted (keys not cached count for nothing).
  /// - Throws: ``StorageError``.
  @discardableResult
  package func deleteArticles(urls: [String], now: Timestamp = .now()) async throws(StorageError) -> Int {
    guard !urls.isEmpty else { return 0 }
    return try await writeAndPublish { db in
      let statement = try db.cachedStatement("DELETE FROM article WHERE url = ?1 RETURNING url")
      var deleted: [String] = []
      for url in urls {
        deleted += try statement.fetchAll([.text(url)]) { $0.string(0) ?? "" }
      }
      try Self.remember(deleted: deleted, at: now, in: db)
      return (deleted.count, [StorageChange(entity: "article", deleted: deleted.map { Identity(.text($0)) })])
    }
  }

  /// How long the key of a deleted article is remembered (a year, in seconds): past that, a feed still listing it
  /// would bring it back (feeds list their last 10–100 items, so a deleted item has long left them).
  package static let tombstoneLifetime: TimeInterval = 365 * 86_400

  /// The most deleted keys remembered; the oldest are forgotten first.
  package static let maximumTombstones = 100_000

  /// Forgets every remembered deleted (or evicted) article
  /// (``deleteArticles(publishedBefore:keepingBookmarks:now:)``), so the next refresh of a source that still lists
  /// them saves them again; and, when there were any, every query's stored validators (`ETag`, `Last-Modified`),
  /// so that this refresh is unconditional: a `304 Not Modified` would keep a list the deletions had shortened.
  ///
  /// - Returns: how many keys were forgotten.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func forgetDeletedArticles() async throws(StorageError) -> Int {
    try await write { db in
      try db.execute("DELETE FROM article_tombstone")
      let forgotten = db.changes
      if forgotten > 0 {
        try db.execute(
          "UPDATE query_fetch SET etag = NULL, lastModified = NULL WHERE etag IS NOT NULL OR lastModified IS NOT NULL")
      }
      return forgotten
    }
  }

  /// The number of deleted article keys remembered.
  ///
  /// - Throws: ``StorageError``.
  package func deletedArticleCount() async throws(StorageError) -> Int {
    try await read { db in Int(try db.scalarInt("SELECT count(*) FROM article_tombstone") ?? 0) }
  }

  /// Writes the tombstones of `urls` — removed by the eviction policy when `evicted`, else deleted (migration 22) —
  /// and drops the expired and the surplus ones.
  static func remember(deleted urls: [String], at now: Timestamp, evicted: Bool = false, in db: Connection) throws {
    guard !urls.isEmpty else { return }
    let time = now.millisecondsSince1970
    var start = 0
    while start < urls.count {
      let chunk = urls[start..<min(urls.count, start + ArticleWriter.chunk)]
      let values = (0..<chunk.count).map { "(?\($0 + 3), ?1, ?2)" }.joined(separator: ", ")
      try db.execute(
        "INSERT INTO article_tombstone (url, deletedAt, evicted) VALUES \(values) "
          + "ON CONFLICT (url) DO UPDATE SET deletedAt = excluded.deletedAt, evicted = excluded.evicted",
        [.integer(time), .integer(evicted ? 1 : 0)] + chunk.map { .text($0) })
      start += ArticleWriter.chunk
    }
    try db.execute(
      "DELETE FROM article_tombstone WHERE deletedAt < ?1",
      [.integer(time - Int64(tombstoneLifetime * 1000))])
    try db.execute(
      """
      DELETE FROM article_tombstone WHERE url IN (
        SELECT url FROM article_tombstone ORDER BY deletedAt DESC, url LIMIT -1 OFFSET ?1)
      """, [.integer(Int64(maximumTombstones))])
  }

  /// The `SELECT` list of an article read (``ArticleColumn/returned``, from the table aliased `a`).
  static let articleColumns = ArticleColumn.returned.map { "a.\($0.name)" }.joined(separator: ", ")

  /// The columns ``ArticleFields/listing`` does not read: the article's body.
  static let bodyColumns: Set<String> = [
    "summary", "content", "tags", "enclosures", "fullTextHTML", "fullText", "summaryText", "contentText",
  ]

  /// The `SELECT` list of a read of ``ArticleFields/listing``: ``articleColumns`` with `NULL` in place of each of
  /// ``bodyColumns``, so that the same row decoding (``article(_:)``) reads it.
  static let listingColumns = ArticleColumn.returned.map { bodyColumns.contains($0.name) ? "NULL" : "a.\($0.name)" }
    .joined(separator: ", ")

  /// The place of each column in a row of ``articleColumns``, computed once from the declared list.
  private struct Positions {
    let url, title, author, summary, imageURL, publishedAt, content, sourceID, sourceName, link, source, tags: Int
    let enclosures, fullTextHTML, fullText, fullTextAt, summaryText, contentText, isRead, bookmarkedAt: Int

    init() {
      let names = ArticleColumn.returned.map(\.name)
      func at(_ name: String) -> Int { names.firstIndex(of: name) ?? -1 }
      (url, title, author, summary, imageURL) = (at("url"), at("title"), at("author"), at("summary"), at("imageURL"))
      (publishedAt, content, sourceID, sourceName) = (
        at("publishedAt"), at("content"), at("sourceID"), at("sourceName")
      )
      (link, source, tags, enclosures) = (at("link"), at("source"), at("tags"), at("enclosures"))
      (fullTextHTML, fullText, fullTextAt) = (at("fullTextHTML"), at("fullText"), at("fullTextAt"))
      (summaryText, contentText, isRead, bookmarkedAt) = (
        at("summaryText"), at("contentText"), at("isRead"), at("bookmarkedAt")
      )
    }
  }

  private static let positions = Positions()

  /// An article from a row of ``articleColumns``, each value read at its place in the declared list (computed once:
  /// the reader is hot, so it reads the row directly rather than through each column's `read`, which decodes a
  /// record's values by name; `ArticleColumnTests` checks that the two agree). A `NULL` link is the key itself (when
  /// the key is a link).
  static func article(_ row: Row) -> Article? {
    let p = positions
    guard let urlText = row.string(p.url), let url = URL(string: urlText), let title = row.string(p.title) else {
      return nil
    }
    let link = row.string(p.link).flatMap(URL.init(string:)) ?? (ArticleIdentity.isScoped(url) ? nil : url)
    var article = Article(
      key: url, link: link, title: title, author: row.string(p.author), summary: row.string(p.summary),
      imageURL: row.string(p.imageURL).flatMap(URL.init(string:)),
      publishedAt: Timestamp(millisecondsSince1970: row.int64(p.publishedAt) ?? 0).date,
      content: row.string(p.content), sourceID: row.string(p.sourceID), sourceName: row.string(p.sourceName),
      source: row.string(p.source), tags: ArticleJSON.tags(row.string(p.tags)),
      enclosures: ArticleJSON.enclosures(row.string(p.enclosures)), isRead: (row.int64(p.isRead) ?? 0) != 0,
      bookmarkedAt: row.int64(p.bookmarkedAt).map { Timestamp(millisecondsSince1970: $0).date })
    article.fullTextHTML = row.string(p.fullTextHTML)
    article.fullText = row.string(p.fullText)
    article.fullTextAt = row.int64(p.fullTextAt).map { Timestamp(millisecondsSince1970: $0).date }
    article.summaryText = row.string(p.summaryText)
    article.contentText = row.string(p.contentText)
    return article
  }
}
