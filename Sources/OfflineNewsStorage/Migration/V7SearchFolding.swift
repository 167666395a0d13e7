extension Migration {
  /// Version 7: search as the reader sees the words. The soft hyphen (U+00AD), the zero-width space (U+200B), the
  /// zero-width non-joiner and joiner (U+200C, U+200D), the word joiner (U+2060) and the zero-width no-break space
  /// (U+FEFF) are folded out of the text before FTS5 tokenizes it, so `Bundes­verfassungs­gericht` written with soft
  /// hyphens (as German sites send it) is the one word `bundesverfassungsgericht`, not three, and a Persian word
  /// written with a ZWNJ is one word too. ``SearchQuery`` folds the same characters out of the query
  /// (``SearchQuery/foldedScalars``).
  ///
  /// The design, and why: `article_fts` is an external-content FTS5 table, and FTS5 takes the text it indexes from
  /// two places: the values the triggers insert, and its content table, which it reads for `'rebuild'`,
  /// `'integrity-check'`, `snippet()` and `highlight()`. Its `'delete'` command must be given exactly the values that
  /// were indexed, or the index keeps stale terms (<https://www.sqlite.org/fts5.html#external_content_tables>).
  /// Folding only in the triggers would index folded text while `'rebuild'` and `'integrity-check'` read the raw
  /// text of `article`. So the folding is written once, in the view `article_search_text` (`docid` is
  /// `article.rowid`, the five columns are folded with nested `replace()`), and the view is the content table:
  ///
  /// - `article_fts` is recreated with `content='article_search_text'`, `content_rowid='docid'` (the `content`
  ///   option of an FTS5 table cannot be changed in place), with migration 4's tokenizer;
  /// - every value given to the index comes from the view: the insert trigger and the second half of the update
  ///   trigger select the new row's folded values from it after the change; the delete trigger and the first half
  ///   of the update trigger (`BEFORE`) select the old row's folded values from it before the change, while the row
  ///   still holds them. Insert and delete are therefore given the same folded values by construction, and
  ///   `'rebuild'` (run here, so existing caches are re-indexed at once) and `'integrity-check'` read them too;
  /// - the bulk path of `saveArticles` (``ArticleWriter``) indexes new rows with `INSERT … SELECT … FROM
  ///   article_search_text`, the same view, or, for a batch in which no text holds a folded character (so that
  ///   the view's values are the row's own), from `article` directly, provided the view is migration 9's.
  ///
  /// It is plain SQL (`replace()` and `char()`, no application-defined function), so a database written by another
  /// program, such as the `sqlite3` command line tool (news-bench loads `article` with `json_each`), is indexed the
  /// same way. Snippets come from the view too, so they show the text without these invisible characters.
  ///
  /// Invariants as for migration 4: never `INSERT OR REPLACE` into `article`; rebuild after anything that may
  /// renumber rowids. A later change of the folded characters must recreate the view and run `'rebuild'` in the same
  /// migration, since every indexed value must come from the view as it is when it is deleted.
  static let v7SearchFolding = Migration(
    version: 7,
    name: "search folding",
    sql: """
      DROP TRIGGER article_fts_after_insert;
      DROP TRIGGER article_fts_after_delete;
      DROP TRIGGER article_fts_after_update;
      DROP TABLE article_fts;

      -- The text the search index sees: article's searched columns without U+00AD, U+200B, U+200C, U+200D, U+2060,
      -- U+FEFF.
      \(searchTextViewDefinition(summary: "summary", content: "content"));

      \(searchIndexTable(content: "article_search_text", rowid: "docid"))

      CREATE TRIGGER article_fts_after_insert AFTER INSERT ON article BEGIN
        INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
        SELECT docid, title, summary, content, author, sourceName FROM article_search_text WHERE docid = new.rowid;
      END;

      CREATE TRIGGER article_fts_before_delete BEFORE DELETE ON article BEGIN
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        SELECT 'delete', docid, title, summary, content, author, sourceName
        FROM article_search_text WHERE docid = old.rowid;
      END;

      \(searchUpdateTriggers(watching: ["title", "summary", "content", "author", "sourceName"]))

      -- Index the rows already cached, folded.
      INSERT INTO article_fts (article_fts) VALUES ('rebuild');
      """
  )
}
