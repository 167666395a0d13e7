extension Migration {
  /// The view `article_search_text` of migration 11: the searched columns, folded (migration 7); the summary is its
  /// search text where there is one (`coalesce(summaryText, summary)`), the content the whole text, else the
  /// content's search text, else the content (`coalesce(fullText, contentText, content)`), as it shipped; migration
  /// 24 replaced it (``searchTextView``).
  static let v11SearchTextView = searchTextViewDefinition(
    summary: "coalesce(summaryText, summary)", content: "coalesce(fullText, contentText, content)")

  /// Version 11: search reads the text a reader sees, not the markup (RELIABILITY.md, bug 31). A feed's summary and
  /// content stay as the feed gives them (HTML stays HTML, for `news show`); their text, rendered by the HTML layer
  /// (`FeedText.plainText`), is stored beside them in `summaryText` and `contentText` when it differs from the
  /// field (``Article/summaryText``, ``Article/contentText``; written by ``ArticleWriter`` like every content
  /// column), and the index reads it in their place through `article_search_text`, so `snippet()` and
  /// `highlight()` cut from the text too. Plain-text fields (NewsAPI) leave both `NULL` and are indexed as before.
  ///
  /// The update triggers watch the two new columns too. No rebuild: every stored row has both `NULL`, so the new
  /// view gives the values the index already holds (and its `'delete'`s stay exact). Rows stored before keep
  /// their markup in the index until a fetch writes them again: the writer's upsert compares the new columns too,
  /// so the next fetch of the same item, its HTML unchanged, rewrites the row and re-indexes its text.
  static let v11SearchTextOfHTML = Migration(
    version: 11,
    name: "search the text of HTML summaries and contents",
    sql: """
      ALTER TABLE article ADD COLUMN summaryText TEXT;
      ALTER TABLE article ADD COLUMN contentText TEXT;

      DROP TRIGGER article_fts_before_update;
      DROP TRIGGER article_fts_after_update;
      DROP VIEW article_search_text;
      \(v11SearchTextView);

      \(searchUpdateTriggers(
        watching: ["title", "summary", "content", "author", "sourceName", "fullText", "summaryText", "contentText"]))
      """
  )
}
