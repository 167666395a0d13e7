import Foundation
import OfflineNewsModel

/// The save of one response's articles, inside the writer's transaction, fed in batches (a whole array, or the
/// chunks of a file being decoded while this writes). A bounded number of statements per 500 articles, whatever
/// the number of articles (but in a first import, one per article: below), and no write at all for what did not
/// change:
///
/// - articles: one `INSERT … ON CONFLICT(url) DO UPDATE … WHERE <a content column differs> RETURNING url, rowid` per
///   500 rows, so an unchanged row is neither rewritten nor re-indexed (the FTS update trigger of migration 4 fires
///   only for changed text; the upsert's `WHERE` keeps the row from even being written). A returned rowid above the
///   table's largest before the save is an insert, any other returned row an update, a row not returned unchanged.
/// - a first import (the table empty, a bulk first batch) writes its rows one `INSERT` each at given rowids while the
///   key index is set aside (see `Session.deferSecondaryIndexes(expecting:)`), a URL of an earlier batch by one
///   `UPDATE` of its row; the indexes are built at its end, and the search index beside it, on a second thread,
///   when `article_fts` is empty (``SideSearchIndex``; else at its end, ``FirstImportSearchIndex``).
/// - the query's result list, once every article is written: upserted in `url` order (`ON CONFLICT(query, url) DO
///   UPDATE SET position … WHERE` it moved), then only the members that left are deleted — an unchanged response
///   writes one `query_fetch` row.
///
/// `article.firstSeenAt` says when the store first saved a row (bound with every row, written only by its insert).
/// `article.fetchedAt`/`fetchQuery` say when and by which query a row was last *written*. An unchanged article is
/// not touched; what eviction by age needs, "when was it last seen", stays exact: while it is in a query's result
/// list, that query's last fetch counts, and when it leaves one, that query's previous fetch time is folded into
/// its `fetchedAt` (`max`).
struct ArticleWriter {
  let db: Connection
  var progress: (@Sendable (Int) -> Void)? = nil
  /// See ``Session/listsInserted``.
  var listsInserted = true

  /// Saves a whole response in one go: one ``Session`` fed one batch.
  func save(
    _ articles: [Article], query: String, source: String? = nil, fetchedAt: Timestamp, eviction: EvictionPolicy
  ) throws
    -> (ArticleSaveResult, [StorageChange])
  {
    var session = Session(
      db: db, query: query, source: source, fetchedAt: fetchedAt, progress: progress, listsInserted: listsInserted)
    try session.add(articles)
    return try session.finish(eviction: eviction)
  }

  /// Rows per multi-row statement: 500 × 21 parameters stays far below SQLite's 32,766-parameter limit.
  static let chunk = 500

  /// `arguments`, `rows` rows of `width` values (1 to ``chunk`` rows), with its last row repeated up to one of a few
  /// row counts (``StatementSizes/paddedCount(_:limit:)``), and that count: the multi-row upserts of articles and
  /// result-list rows are then one of a few texts each, prepared once (a feed's save prepared its own before; the
  /// article upsert with the search index's triggers costs about 2.9 million instructions to prepare).
  ///
  /// A repeated row changes nothing: it conflicts with the row the statement has just written, and the upsert's
  /// `DO UPDATE … WHERE` finds no value that differs, so nothing is updated, no trigger runs and `RETURNING` gives
  /// no row for it. The rows are not split into several statements of those lengths instead: every statement that
  /// writes the search index ends with FTS5 writing its pending terms out as a segment of its own
  /// (<https://www.sqlite.org/fts5.html>, its savepoint), which cost more than the preparing saved.
  static func padded(_ arguments: [DatabaseValue], rows: Int, width: Int) -> (rows: Int, arguments: [DatabaseValue]) {
    let count = StatementSizes.paddedCount(rows, limit: chunk)
    guard count > rows, rows > 0 else { return (rows, arguments) }
    var padded = arguments
    padded.reserveCapacity(count * width)
    let last = arguments[(rows - 1) * width..<rows * width]
    for _ in rows..<count { padded += last }
    return (count, padded)
  }

  /// Result-list rows a first import writes per statement (see `Session.writeMemberships`): SQLite then holds about
  /// 1 MB for the statement, not 22 MB at 100k articles (docs/PERFORMANCE.md, "Memory of a first import at 100k").
  static let membershipChunk = 5_000

  /// The page cache, in KiB, while a first import builds its secondary indexes (see
  /// `Session.buildSecondaryIndexes()`).
  static let sortCacheKiB: Int64 = 16_384

  /// The secondary indexes a first import keeps and writes row by row instead of dropping and building again at
  /// its end (see `Session.deferSecondaryIndexes(expecting:)`), by their `CREATE INDEX` text as ``Schema/collapsed(_:)``
  /// gives it: every row of one save has the same `fetchedAt` (the save's), so each insert into that index appends
  /// after the last entry (the key's ties are in rowid order), and a new row has no `bookmarkedAt`, so it has no
  /// entry in that partial index; nor an entry in the partial index of item identifiers (migration 15) unless it
  /// is a feed item (NewsAPI, mapped and imported rows have none, and a feed holds hundreds of items, not millions). Building either again would read the whole table once more: at 1M articles the
  /// index builds took 2.7–3.0 s instead of 3.6 s (docs/PERFORMANCE.md, "Page size").
  static let indexesKeptByFirstImport: Set<String> = [
    "CREATE INDEX article_by_fetchedAt ON article(fetchedAt)",
    "CREATE INDEX article_by_bookmarkedAt ON article(bookmarkedAt) WHERE bookmarkedAt IS NOT NULL",
    Migration.articleItemIDIndex,
  ]

  /// The longest result list whose articles under another name than the save's a save counts (a join of the list
  /// with the articles: 130 ms of CPU at 100,000, 4 % of a re-import's; docs/PERFORMANCE.md, "news read"); a longer
  /// one's count is left unknown.
  static let othersCountLimit: Int64 = 10_000

  /// A save whose first batch holds this many articles is a bulk save: its new rows are indexed for search one
  /// batch at a time (see `Session.deferSearchIndex()`); a smaller one keeps the row-by-row trigger, whose cost is
  /// then lower than setting it aside.
  static let bulk = 1000

  /// Indexes the rows with rowids in `(?1, ?2]` through `article_search_text` (migration 7's folding, migration
  /// 11's search texts): what the insert trigger does, for many rows in one statement.
  static let indexThroughView = """
    INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
    SELECT docid, title, summary, content, author, sourceName FROM article_search_text
    WHERE docid > ?1 AND docid <= ?2
    """

  /// Indexes the rows with rowids in `(?1, ?2]` from `article` itself, with the view's `coalesce`s but not its
  /// `replace()`s: the same values as ``indexThroughView`` for rows without a folded character.
  static let indexFromTable = """
    INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
    SELECT rowid, title, coalesce(summaryText, summary), coalesce(fullText, contentText, content), author,
      sourceName
    FROM article
    WHERE rowid > ?1 AND rowid <= ?2
    """

  /// The columns a save compares to tell a changed article from an unchanged one, in bind order: the key and the
  /// source's fields (``ArticleColumn/Write/content``, from ``ArticleColumn/all``). Local-only columns are absent on
  /// purpose, but for the search texts of the summary and content (``Article/summaryText``, ``Article/contentText``,
  /// migration 11), which follow from the source's fields and are written with them (`NULL` when the article has
  /// none: a mapped record's summary is searched as it is).
  static let contentColumns = ArticleColumn.bound.filter { $0.write == .key || $0.write == .content }.map(\.name)

  /// The position of `searchFolds` (migration 24) among a row's bound values (``boundColumns``).
  static let searchFoldsPosition = boundColumns.firstIndex(of: "searchFolds") ?? 0

  /// Every column one article's row binds, in bind order (``ArticleColumn/bound``): what
  /// ``appendContent(_:url:source:to:)`` appends, then the save's `fetchedAt` and `fetchQuery`, then its `fetchedAt`
  /// again as `firstSeenAt` (``ArticleColumn/Write/firstSave``).
  static let boundColumns = ArticleColumn.bound.map(\.name)

  /// Appends the values of `article` (whose key text is `url`) that a save binds per article
  /// (``ArticleColumn/boundValues``) to `arguments`, in bind order; `source` is the save's, for an article that
  /// names none.
  static func appendContent(_ article: Article, url: String, source: String?, to arguments: inout [DatabaseValue]) {
    for value in ArticleColumn.boundValues { arguments.append(value(article, url, source)) }
  }

  /// Whether a searched value of `article` (title, the summary's search text else the summary, the content's else
  /// the content, author, source name: what `article_search_text` reads) holds a character the search index folds
  /// out (``SearchQuery/foldedScalars``): the row's `searchFolds` mark (migration 24), bound with its values.
  static func needsFolding(_ article: Article) -> Bool {
    SearchQuery.containsFoldedScalar(article.title)
      || (article.summaryText ?? article.summary).map(SearchQuery.containsFoldedScalar) == true
      || (article.contentText ?? article.content).map(SearchQuery.containsFoldedScalar) == true
      || article.author.map(SearchQuery.containsFoldedScalar) == true
      || article.sourceName.map(SearchQuery.containsFoldedScalar) == true
  }

  /// The article a row of `article` column values describes (a stored row with a record's values over it), or
  /// `nil` when it lacks a key, or a title and any text to derive one from.
  ///
  /// - A title is kept by ``ArticleTitle/given(_:)`` (white space around it removed), the rule of every reader.
  /// - An item without a title (microblog posts, RSS items, which RSS 2.0 allows) gets ``ArticleTitle/derived(from:)``
  ///   of its summary, else its content, each by its text when it is HTML (`summaryText`, `contentText`): the rule
  ///   the feed readers apply, so a JSON Feed item gets the title its RSS twin gets.
  /// - An item without a publication date is dated `firstSeen` (the fetch that first saved it; a stored row keeps
  ///   its date).
  static func article(from values: [String: DatabaseValue], firstSeen: Timestamp) -> Article? {
    func text(_ name: String) -> String? { values[name]?.textValue }
    guard let keyText = values["url"]?.textValue, let key = URL(string: keyText),
      let title = ArticleTitle.given(text("title")) ?? ArticleTitle.derived(
        from: text("summaryText") ?? text("summary"))
        ?? ArticleTitle.derived(from: text("contentText") ?? text("content"))
    else { return nil }
    var article = Article(key: key, link: nil, title: title, publishedAt: firstSeen.date)
    // The columns a save writes, read as the store reads them (``ArticleColumn/all``); local state is the store's.
    for column in ArticleColumn.all where column.write != .none && column.write != .key && column.name != "title" {
      column.read?(&article, values[column.name] ?? .null)
    }
    if values["publishedAt"]?.integerValue == nil {
      article.publishedAt = firstSeen.date
      article.isUndated = true
    }
    return article
  }

  /// One save in progress: fed batches by ``add(_:)``, completed by ``finish(eviction:skipIfEmpty:)``.
  struct Session {
    let db: Connection
    let query: String
    /// The source written on articles that do not name theirs (``Article/source``).
    let source: String?
    let fetchedAt: Timestamp
    var progress: (@Sendable (Int) -> Void)? = nil
    /// Whether the change this save reports lists the identities it inserted (``StorageChange/inserted``). A first
    /// import of a million articles would list a million; a caller whose context has no observer to read them
    /// passes `false`, and the change of a first import then names none (nobody could have seen it: a subscription
    /// that races with the commit is ordered after it). Updates and deletions are always listed.
    var listsInserted = true
    /// How a first import builds its search index (``FirstImportSearchIndex``).
    var searchIndexBuild = SearchIndexBuild.standard

    init(
      db: Connection, query: String, source: String? = nil, fetchedAt: Timestamp,
      progress: (@Sendable (Int) -> Void)? = nil, listsInserted: Bool = true
    ) {
      self.db = db
      self.query = query
      self.source = source
      self.fetchedAt = fetchedAt
      self.progress = progress
      self.listsInserted = listsInserted
    }

    private enum Outcome: UInt8 { case inserted, updated, unchanged }

    /// Whether `article_tombstone` has a row (a deleted article's key), looked up at the first batch.
    private var hasTombstones: Bool?
    /// How many articles ``add(_:)`` left out so far because a deletion remembers their keys (``withoutDeleted(_:)``):
    /// the record writer counts them skipped, so that an import's report accounts for every record.
    private(set) var deletedSkipped = 0
    /// Of ``deletedSkipped``, those whose key an eviction remembers (migration 22's `article_tombstone.evicted`).
    private(set) var evictedSkipped = 0

    /// `articles` without those whose key a deletion remembers (`article_tombstone`, migration 13;
    /// `StorageContext.deleteArticles(publishedBefore:keepingBookmarks:now:)`): a refresh never brings back an
    /// article the user deleted. One look-up of the keys per 500 when any tombstone exists, none otherwise.
    mutating func withoutDeleted(_ articles: [Article]) throws -> [Article] {
      if hasTombstones == nil {
        hasTombstones =
          try db.cachedScalarInt(
            """
            SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_tombstone')
              AND EXISTS (SELECT 1 FROM article_tombstone)
            """) == 1
      }
      guard hasTombstones == true, !articles.isEmpty else { return articles }
      let urls = articles.map { $0.url.absoluteString }
      var deleted: [String: Bool] = [:]
      var start = 0
      while start < urls.count {
        let chunk = urls[start..<min(urls.count, start + ArticleWriter.chunk)]
        let (statement, arguments) = try db.listStatement(
          "SELECT url, evicted FROM article_tombstone WHERE url IN (?LIST)", list: chunk.map { .text($0) })
        let found = try statement.fetchAll(arguments) { ($0.string(0), $0.int64(1) == 1) }
        for (url, evicted) in found { if let url { deleted[url] = evicted } }
        start += ArticleWriter.chunk
      }
      guard !deleted.isEmpty else { return articles }
      let kept = articles.filter { article in
        guard let evicted = deleted[article.url.absoluteString] else { return true }
        if evicted { evictedSkipped += 1 }
        return false
      }
      deletedSkipped += articles.count - kept.count
      return kept
    }

    /// Stored rows that are articles of `articles` under another key, re-keyed to the article's key in place (one
    /// `UPDATE` of the row's `url` and `handle`, and of the rows that reference it in `query_result` and
    /// `article_image`), so that the one row keeps its rowid, read mark, bookmark, whole text, images and search
    /// entry instead of a second row appearing beside it. A stored row is the article under another key when
    ///
    /// - its key is the article's ``Article/formerKey`` (the key an earlier identity rule gave the item: a linkblog
    ///   post keyed by the page it links to, two posts that share a link and a guid keyed by that guid, a podcast
    ///   episode keyed by its content), or
    /// - its ``Article/itemID`` is the article's (the item's feed-scoped `guid`/`id`: a slug fixed after
    ///   publication), or its key is the article's `itemID` itself (an item an earlier rule keyed by its scoped
    ///   guid, stored before migration 15 gave rows an `itemID` column), and its key is not one this save writes
    ///   (an item the same document still carries is not another item's former self);
    ///
    /// and no row is stored, or deletion remembered, under the article's own key (the row there is then the article,
    /// and the other stays as it is). An article whose former key a deletion remembers takes that key, so that
    /// ``withoutDeleted(_:)`` leaves it out: a rule change does not bring back what the user deleted. Not in a first
    /// import (the table was empty: nothing to find). One look-up of keys and one of identifiers per 500 articles
    /// that have either, none otherwise; the foreign keys of the re-keyed rows are checked at the commit
    /// (`PRAGMA defer_foreign_keys`, reset by SQLite at the end of the transaction).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_defer_foreign_keys>
    mutating func rekeyed(_ articles: [Article]) throws -> [Article] {
      guard articles.contains(where: { $0.formerKey != nil || $0.itemID != nil }),
        rowidsBefore == nil || !wasEmpty
      else { return articles }
      var result = articles
      var start = 0
      while start < result.count {
        let end = min(start + ArticleWriter.chunk, result.count)
        try rekey(&result[start..<end])
        start = end
      }
      return result
    }

    /// ``rekeyed(_:)`` for at most ``ArticleWriter/chunk`` articles.
    private mutating func rekey(_ articles: inout ArraySlice<Article>) throws {
      let candidates = articles.filter { $0.formerKey != nil || $0.itemID != nil }
      guard !candidates.isEmpty else { return }
      let keys = candidates.flatMap {
        [$0.url.absoluteString] + ($0.formerKey.map { [$0.absoluteString] } ?? []) + ($0.itemID.map { [$0] } ?? [])
      }
      let itemIDs = candidates.compactMap(\.itemID)
      if hasTombstoneTable == nil {
        hasTombstoneTable =
          try db.cachedScalarInt(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_tombstone')") == 1
      }
      let keyValues = keys.map { DatabaseValue.text($0) }
      let storedKeys = try db.listStatement("SELECT url FROM article WHERE url IN (?LIST)", list: keyValues)
      let stored = Set(try storedKeys.statement.fetchAll(storedKeys.arguments) { $0.string(0) ?? "" })
      var deleted: Set<String> = []
      if hasTombstoneTable == true {
        let deletedKeys = try db.listStatement(
          "SELECT url FROM article_tombstone WHERE url IN (?LIST)", list: keyValues)
        deleted = Set(try deletedKeys.statement.fetchAll(deletedKeys.arguments) { $0.string(0) ?? "" })
      }
      var storedByItemID: [String: String] = [:]
      if !itemIDs.isEmpty {
        let (statement, arguments) = try db.listStatement(
          "SELECT itemID, url FROM article WHERE itemID IN (?LIST)", list: itemIDs.map { .text($0) })
        for (itemID, url) in try statement.fetchAll(arguments, { ($0.string(0), $0.string(1)) }) {
          // Two rows with one identifier (saved before it was known): the re-key would be a guess; none is made.
          guard let itemID, let url else { continue }
          storedByItemID[itemID] = storedByItemID[itemID] == nil ? url : ""
        }
      }
      let written = Set(articles.map { $0.url.absoluteString })
      for index in articles.indices {
        let key = articles[index].url.absoluteString
        guard !stored.contains(key), !deleted.contains(key) else { continue }
        var from: String?
        if let former = articles[index].formerKey?.absoluteString {
          if stored.contains(former) {
            from = former
          } else if deleted.contains(former) {
            // Left out by ``withoutDeleted(_:)``, under the key that was deleted.
            articles[index].url = URL(string: former) ?? articles[index].url
            articles[index].formerKey = nil
            continue
          }
        }
        if from == nil, let itemID = articles[index].itemID {
          let url = storedByItemID[itemID] ?? (stored.contains(itemID) ? itemID : "")
          if !url.isEmpty, url != key, !written.contains(url), seen[url] == nil, !rekeyedFrom.contains(url) {
            from = url
          }
        }
        guard let from, !rekeyedFrom.contains(from) else { continue }
        try moveRow(from: from, to: key)
        rekeyedFrom.insert(from)
        rekeyedTo.insert(key)
        articles[index].formerKey = nil
      }
    }

    /// Gives the stored row keyed `old` the key `new` (and the handle that follows from it), and the rows that
    /// reference it too. The row keeps its served id (`servedID`, migration 20): the sync APIs' clients know it by it.
    private func moveRow(from old: String, to new: String) throws {
      try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
      try db.cachedStatement("UPDATE article SET url = ?2, handle = ?3 WHERE url = ?1").execute([
        .text(old), .text(new), .text(ArticleIdentity.handle(forKey: new)),
      ])
      try db.cachedStatement("UPDATE query_result SET url = ?2 WHERE url = ?1").execute([.text(old), .text(new)])
      if try hasImageTable() {
        try db.cachedStatement("UPDATE article_image SET article = ?2 WHERE article = ?1").execute([
          .text(old), .text(new),
        ])
      }
    }

    /// Gives each row this save inserted whose served id (`article.servedID`, migration 20: its handle) shares its
    /// first 13 hex digits, its Miniflux entry id, with another row's the next free 13-digit prefix (its last 3
    /// digits kept): a row re-keyed away from this key keeps the id clients know it by (``moveRow(from:to:)``), so the
    /// key's new article must not take it. The prefix is counted up by one (52 bits, wrapping past 0 to 1) until no
    /// row's id starts with it. One index-only query per 500 inserted rows, and a look-up per step of a probe (a
    /// conflict comes only from a re-key or a 52-bit collision of two keys' hashes). Not in a first import: the
    /// table was empty, and its ids are the keys' handles as they come (two keys whose handles share 13 digits
    /// then share a Miniflux id, which finds both, as before migration 20).
    private func giveFreeServedIDs() throws {
      guard !inserted.isEmpty else { return }
      let urls = inserted.compactMap { $0.values.first?.textValue }
      var conflicting: [String] = []
      var start = 0
      while start < urls.count {
        let part = urls[start..<min(start + ArticleWriter.chunk, urls.count)]
        start += part.count
        let (statement, arguments) = try db.listStatement(
          """
          SELECT a.url FROM article a WHERE a.url IN (?LIST) AND EXISTS (
            SELECT 1 FROM article b WHERE b.servedID >= substr(a.servedID, 1, 13)
              AND b.servedID < substr(a.servedID, 1, 13) || 'g' AND b.rowid <> a.rowid)
          """, list: part.map { .text($0) })
        conflicting += try statement.fetchAll(arguments) { $0.string(0) }.compactMap { $0 }
      }
      guard !conflicting.isEmpty else { return }
      let current = try db.cachedStatement("SELECT servedID FROM article WHERE url = ?1")
      let taken = try db.cachedStatement(
        "SELECT EXISTS (SELECT 1 FROM article WHERE servedID >= ?1 AND servedID < ?1 || 'g' AND url <> ?2)")
      let update = try db.cachedStatement("UPDATE article SET servedID = ?2 WHERE url = ?1")
      for url in conflicting {
        guard let id = try current.fetchOne([.text(url)], { $0.string(0) }) ?? nil, id.count == 16,
          var prefix = UInt64(id.prefix(13), radix: 16)
        else { continue }
        // Another conflicting row of this save may have moved away meanwhile.
        var candidate = String(id.prefix(13))
        while try taken.fetchOne([.text(candidate), .text(url)], { $0.int64(0) }) == 1 {
          prefix = prefix >= (1 << 52) - 1 ? 1 : prefix + 1
          let hex = String(prefix, radix: 16)
          candidate = String(repeating: "0", count: 13 - hex.count) + hex
        }
        if candidate != id.prefix(13) { try update.execute([.text(url), .text(candidate + id.suffix(3))]) }
      }
    }

    /// Whether the store has `article_image` (migration 10).
    private func hasImageTable() throws -> Bool {
      try db.cachedScalarInt(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_image')") == 1
    }

    /// Whether `article_tombstone` exists (migration 13), looked up at the first re-key.
    private var hasTombstoneTable: Bool?
    /// The keys this save moved rows away from (reported deleted) and to (reported updated): ``rekeyed(_:)``.
    private var rekeyedFrom: Set<String> = []
    private var rekeyedTo: Set<String> = []

    /// Every URL of this save: its place in the result list and what its upsert did. Not kept by a first import
    /// (``wasEmpty``), whose rows say it all: each URL's place is the order of its row (``firstImportCount()``).
    private var seen: [String: (position: Int, outcome: Outcome)] = [:]
    private var inserted: [Identity] = []

    /// Upserts the next articles of the response, in response order. A URL seen earlier in this save is written
    /// again (the later record wins) but keeps its earlier place.
    mutating func add(_ articles: [Article]) throws {
      let articles = try withoutDeleted(rekeyed(articles))
      guard !articles.isEmpty else { return }
      if rowidsBefore == nil {
        let before = try db.cachedScalarInt("SELECT max(rowid) FROM article") ?? 0
        rowidsBefore = before
        wasEmpty = try db.cachedScalarInt("SELECT NOT EXISTS (SELECT 1 FROM article)") == 1
        indexedUpTo = before
        if before < Self.randomRowidsAbove, articles.count >= ArticleWriter.bulk { try deferSearchIndex() }
        if wasEmpty, articles.count >= ArticleWriter.bulk { try deferSecondaryIndexes(expecting: articles.count) }
        // Built beside the writer when the writer knows which rows it inserts (``insertFirstImport(_:_:)``).
        if firstImportKeys != nil { try firstImportIndex?.startBeside() }
      }
      // Distinct URLs of the batch: the later record replaces the earlier one in place.
      var urls: [String] = []
      var chosen: [Int] = []
      var indexInRows: [String: Int] = [:]
      urls.reserveCapacity(articles.count)
      chosen.reserveCapacity(articles.count)
      indexInRows.reserveCapacity(articles.count)
      // By index: iterating the articles would copy each (a retain of every text and URL it holds).
      for offset in articles.indices {
        let url = articles[offset].url.absoluteString
        if let index = indexInRows[url] {
          chosen[index] = offset
        } else {
          indexInRows[url] = chosen.count
          urls.append(url)
          chosen.append(offset)
        }
      }
      let firstSeen = try firstSeenDates(of: articles, chosen: chosen, urls: urls)
      let fetched = DatabaseValue.integer(fetchedAt.millisecondsSince1970)
      let queryText = DatabaseValue.text(query)

      var folded: [Int] = []
      var foldedRowids: [Int64] = []
      var start = 0
      while start < chosen.count {
        let end = min(start + ArticleWriter.chunk, chosen.count)
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity((end - start) * ArticleWriter.boundColumns.count)
        let checksFolding = firstImportIndex.map { $0.beside == nil } ?? (insertTrigger != nil)
        for row in start..<end {
          // Read in place: a copy of the article would retain each of its texts and URLs (it is copied only when
          // its date is to be set).
          let position = chosen[row]
          let rowStart = arguments.count
          if articles[position].isUndated {
            var article = articles[position]
            article.publishedAt = firstSeen[urls[row]] ?? fetchedAt.date
            ArticleWriter.appendContent(article, url: urls[row], source: source, to: &arguments)
          } else {
            ArticleWriter.appendContent(articles[position], url: urls[row], source: source, to: &arguments)
          }
          // The row's folding mark, bound with it (``ArticleColumn``'s `searchFolds`, from ``needsFolding(_:)``).
          if checksFolding, firstImportIndex != nil || !pendingNeedFolding,
            arguments[rowStart + ArticleWriter.searchFoldsPosition].integerValue != 0
          {
            if firstImportIndex != nil { folded.append(row) } else { pendingNeedFolding = true }
          }
          arguments.append(fetched)
          arguments.append(queryText)
          arguments.append(fetched)
        }
        if firstImportKeys != nil {
          let rowids = try insertFirstImport(urls[start..<end], arguments)
          foldedRowids += folded.map { rowids[$0 - start] }
          folded = []
        } else {
          try upsert(urls[start..<end], arguments)
        }
        start = end
        if let progress { progress(wasEmpty ? Int(try firstImportCount()) : seen.count) }
      }
      if firstImportIndex != nil {
        if firstImportKeys == nil {
          // The key index is there (a table not of migration 12's form): one look-up of it per folded article.
          let statement = try db.cachedStatement("SELECT rowid FROM article WHERE url = ?1")
          for row in folded {
            if let rowid = try statement.fetchOne([.text(urls[row])], { $0.int64(0) }) ?? nil {
              foldedRowids.append(rowid)
            }
          }
        }
        firstImportIndex?.noteFolded(rowids: foldedRowids)
      } else {
        try indexNewRows()
        try mergePause?.mergeIfOverLimit()
      }
    }

    /// The stored publication dates of the undated articles of a batch (``Article/isUndated``), by key: such an
    /// article keeps the date it was first saved with, so that a later fetch's time does not move it to the top of
    /// the list; one without a stored row is dated by this save's fetch time. One query per 500 undated articles,
    /// none when every article is dated.
    private func firstSeenDates(of articles: [Article], chosen: [Int], urls: [String]) throws -> [String: Date] {
      let undatedRows = chosen.indices.filter { articles[chosen[$0]].isUndated }
      guard !undatedRows.isEmpty else { return [:] }
      var dates: [String: Date] = [:]
      if firstImportKeys != nil {
        // A first import without its key index: only a key of an earlier batch has a row, found by rowid.
        let statement = try db.cachedStatement("SELECT publishedAt FROM article WHERE rowid = ?1")
        for row in undatedRows {
          guard let rowid = try firstImportRowid(of: urls[row]),
            let published = try statement.fetchOne([.integer(rowid)], { $0.int64(0) }) ?? nil
          else { continue }
          dates[urls[row]] = Timestamp(millisecondsSince1970: published).date
        }
        return dates
      }
      let undated = undatedRows.map { DatabaseValue.text(urls[$0]) }
      var start = 0
      while start < undated.count {
        let part = Array(undated[start..<min(start + ArticleWriter.chunk, undated.count)])
        start += part.count
        let (statement, arguments) = try db.listStatement(
          "SELECT url, publishedAt FROM article WHERE url IN (?LIST)", list: part)
        for (url, published) in try statement.fetchAll(arguments, { ($0.string(0), $0.int64(1)) }) {
          guard let url, let published else { continue }
          dates[url] = Timestamp(millisecondsSince1970: published).date
        }
      }
      return dates
    }

    /// The `CREATE TRIGGER` text of the insert trigger while it is set aside (see ``deferSearchIndex()``).
    private var insertTrigger: String?
    /// A first import's search index, built at its end (``FirstImportSearchIndex``); `nil` for any other save, and
    /// for a first import whose update triggers are not the migrations' (it is then indexed batch by batch).
    private var firstImportIndex: FirstImportSearchIndex?
    /// FTS5's merging, paused by a bulk save into a filled table from its first statement that wrote a row (one
    /// that writes nothing leaves FTS5's settings untouched): see ``SearchIndexMergePause``.
    private var mergePause: SearchIndexMergePause?
    /// Rows with a larger rowid were inserted by this save and are not in the search index yet.
    private var indexedUpTo: Int64 = 0
    /// Some article added since the last ``indexNewRows()`` has text that `article_search_text` folds.
    private var pendingNeedFolding = false
    /// `article_search_text` is migration 11's view, so that unfolded text can be read from `article` itself (see
    /// ``indexNewRows()``); any other view is always read.
    private var foldingIsKnown = false

    /// The name of the search index's insert trigger (migration 7).
    private static let insertTriggerName = "article_fts_after_insert"

    /// Sets the search index's insert trigger aside for this transaction, so that new rows are indexed by one
    /// `INSERT … SELECT` per batch instead of row by row: FTS5 writes its pending terms out at every statement's
    /// savepoint, so a trigger firing inside 200 upserts makes 200 small segments to merge where one statement per
    /// batch makes a few. Only when the trigger is exactly the migrations' (``Schema/triggerDefinitions``: so that
    /// the batch insert does what it did, index the folded values of `article_search_text`); the update and delete
    /// triggers stay, but for a first import, whose index is built at its end (``FirstImportSearchIndex``). The
    /// trigger is created again, with its own text, by ``restoreSearchIndex()`` before the transaction ends; a
    /// failed save rolls both back.
    private mutating func deferSearchIndex() throws {
      let sql = try db.makeStatement("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1")
        .fetchOne([.text(Self.insertTriggerName)]) { $0.string(0) }.flatMap { $0 }
      guard let sql, Schema.collapsed(sql) == Schema.triggerDefinitions[Self.insertTriggerName]
      else { return }
      try db.execute(sql: "DROP TRIGGER \(Self.insertTriggerName)")
      insertTrigger = sql
      let view = try db.makeStatement(
        "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'article_search_text'"
      ).fetchOne { $0.string(0) }.flatMap { $0 }
      foldingIsKnown = view.map(Schema.collapsed) == Schema.collapsed(Migration.searchTextView)
      if wasEmpty {
        firstImportIndex = try FirstImportSearchIndex(
          db: db, rowidsBefore: rowidsBefore ?? 0, foldingIsKnown: foldingIsKnown, build: searchIndexBuild)
      }
    }

    /// Indexes the rows this save inserted since the last call (rowids above ``indexedUpTo``), in one statement.
    /// Runs after every batch of a save into a filled table, so that a later record of the same URL updates an
    /// indexed row (the update trigger removes the old text from the index first).
    ///
    /// The index is given the folded values of `article_search_text` (migration 7). When no article of these rows
    /// holds a folded character (``SearchQuery/containsFoldedScalar(_:)``, checked as the batch is bound), folding
    /// changes nothing and the same values are read from `article` itself (``ArticleWriter/indexFromTable``: the
    /// view's `coalesce`s, the search texts of an HTML summary and content, migration 11), without the view's 30
    /// nested `replace()` calls per row (about a tenth of a first import's CPU time at 100k articles:
    /// docs/PERFORMANCE.md); a batch with one such article reads the view.
    private mutating func indexNewRows() throws {
      guard insertTrigger != nil else { return }
      let last = try db.cachedScalarInt("SELECT max(rowid) FROM article") ?? 0
      guard last > indexedUpTo else { return }
      let sql =
        pendingNeedFolding || !foldingIsKnown ? ArticleWriter.indexThroughView : ArticleWriter.indexFromTable
      try db.cachedStatement(sql).execute([.integer(indexedUpTo), .integer(last)])
      indexedUpTo = last
      pendingNeedFolding = false
    }

    /// Indexes what is left, creates the insert trigger again (see ``deferSearchIndex()``). A first import's index
    /// is built here, merged into one segment, with the update triggers and FTS5's settings given back
    /// (``FirstImportSearchIndex/finish()``): a search then looks each term up in one segment instead of the tens a
    /// batch-by-batch build leaves (`news search` of two common words in 100k articles: 17 → 14 ms CPU).
    private mutating func restoreSearchIndex() throws {
      guard let sql = insertTrigger else { return }
      if let index = firstImportIndex {
        try index.finish()
        firstImportIndex = nil
      } else {
        try indexNewRows()
        try mergePause?.finish(intoOne: false)
        mergePause = nil
      }
      try db.execute(sql: sql)
      insertTrigger = nil
    }

    /// The `CREATE INDEX` texts of the secondary indexes of `article` a first import dropped, as `sqlite_master`
    /// held them, in its order (see ``deferSecondaryIndexes(expecting:)``).
    private var droppedIndexes: [String] = []

    /// A first bulk import (the table empty as the save begins, a first batch of ``ArticleWriter/bulk`` articles
    /// or more) drops the indexes of `article` on `url` (the key's, migration 12's `article_by_url`), `publishedAt`,
    /// `source` and `handle`, so that a row costs one B-tree insert, at the end of the table, instead of four more at
    /// random places (the URLs and handles come in no order) in B-trees that outgrow the page cache
    /// (``ArticleWriter/indexesKeptByFirstImport`` stay, and are only appended to);
    /// ``buildSecondaryIndexes()`` creates them again at the end of the save, each with one sort. SQLite's sorter
    /// spills its runs to temporary files (the writer's `temp_store = FILE`): with `MEMORY` the sorts of a
    /// 1M-article import held 300 MB, with files (and a 16 MB page cache while they run, see
    /// ``buildSecondaryIndexes()``) the import peaks at 154 MB (docs/PERFORMANCE.md). Only the
    /// indexes whose text is one the migrations declare (``Schema/articleIndexDefinitions``, and
    /// ``Migration/articleKeyIndex`` under the conditions below, the upserts then written without `ON CONFLICT(url)`
    /// by ``insertFirstImport(_:_:)``); any other index of the table is kept and written row by row. The text is read from `sqlite_master` and given back as it was, and both the drop and
    /// the creation are in the save's transaction, so a failed or cancelled save rolls back to the old schema.
    /// Statements prepared before the change are prepared again by SQLite at their next step
    /// (`sqlite3_prepare_v3`), cached ones included.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_createindex.html>,
    /// <https://www.sqlite.org/c3ref/prepare.html> (`SQLITE_SCHEMA` and re-preparation)
    private mutating func deferSecondaryIndexes(expecting articles: Int) throws {
      let indexes = try db.makeStatement(
        """
        SELECT name, sql FROM sqlite_master
        WHERE type = 'index' AND tbl_name = 'article' AND sql IS NOT NULL ORDER BY rowid
        """
      ).fetchAll { ($0.string(0), $0.string(1)) }
      for case (let name?, let sql?) in indexes {
        let text = Schema.collapsed(sql)
        guard Schema.articleIndexDefinitions.contains(text), !ArticleWriter.indexesKeptByFirstImport.contains(text)
        else { continue }
        try db.execute(sql: "DROP INDEX \(EntityDescription.quote(name))")
        droppedIndexes.append(sql)
      }
      // The key's index, when it is migration 12's: built first at the end, the rows' keys told apart meanwhile by
      // ``FirstImportKeys``. With foreign keys on, SQLite lets rows be inserted into `article` and their non-key
      // columns updated while no unique index holds the key that `query_result` and `article_image` reference; a
      // delete or a key change would fail ("foreign key mismatch"), and a first import does neither before the
      // index is back (eviction runs after it).
      // SQLite looks the parent key's index up, too, for an insert into `article` that may write more than one row:
      // a statement of several rows, or one an `INSERT` trigger could add to. So the rows are inserted one per
      // statement, and the key index is set aside only when the one `INSERT` trigger left on `article` is the
      // writer's change capture (``ChangeCapture``: off during a save, which reports its own changes), itself set
      // aside with it.
      for case (_, let sql?) in indexes where Schema.collapsed(sql) == Migration.articleKeyIndex {
        let triggers = try db.makeStatement(
          """
          SELECT 'main', name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'article'
          UNION ALL SELECT 'temp', name, sql FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = 'article'
          """
        ).fetchAll { (schema: $0.string(0) ?? "", name: $0.string(1) ?? "", sql: $0.string(2) ?? "") }
          .filter { Schema.collapsed($0.sql).uppercased().contains(" INSERT ON ") }
        let capture = ChangeCapture.triggerName(table: "article", event: "INSERT")
        guard triggers.allSatisfy({ $0.schema == "temp" && $0.name == capture }) else { break }
        for trigger in triggers {
          try db.execute(sql: "DROP TRIGGER temp.\(EntityDescription.quote(trigger.name))")
          // `sqlite_temp_master` holds the text without its TEMP.
          setAsideTemporaryTriggers.append("CREATE TEMP" + trigger.sql.dropFirst("CREATE".count))
        }
        try db.execute(sql: "DROP INDEX article_by_url")
        droppedIndexes.insert(sql, at: 0)
        firstImportKeys = FirstImportKeys()
        firstImportKeys?.reserve(articles)
      }
    }

    /// The `CREATE TEMP TRIGGER` texts of the capture triggers a first import set aside with the key index (see
    /// ``deferSecondaryIndexes(expecting:)``), created again after it.
    private var setAsideTemporaryTriggers: [String] = []

    /// Creates the indexes ``deferSecondaryIndexes(expecting:)`` dropped, from their own text (each `CREATE INDEX` reads the
    /// rows written so far and sorts their keys once), with the page cache at ``ArticleWriter/sortCacheKiB`` for the
    /// while: SQLite's sorter keeps as many bytes of keys in memory as the cache may hold before it writes a sorted
    /// run to a temporary file, and that memory comes on top of the cache (a 1M-article import peaked at 220 MB in
    /// its first sort with the writer's 48 MB, at 154 MB with 16 MB, the sorts taking as long; docs/PERFORMANCE.md).
    /// The cache size is given back as it was, whether the sorts succeed or not.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_cache_size>,
    /// <https://www.sqlite.org/tempfiles.html> (the sorter's temporary files)
    private mutating func buildSecondaryIndexes() throws {
      guard !droppedIndexes.isEmpty else { return }
      // `cache_size` is pages when positive, KiB when negative.
      let cacheSize = try db.scalarInt("PRAGMA cache_size") ?? 0
      let pageSize = try db.scalarInt("PRAGMA page_size") ?? 4096
      let cacheKiB = cacheSize < 0 ? -cacheSize : cacheSize * pageSize / 1024
      let lowered = cacheKiB > ArticleWriter.sortCacheKiB
      if lowered { try db.execute(sql: "PRAGMA cache_size = \(-ArticleWriter.sortCacheKiB)") }
      defer { if lowered { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") } }
      for sql in droppedIndexes { try db.execute(sql: sql) }
      droppedIndexes = []
      for sql in setAsideTemporaryTriggers { try db.execute(sql: sql) }
      setAsideTemporaryTriggers = []
    }

    /// What the fetch record of this save stores as the number of articles of the query's result list recorded under
    /// another name than the save's (migration 17's `query_fetch.othersCount`, the save's name being `?4`), as an
    /// SQL expression over the list just written, so that ``StorageContext/articleCounts(ofGroups:)`` need not look
    /// each of its keys up. On a first import every row of `article` is in the list: the rows under another name are
    /// counted through the index on `source` (two ranges and `NULL`); else the list is joined with the articles,
    /// when it holds at most ``ArticleWriter/othersCountLimit`` (a feed's few thousand keys: 2.6 ms of CPU for
    /// 2,000). A save without a source name, or of a longer list, stores it as unknown (`NULL`): a reader then looks
    /// that list up.
    private func othersCount(firstImport: Bool, members: Int64) -> String {
      guard source != nil else { return "NULL" }
      if firstImport {
        return """
          (SELECT count(*) FROM article WHERE source < ?4) + (SELECT count(*) FROM article WHERE source > ?4)
            + (SELECT count(*) FROM article WHERE source IS NULL)
          """
      }
      guard members <= ArticleWriter.othersCountLimit else { return "NULL" }
      return
        "(SELECT count(*) FROM query_result r JOIN article a ON a.url = r.url WHERE r.query = ?1 AND a.source IS NOT ?4)"
    }

    /// Writes the result list's departures, the query's fetch record and runs eviction; returns what the save did.
    ///
    /// - Parameter skipIfEmpty: when no article was added, write nothing at all (the query's cache is left as it was).
    /// - Parameter accumulate: add this save's articles to the query's result list instead of replacing it (one
    ///   page of an incremental sync); the query's article count is then the list's size.
    mutating func finish(eviction: EvictionPolicy, skipIfEmpty: Bool = false, accumulate: Bool = false) throws -> (
      ArticleSaveResult, [StorageChange]
    ) {
      // An index built beside the writer is merged on its thread while the writer builds the table's indexes.
      let beside = firstImportIndex?.beside
      if let beside { beside.endInput() } else { try restoreSearchIndex() }
      try buildSecondaryIndexes()
      if beside != nil { try restoreSearchIndex() }
      firstImportKeys = nil
      let firstImport = wasEmpty ? try firstImportCount() : nil
      let saved = firstImport.map { Int($0) } ?? seen.count
      if skipIfEmpty, saved == 0 {
        // Nothing written, but what a deletion's memory left out is still said (every article of the file, say).
        return (
          ArticleSaveResult(
            saved: 0, inserted: 0, updated: 0, unchanged: 0, evicted: 0, remembered: deletedSkipped,
            rememberedEvicted: evictedSkipped), []
        )
      }
      if firstImport == nil { try giveFreeServedIDs() }
      // Departures first: then the query's result list holds only its previous members (none on a first import),
      // not also the rows just written.
      if !accumulate, firstImport == nil { try removeDepartures() }
      try writeMemberships(appending: accumulate)
      let count =
        accumulate
        ? try db.cachedStatement("SELECT count(*) FROM query_result WHERE query = ?1").fetchOne([.text(query)]) {
          $0.int64(0)
        } ?? nil : Int64(saved)
      try db.execute(
        """
        INSERT INTO query_fetch (query, fetchedAt, articleCount, source, othersCount)
        VALUES (?1, ?2, ?3, ?4, \(othersCount(firstImport: firstImport != nil, members: count ?? Int64(saved))))
        ON CONFLICT(query) DO UPDATE SET fetchedAt = excluded.fetchedAt, articleCount = excluded.articleCount,
          source = excluded.source, othersCount = excluded.othersCount
        """,
        [
          .text(query), .integer(fetchedAt.millisecondsSince1970), .integer(count ?? Int64(saved)),
          source.map { .text($0) } ?? .null,
        ])

      // A first import's inserted rows, in the order they came, read before eviction may delete some of them.
      let insertedIdentities =
        firstImport == nil
        ? inserted
        : listsInserted
          ? try db.makeStatement("SELECT url FROM article WHERE rowid > ?1 ORDER BY rowid").fetchAll(
            [.integer(rowidsBefore ?? 0)]
          ) { Identity(.text($0.string(0) ?? "")) } : []
      let evicted = try evict(eviction, now: fetchedAt)
      var updated: [Identity] = []
      var unchanged = 0
      for (url, entry) in seen {
        switch entry.outcome {
        case .inserted: break
        case .updated: updated.append(Identity(.text(url)))
        case .unchanged: unchanged += 1
        }
      }
      let result = ArticleSaveResult(
        saved: saved, inserted: firstImport.map { Int($0) } ?? inserted.count, updated: updated.count,
        unchanged: unchanged, evicted: evicted.count, remembered: deletedSkipped, rememberedEvicted: evictedSkipped)
      return (
        result,
        [
          StorageChange(
            entity: "article", inserted: insertedIdentities, updated: updated,
            deleted: rekeyedFrom.sorted().map { Identity(.text($0)) } + evicted)
        ]
      )
    }

    /// The largest `article` rowid before this save (`nil` until the first upsert): SQLite gives a new row
    /// `max(rowid) + 1` while that is below `Int64.max`, so a row this save returns with a larger rowid is one it
    /// inserted. At `Int64.max` SQLite picks rowids at random, and an existence query per statement decides instead
    /// (from ``randomRowidsAbove`` on, which a save may reach).
    private var rowidsBefore: Int64?

    /// A save that starts with its largest rowid at or above this may reach `Int64.max`, after which SQLite places
    /// new rows at random, below rowids the save has seen: it neither sets the insert trigger aside (whose rows are
    /// indexed by rowid range) nor tells inserts by rowid. No save writes 2^40 rows.
    private static let randomRowidsAbove = Int64.max - (1 << 40)

    /// The article table was empty when this save began (a first import): the first record of every URL is then an
    /// insert and a later one can only update a row this save inserted, so the upserts need not return what they did,
    /// and nothing is kept per URL but, while the key index is set aside, a hash and a rowid (``FirstImportKeys``:
    /// about 20 MB at a million articles; docs/PERFORMANCE.md).
    private var wasEmpty = false

    /// The articles a first import (``wasEmpty``) has written so far: every row of the table is one of its distinct
    /// URLs, and SQLite gave them consecutive rowids after ``rowidsBefore`` (a new row gets `max(rowid) + 1`; an
    /// update of a URL seen earlier in the save keeps its row), in the order each URL first came — its place in
    /// the result list is `rowid - rowidsBefore - 1`.
    private func firstImportCount() throws -> Int64 {
      let before = rowidsBefore ?? 0
      return (try db.cachedScalarInt("SELECT max(rowid) FROM article") ?? before) - before
    }

    /// The keys of a first import whose key index is set aside (see ``deferSecondaryIndexes(expecting:)``), `nil`
    /// otherwise.
    private var firstImportKeys: FirstImportKeys?

    /// The rowid of `url` in a first import without its key index, if an earlier statement of the save wrote it.
    private func firstImportRowid(of url: String, hash: Int? = nil) throws -> Int64? {
      // The statement is looked up only when a recorded key has the URL's hash (rarely): not once per row.
      try firstImportKeys?.rowid(of: url, hash: hash) { rowid in
        try db.cachedStatement("SELECT url FROM article WHERE rowid = ?1").fetchOne([.integer(rowid)], { $0.string(0) })
          ?? nil
      }
    }

    /// Writes one statement's rows (distinct URLs, their values in `arguments`, as for ``upsert(_:_:)``) of a first
    /// import without its key index, one row per statement: a URL an earlier statement wrote updates its row by
    /// rowid (the later record wins, the source it had stays, as the upsert's `DO UPDATE`), any other is inserted at
    /// the rowid after the last (given, so that ``FirstImportKeys`` records it exactly). One row each, because with
    /// foreign keys on SQLite looks up the parent key's index for a statement that writes several rows of a parent
    /// table ("foreign key mismatch" without it), and not for one that writes one.
    /// Returns the rowid of each URL, in order.
    private mutating func insertFirstImport(_ urls: ArraySlice<String>, _ arguments: [DatabaseValue]) throws
      -> [Int64]
    {
      let width = ArticleWriter.boundColumns.count
      var next = (rowidsBefore ?? 0) + (try firstImportCount()) + 1
      let insert = try firstImportInsert()
      var rowids: [Int64] = []
      rowids.reserveCapacity(urls.count)
      let beside = firstImportIndex?.beside
      var sent = SideSearchIndex.Rows(arguments: arguments, inserted: [], updated: [])
      if beside != nil { sent.inserted.reserveCapacity(urls.count) }
      for (offset, url) in urls.enumerated() {
        // The row's values are bound from `arguments` itself, its rowid after them.
        let values = arguments[offset * width..<(offset + 1) * width]
        let hash = firstImportKeys?.hashValue(of: url)
        if let rowid = try firstImportRowid(of: url, hash: hash) {
          var old: [DatabaseValue] = []
          if beside != nil { old = try indexedText(of: rowid) }
          try firstImportUpdate().executeBorrowingTexts(values, trailing: .integer(rowid))
          if beside != nil {
            let new = try indexedText(of: rowid)
            sent.updated.append((rowid, old, new))
          }
          rowids.append(rowid)
        } else {
          try insert.executeBorrowingTexts(values, trailing: .integer(next))
          firstImportKeys?.record(url, hash: hash, rowid: next)
          if beside != nil { sent.inserted.append((offset, next)) }
          rowids.append(next)
          next += 1
        }
      }
      try beside?.send(sent)
      return rowids
    }

    /// The five values the search index holds for the row `rowid` (`article_search_text`'s), for an index built
    /// beside the writer (``SideSearchIndex``): read before and after the row is updated.
    private func indexedText(of rowid: Int64) throws -> [DatabaseValue] {
      try db.cachedStatement(
        "SELECT title, summary, content, author, sourceName FROM article_search_text WHERE docid = ?1"
      ).fetchOne([.integer(rowid)]) { $0.values(count: 5) } ?? []
    }

    /// The insert of one row (the values of ``upsertStatement(rowCount:returning:)``'s row, `?1`…`?21`) at rowid
    /// `?22`.
    private func firstImportInsert() throws -> Statement {
      let columns = ArticleWriter.boundColumns
      let marks = (1...columns.count + 1).map { "?\($0)" }.joined(separator: ", ")
      return try db.cachedStatement(
        "INSERT INTO article (\(columns.joined(separator: ", ")), rowid) VALUES (\(marks))")
    }

    /// The update of one row by rowid (`?22`) with the values of ``upsertStatement(rowCount:returning:)``'s row
    /// (`?1`…`?21`), as its `DO UPDATE` writes them (`firstSeenAt` kept).
    private func firstImportUpdate() throws -> Statement {
      let columns = ArticleColumn.bound
      let sets = columns.enumerated().compactMap { index, column -> String? in
        switch column.write {
        case .key, .derived, .none, .firstSave: nil
        case .keptOnceSet: "\(column.name) = coalesce(\(column.name), ?\(index + 1))"
        case .content, .followsContent, .save: "\(column.name) = ?\(index + 1)"
        }
      }
      return try db.cachedStatement(
        "UPDATE article SET \(sets.joined(separator: ", ")) WHERE rowid = ?\(columns.count + 1)")
    }

    /// Upserts one statement's rows (distinct URLs, their values in `arguments`) and records what each did.
    private mutating func upsert(_ urls: ArraySlice<String>, _ arguments: [DatabaseValue]) throws {
      guard !urls.isEmpty else { return }
      let before = rowidsBefore ?? 0
      let (rowCount, rows) = ArticleWriter.padded(arguments, rows: urls.count, width: ArticleWriter.boundColumns.count)
      if wasEmpty {
        // Nothing recorded per URL: a first import's rows are all its own (``firstImportCount()``).
        try upsertStatement(rowCount: rowCount, returning: false).executeBorrowingTexts(rows[...])
        return
      }
      let stored = before >= Self.randomRowidsAbove ? try existing(urls.map { DatabaseValue.text($0) }) : nil
      var written: [String: Int64] = [:]
      written.reserveCapacity(urls.count)
      for (url, rowid) in try upsertStatement(rowCount: rowCount).fetchAllBorrowingTexts(
        rows[...], { ($0.string(0) ?? "", $0.int64(1) ?? 0) })
      {
        written[url] = rowid
      }
      if !written.isEmpty, insertTrigger != nil, mergePause == nil {
        mergePause = try SearchIndexMergePause(db: db, segmentLimit: searchIndexBuild.segmentLimit)
      }
      // A changed row costs FTS5 a segment or two (its 'delete' and insert of the same rowid each write the
      // pending terms out), so the segments are counted after every statement, not every batch: 500 rows add at
      // most 1,000 to the limit's 250, below FTS5's 2,000.
      try mergePause?.mergeIfOverLimit()

      for url in urls {
        let rowid = written[url]
        if let earlier = seen[url] {
          // Seen earlier in this save: it keeps its place; an earlier insert stays an insert.
          if rowid != nil, earlier.outcome == .unchanged { seen[url] = (earlier.position, .updated) }
          continue
        }
        let position = seen.count
        let isNew = stored.map { !$0.contains(url) } ?? (rowid.map { $0 > before } ?? false)
        if isNew {
          seen[url] = (position, .inserted)
          inserted.append(Identity(.text(url)))
        } else {
          // A re-keyed row is an update of its new key even when its values are the same (``rekeyed(_:)``).
          seen[url] = (position, rowid == nil && !rekeyedTo.contains(url) ? .unchanged : .updated)
        }
      }
    }

    /// Writes the result list: one row per article of this save at its place, in `url` order (so that both of its
    /// B-trees, the key and the `url` index, are appended to rather than written at random), unchanged rows left as
    /// they are.
    private func writeMemberships(appending: Bool = false) throws {
      // Appended pages are placed after the list's members (a re-sent member moves to its new place).
      let base =
        appending
        ? (try db.cachedStatement("SELECT coalesce(max(position) + 1, 0) FROM query_result WHERE query = ?1")
          .fetchOne([.text(query)]) { $0.int64(0) } ?? nil) ?? 0 : 0
      if wasEmpty {
        // A first import: every row of `article` is one of this save's, at the place its rowid says
        // (``firstImportCount()``), and the query has no member yet (`query_result.url` references `article`, which
        // was empty). Read in `url` order from the key's index, without sorting.
        // Written `membershipChunk` rows per statement, each after the last `url` the previous one wrote (every URL
        // of a first import is non-empty, so the first starts after ''): while one statement runs, SQLite holds
        // memory in proportion to the rows it writes (about 220 bytes a row; its statement journal, kept in memory by
        // `temp_store = MEMORY`, is the likely holder), and one statement for 100k articles was the import's peak.
        var after = ""
        while true {
          try db.cachedStatement(
            """
            INSERT INTO query_result (query, url, position)
            SELECT ?1, url, ?2 + rowid - ?3 - 1 FROM article WHERE url > ?4 ORDER BY url LIMIT ?5
            """
          ).execute([
            .text(query), .integer(base), .integer(rowidsBefore ?? 0), .text(after),
            .integer(Int64(ArticleWriter.membershipChunk)),
          ])
          guard db.changes == ArticleWriter.membershipChunk,
            let last = try db.cachedStatement("SELECT max(url) FROM query_result WHERE query = ?1").fetchOne(
              [.text(query)], { $0.string(0) }) ?? nil
          else { break }
          after = last
        }
        return
      }
      // String order is byte order for ASCII, which URLs nearly always are (any order would be correct).
      let members = seen.sorted { $0.key < $1.key }
      var start = 0
      while start < members.count {
        let end = min(start + ArticleWriter.chunk, members.count)
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity((end - start) * 3)
        for (url, entry) in members[start..<end] {
          arguments += [.text(query), .text(url), .integer(base + Int64(entry.position))]
        }
        let (rowCount, rows) = ArticleWriter.padded(arguments, rows: end - start, width: 3)
        try statement(
          "INSERT INTO query_result (query, url, position) VALUES ", rowCount: rowCount, columns: 3,
          tail:
            " ON CONFLICT(query, url) DO UPDATE SET position = excluded.position WHERE position <> excluded.position"
        ).executeBorrowingTexts(rows[...])
        start = end
      }
    }

    /// Those of `urls` that are stored: one index-only query.
    private func existing(_ urls: [DatabaseValue]) throws -> Set<String> {
      let (statement, arguments) = try db.listStatement("SELECT url FROM article WHERE url IN (?LIST)", list: urls)
      return Set(try statement.fetchAll(arguments) { $0.string(0) ?? "" })
    }

    /// The article upsert for `rowCount` rows; with `returning`, it returns the URL and rowid of every row it inserted or
    /// changed.
    private func upsertStatement(rowCount: Int, returning: Bool = true) throws -> Statement {
      let columns = ArticleWriter.boundColumns
      // The handle follows from the key: written on insert, never changed.
      let updates = ArticleColumn.bound.compactMap { column -> String? in
        let name = column.name
        switch column.write {
        case .key, .derived, .none: return nil
        // A row stored before migration 18 gave it one has its backfill; a row written otherwise gets one here.
        case .keptOnceSet, .firstSave: return "\(name) = coalesce(article.\(name), excluded.\(name))"
        case .content, .followsContent, .save: return "\(name) = excluded.\(name)"
        }
      }
      .joined(separator: ", ")
      let differs = ArticleColumn.bound.compactMap { column -> String? in
        let name = column.name
        switch column.write {
        case .content: return "article.\(name) IS NOT excluded.\(name)"
        case .keptOnceSet: return "(article.\(name) IS NULL AND excluded.\(name) IS NOT NULL)"
        case .key, .derived, .followsContent, .save, .firstSave, .none: return nil
        }
      }
      .joined(separator: " OR ")
      return try statement(
        "INSERT INTO article (\(columns.joined(separator: ", "))) VALUES ", rowCount: rowCount, columns: columns.count,
        tail: " ON CONFLICT(url) DO UPDATE SET \(updates) WHERE \(differs)" + (returning ? " RETURNING url, rowid" : "")
      )
    }

    /// Deletes the result-list rows of the query that this save did not hold, folding the query's previous fetch
    /// time into those articles' `fetchedAt` (when they were last seen).
    private func removeDepartures() throws {
      let members = try db.cachedStatement("SELECT url FROM query_result WHERE query = ?1").fetchAll([.text(query)]) {
        $0.string(0) ?? ""
      }
      let departed = members.filter { seen[$0] == nil }
      guard !departed.isEmpty else { return }
      let previous = try db.cachedStatement("SELECT fetchedAt FROM query_fetch WHERE query = ?1").fetchOne(
        [.text(query)]
      ) { $0.int64(0) }.flatMap { $0 }
      var start = 0
      while start < departed.count {
        let urls = departed[start..<min(start + ArticleWriter.chunk, departed.count)].map { DatabaseValue.text($0) }
        start += urls.count
        if let previous {
          let (statement, arguments) = try db.listStatement(
            "UPDATE article SET fetchedAt = ?1 WHERE fetchedAt < ?1 AND url IN (?LIST)", leading: [.integer(previous)],
            list: urls)
          try statement.execute(arguments)
        }
        let (statement, arguments) = try db.listStatement(
          "DELETE FROM query_result WHERE query = ?1 AND url IN (?LIST)", leading: [.text(query)], list: urls)
        try statement.execute(arguments)
      }
    }

    /// `head (?,?…),(?,?…)… tail`, cached: `rowCount` is one of the few lengths of ``ArticleWriter/padded(_:rows:width:)``.
    private func statement(_ head: String, rowCount: Int, columns: Int, tail: String = "") throws -> Statement {
      let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
      return try db.cachedStatement(head + Array(repeating: row, count: rowCount).joined(separator: ",") + tail)
    }

    /// Applies the eviction policy; returns the URLs removed. Bookmarked articles are never evicted. Their keys are
    /// remembered as a deletion's are (`article_tombstone`, migration 13), so that a feed still listing them does not
    /// bring them back at the next refresh as new and unread (a limit of 60 articles re-saved the same 68 "new" items
    /// at every refresh, and items the user had read came back unread).
    private func evict(_ policy: EvictionPolicy, now: Timestamp) throws -> [Identity] {
      let urls = try evictedKeys(policy, now: now)
      if !urls.isEmpty,
        try db.scalarInt(
          "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_tombstone')")
          == 1
      {
        try StorageContext.remember(deleted: urls, at: now, evicted: true, in: db)
      }
      return urls.map { Identity(.text($0)) }
    }

    /// Deletes the rows the eviction policy drops; returns their keys.
    private func evictedKeys(_ policy: EvictionPolicy, now: Timestamp) throws -> [String] {
      guard !policy.isNone else { return [] }
      var urls: [String] = []
      if let maxAge = policy.maxAge, maxAge > 0 {
        // A limit beyond the representable past means no limit (and must not trap).
        let span = maxAge * 1000
        guard span.isFinite, span < Double(now.millisecondsSince1970) + 9e18 else { return [] }
        let cutoff = now.millisecondsSince1970 - Int64(span)
        // Last seen: the latest fetch of any query whose result holds it, else its own last write. Only two kinds of
        // row can be older than the cutoff by that rule — one in the result of a query last fetched before it, one
        // with its own write before it — so those are the candidates, found through the fetch log (a few rows) and
        // the index on `fetchedAt`; the rule itself is then checked for each. Checking it for every row made each
        // save of a 100k-article store with `maxAgeDays` pay 0.29 s of look-ups (0.1 ms now when nothing is old).
        urls += try db.cachedStatement(
          """
          DELETE FROM article WHERE bookmarkedAt IS NULL AND url IN (
              SELECT r.url FROM query_fetch f CROSS JOIN query_result r ON r.query = f.query WHERE f.fetchedAt < ?1
              UNION ALL SELECT url FROM article WHERE fetchedAt < ?1)
            AND coalesce(
              (SELECT max(f.fetchedAt) FROM query_result r JOIN query_fetch f ON f.query = r.query WHERE r.url = article.url),
              fetchedAt) < ?1
          RETURNING url
          """
        ).fetchAll([.integer(cutoff)]) { $0.string(0) ?? "" }
      }
      if let maxArticles = policy.maxArticles {
        urls += try db.cachedStatement(
          """
          DELETE FROM article WHERE url IN (
            SELECT url FROM article WHERE bookmarkedAt IS NULL ORDER BY publishedAt DESC, url LIMIT -1 OFFSET ?1)
          RETURNING url
          """
        ).fetchAll([.integer(Int64(max(0, maxArticles)))]) { $0.string(0) ?? "" }
      }
      return urls
    }
  }
}
