extension Migration {
  /// The characters the search index does not see, as the code points SQLite's `char()` takes: the soft hyphen
  /// (U+00AD), the zero-width space, non-joiner and joiner (U+200B–U+200D), the word joiner (U+2060) and the zero-width
  /// no-break space (U+FEFF) (migration 7; ``SearchQuery/foldedScalars`` folds the same out of a query).
  static let searchFoldedCodePoints = [173, 8203, 8204, 8205, 8288, 65279]

  /// The view `article_search_text` (migration 7): `docid` is `article.rowid`, then the five searched columns, each
  /// SQL expression given here with ``searchFoldedCodePoints`` removed by nested `replace()` calls. Migrations 7, 9
  /// and 11 each shipped one; they differ only in the summary and content expressions.
  static func searchTextViewDefinition(summary: String, content: String) -> String {
    let columns = ["title", summary, content, "author", "sourceName"].map { "  " + folded($0) }
    return """
      CREATE VIEW article_search_text (docid, title, summary, content, author, sourceName) AS
      SELECT rowid,
      \(columns.joined(separator: ",\n"))
      FROM article
      """
  }

  /// The SQL expression `expression` with ``searchFoldedCodePoints`` removed: `replace()` calls nested around it, one
  /// per code point, the code points written as `char()` (plain SQL, so every reader of the store can read the view).
  static func folded(_ expression: String) -> String {
    String(repeating: "replace(", count: searchFoldedCodePoints.count) + expression + ",\n    "
      + searchFoldedCodePoints.map { "char(\($0)), '')" }.joined(separator: ", ")
  }

  /// The two update triggers of the search index (migration 7): when one of `columns` of an `article` row changes,
  /// the row's old values (read from `article_search_text`) are deleted from `article_fts` before the update and its
  /// new values inserted after it. Migrations 7, 9 and 11 each shipped them, watching more columns each time.
  static func searchUpdateTriggers(watching columns: [String]) -> String {
    let changed = stride(from: 0, to: columns.count, by: 3).map { start in
      columns[start..<min(start + 3, columns.count)].map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
    }
    let watched = columns.joined(separator: ", ")
    let condition = changed.joined(separator: "\n  OR ")
    return """
      CREATE TRIGGER article_fts_before_update
      BEFORE UPDATE OF \(watched) ON article
      WHEN \(condition)
      BEGIN
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        SELECT 'delete', docid, title, summary, content, author, sourceName
        FROM article_search_text WHERE docid = old.rowid;
      END;

      CREATE TRIGGER article_fts_after_update
      AFTER UPDATE OF \(watched) ON article
      WHEN \(condition)
      BEGIN
        INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
        SELECT docid, title, summary, content, author, sourceName FROM article_search_text WHERE docid = new.rowid;
      END;
      """
  }

  /// The search index `article_fts` over the content table `content` (rowid column `rowid`), with the tokenizer every
  /// version of it has used: Unicode 6.1 words, diacritics removed, letters, numbers, private use and marks kept.
  static func searchIndexTable(content: String, rowid: String) -> String {
    """
    CREATE VIRTUAL TABLE article_fts USING fts5(
      title, summary, content, author, sourceName,
      content = '\(content)', content_rowid = '\(rowid)',
      tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
    );
    """
  }
}
