extension Migration {
  /// Version 17: what a reader's counts of sources need without reading every article (issue 31; docs/PERFORMANCE.md,
  /// "news read").
  ///
  /// - `article_by_source_read`: each source's articles with their read state, so that a source's total and unread
  ///   counts are one walk of its entries in this index, reading no row of the table (at 100,000 articles in 50
  ///   sources: 13 ms of CPU, against 22 ms for a partial index of the unread rows walked beside
  ///   `article_by_source`, and 40–50 ms reading each row's `isRead`; 1.7 MB).
  /// - `query_fetch.source`, `query_fetch.othersCount`: the name the query's last save recorded its articles under
  ///   (`article.source` of the rows it inserted), and how many of its last result's articles are recorded under
  ///   another name (brought first by another source). Written by every save (``ArticleWriter``; `NULL`, not known,
  ///   for a list longer than ``ArticleWriter/othersCountLimit`` and for rows of older builds); a rename of a
  ///   source's articles moves `source` with them. A count may be high (rows evicted since), never low: a source
  ///   whose queries' counts are `0` holds no article outside its name, so its count needs no look-up of its
  ///   results' keys.
  ///
  /// Both only make reads faster: a store at 16 answers every read the same (``keepsReads``) and is migrated at
  /// its first write.
  static let v17SourceCounts = Migration(
    version: 17,
    name: "articles by source and read state; the fetch log's articles of other sources",
    keepsReads: true,
    steps: [
      .createIndex("CREATE INDEX article_by_source_read ON article(source, isRead)"),
      .addColumn(table: "query_fetch", column: "source", definition: "TEXT"),
      .addColumn(table: "query_fetch", column: "othersCount", definition: "INTEGER CHECK (othersCount >= 0)"),
    ]
  )
}
