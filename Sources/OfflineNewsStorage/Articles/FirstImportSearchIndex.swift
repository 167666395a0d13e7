import Foundation

/// How a first import builds its search index (``FirstImportSearchIndex``): the defaults, or smaller numbers with
/// which tests reach every path with a few thousand rows.
package struct SearchIndexBuild: Sendable {
  /// Rows one `INSERT … SELECT` gives the index. With ``FirstImportSearchIndex/hashSize`` of pending terms, 10,000
  /// NewsAPI articles (about 6.5 MB of text) make one segment; one statement holds its statement journal while it
  /// runs, and a single statement of 100k rows made the import's peak 18 MB higher (docs/PERFORMANCE.md).
  package var rowsPerStatement = 10_000
  /// Segments the index may hold between two statements before they are merged (FTS5's own limit is 2,000 per
  /// index, `SQLITE_FULL` past it): 250 is reached at about 2.5 million NewsAPI articles, so a smaller import
  /// merges once, at its end.
  package var segmentLimit = 250
  /// Whether a first import whose key index is set aside builds its index on a second thread while it writes the
  /// rows (``SideSearchIndex``), when `article_fts` is empty; `false` builds it at the end whatever the index holds
  /// (tests compare the two).
  package var beside = true

  /// The defaults.
  package static let standard = SearchIndexBuild()

  package init(rowsPerStatement: Int = 10_000, segmentLimit: Int = 250, beside: Bool = true) {
    self.rowsPerStatement = max(1, rowsPerStatement)
    self.segmentLimit = max(2, segmentLimit)
    self.beside = beside
  }
}

/// The search index of a first import — the article table empty as the save begins, a bulk first batch — built
/// once, after every upsert, instead of batch by batch.
///
/// Every row of such a save is its own, so none is in the index before the end: the index's insert trigger and
/// both update triggers (migration 11's) are set aside for the transaction, and a URL that comes again later in the
/// save only rewrites its row, which is indexed once, with its last text. At the end the rows are given to FTS5 in
/// rowid order by ``SearchIndexBuild/rowsPerStatement`` per `INSERT … SELECT`, with 8 MB of pending terms per
/// segment (FTS5 `hashsize`), merging paused (``SearchIndexMergePause``: no merge inside a statement, the segments
/// merged between statements only past ``SearchIndexBuild/segmentLimit``), and into one segment at the end by FTS5
/// `merge` with a negative page count, the incremental form of `optimize`, 2,000 pages per statement.
///
/// So the index is written once and merged once, where batch-by-batch indexing merged it level by level as it grew
/// (a million articles: 16.7 s of FTS5 work and 2.4 s of `optimize` against 12.7 s and 2.4 s; docs/PERFORMANCE.md),
/// the page cache holds the key index alone while the rows are written, and no statement holds more than a few
/// megabytes of statement journal. The triggers are created again from their own text and FTS5's settings given
/// back, in the save's transaction: a failed save rolls all of it back.
///
/// When the writer sets the key index aside (it then knows which rows it inserts and which it updates) and
/// `article_fts` holds nothing, the index is built beside the writer instead, on a second thread, and copied in at
/// the end (``SideSearchIndex``, ``startBeside()``); the triggers are set aside and created again the same way.
///
/// Rows whose text `article_search_text` folds (``SearchQuery/foldedScalars``) are read through the view, others
/// from `article` itself (the view's `coalesce`s without its 30 `replace()` calls: see
/// `ArticleWriter.Session.indexNewRows()`): the writer notes the rowid of each folded article as it writes it
/// (``noteFolded(rowids:)``), and a statement whose rows hold one reads the view.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#the_merge_command>,
/// <https://www.sqlite.org/fts5.html#the_optimize_command>,
/// <https://www.sqlite.org/fts5.html#the_automerge_configuration_option>,
/// <https://www.sqlite.org/fts5.html#the_crisismerge_configuration_option>,
/// <https://www.sqlite.org/lang_transaction.html> (statement journals)
struct FirstImportSearchIndex {
  /// FTS5's `hashsize` while the index is built: the bytes of pending terms after which it writes a segment
  /// (FTS5's default is 1 MB).
  static let hashSize: Int64 = 8 << 20
  /// The names of the triggers set aside: the index's insert trigger is set aside by every bulk save
  /// (`ArticleWriter.Session.deferSearchIndex()`), these by a first import.
  static let updateTriggers = ["article_fts_before_update", "article_fts_after_update"]

  private let db: Connection
  private let build: SearchIndexBuild
  /// The largest rowid before the save: every row above it is the save's.
  private let rowidsBefore: Int64
  /// `article_search_text` is migration 11's view, so that unfolded text can be read from `article` itself.
  private let foldingIsKnown: Bool
  /// The `CREATE TRIGGER` texts of the update triggers, as `sqlite_master` held them.
  private let triggers: [String]
  /// The index being built on a second thread (``startBeside()``), `nil` when it is built at the end.
  private(set) var beside: SideSearchIndex?
  /// Statements (numbered from 0 by rowid) whose rows hold text the view folds.
  private var foldedStatements: Set<Int64> = []

  /// Sets the update triggers aside, when both are exactly the migrations' (``Schema/triggerDefinitions``); `nil`
  /// otherwise, and nothing is changed (the save then indexes batch by batch through the update triggers it keeps).
  ///
  /// - Throws: ``SQLiteError`` from reading or changing the schema.
  init?(db: Connection, rowidsBefore: Int64, foldingIsKnown: Bool, build: SearchIndexBuild) throws {
    var triggers: [String] = []
    for name in Self.updateTriggers {
      let sql = try db.makeStatement("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1")
        .fetchOne([.text(name)]) { $0.string(0) }.flatMap { $0 }
      guard let sql, let declared = Schema.triggerDefinitions[name], Schema.collapsed(sql) == declared
      else { return nil }
      triggers.append(sql)
    }
    for name in Self.updateTriggers { try db.execute(sql: "DROP TRIGGER \(name)") }
    self.db = db
    self.build = build
    self.rowidsBefore = rowidsBefore
    self.foldingIsKnown = foldingIsKnown
    self.triggers = triggers
  }

  /// Builds the index beside the writer (``SideSearchIndex``) when the build allows it and `article_fts` is empty;
  /// the writer then sends every statement's rows (``SideSearchIndex/send(_:)``) and notes no folded rows.
  ///
  /// - Throws: ``SQLiteError`` from reading the index or creating the side database.
  mutating func startBeside() throws {
    guard build.beside, beside == nil else { return }
    beside = try SideSearchIndex(db: db)
  }

  /// Notes the rows of articles just written whose text the view folds: their statements read through the view.
  mutating func noteFolded(rowids: [Int64]) {
    guard foldingIsKnown, beside == nil else { return }
    let rows = Int64(build.rowsPerStatement)
    for rowid in rowids where rowid > rowidsBefore {
      foldedStatements.insert((rowid - rowidsBefore - 1) / rows)
    }
  }

  /// Indexes every row the save wrote, merges the index into one segment, gives FTS5's settings back and creates
  /// the update triggers again; or, built beside the writer, copies that index in (``SideSearchIndex/copy(into:)``)
  /// and creates the triggers again.
  ///
  /// - Throws: ``SQLiteError``.
  func finish() throws {
    if let beside {
      try beside.copy(into: db)
    } else {
      try indexAtEnd()
    }
    for sql in triggers { try db.execute(sql: sql) }
  }

  /// Indexes every row the save wrote, FTS5's merging paused, and merges the index into one segment.
  private func indexAtEnd() throws {
    let merging = try SearchIndexMergePause(db: db, segmentLimit: build.segmentLimit, hashSize: Self.hashSize)
    let last = try db.scalarInt("SELECT max(rowid) FROM article") ?? rowidsBefore
    let rows = Int64(build.rowsPerStatement)
    var from = rowidsBefore
    var number: Int64 = 0
    while from < last {
      let to = min(last, from + rows)
      let sql =
        !foldingIsKnown || foldedStatements.contains(number)
        ? ArticleWriter.indexThroughView : ArticleWriter.indexFromTable
      try db.cachedStatement(sql).execute([.integer(from), .integer(to)])
      from = to
      number += 1
      if from < last { try merging.mergeIfOverLimit() }
    }
    try merging.finish(intoOne: true)
  }
}
