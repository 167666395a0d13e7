extension Migration {
  /// Version 4: full-text search over articles (SQLite FTS5, <https://www.sqlite.org/fts5.html>).
  ///
  /// - `article_fts` is an external-content FTS5 table (`content='article'`, `content_rowid='rowid'`): it keeps only
  ///   the index of `title`, `summary`, `content`, `author` and `sourceName`, and reads the text itself from
  ///   `article` by rowid (for `snippet()` and `highlight()`).
  /// - Three triggers keep it in step with `article`, inside the same transaction as the change: after an insert
  ///   (a new row of a multi-row `INSERT … ON CONFLICT DO UPDATE` included), after a delete (batch deletes and
  ///   eviction included), and after an update of an indexed column whose value changed (the `DO UPDATE` branch of
  ///   an upsert fires it; setting `isRead` or `bookmarkedAt` does not). An external-content index must be told
  ///   the old values to remove them (the `'delete'` command), which the triggers pass from `old`.
  /// - Existing rows are indexed by `'rebuild'`, so an upgraded cache is searchable at once.
  ///
  /// Tokenizer: `unicode61 remove_diacritics 2 categories 'L* N* Co M*'`. Case and Latin diacritics are folded
  /// (`muller` finds Müller, written precomposed or with a combining mark); combining marks count as parts of words,
  /// so Devanagari, Thai, Hebrew and Arabic words with vowel signs are indexed whole instead of being cut at every
  /// mark (the default categories `L* N* Co` do cut them). Arabic and Hebrew vowel marks are not removed: a word
  /// written with harakat is found by the same spelling. Scripts written without spaces (Chinese, Japanese,
  /// Korean, Thai…) come out as one token per run of text, so ``StorageContext/search(_:filter:limit:offset:)``
  /// searches such terms as substrings instead. A second, `trigram` table was tried and not kept: with SQLite 3.40
  /// it matches nothing for terms shorter than three characters (`東京`, `地震`, `中国`), by `MATCH` or `LIKE`.
  ///
  /// Invariants for whoever writes to `article`: never `INSERT OR REPLACE` (its implicit delete fires no trigger
  /// unless `recursive_triggers` is on, leaving stale index entries); after anything that may renumber rowids (a
  /// `VACUUM` may, for a table without an `INTEGER PRIMARY KEY`, though SQLite 3.40 keeps them), run
  /// `INSERT INTO article_fts(article_fts) VALUES ('rebuild')`.
  static let v4ArticleSearch = Migration(
    version: 4,
    name: "full-text search over articles",
    sql: """
      \(searchIndexTable(content: "article", rowid: "rowid"))

      CREATE TRIGGER article_fts_after_insert AFTER INSERT ON article BEGIN
        INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
        VALUES (new.rowid, new.title, new.summary, new.content, new.author, new.sourceName);
      END;

      CREATE TRIGGER article_fts_after_delete AFTER DELETE ON article BEGIN
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        VALUES ('delete', old.rowid, old.title, old.summary, old.content, old.author, old.sourceName);
      END;

      CREATE TRIGGER article_fts_after_update AFTER UPDATE OF title, summary, content, author, sourceName ON article
      WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
        OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName
      BEGIN
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        VALUES ('delete', old.rowid, old.title, old.summary, old.content, old.author, old.sourceName);
        INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
        VALUES (new.rowid, new.title, new.summary, new.content, new.author, new.sourceName);
      END;

      -- Index the rows already cached.
      INSERT INTO article_fts (article_fts) VALUES ('rebuild');
      """
  )
}
