extension Migration {
  /// The view `article_search_text` of migration 9 (the searched columns, folded; the content column is the full
  /// text where there is one), as it shipped; migration 11 replaced it (``searchTextView``).
  static let v9SearchTextView = """
    CREATE VIEW article_search_text (docid, title, summary, content, author, sourceName) AS
    SELECT rowid,
      replace(replace(replace(replace(replace(replace(title,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(summary,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(coalesce(fullText, content),
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(author,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), ''),
      replace(replace(replace(replace(replace(replace(sourceName,
        char(173), ''), char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), '')
    FROM article
    """

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

      CREATE TRIGGER article_fts_before_update
      BEFORE UPDATE OF title, summary, content, author, sourceName, fullText ON article
      WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
        OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName OR old.fullText IS NOT new.fullText
      BEGIN
        INSERT INTO article_fts (article_fts, rowid, title, summary, content, author, sourceName)
        SELECT 'delete', docid, title, summary, content, author, sourceName
        FROM article_search_text WHERE docid = old.rowid;
      END;

      CREATE TRIGGER article_fts_after_update
      AFTER UPDATE OF title, summary, content, author, sourceName, fullText ON article
      WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.content IS NOT new.content
        OR old.author IS NOT new.author OR old.sourceName IS NOT new.sourceName OR old.fullText IS NOT new.fullText
      BEGIN
        INSERT INTO article_fts (rowid, title, summary, content, author, sourceName)
        SELECT docid, title, summary, content, author, sourceName FROM article_search_text WHERE docid = new.rowid;
      END;
      """
  )
}
