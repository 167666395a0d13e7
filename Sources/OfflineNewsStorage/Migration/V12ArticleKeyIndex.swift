extension Migration {
  /// The unique index that holds `article`'s identity from migration 12 on, as `sqlite_master` holds it: what
  /// ``ArticleWriter`` checks before a first import sets it aside.
  static let articleKeyIndex = "CREATE UNIQUE INDEX article_by_url ON article(url)"

  /// Version 12: the article's key is held by a unique index (``articleKeyIndex``) instead of the table's
  /// `PRIMARY KEY` (migration 1), so that a first import can build it once at its end, by one sort, as it already
  /// builds the other indexes (issue 17: at a million articles, writing the key index row by row made the last
  /// 100,000 rows' upserts 2.4 times as slow as the first's; docs/PERFORMANCE.md, "1M linearity: the key index").
  /// The identity, the upserts' `ON CONFLICT(url)` and the foreign keys of `query_result` and `article_image` work
  /// the same with a unique index as with the primary key (SQLite: a parent key must be the primary key or have a
  /// unique index).
  ///
  /// SQLite cannot drop a primary key, so the table is rebuilt as sqlite.org's "other kinds of table schema changes"
  /// describes, with foreign keys off (``needsForeignKeysOff``: dropping the old table must not cascade to the
  /// result lists and images) and `PRAGMA foreign_key_check` before the commit (``Migrator``): the new table is
  /// created from the old one's own text (every column, migrations' and entities' alike) without the key clause,
  /// filled with every row *at its rowid* (the search index, migration 4, finds rows by rowid), and its indexes,
  /// every trigger (another table's may read `article`: an app's own) and the views are created again from the
  /// texts `sqlite_master` held for them. It reads and writes
  /// the table once: 13.7 s and a 174 MB peak for a store of a million articles (1.28 GB, release build), which then
  /// holds the old table's 600 MB as free pages (`news compact` gives them back). A table without migration 1's key
  /// clause is left as it is (the writer then keeps the key index it finds).
  ///
  /// Related SQLite documentation: <https://www.sqlite.org/lang_altertable.html#otheralter>,
  /// <https://www.sqlite.org/foreignkeys.html#fk_indexes>
  static let v12ArticleKeyIndex = Migration(
    version: 12,
    name: "article key as a unique index",
    sql: "SELECT 1",
    needsForeignKeysOff: true,
    keepsReads: true,
    steps: [.transform(rebuildArticleWithKeyIndex)])

  /// The clause of migration 1 that ``v12ArticleKeyIndex`` takes off.
  static let articleKeyClause = "url TEXT NOT NULL PRIMARY KEY,"

  /// Rebuilds `article` without its primary key and creates ``articleKeyIndex`` (see ``v12ArticleKeyIndex``).
  static func rebuildArticleWithKeyIndex(_ db: Connection) throws {
    let head = "CREATE TABLE article ("
    guard
      let table = try db.scalarString("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'article'"),
      table.hasPrefix(head), table.contains(articleKeyClause)
    else { return }
    let rebuilt =
      "CREATE TABLE article_rebuilt ("
      + table.dropFirst(head.count).replacingOccurrences(of: articleKeyClause, with: "url TEXT NOT NULL,")
    // Every index of the table (but the key's own, which has no text), every trigger and every view, in the order
    // they were created: a trigger of another table may read `article` too (an app's own), and SQLite checks every
    // trigger's and view's references when it renames a table ("error in trigger …: no such table: main.article").
    let dependents = try db.makeStatement(
      """
      SELECT type, name, sql FROM sqlite_master
      WHERE sql IS NOT NULL AND (type IN ('view', 'trigger') OR (type = 'index' AND tbl_name = 'article'))
      ORDER BY rowid
      """
    ).fetchAll { (type: $0.string(0) ?? "", name: $0.string(1) ?? "", sql: $0.string(2) ?? "") }
    let columns = try db.makeStatement("SELECT name FROM pragma_table_info('article') ORDER BY cid").fetchAll {
      EntityDescription.quote($0.string(0) ?? "")
    }.joined(separator: ", ")
    // Views and triggers first, `article`'s own and the other tables': the table is dropped and renamed below, and
    // SQLite checks them against it when it renames. None fires meanwhile: the rows are copied into another table,
    // and a `DROP TABLE` with foreign keys off deletes no row.
    for dependent in dependents where dependent.type != "index" {
      try db.execute(sql: "DROP \(dependent.type.uppercased()) \(EntityDescription.quote(dependent.name))")
    }
    try db.execute(sql: rebuilt)
    try db.execute(sql: "INSERT INTO article_rebuilt (rowid, \(columns)) SELECT rowid, \(columns) FROM article")
    // SQLite as Debian builds it overwrites every freed page with zeros (`SECURE_DELETE`), and inside a
    // transaction the statement journal keeps each such page's old content, in memory here (Connection's process
    // configuration): 886 MB more for the drop of a million articles. Their rows are all in the new table, so the
    // old pages are freed as they are, and the setting given back.
    let secureDelete = try db.scalarInt("PRAGMA secure_delete") ?? 1
    try db.execute(sql: "PRAGMA secure_delete = OFF")
    defer { try? db.execute(sql: "PRAGMA secure_delete = \(secureDelete == 2 ? "FAST" : String(secureDelete))") }
    try db.execute(sql: "DROP TABLE article")
    try db.execute(sql: "ALTER TABLE article_rebuilt RENAME TO article")
    // The indexes are built by SQLite's sorter, which holds as many bytes of keys as the page cache may before it
    // spills a run to a file: with the writer's 48 MB, 246 MB at the peak for a million articles (as a first
    // import's index builds, ``ArticleWriter/sortCacheKiB``).
    let cacheSize = try db.scalarInt("PRAGMA cache_size") ?? -2000
    try db.execute(sql: "PRAGMA cache_size = \(-ArticleWriter.sortCacheKiB)")
    defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
    try db.execute(sql: articleKeyIndex)
    for dependent in dependents { try db.execute(sql: dependent.sql) }
  }
}
