extension Migration {
  /// Version 1: the article entity, each query's result list, and the fetch log.
  static let v1Articles = Migration(
    version: 1,
    name: "article entity, query results, fetch log",
    sql: """
      -- The article entity. Identity: url. Dates are INTEGER milliseconds since 1970-01-01T00:00:00Z (UTC).
      CREATE TABLE article (
        url TEXT NOT NULL PRIMARY KEY,
        title TEXT NOT NULL,
        author TEXT,
        summary TEXT,              -- NewsAPI `description`
        imageURL TEXT,             -- NewsAPI `urlToImage`
        publishedAt INTEGER NOT NULL,
        content TEXT,
        sourceID TEXT,
        sourceName TEXT,
        fetchedAt INTEGER NOT NULL, -- when a response containing it was last saved
        fetchQuery TEXT NOT NULL    -- the cache key of the query that last fetched it
      );
      CREATE INDEX article_by_publishedAt ON article(publishedAt DESC, url);

      -- Which articles the last successful response of each query held, in response order.
      CREATE TABLE query_result (
        query TEXT NOT NULL,
        url TEXT NOT NULL REFERENCES article(url) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (query, url)
      ) WITHOUT ROWID;
      CREATE INDEX query_result_by_url ON query_result(url);

      -- The last successful fetch of each query.
      CREATE TABLE query_fetch (
        query TEXT NOT NULL PRIMARY KEY,
        fetchedAt INTEGER NOT NULL,
        articleCount INTEGER NOT NULL
      );
      """
  )
}
