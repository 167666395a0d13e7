extension Migration {
  /// The view `article_search_text` of migration 9 (the searched columns, folded; the content column is the full
  /// text where there is one), as it shipped; migration 11 replaced it (``v11SearchTextView``).
  static let v9SearchTextView = searchTextViewDefinition(summary: "summary", content: "coalesce(fullText, content)")

  /// Version 9: the whole article, for reading offline (issue "News readable offline"): `fullTextHTML` (the
  /// readable article's cleaned HTML), `fullText` (its text), `fullTextAt` (when it was fetched, ms UTC) and
  /// `fullTextError` (why the last attempt failed; cleared by a success). The source's own fields are never touched.
  /// The search index reads `coalesce(fullText, content)` as the content column (through `article_search_text`,
  /// migration 7), and its update triggers watch `fullText` too; no row has a full text yet, so the index needs no
  /// rebuild.
  static let v9FullText = Migration(
    version: 9,
    name: "full text for offline reading",
    sql: """
      ALTER TABLE article ADD COLUMN fullTextHTML TEXT;
      ALTER TABLE article ADD COLUMN fullText TEXT;
      ALTER TABLE article ADD COLUMN fullTextAt INTEGER;
      ALTER TABLE article ADD COLUMN fullTextError TEXT;

      -- The index's content column becomes the whole text where there is one (no row has one yet: the index is
      -- right as it is, no rebuild).
      DROP TRIGGER article_fts_before_update;
      DROP TRIGGER article_fts_after_update;
      DROP VIEW article_search_text;
      \(v9SearchTextView);

      \(searchUpdateTriggers(watching: ["title", "summary", "content", "author", "sourceName", "fullText"]))
      """
  )
}
