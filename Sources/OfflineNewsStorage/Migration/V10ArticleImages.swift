extension Migration {
  /// Version 10: the images of the whole article, kept offline (issue "News readable offline", point 3):
  /// `article_image`, one row per image of an article's full text — the lead image (`isLead`, the article's
  /// `imageURL`) and the images of the extracted content, in order (`position`) — with its remote `url`, the `file`
  /// name it has in the image folder (``StorageContext/saveArticleImages(_:forKey:)``), and either when it was
  /// stored (`storedAt`, ms UTC; `byteCount`, and the `format` its bytes are) or why the last attempt failed (`error`, with
  /// `attemptedAt`: retried later). Its rows go with their article (`ON DELETE CASCADE`: eviction and batch deletes),
  /// and the files with no row left are removed from the folder after them.
  static let v10ArticleImages = Migration(
    version: 10,
    name: "article images offline",
    sql: """
      CREATE TABLE article_image (
        article TEXT NOT NULL REFERENCES article(url) ON DELETE CASCADE,
        url TEXT NOT NULL,
        position INTEGER NOT NULL,
        isLead INTEGER NOT NULL DEFAULT 0,
        file TEXT NOT NULL,
        byteCount INTEGER,
        format TEXT,
        storedAt INTEGER,
        error TEXT,
        attemptedAt INTEGER,
        PRIMARY KEY (article, url)
      ) WITHOUT ROWID;
      CREATE INDEX article_image_by_file ON article_image(file);
      """
  )
}
