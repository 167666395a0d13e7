extension Migration {
  /// The view `article_search_text` of migration 24: migration 11's values (the searched columns, folded; the
  /// summary's search text else the summary; the whole text, else the content's search text, else the content), with
  /// the folding (``folded(_:)``: six nested `replace()` calls per column) skipped for a row whose `searchFolds` is 0
  /// and that has no whole text (`fullText`, written apart from the row's other texts). Such a row holds no folded
  /// character, so skipping gives the same values: `'delete'`s of rows indexed through migration 11's view stay exact.
  static let searchTextView = """
    CREATE VIEW article_search_text (docid, title, summary, content, author, sourceName) AS
    SELECT rowid,
      CASE WHEN searchFolds THEN \(folded("title")) ELSE title END,
      CASE WHEN searchFolds THEN \(folded("coalesce(summaryText, summary)"))
        ELSE coalesce(summaryText, summary) END,
      CASE WHEN searchFolds OR fullText IS NOT NULL THEN \(folded("coalesce(fullText, contentText, content)"))
        ELSE coalesce(contentText, content) END,
      CASE WHEN searchFolds THEN \(folded("author")) ELSE author END,
      CASE WHEN searchFolds THEN \(folded("sourceName")) ELSE sourceName END
    FROM article
    """

  /// Version 24: the search index reads a row's texts without folding them when the article writer found nothing to
  /// fold (docs/PERFORMANCE.md, "Where a first refresh's instructions go": the view's 30 `replace()` calls were 17 %
  /// of the writer's instructions in a first refresh of 12 feeds, each copying every text six times).
  ///
  /// `article.searchFolds` is 1 when the title, the summary or its search text, the content or its search text, the
  /// author or the source name may hold a character the index folds out (``searchFoldedCodePoints``), and 0 only
  /// where ``ArticleWriter`` checked every one of them (``ArticleWriter/needsFolding(_:)``) as it wrote them. It
  /// defaults to 1, so every stored row, and a row written by any other program, is read folded as before: no
  /// rebuild, and the index's `'delete'`s read what its inserts read. The update triggers watch it too, so a row
  /// whose mark changes is indexed again with its new values. A program that writes a folded character into a row
  /// marked 0 without setting the mark gets that row indexed unfolded (the character then splits its word), and
  /// deleted as indexed.
  ///
  /// Reads never use the column, so a store at 23 is read as it is (``keepsReads``) and migrated at its first write.
  /// The column is added only when missing (the earlier migrations create `article` from its declaration).
  static let v24SearchFoldsMark = Migration(
    version: 24,
    name: "search text folded only where the writer found something to fold",
    keepsReads: true,
    steps: [
      .addColumn(table: "article", column: "searchFolds", definition: "INTEGER NOT NULL DEFAULT 1"),
      .sql(
        """
        DROP TRIGGER article_fts_before_update;
        DROP TRIGGER article_fts_after_update;
        DROP VIEW article_search_text;
        \(searchTextView);

        \(searchUpdateTriggers(
          watching: [
            "title", "summary", "content", "author", "sourceName", "fullText", "summaryText", "contentText",
            "searchFolds",
          ]))
        """),
    ]
  )
}
