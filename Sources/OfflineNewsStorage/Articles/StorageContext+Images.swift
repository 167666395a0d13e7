import Foundation
import OfflineNewsModel

/// An image of an article's whole text, kept offline (or noted as failed): a row of `article_image` (migration 10).
package struct ArticleImage: Sendable, Hashable {
  /// Where the image is on the web (as the page or the source named it, absolute).
  package var url: URL
  /// Its place among the article's images: 0 first (the lead image, when there is one).
  package var position: Int
  /// The article's lead image (its `imageURL`, NewsAPI `urlToImage`, a feed's `media:thumbnail`), not one of the
  /// content's.
  package var isLead: Bool
  /// The name of its file in the image folder (which the name cannot leave: `FileStore.localURL(for:)`).
  package var file: String
  /// The size of the stored file, in bytes; `nil` until it is stored.
  package var byteCount: Int?
  /// The format its bytes are, by their signature (`png`, `jpeg`, `gif`, `webp`, `avif`); `nil` until it is stored.
  package var format: String?
  /// When it was stored (UTC, whole milliseconds); `nil` while it is not.
  package var storedAt: Date? { storedTimestamp?.date }
  /// Why the last attempt failed; `nil` when it is stored or was not tried yet.
  package var error: String?
  /// When the last attempt was made (UTC, whole milliseconds); `nil` when it was not tried yet.
  package var attemptedAt: Date? { attemptedTimestamp?.date }
  /// ``storedAt`` as the store keeps it.
  package var storedTimestamp: Timestamp?
  /// ``attemptedAt`` as the store keeps it.
  package var attemptedTimestamp: Timestamp?

  /// Whether the file is stored (it can be read offline).
  package var isOffline: Bool { storedTimestamp != nil }

  /// Creates an image row.
  package init(
    url: URL, position: Int, isLead: Bool = false, file: String, byteCount: Int? = nil, format: String? = nil,
    storedAt: Timestamp? = nil, error: String? = nil, attemptedAt: Timestamp? = nil
  ) {
    self.url = url
    self.position = position
    self.isLead = isLead
    self.file = file
    self.byteCount = byteCount
    self.format = format
    self.storedTimestamp = storedAt
    self.error = error
    self.attemptedTimestamp = attemptedAt
  }
}

extension StorageContext {
  /// Upserts the image rows of the article keyed `key` (one transaction; rows of other images are kept) and, when
  /// `fullTextHTML` is given, stores it as the article's full-text HTML (its images relinked to their files).
  /// The rows go with their article when it is deleted or evicted.
  ///
  /// - Returns: `false` when no article has this key (deleted meanwhile): nothing is written.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func saveArticleImages(_ images: [ArticleImage], forKey key: String, fullTextHTML: String? = nil)
    async throws(StorageError) -> Bool
  {
    try await writeAndPublish { db in
      guard try db.cachedStatement("SELECT 1 FROM article WHERE url = ?1").fetchOne([.text(key)], { _ in true }) != nil
      else { return (false, []) }
      let upsert = try db.cachedStatement(
        """
        INSERT INTO article_image
          (article, url, position, isLead, file, byteCount, format, storedAt, error, attemptedAt)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT (article, url) DO UPDATE SET position = excluded.position, isLead = excluded.isLead,
          file = excluded.file, byteCount = excluded.byteCount, format = excluded.format,
          storedAt = excluded.storedAt, error = excluded.error, attemptedAt = excluded.attemptedAt
        """)
      for image in images {
        try upsert.execute([
          .text(key), .text(image.url.absoluteString), .integer(Int64(image.position)),
          .integer(image.isLead ? 1 : 0), .text(image.file), image.byteCount.map { .integer(Int64($0)) } ?? .null,
          image.format.map { .text($0) } ?? .null,
          image.storedTimestamp.map { .integer($0.millisecondsSince1970) } ?? .null,
          image.error.map { .text($0) } ?? .null,
          image.attemptedTimestamp.map { .integer($0.millisecondsSince1970) } ?? .null,
        ])
      }
      if let fullTextHTML {
        try db.execute("UPDATE article SET fullTextHTML = ?2 WHERE url = ?1", [.text(key), .text(fullTextHTML)])
      }
      return (true, [StorageChange(entity: "article", updated: [Identity(.text(key))])])
    }
  }

  /// The image rows of the article keyed `key`, by position.
  ///
  /// - Throws: ``StorageError``.
  package func articleImages(forKey key: String) async throws(StorageError) -> [ArticleImage] {
    try await read { db in
      try db.cachedStatement(
        """
        SELECT url, position, isLead, file, byteCount, format, storedAt, error, attemptedAt
        FROM article_image WHERE article = ?1 ORDER BY position, url
        """
      ).fetchAll([.text(key)]) { row -> ArticleImage? in
        guard let text = row.string(0), let url = URL(string: text), let file = row.string(3) else { return nil }
        return ArticleImage(
          url: url, position: Int(row.int64(1) ?? 0), isLead: row.int64(2) == 1, file: file,
          byteCount: row.int64(4).map { Int($0) }, format: row.string(5),
          storedAt: row.int64(6).map { Timestamp(millisecondsSince1970: $0) }, error: row.string(7),
          attemptedAt: row.int64(8).map { Timestamp(millisecondsSince1970: $0) })
      }.compactMap { $0 }
    }
  }

  /// Which of `keys` have a whole text with an image not stored: never tried (an interrupted run), or failed before
  /// `retryAfter` (a failed image is tried again once that long has passed, like a failed page).
  ///
  /// - Throws: ``StorageError``.
  package func keysNeedingImages(_ keys: [String], failedBefore retryAfter: Timestamp) async throws(StorageError)
    -> [String]
  {
    try await read { db in
      let statement = try db.cachedStatement(
        """
        SELECT 1 FROM article a WHERE a.url = ?1 AND a.fullText IS NOT NULL AND EXISTS (
          SELECT 1 FROM article_image i WHERE i.article = a.url AND i.storedAt IS NULL
            AND (i.attemptedAt IS NULL OR i.attemptedAt < ?2))
        """)
      return try keys.filter { key in
        try statement.fetchOne([.text(key), .integer(retryAfter.millisecondsSince1970)]) { _ in true } != nil
      }
    }
  }

  /// The file names every image row names (stored or not yet): what the image folder keeps; any other file in it
  /// belongs to no article any more.
  ///
  /// - Throws: ``StorageError``.
  package func imageFileNames() async throws(StorageError) -> Set<String> {
    try await read { db in
      Set(try db.cachedStatement("SELECT DISTINCT file FROM article_image").fetchAll { $0.string(0) ?? "" })
    }
  }
}
