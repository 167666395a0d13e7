import Foundation
import OfflineNewsModel

/// The order of an ``ArticleSelection``'s page. Every order ends with the article's key, so that pages are stable.
public enum ArticleOrder: Sendable, Hashable {
  /// By publication date (`publishedAt`), newest first when descending (the index `article_by_publishedAt`).
  case published
  /// By when the store first saved each article (`firstSeenAt`, migration 18: its arrival), latest first when
  /// descending, then by publication date in the same direction (the articles of one save: a feed's newest item
  /// first): the index `article_by_firstSeenAt`. The order of the Google Reader API's streams, as FreshRSS orders
  /// them by entry id (the time an entry was added, a feed's items added oldest first).
  case firstSeen
  /// By served id (`article.servedID`, migration 20: 16 hex digits, the key's handle when the row was inserted):
  /// the order of the ids `news serve` gives articles (the Miniflux API's `order=id`); not chronological.
  case servedID
  /// Unread before read when ascending (`isRead`), then by publication date in the same direction.
  case readState
  /// By the rank given to each article's ``Article/source`` (sources not listed last), then by publication date in
  /// the same direction: a server's order of folders (the Miniflux API's `order=category_title`).
  case sourceRank([String: Int])
}

/// An article's place in the ``ArticleOrder/published`` order — its publication date (to the millisecond, as stored)
/// and its key (``Article/url``, the tie-break) — or, with ``firstSeenAt``, in the ``ArticleOrder/firstSeen`` order.
/// What a keyset continuation holds (``ArticleSelection/after``).
public struct ArticlePlace: Sendable, Hashable {
  /// When the store first saved the article (`firstSeenAt`): its place in the ``ArticleOrder/firstSeen`` order;
  /// `nil` for a place in the ``ArticleOrder/published`` order.
  public var firstSeenAt: Date?
  /// The article's `publishedAt`.
  public var publishedAt: Date
  /// The article's key text (`url`).
  public var key: String

  /// The place of an article published at `publishedAt` whose key text is `key` (first saved at `firstSeenAt`,
  /// for the ``ArticleOrder/firstSeen`` order).
  public init(firstSeenAt: Date? = nil, publishedAt: Date, key: String) {
    self.firstSeenAt = firstSeenAt
    self.publishedAt = publishedAt
    self.key = key
  }

  /// The place of `article` (first saved at `firstSeenAt`, for the ``ArticleOrder/firstSeen`` order).
  public init(of article: Article, firstSeenAt: Date? = nil) {
    self.init(firstSeenAt: firstSeenAt, publishedAt: article.publishedAt, key: article.url.absoluteString)
  }
}

/// One page of cached articles: which (``ArticleFilter`` and the bounds below), in which order, how many. What a
/// sync API's stream of entries reads in one SQL statement, so that a page of a 100,000-article store costs what
/// its rows cost, not what the store holds.
public struct ArticleSelection: Sendable, Hashable {
  /// The conditions of ``ArticleFilter``: unread, bookmarked, sources, `publishedBefore`.
  public var filter: ArticleFilter
  /// Only articles read (``ArticleFilter/unreadOnly``'s converse).
  public var readOnly: Bool
  /// Only articles not bookmarked (``ArticleFilter/bookmarkedOnly``'s converse).
  public var unbookmarkedOnly: Bool
  /// Only articles of these sources, each source's being those recorded under its name (``Article/source``,
  /// exactly) and those its queries' last results hold (``SourceMatch/queries``) — ``ArticleFilter/anyOfSources``
  /// without its match of the publisher's name, so that both terms use an index; `nil` for every source, `[]` for
  /// none.
  public var sources: [SourceMatch]?
  /// How ``sources`` is looked up: through its indexes, which suits a few sources; or checked on each article while
  /// the publication-date index is walked, which suits a page of most of the store's sources (the whole reading
  /// list), where the indexes would gather every article before sorting them.
  public var sourceLookup: SourceLookup

  /// How a source condition is evaluated (``sources``).
  public enum SourceLookup: Sendable, Hashable {
    /// Through the indexes on `source` and on the results of queries.
    case index
    /// Checked on each article in date order.
    case scan
  }
  /// Only articles published strictly after this instant (`publishedAt > date`); `nil` for no bound.
  public var publishedAfter: Date?
  /// Only articles the store first saved at or after this instant (`firstSeenAt >= date`, to the millisecond);
  /// `nil` for no bound.
  public var firstSeenFrom: Date?
  /// Only articles the store first saved strictly before this instant (`firstSeenAt < date`); `nil` for no bound.
  public var firstSeenBefore: Date?
  /// Only articles whose served id (`article.servedID`, 16 hex digits) is strictly greater than this text (compared
  /// as text: a prefix `p` of 13 digits followed by `"fff"` selects the ids whose first 13 digits are above `p`);
  /// `nil` for no bound.
  public var servedIDAbove: String?
  /// Only articles whose served id is strictly less than this text; `nil` for no bound.
  public var servedIDBelow: String?
  /// Only articles that come after this place in the ``order``, in the selection's direction (a keyset
  /// continuation: unlike ``offset``, the next page neither skips nor repeats articles when some arrive or leave the
  /// selection between pages); `nil` for no bound. Meant for ``ArticleOrder/published`` and
  /// ``ArticleOrder/firstSeen`` (a place with its ``ArticlePlace/firstSeenAt``) only.
  public var after: ArticlePlace?
  /// The order of the page.
  public var order: ArticleOrder
  /// `true` for ascending (oldest, or smallest, first).
  public var ascending: Bool
  /// At most this many articles; `nil` for all.
  public var limit: Int?
  /// Articles skipped first.
  public var offset: Int

  /// A selection; by default every article, newest first.
  public init(
    filter: ArticleFilter = .all, readOnly: Bool = false, unbookmarkedOnly: Bool = false,
    sources: [SourceMatch]? = nil,
    sourceLookup: SourceLookup = .index, publishedAfter: Date? = nil, firstSeenFrom: Date? = nil,
    firstSeenBefore: Date? = nil, servedIDAbove: String? = nil, servedIDBelow: String? = nil,
    after: ArticlePlace? = nil,
    order: ArticleOrder = .published, ascending: Bool = false, limit: Int? = nil, offset: Int = 0
  ) {
    self.filter = filter
    self.readOnly = readOnly
    self.unbookmarkedOnly = unbookmarkedOnly
    self.sources = sources
    self.sourceLookup = sourceLookup
    self.publishedAfter = publishedAfter
    self.firstSeenFrom = firstSeenFrom
    self.firstSeenBefore = firstSeenBefore
    self.servedIDAbove = servedIDAbove
    self.servedIDBelow = servedIDBelow
    self.after = after
    self.order = order
    self.ascending = ascending
    self.limit = limit
    self.offset = offset
  }

  /// Which of the source terms a `WHERE` clause holds: both (`OR`), or one of them, for a count by `UNION`.
  enum SourceTerms { case both, namesOnly, queriesOnly }

  /// Whether it reads `firstSeenAt` (migration 18: its order, bounds or place) or `servedID` (migration 20: its order
  /// or bounds).
  var readsSyncColumns: Bool {
    order == .firstSeen || firstSeenFrom != nil || firstSeenBefore != nil || order == .servedID
      || servedIDAbove != nil || servedIDBelow != nil
  }

  /// The `WHERE` clause and its arguments, numbered from `firstParameter`.
  func whereClause(firstParameter: Int, sourceTerms: SourceTerms = .both) -> (sql: String, arguments: [DatabaseValue]) {
    var all = filter.conditions(firstParameter: firstParameter)
    if readOnly { all.conditions.append("a.isRead = 1") }
    if unbookmarkedOnly { all.conditions.append("a.bookmarkedAt IS NULL") }
    if let sources {
      let names = Array(Set(sources.map(\.source))).sorted()
      let queries = Array(Set(sources.flatMap(\.queries))).sorted()
      var terms: [String] = []
      let plus = sourceLookup == .scan ? "+" : ""
      if !names.isEmpty, sourceTerms != .queriesOnly {
        let marks = names.map { all.bind(.text($0)) }.joined(separator: ", ")
        terms.append("\(plus)a.source IN (\(marks))")
      }
      if !queries.isEmpty, sourceTerms != .namesOnly {
        let marks = queries.map { all.bind(.text($0)) }.joined(separator: ", ")
        terms.append("\(plus)a.url IN (SELECT url FROM query_result WHERE query IN (\(marks)))")
      }
      all.conditions.append(terms.isEmpty ? "0" : "(" + terms.joined(separator: " OR ") + ")")
    }
    all.bound("a.publishedAt", ">", publishedAfter)
    all.bound("a.firstSeenAt", ">=", firstSeenFrom)
    all.bound("a.firstSeenAt", "<", firstSeenBefore)
    all.bound("a.servedID", ">", servedIDAbove)
    all.bound("a.servedID", "<", servedIDBelow)
    if let after {
      // The order is `publishedAt DESC, url` (ascending: its exact reverse): after a place is an earlier date, or the
      // same date and a greater key (ascending: a later date, or the same and a smaller key). The first term bounds
      // the walk of `article_by_publishedAt`.
      let date = all.bind(.integer(Timestamp(after.publishedAt).millisecondsSince1970))
      let key = all.bind(.text(after.key))
      var place =
        ascending
        ? "(a.publishedAt > \(date) OR (a.publishedAt = \(date) AND a.url < \(key)))"
        : "(a.publishedAt < \(date) OR (a.publishedAt = \(date) AND a.url > \(key)))"
      if order == .firstSeen, let firstSeenAt = after.firstSeenAt {
        // `firstSeenAt DESC, publishedAt DESC, url`: an earlier arrival, or the same and after the place above; the
        // first term bounds the walk of `article_by_firstSeenAt`.
        let seen = all.bind(.integer(Timestamp(firstSeenAt).millisecondsSince1970))
        place =
          ascending
          ? "a.firstSeenAt >= \(seen) AND (a.firstSeenAt > \(seen) OR \(place))"
          : "a.firstSeenAt <= \(seen) AND (a.firstSeenAt < \(seen) OR \(place))"
      } else {
        place = (ascending ? "a.publishedAt >= \(date) AND " : "a.publishedAt <= \(date) AND ") + place
      }
      all.conditions.append(place)
    }
    return (all.whereClause, all.arguments)
  }

  /// The `ORDER BY` clause and its arguments, numbered from `firstParameter`.
  func orderClause(firstParameter: Int) -> (sql: String, arguments: [DatabaseValue]) {
    let direction = ascending ? "ASC" : "DESC"
    // Newest first, ties by key, is the index `article_by_publishedAt` (publishedAt DESC, url); ascending is its
    // exact reverse.
    let tie = ascending ? "a.url DESC" : "a.url"
    switch order {
    case .published: return (" ORDER BY a.publishedAt \(direction), \(tie)", [])
    case .firstSeen: return (" ORDER BY a.firstSeenAt \(direction), a.publishedAt \(direction), \(tie)", [])
    case .servedID: return (" ORDER BY a.servedID \(direction), a.url \(direction)", [])
    case .readState:
      return (" ORDER BY a.isRead \(direction), a.publishedAt \(direction), a.url \(direction)", [])
    case .sourceRank(let ranks):
      let sorted = ranks.sorted { $0.key < $1.key }
      guard !sorted.isEmpty else { return (" ORDER BY a.publishedAt \(direction), a.url \(direction)", []) }
      var arguments: [DatabaseValue] = []
      var cases = ""
      for (name, rank) in sorted {
        cases += " WHEN ?\(firstParameter + arguments.count) THEN \(rank)"
        arguments.append(.text(name))
      }
      let last = (ranks.values.max() ?? 0) + 1
      return (
        " ORDER BY CASE a.source\(cases) ELSE \(last) END \(direction), a.publishedAt \(direction), a.url \(direction)",
        arguments
      )
    }
  }
}

/// How many articles of one source there are, and how many are unread (``StorageContext/articleCounts(bySource:)``).
public struct SourceArticleCounts: Sendable, Hashable {
  /// The articles of the source.
  public var total: Int
  /// Those not marked read.
  public var unread: Int
  /// The publication date of its newest article; `nil` when it has none.
  public var newest: Date?

  /// Counts; see the properties.
  public init(total: Int, unread: Int, newest: Date? = nil) {
    self.total = total
    self.unread = unread
    self.newest = newest
  }
}

/// What a remembered count is the count of.
private struct CountKey: Hashable {
  var sql: String
  var arguments: [DatabaseValue]
}

/// What remembered counts of groups of sources are the counts of.
private struct GroupsKey: Hashable {
  var groups: [[SourceMatch]?]
}

extension StorageContext {
  /// One page of cached articles, as `selection` says, in one statement.
  ///
  /// - Throws: ``StorageError``.
  package func articles(selecting selection: ArticleSelection) async throws(StorageError) -> [Article] {
    if selection.readsSyncColumns { try await migrateBeforeSyncReads() }
    let (sql, arguments) = Self.pageQuery(selection)
    return try await read { db in
      try db.cachedStatement(sql).fetchAll(arguments, Self.article).compactMap { $0 }
    }
  }

  /// The statement of ``articles(selecting:)`` and its arguments: one place, so that ``queryPlan(selecting:)``
  /// explains the very query a page runs.
  fileprivate static func pageQuery(_ selection: ArticleSelection) -> (sql: String, arguments: [DatabaseValue]) {
    let condition = selection.whereClause(firstParameter: 3)
    let order = selection.orderClause(firstParameter: 3 + condition.arguments.count)
    let sql = "SELECT \(articleColumns) FROM article a\(condition.sql)\(order.sql) LIMIT ?1 OFFSET ?2"
    let arguments: [DatabaseValue] =
      [.integer(Int64(selection.limit ?? -1)), .integer(Int64(max(0, selection.offset)))] + condition.arguments
      + order.arguments
    return (sql, arguments)
  }

  /// How many articles `selection` selects, ignoring its order, limit and offset (one `count(*)`, remembered by
  /// the reading connection until the store changes: ``Connection/rememberedWhileUnchanged(_:_:)``).
  ///
  /// - Throws: ``StorageError``.
  package func articleCount(selecting selection: ArticleSelection) async throws(StorageError) -> Int {
    // Sources matched by name or by their last fetch's list: an `OR` of the two would check every row of the store
    // (about 25 ms at 100,000 articles); each term alone is an index lookup (`article_by_source`, the key's index
    // through `query_result`), so the count is of their `UNION`, each row once.
    let sql: String
    let arguments: [DatabaseValue]
    let names = selection.sources.map { $0.contains { !$0.source.isEmpty } } ?? false
    let queries = selection.sources.map { $0.contains { !$0.queries.isEmpty } } ?? false
    if names, queries, selection.sourceLookup == .index {
      let byName = selection.whereClause(firstParameter: 1, sourceTerms: .namesOnly)
      let byQuery = selection.whereClause(firstParameter: 1 + byName.arguments.count, sourceTerms: .queriesOnly)
      sql =
        "SELECT count(*) FROM (SELECT a.rowid FROM article a\(byName.sql) UNION SELECT a.rowid FROM article a"
        + "\(byQuery.sql))"
      arguments = byName.arguments + byQuery.arguments
    } else {
      let condition = selection.whereClause(firstParameter: 1)
      sql = "SELECT count(*) FROM article a\(condition.sql)"
      arguments = condition.arguments
    }
    // Asked again for every page of the same selection: remembered until the store changes.
    return try await read { db in
      try db.rememberedWhileUnchanged(CountKey(sql: sql, arguments: arguments)) {
        let count: Int64?? = try db.cachedStatement(sql).fetchOne(arguments) { $0.int64(0) }
        return Int((count ?? nil) ?? 0)
      }
    }
  }

  /// The articles whose served ids (`article.servedID`, migration 20) start with any of `prefixes` (4 to 16
  /// lower-case hex digits; others are ignored), at most `perPrefix` for each, in one read transaction of one range
  /// of the index `article_by_servedID` each: what a sync API needs to find the articles of a list of ids at once.
  ///
  /// - Returns: the articles found, each once, in the order of the prefixes.
  /// - Throws: ``StorageError``.
  package func articles(withServedIDPrefixes prefixes: [String], perPrefix: Int = 1) async throws(StorageError)
    -> [Article]
  {
    let valid = prefixes.map { $0.lowercased() }.filter(ArticleIdentity.looksLikeHandle)
    guard !valid.isEmpty else { return [] }
    try await migrateBeforeSyncReads()
    return try await read { db in
      let statement = try db.cachedStatement(
        """
        SELECT \(Self.articleColumns) FROM article a WHERE a.servedID >= ?1 AND a.servedID < ?2
        ORDER BY a.servedID LIMIT ?3
        """
      )
      var seen = Set<String>()
      var found: [Article] = []
      for prefix in valid {
        for article in try statement.fetchAll(
          [.text(prefix), .text(prefix + "g"), .integer(Int64(max(1, perPrefix)))], Self.article
        ) {
          guard let article, seen.insert(article.url.absoluteString).inserted else { continue }
          found.append(article)
        }
      }
      return found
    }
  }

  /// The articles whose served id's digits 6 to 13 (1-based, the low 32 bits of a 52-bit id made of the first 13
  /// digits) are any of `lowDigits` (8 lower-case hex digits each): how a client that keeps ids in 32-bit integers
  /// is understood. One scan of the served-id index, not a lookup: for the few ids such a client sends back.
  ///
  /// - Throws: ``StorageError``.
  package func articles(withServedIDDigits6to13 lowDigits: [String]) async throws(StorageError) -> [Article] {
    let valid = Array(Set(lowDigits.map { $0.lowercased() }.filter { $0.count == 8 && $0.allSatisfy(\.isHexDigit) }))
    guard !valid.isEmpty else { return [] }
    try await migrateBeforeSyncReads()
    let marks = valid.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
    return try await read { db in
      let urls = try db.makeStatement(
        "SELECT url FROM article INDEXED BY article_by_servedID WHERE substr(servedID, 6, 8) IN (\(marks))"
      ).fetchAll(valid.map { .text($0) }) { $0.string(0) }
      let one = try db.cachedStatement("SELECT \(Self.articleColumns) FROM article a WHERE a.url = ?1")
      return try urls.compactMap { url in try url.flatMap { try one.fetchOne([.text($0)], Self.article) ?? nil } }
    }
  }

  /// Runs the migrations a store read as it is still lacks (they run at the first write: ``Migration/keepsReads``)
  /// before a read of the columns only the sync APIs read, `article.firstSeenAt` (migration 18) and
  /// `article.servedID` (migration 20), which a store at 17 or 19 has not: one `PRAGMA user_version` read when the
  /// store is current. A store that cannot be written then fails the read (its cause named).
  ///
  /// - Throws: ``StorageError``.
  package func migrateBeforeSyncReads() async throws(StorageError) {
    let version = try await read { db in Int(try db.scalarInt("PRAGMA user_version") ?? 0) }
    guard version < 20 else { return }
    // Opening the writer runs the pending migrations; the body writes nothing.
    try await write { _ in }
  }

  /// What the sync APIs serve of each of the articles with these keys beside the article itself, by key; keys not
  /// stored are absent. One statement per 500 keys, in one read transaction: what a sync API's page of articles
  /// needs beside them.
  ///
  /// - Throws: ``StorageError``.
  package func syncFacts(ofKeys keys: [String]) async throws(StorageError) -> [String: SyncFacts] {
    guard !keys.isEmpty else { return [:] }
    try await migrateBeforeSyncReads()
    return try await read { db in
      var facts: [String: SyncFacts] = [:]
      var start = 0
      while start < keys.count {
        let part = keys[start..<min(start + 500, keys.count)].map { DatabaseValue.text($0) }
        start += part.count
        let marks = part.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let sql = "SELECT url, firstSeenAt, servedID FROM article WHERE url IN (\(marks))"
        let statement = part.count == 500 ? try db.cachedStatement(sql) : try db.makeStatement(sql)
        for (url, milliseconds, servedID) in try statement.fetchAll(
          part, { ($0.string(0), $0.int64(1), $0.string(2)) })
        {
          guard let url else { continue }
          facts[url] = SyncFacts(
            firstSeen: milliseconds.map { Timestamp(millisecondsSince1970: $0).date }, servedID: servedID)
        }
      }
      return facts
    }
  }

  /// For each of `urls` (article keys), the cache keys of the queries whose last results hold it; keys held by
  /// none are absent. One statement per 500 keys.
  ///
  /// - Throws: ``StorageError``.
  package func resultQueries(ofArticleKeys urls: [String]) async throws(StorageError) -> [String: [String]] {
    guard !urls.isEmpty else { return [:] }
    return try await read { db in
      var result: [String: [String]] = [:]
      var start = 0
      while start < urls.count {
        let chunk = Array(urls[start..<min(urls.count, start + 500)])
        let marks = chunk.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let pairs = try db.makeStatement("SELECT url, query FROM query_result WHERE url IN (\(marks))").fetchAll(
          chunk.map { .text($0) }
        ) { ($0.string(0) ?? "", $0.string(1) ?? "") }
        for (url, query) in pairs { result[url, default: []].append(query) }
        start += 500
      }
      return result
    }
  }

  /// The counts of each of `sources`' articles (as ``ArticleSelection/sources`` matches one), in one statement:
  /// an article of two sources counts for both. ``articleCounts(ofGroups:)`` with one source a group.
  ///
  /// - Returns: one ``SourceArticleCounts`` per source, in the order of `sources`.
  /// - Throws: ``StorageError``.
  package func articleCounts(bySource sources: [SourceMatch]) async throws(StorageError) -> [SourceArticleCounts] {
    try await articleCounts(ofGroups: sources.map { [$0] })
  }

  /// The counts of the articles of each group of sources (a folder's sources, or one source: the articles any of
  /// them selects, as ``ArticleSelection/sources`` matches them, each article once), or of every article for a `nil`
  /// group, remembered by the reading connection until the store changes
  /// (``Connection/rememberedWhileUnchanged(_:_:)``): what a reader's list of folders and sources shows. An
  /// article of two groups counts for both.
  ///
  /// Each article is counted once, however many groups hold it: a group's articles are those recorded under its
  /// sources' names (disjoint between names: counted by name from an index of `source` and `isRead`, no row read) and those of
  /// its sources' last fetches recorded under another name (few: each source's are found once, through the key
  /// index, and kept when no name of the group has them; a query whose fetch log records none is skipped, migration
  /// 17). A folder's counts are so read with its sources', not again (docs/PERFORMANCE.md, "news read").
  ///
  /// - Returns: one ``SourceArticleCounts`` per group, in the order of `groups`.
  /// - Throws: ``StorageError``.
  package func articleCounts(ofGroups groups: [[SourceMatch]?]) async throws(StorageError) -> [SourceArticleCounts] {
    guard !groups.isEmpty else { return [] }
    let names = Array(Set(groups.flatMap { $0?.map(\.source) ?? [] })).sorted()
    var members: [SourceMatch] = []
    var seen = Set<SourceMatch>()
    for match in groups.lazy.compactMap({ $0 }).joined() where !match.queries.isEmpty && seen.insert(match).inserted {
      members.append(match)
    }
    let countsAll = groups.contains { $0 == nil }
    let key = GroupsKey(groups: groups)
    let distinct = members
    return try await read { db in
      try db.rememberedWhileUnchanged(key) {
        try Self.groupCounts(db, groups, names: names, members: distinct, countsAll: countsAll)
      }
    }
  }

  /// One name's articles: how many, how many unread, the newest publication date (milliseconds).
  private struct NameCounts {
    var total = 0
    var unread = 0
    var newest: Int64?
  }

  /// An article of a source's last fetch recorded under another name than the source's.
  private struct Stray: Hashable {
    var rowid: Int64
    var source: String
    var isRead: Bool
    var publishedAt: Int64
  }

  /// The statements that count the articles of `count` names (`?1`…`?count`): by name, the total and the unread
  /// (`counts`), and one name's newest publication date in milliseconds (`newest`, `?1`); what
  /// ``articleCounts(ofGroups:)`` runs and the plan tests explain.
  package static func nameCountStatements(_ count: Int) -> (counts: String, newest: String) {
    let marks = (1...max(1, count)).map { "?\($0)" }.joined(separator: ", ")
    return (
      """
      SELECT source, count(*), coalesce(sum(isRead = 0), 0) FROM article WHERE source IN (\(marks)) GROUP BY source
      """,
      "SELECT max(publishedAt) FROM article WHERE source = ?1"
    )
  }

  /// The queries whose last result holds no article recorded under another name than the one the query saved under
  /// (migration 17's fetch log: `othersCount = 0`), with that name; none on a store not yet migrated to 17.
  private static func settledQueries(_ db: Connection) throws -> [String: String] {
    let migrated =
      try db.cachedStatement("SELECT count(*) FROM pragma_table_info('query_fetch') WHERE name = 'othersCount'")
      .fetchOne { $0.int64(0) } ?? nil
    guard migrated == 1 else { return [:] }
    var settled: [String: String] = [:]
    for (query, source) in try db.cachedStatement(
      "SELECT query, source FROM query_fetch WHERE othersCount = 0 AND source IS NOT NULL"
    ).fetchAll([], { ($0.string(0) ?? "", $0.string(1) ?? "") }) {
      settled[query] = source
    }
    return settled
  }

  /// At most this many SELECTs in one compound statement: SQLite refuses more than 500 ("too many terms in compound
  /// SELECT", SQLITE_MAX_COMPOUND_SELECT, sqlite.org/limits.html); a library of 1,000 feeds failed every count.
  static let maximumCompoundTerms = 400
  /// At most this many bound arguments in one statement (SQLITE_MAX_VARIABLE_NUMBER is 32,766 since 3.32).
  static let maximumArguments = 30_000

  private static func groupCounts(
    _ db: Connection, _ groups: [[SourceMatch]?], names: [String], members: [SourceMatch], countsAll: Bool
  ) throws -> [SourceArticleCounts] {
    // Every name's counts in one walk of migration 17's `article_by_source_read` (no row of the table read), and
    // its newest publication date from the first entry of its range in `article_by_source`.
    var byName: [String: NameCounts] = [:]
    if !names.isEmpty {
      let statements = nameCountStatements(names.count)
      for (name, total, unread) in try db.makeStatement(statements.counts).fetchAll(
        names.map { .text($0) }, { ($0.string(0) ?? "", Int($0.int64(1) ?? 0), Int($0.int64(2) ?? 0)) })
      {
        byName[name] = NameCounts(total: total, unread: unread, newest: nil)
      }
      let newest = try db.cachedStatement(statements.newest)
      for name in byName.keys {
        byName[name]?.newest = try newest.fetchOne([.text(name)]) { $0.int64(0) } ?? nil
      }
    }
    // Each source's last fetch, less the articles recorded under the source's own name (a set of rowids from the
    // same index): only the rest is read from the table. A query whose fetch log says its last result holds no
    // article under another name than the source's (migration 17) has nothing to add and is not looked at.
    var strays: [SourceMatch: [Stray]] = [:]
    let settled = try settledQueries(db)
    let unsettled = members.map { member in
      SourceMatch(source: member.source, queries: member.queries.filter { settled[$0] != member.source })
    }
    // One SELECT per source, joined by UNION ALL in statements of at most `maximumCompoundTerms` terms (SQLite's
    // limit is 500 terms, SQLITE_MAX_COMPOUND_SELECT: sqlite.org/limits.html) and `maximumArguments` arguments.
    var parts: [String] = []
    var arguments: [DatabaseValue] = []
    func flush() throws {
      guard !parts.isEmpty else { return }
      for (index, stray) in try db.makeStatement(parts.joined(separator: " UNION ALL ")).fetchAll(
        arguments,
        {
          (
            Int($0.int64(0) ?? 0),
            Stray(
              rowid: $0.int64(1) ?? 0, source: $0.string(2) ?? "", isRead: ($0.int64(3) ?? 0) != 0,
              publishedAt: $0.int64(4) ?? 0)
          )
        }) where members.indices.contains(index)
      {
        strays[members[index], default: []].append(stray)
      }
      parts = []
      arguments = []
    }
    for (index, member) in unsettled.enumerated() where !member.queries.isEmpty {
      if parts.count == Self.maximumCompoundTerms
        || arguments.count + 1 + member.queries.count > Self.maximumArguments
      {
        try flush()
      }
      let queryMarks = member.queries.indices.map { "?\(arguments.count + 2 + $0)" }.joined(separator: ", ")
      let nameMark = "?\(arguments.count + 1)"
      parts.append(
        """
        SELECT \(index), a.rowid, a.source, a.isRead, a.publishedAt FROM query_result r JOIN article a ON a.url = r.url
        WHERE r.query IN (\(queryMarks)) AND a.rowid NOT IN (SELECT rowid FROM article WHERE source = \(nameMark))
        """)
      arguments.append(.text(member.source))
      arguments += member.queries.map { .text($0) }
    }
    try flush()
    // Every article: when the names hold them all (the store's count, from its smallest index, is theirs), their
    // sums; else one pass over the table.
    var all = SourceArticleCounts(total: 0, unread: 0)
    if countsAll {
      let stored = try db.scalarInt("SELECT count(*) FROM article") ?? 0
      if stored == byName.values.reduce(0, { $0 + Int64($1.total) }) {
        all = SourceArticleCounts(
          total: Int(stored), unread: byName.values.reduce(0) { $0 + $1.unread },
          newest: byName.values.compactMap(\.newest).max().map { Timestamp(millisecondsSince1970: $0).date })
      } else if let (total, unread, newest) = try db.makeStatement(
        "SELECT count(*), coalesce(sum(isRead = 0), 0), max(publishedAt) FROM article"
      ).fetchOne([], { (Int($0.int64(0) ?? 0), Int($0.int64(1) ?? 0), $0.int64(2)) }) {
        all = SourceArticleCounts(
          total: total, unread: unread, newest: newest.map { Timestamp(millisecondsSince1970: $0).date })
      }
    }
    return groups.map { group in
      guard let group else { return all }
      let groupNames = Set(group.map(\.source))
      var total = 0
      var unread = 0
      var newest: Int64?
      for name in groupNames {
        guard let counts = byName[name] else { continue }
        total += counts.total
        unread += counts.unread
        newest = [newest, counts.newest].compactMap { $0 }.max()
      }
      var seen = Set<Int64>()
      for member in group {
        for stray in strays[member] ?? [] where !groupNames.contains(stray.source) && seen.insert(stray.rowid).inserted
        {
          total += 1
          unread += stray.isRead ? 0 : 1
          newest = max(newest ?? stray.publishedAt, stray.publishedAt)
        }
      }
      return SourceArticleCounts(
        total: total, unread: unread, newest: newest.map { Timestamp(millisecondsSince1970: $0).date })
    }
  }

  /// Marks every article `selection` selects (its order, limit and offset ignored) read, or unread, in one
  /// `UPDATE`. Observers of ``changes()`` receive one `article` change with the keys changed.
  ///
  /// - Returns: how many articles changed state.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func setRead(_ read: Bool, selecting selection: ArticleSelection) async throws(StorageError) -> Int {
    if selection.readsSyncColumns { try await migrateBeforeSyncReads() }
    var unordered = selection
    unordered.limit = nil
    let condition = unordered.whereClause(firstParameter: 2)
    let conditions = condition.sql.isEmpty ? "" : " AND" + condition.sql.dropFirst(" WHERE".count)
    let sql = "UPDATE article AS a SET isRead = ?1 WHERE a.isRead <> ?1\(conditions) RETURNING url"
    return try await writeAndPublish { db in
      let urls = try db.makeStatement(sql).fetchAll([.integer(read ? 1 : 0)] + condition.arguments) {
        $0.string(0) ?? ""
      }
      return (
        urls.count, urls.isEmpty ? [] : [StorageChange(entity: "article", updated: urls.map { Identity(.text($0)) })]
      )
    }
  }

  /// Marks the articles with these keys read (or unread), in one transaction; keys not stored count for nothing.
  /// Observers of ``changes()`` receive one `article` change with the keys changed.
  ///
  /// - Returns: how many articles changed state.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func setRead(_ read: Bool, urls: [String]) async throws(StorageError) -> Int {
    guard !urls.isEmpty else { return 0 }
    return try await writeAndPublish { db in
      let statement = try db.cachedStatement("UPDATE article SET isRead = ?2 WHERE url = ?1 AND isRead <> ?2")
      var changed: [String] = []
      for url in urls {
        try statement.execute([.text(url), .integer(read ? 1 : 0)])
        if db.changes > 0 { changed.append(url) }
      }
      return (
        changed.count,
        changed.isEmpty ? [] : [StorageChange(entity: "article", updated: changed.map { Identity(.text($0)) })]
      )
    }
  }
}

extension StorageContext {
  /// SQLite's plan of ``articles(selecting:)`` for `selection` (`EXPLAIN QUERY PLAN`, one `detail` a line): what
  /// tests check to know a page is read through an index, not sorted from the whole store.
  ///
  /// - Throws: ``StorageError``.
  package func queryPlan(selecting selection: ArticleSelection) async throws(StorageError) -> [String] {
    let (sql, arguments) = Self.pageQuery(selection)
    return try await read { db in
      try db.makeStatement("EXPLAIN QUERY PLAN " + sql).fetchAll(arguments) { $0.string(3) ?? "" }
    }
  }
}

/// What the sync APIs serve of a stored article beside the ``Article`` itself: columns no read returns on an
/// ``Article`` (whose equality every test of a read compares).
package struct SyncFacts: Sendable, Hashable {
  /// When the store first saved the article (`firstSeenAt`, migration 18: its arrival): the Reader API's
  /// `crawlTimeMsec` and continuation, Miniflux's `created_at`; `nil` for a row without one.
  package var firstSeen: Date?
  /// The article's served id (`servedID`, migration 20: 16 lower-case hex digits, kept across re-keys), from which
  /// the APIs' ids are made (`ServedIdentifiers`); `nil` for a row without one.
  package var servedID: String?

  /// Facts as stored.
  package init(firstSeen: Date?, servedID: String?) {
    self.firstSeen = firstSeen
    self.servedID = servedID
  }
}
