import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// Pages and batches of cached articles for the sync APIs of `news serve` (the Miniflux API, the Google Reader API):
/// filtered, ordered and paged in SQL (``ArticleSelection``), never by loading the store. Never touches the network.
extension NewsRepository {
  /// One page of cached articles as `selection` says.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func articles(selecting selection: ArticleSelection) async throws(NewsRepositoryError) -> [Article] {
    try await storing { try await storage.articles(selecting: selection) }
  }

  /// How many cached articles `selection` selects (its order, limit and offset ignored).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func count(selecting selection: ArticleSelection) async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.articleCount(selecting: selection) }
  }

  /// The articles whose served ids (`article.servedID`, migration 20: the sync APIs' ids, kept across re-keys)
  /// start with any of `prefixes` (4 to 16 hex digits), the first `perPrefix` of each by served id, each once.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func articles(withServedIDPrefixes prefixes: [String], perPrefix: Int = 1) async throws(NewsRepositoryError)
    -> [Article]
  {
    try await storing { try await storage.articles(withServedIDPrefixes: prefixes, perPrefix: perPrefix) }
  }

  /// The articles whose served id's digits 6 to 13 are any of `lowDigits` (8 hex digits each: the low 32 bits of a
  /// 52-bit id; `StorageContext.articles(withServedIDDigits6to13:)`).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func articles(withServedIDDigits6to13 lowDigits: [String]) async throws(NewsRepositoryError) -> [Article] {
    try await storing { try await storage.articles(withServedIDDigits6to13: lowDigits) }
  }

  /// What the sync APIs serve of each of `articles` beside it (its arrival and served id:
  /// `StorageContext.syncFacts(ofKeys:)`), by key text; an article not stored is absent.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func syncFacts(of articles: [Article]) async throws(NewsRepositoryError) -> [String: SyncFacts] {
    try await storing { try await storage.syncFacts(ofKeys: articles.map(\.url.absoluteString)) }
  }

  /// For each article key of `urls`, the cache keys of the queries whose last results hold it.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func resultQueries(ofArticleKeys urls: [String]) async throws(NewsRepositoryError) -> [String: [String]] {
    try await storing { try await storage.resultQueries(ofArticleKeys: urls) }
  }

  /// The counts of each source's articles, in one statement, in the order of `sources`.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func counts(bySource sources: [SourceMatch]) async throws(NewsRepositoryError) -> [SourceArticleCounts] {
    try await storing { try await storage.articleCounts(bySource: sources) }
  }

  /// The counts of the articles of each group of sources (a folder's, or one source's: each article once), or of
  /// every article for a `nil` group, in one statement, remembered until the store changes: the counts of a
  /// reader's folders and sources (`news read`'s rows).
  ///
  /// - Returns: one ``SourceArticleCounts`` per group, in the order of `groups`.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func counts(ofGroups groups: [[SourceMatch]?]) async throws(NewsRepositoryError) -> [SourceArticleCounts] {
    try await storing { try await storage.articleCounts(ofGroups: groups) }
  }

  /// Marks the articles with these keys read (or unread), in one transaction.
  ///
  /// - Returns: how many changed state.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  package func markRead(_ read: Bool, urls: [String]) async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.setRead(read, urls: urls) }
  }
}

extension NewsRepository {
  /// Marks every article `selection` selects read (or unread), in one `UPDATE`.
  ///
  /// - Returns: how many changed state.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  package func markRead(_ read: Bool, selecting selection: ArticleSelection) async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.setRead(read, selecting: selection) }
  }
}
