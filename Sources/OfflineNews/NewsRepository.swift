import Foundation

/// The offline-first repository: reads from the network, saves what it got, and serves the cache when the network
/// fails, saying where the rows came from and how old they are.
///
/// It is built from two injected dependencies, as the classic iOS repository was built from a Core Data
/// `viewContext` and an API client: a ``StorageContext`` (the single source of truth) and a ``NewsNetwork``.
///
/// For example:
/// ```swift
/// let storage = try StorageContext(path: "news.sqlite")
/// let network = URLSessionNewsNetwork(apiKey: ProcessInfo.processInfo.environment["NEWSAPI_KEY"])
/// let repository = NewsRepository(storage: storage, network: network)
/// let result = try await repository.articles(for: NewsQuery(url: topHeadlinesURL))
/// print(result.origin, result.articles.count, result.networkError as Any)
/// ```
///
/// Whether the network is usable is decided by how the request actually failed, never by a reachability check.
/// A failed, partial, error or empty response never changes the cache.
public final class NewsRepository: Sendable {
  /// The storage context the repository reads and writes through.
  public let storage: StorageContext
  /// The network it fetches from.
  public let network: any NewsNetwork
  private let clock: @Sendable () -> Timestamp

  /// - Parameters:
  ///   - storage: the storage context (the injected `viewContext` of the classic design).
  ///   - network: where fresh articles come from.
  ///   - clock: the current time; tests inject a fixed one.
  public init(
    storage: StorageContext, network: any NewsNetwork, clock: @escaping @Sendable () -> Timestamp = { .now() }
  ) {
    self.storage = storage
    self.network = network
    self.clock = clock
  }

  /// Network-first read of a query.
  ///
  /// 1. Fetch from the network. On success, save the articles (upsert by `url`, one transaction, replacing the
  ///    query's result list) and return them, read back from the store, with origin `.network`.
  /// 2. On any network failure (refused, DNS, timeout, HTTP error, NewsAPI error body, invalid or truncated JSON,
  ///    or a response with no valid article), leave the cache untouched and return the query's cached rows with
  ///    origin `.cache`, the time they were fetched, and the network error.
  ///
  /// - Parameters:
  ///   - query: what to fetch.
  ///   - limit: at most this many rows in the result (all are saved); `nil` for all.
  /// - Throws: ``NewsRepositoryError/networkFailedAndCacheEmpty(query:network:)`` when the network failed and
  ///   nothing is cached for the query (the network's error is kept); ``NewsRepositoryError/storage(_:network:)``
  ///   when the store fails.
  public func articles(for query: NewsQuery, limit: Int? = nil) async throws(NewsRepositoryError) -> NewsResult {
    let page: NewsPage
    do {
      page = try await network.fetch(query)
    } catch {
      return try await cachedArticles(for: query, limit: limit, after: error)
    }
    guard !page.articles.isEmpty else {
      let skipped = page.skippedCount
      let failure = NewsNetworkError.invalidResponse(
        detail: skipped == 0 ? "the response held no articles" : "none of its \(skipped) records was valid")
      return try await cachedArticles(for: query, limit: limit, after: failure)
    }
    let fetchedAt = clock()
    let rows = try await storing {
      try await storage.saveArticles(page.articles, forQuery: query.cacheKey, fetchedAt: fetchedAt)
      return try await storage.articles(forQuery: query.cacheKey, limit: limit)
    }
    return NewsResult(query: query, articles: rows, origin: .network, fetchedAt: fetchedAt, issues: page.issues)
  }
  /// Cache-only read of a query's last successful response, newest first. Never touches the network.
  ///
  /// - Returns: the rows with origin `.cache` and their fetch time; no rows if the query was never fetched.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func cachedArticles(for query: NewsQuery, limit: Int? = nil) async throws(NewsRepositoryError) -> NewsResult {
    try await storing {
      let (rows, fetch) = try await storage.cachedResult(forQuery: query.cacheKey, limit: limit)
      return NewsResult(query: query, articles: rows, origin: .cache, fetchedAt: fetch?.fetchedAt)
    }
  }

  /// Saves articles as the result of `query`, as ``articles(for:limit:)`` does after a successful fetch: one
  /// transaction, upsert by `url`.
  ///
  /// - Returns: what the save did: distinct articles saved, inserted, updated, unchanged, evicted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func save(
    _ articles: [Article], for query: NewsQuery, progress: (@Sendable (Int) -> Void)? = nil
  ) async throws(NewsRepositoryError) -> ArticleSaveResult {
    let fetchedAt = clock()
    return try await storing {
      try await storage.saveArticles(articles, forQuery: query.cacheKey, fetchedAt: fetchedAt, progress: progress)
    }
  }

  /// Cached articles, newest first, with paging and a filter (unread, bookmarked). Never touches the network.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func read(limit: Int? = nil, offset: Int = 0, filter: ArticleFilter = .all)
    async throws(NewsRepositoryError) -> [Article]
  {
    try await storing { try await storage.articles(limit: limit, offset: offset, filter: filter) }
  }

  /// The cached article with this URL, or `nil`.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func article(url: String) async throws(NewsRepositoryError) -> Article? {
    try await storing { try await storage.article(url: url) }
  }

  /// Marks an article read (or unread). Local state: a refresh never changes it.
  ///
  /// - Returns: `false` when no cached article has this URL.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func markRead(_ read: Bool = true, url: String) async throws(NewsRepositoryError) -> Bool {
    try await storing { try await storage.setRead(read, url: url) }
  }

  /// Bookmarks an article (or removes the bookmark). Local state: a refresh never changes it, and bookmarked
  /// articles are never evicted.
  ///
  /// - Returns: `false` when no cached article has this URL.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func bookmark(_ bookmarked: Bool = true, url: String) async throws(NewsRepositoryError) -> Bool {
    let now = clock()
    return try await storing { try await storage.setBookmarked(bookmarked, url: url, at: now) }
  }

  /// Batch delete of every cached article.
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func deleteAll() async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.deleteAllArticles() }
  }

  /// Batch delete of the articles published before `date` (UTC instant).
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func delete(publishedBefore date: Date) async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.deleteArticles(publishedBefore: date) }
  }

  // MARK: -

  private func cachedArticles(for query: NewsQuery, limit: Int?, after failure: NewsNetworkError)
    async throws(NewsRepositoryError) -> NewsResult
  {
    var result: NewsResult
    do {
      result = try await cachedArticles(for: query, limit: limit)
    } catch {
      if case .storage(let storageError, _) = error { throw .storage(storageError, network: failure) }
      throw error
    }
    guard !result.articles.isEmpty else { throw .networkFailedAndCacheEmpty(query: query, network: failure) }
    result.networkError = failure
    return result
  }

  private func storing<T>(_ body: () async throws -> T) async throws(NewsRepositoryError) -> T {
    do {
      return try await body()
    } catch let error as StorageError {
      throw .storage(error, network: nil)
    } catch {
      throw .storage(StorageError(kind: .other, path: storage.path), network: nil)
    }
  }
}
