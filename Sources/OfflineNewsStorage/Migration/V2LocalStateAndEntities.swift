extension Migration {
  /// Version 2: local-only article state (read, bookmarked) and the record of declared entities.
  static let v2LocalStateAndEntities = Migration(
    version: 2,
    name: "article read/bookmark state, entity registry",
    sql: """
      -- Local-only attributes: never written by a save from a source.
      ALTER TABLE article ADD COLUMN isRead INTEGER NOT NULL DEFAULT 0 CHECK (isRead IN (0, 1));
      ALTER TABLE article ADD COLUMN bookmarkedAt INTEGER;  -- ms since 1970 UTC; NULL when not bookmarked
      CREATE INDEX article_by_bookmarkedAt ON article(bookmarkedAt) WHERE bookmarkedAt IS NOT NULL;
      CREATE INDEX article_by_fetchedAt ON article(fetchedAt);

      -- Every entity of the store, as its JSON description, so that any tool can read any entity's rows.
      CREATE TABLE schema_entity (
        name TEXT NOT NULL PRIMARY KEY,
        definition TEXT NOT NULL CHECK (json_valid(definition))
      );
      """
  )
}
