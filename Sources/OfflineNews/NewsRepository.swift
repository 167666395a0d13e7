import Foundation
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// The offline-first repository: reads from the network, saves what it got, and serves the cache when the network
/// fails, saying where the rows came from and how old they are.
///
/// It is built from two injected dependencies, as the classic iOS repository was built from a Core Data
/// `viewContext` and an API client: a ``StorageContext`` (the single source of truth) and a ``NewsNetwork``.
///
/// For example:
/// ```swift
/// let storage = try StorageContext(path: "news.sqlite")
/// let network = HTTPNewsNetwork(apiKey: ProcessInfo.processInfo.environment["NEWSAPI_KEY"], retry: .standard)
/// let repository = NewsRepository(storage: storage, network: network, deadline: 3)
/// let result = try await repository.articles(for: NewsQuery(url: topHeadlinesURL), policy: .cacheFirst, maxAge: 900)
/// print(result.origin, result.articles.count, result.age as Any, result.isStale, result.networkError as Any)
/// ```
///
/// - Policies: ``CachePolicy`` (network-first, cache-first, network-only, cache-only, cache-then-network).
/// - Freshness: a max-age in seconds, per call, is stored with the query's fetch (so it survives restarts) and used
///   when a later call gives none. Every ``NewsResult`` says its ``NewsResult/age`` and ``NewsResult/isStale``.
/// - De-duplication: concurrent reads of the same query (and page count) share one refresh, so one request.
/// - Conditional requests: the `ETag` / `Last-Modified` of a query's last good response are stored; the next
///   refresh sends them, and a `304 Not Modified` refreshes the fetch time without rewriting a row.
/// - Deadline: with `deadline`, a network-first read that has cached rows serves them once the deadline passes,
///   while the request goes on in the background and saves its answer when it comes, as long as the process lives
///   (``NewsResult/refreshContinues``).
/// - Pagination: `pages:` fetches NewsAPI pages 1…n (`page` query item) and saves them as one result.
///
/// Whether the network is usable is decided by how the request actually failed, never by a reachability check.
/// A failed, partial, error or empty response never changes the cache (a failure is only noted in the query's
/// fetch record, `FetchRecord.lastError`).
public final class NewsRepository: Sendable {
  /// The storage context the repository reads and writes through.
  package let storage: StorageContext
  /// The network it fetches from.
  package let network: any NewsNetwork
  /// Seconds a network-first read waits for the network before serving cached rows; `nil` waits for the network.
  package let deadline: TimeInterval?
  /// Where the images of whole texts are kept (``fetchFullText(for:using:limits:)``), one file each under a name
  /// that cannot leave the folder; `nil` keeps no images.
  package let imageFolder: URL?
  let clock: @Sendable () -> Timestamp
  /// The refreshes running now; shared with the repositories a refresh of many sources makes over this one's store
  /// (``refresh(_:options:progress:)``), so that ``cancelRefreshes()`` and ``close()`` reach theirs too.
  private let inFlight: InFlightRefreshes

  /// - Parameters:
  ///   - storage: the storage context (the injected `viewContext` of the classic design).
  ///   - network: where fresh articles come from.
  ///   - deadline: seconds after which a network-first (or stale cache-first) read serves the cached rows, if
  ///     there are any, with a `NewsNetworkError/TransportFailure/timedOut` error, while the request goes on in
  ///     the background; `nil` (the default) waits for the network. With nothing cached, the read waits for the
  ///     network whatever the deadline (bound it with the network's timeout and `RetryPolicy.maxTotalTime`).
  ///   - imageFolder: where the images of whole texts are kept; `nil` (the default) keeps none. Its files that no
  ///     article names any more go after batch deletes and evictions (`removeUnusedImages()`).
  public convenience init(
    storage: StorageContext, network: any NewsNetwork, deadline: TimeInterval? = nil, imageFolder: URL? = nil
  ) {
    self.init(storage: storage, network: network, clock: { .now() }, deadline: deadline, imageFolder: imageFolder)
  }

  /// A repository whose current time is `clock` (UTC milliseconds), as tests and the command line inject it;
  /// otherwise as ``init(storage:network:deadline:imageFolder:)``.
  package convenience init(
    storage: StorageContext, network: any NewsNetwork, clock: @escaping @Sendable () -> Timestamp,
    deadline: TimeInterval? = nil, imageFolder: URL? = nil
  ) {
    self.init(
      storage: storage, network: network, clock: clock, deadline: deadline, imageFolder: imageFolder,
      inFlight: InFlightRefreshes())
  }

  /// This repository's store, clock, deadline and image folder, and its refreshes in flight, over `network`.
  func over(_ network: any NewsNetwork) -> NewsRepository {
    NewsRepository(
      storage: storage, network: network, clock: clock, deadline: deadline, imageFolder: imageFolder,
      inFlight: inFlight)
  }

  private init(
    storage: StorageContext, network: any NewsNetwork, clock: @escaping @Sendable () -> Timestamp,
    deadline: TimeInterval?, imageFolder: URL?, inFlight: InFlightRefreshes
  ) {
    self.storage = storage
    self.network = network
    self.clock = clock
    self.deadline = deadline.map { max(0, $0) }
    self.imageFolder = imageFolder?.standardizedFileURL
    self.inFlight = inFlight
  }

  /// Network-first read of a query: ``articles(for:policy:maxAge:limit:pages:)`` with ``CachePolicy/networkFirst``.
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
    try await articles(for: query, policy: .networkFirst, limit: limit)
  }

  /// Reads a query as `policy` says (see ``CachePolicy``).
  ///
  /// - Parameters:
  ///   - query: what to read.
  ///   - policy: how to combine the cache and the network.
  ///   - maxAge: seconds the rows stay fresh; stored with the fetch when the network answers. `nil` uses the max-age
  ///     stored with the query's last fetch, if any (without one, cached rows are never stale).
  ///   - limit: at most this many rows in the result (all are saved); `nil` for all.
  ///   - pages: NewsAPI pages to fetch, 1…`pages`, saved together as the query's result (see
  ///     `fetchPages(_:pages:)`); 1 by default. A file query has one page.
  /// - Returns: the rows with their origin, fetch time, age, staleness, and the network error that made the
  ///   repository serve the cache, if any.
  /// - Throws: ``NewsRepositoryError``: `networkFailedAndCacheEmpty` (network-first, cache-first, cache-then-network
  ///   with nothing cached), `networkFailed` (network-only), `storage` (with the network's error when it had failed
  ///   too). ``CachePolicy/cacheOnly`` throws only `storage`.
  public func articles(
    for query: NewsQuery, policy: CachePolicy, maxAge: TimeInterval? = nil, limit: Int? = nil, pages: Int = 1
  ) async throws(NewsRepositoryError) -> NewsResult {
    try await articles(for: query, policy: policy, maxAge: maxAge, limit: limit, pages: pages, readsBack: true)
  }

  /// ``articles(for:policy:maxAge:limit:pages:)``; with `readsBack` `false`, a result the network answered (a
  /// saved response or a `304`) holds no rows but their number (``NewsResult/storedCount``), read from the query's
  /// fetch record instead of reading every stored row back: what a refresh of every source reports
  /// (``refresh(_:options:progress:)``). A result served from the cache holds its rows either way.
  func articles(
    for query: NewsQuery, policy: CachePolicy, maxAge: TimeInterval?, limit: Int?, pages: Int, readsBack: Bool
  ) async throws(NewsRepositoryError) -> NewsResult {
    switch policy {
    case .cacheOnly:
      return try await cachedResult(for: query, maxAge: maxAge, limit: limit)
    case .cacheFirst:
      let cached = try await cachedResult(for: query, maxAge: maxAge, limit: limit)
      if !cached.articles.isEmpty, !cached.isStale { return cached }
      return try await networkFirst(
        query, maxAge: maxAge, limit: limit, pages: pages, deadline: deadline, cached: cached, readsBack: readsBack)
    case .networkFirst:
      return try await networkFirst(
        query, maxAge: maxAge, limit: limit, pages: pages, deadline: deadline, cached: nil, readsBack: readsBack)
    case .cacheThenNetwork:
      return try await networkFirst(
        query, maxAge: maxAge, limit: limit, pages: pages, deadline: nil, cached: nil, readsBack: readsBack)
    case .networkOnly:
      return try await networkFirst(
        query, maxAge: maxAge, limit: limit, pages: pages, deadline: nil, cached: nil, readsBack: readsBack,
        fallsBack: false)
    }
  }

  /// The results of a read as a sequence: for ``CachePolicy/cacheThenNetwork``, the cached rows at once (when
  /// there are any), then the network's answer when it arrives (or, if the network fails, the cached rows again
  /// with the network's error); for every other policy, the single result of
  /// ``articles(for:policy:maxAge:limit:pages:)``.
  ///
  /// For example:
  /// ```swift
  /// for try await result in repository.results(for: query) {
  ///   show(result.articles, stale: result.isStale, from: result.origin)
  /// }
  /// ```
  ///
  /// - Returns: a stream that finishes after the last result, or throws a ``NewsRepositoryError``
  ///   (`networkFailedAndCacheEmpty` when nothing is cached and the network fails). Ending the iteration early
  ///   does not cancel the refresh (other reads may share it); it still saves its answer.
  public func results(
    for query: NewsQuery, policy: CachePolicy = .cacheThenNetwork, maxAge: TimeInterval? = nil, limit: Int? = nil,
    pages: Int = 1
  ) -> AsyncThrowingStream<NewsResult, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do throws(NewsRepositoryError) {
          if policy == .cacheThenNetwork {
            let cached = try await cachedResult(for: query, maxAge: maxAge, limit: limit)
            if !cached.articles.isEmpty { continuation.yield(cached) }
            continuation.yield(
              try await networkFirst(query, maxAge: maxAge, limit: limit, pages: pages, deadline: nil, cached: cached))
          } else {
            continuation.yield(
              try await articles(for: query, policy: policy, maxAge: maxAge, limit: limit, pages: pages))
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// Cancels every refresh running now, for a program that is stopping (`news serve` at SIGINT or SIGTERM): each
  /// request ends within about a second (the transport's `cancelled`), the store keeps what it had, and no failure is
  /// recorded for the source. The reads that joined them get the network's failure, and the cache when it holds rows.
  package func cancelRefreshes() async {
    for task in await inFlight.tasks { task.cancel() }
  }

  /// Waits until every refresh running now (including those that outlived their read's deadline) has finished
  /// and saved its answer.
  public func waitForRefreshes() async {
    for task in await inFlight.tasks { _ = await task.value }
  }

  /// Lets the store's commits through `gate` from now on (``CommitGate``; `nil`: every commit): a program told to stop
  /// while the repository writes closes it, and knows what the store holds.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)`` when the store is closed.
  package func gateCommits(_ gate: CommitGate?) async throws(NewsRepositoryError) {
    do {
      try await storage.gateCommits(gate)
    } catch {
      throw .storage(error, network: nil)
    }
  }

  /// Cache-only read of a query's last successful response, newest first. Never touches the network.
  ///
  /// - Returns: the rows with origin `.cache`, their fetch time, age and the stored max-age; no rows if the query
  ///   was never fetched.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func cachedArticles(for query: NewsQuery, limit: Int? = nil) async throws(NewsRepositoryError) -> NewsResult {
    try await cachedResult(for: query, maxAge: nil, limit: limit)
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
    let result = try await storing {
      try await storage.saveArticles(
        articles, forQuery: query.cacheKey, source: query.source ?? query.cacheKey, fetchedAt: fetchedAt,
        progress: progress)
    }
    if result.evicted > 0 { await removeUnusedImages() }
    return result
  }

  /// Cached articles, newest first, with paging and a filter (unread, bookmarked). Never touches the network.
  ///
  /// - Parameter fields: every field (the default), or only what a list shows (``ArticleFields/listing``: no
  ///   summary, content, tags, enclosures or whole text; ``article(url:)`` reads one article whole).
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func read(limit: Int? = nil, offset: Int = 0, filter: ArticleFilter = .all, fields: ArticleFields = .all)
    async throws(NewsRepositoryError) -> [Article]
  {
    try await storing { try await storage.articles(limit: limit, offset: offset, filter: filter, fields: fields) }
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

  /// Marks every cached article `filter` selects read (or unread), in one transaction (one SQL `UPDATE`): a
  /// source's articles (``ArticleFilter/source``), a folder's (``ArticleFilter/anyOfSources``), those published
  /// before a date (``ArticleFilter/publishedBefore``), or all of them (``ArticleFilter/all``). Local state: a
  /// refresh never changes it.
  ///
  /// ```swift
  /// let changed = try await repository.markRead(matching: ArticleFilter(publishedBefore: lastWeek))
  /// ```
  ///
  /// - Returns: the number of articles whose state changed (articles already in that state are not counted).
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func markRead(_ read: Bool = true, matching filter: ArticleFilter) async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.setRead(read, matching: filter) }
  }

  /// How many cached articles `filter` selects (a source's, a folder's, all), and how many of them are unread.
  /// Never touches the network.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func counts(matching filter: ArticleFilter = .all) async throws(NewsRepositoryError) -> ArticleCounts {
    try await storing { try await storage.articleCounts(matching: filter) }
  }

  /// Bookmarks an article (or removes the bookmark). Local state: a refresh never changes it, and bookmarked
  /// articles are never evicted.
  ///
  /// - Returns: `false` when no cached article has this URL.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func bookmark(_ bookmarked: Bool = true, url: String) async throws(NewsRepositoryError) -> Bool {
    let now = clock()
    return try await storing { try await storage.setBookmarked(bookmarked, url: url, at: now.date) }
  }

  /// Batch delete of every cached article, and then of their image files (`removeUnusedImages()`).
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func deleteAll() async throws(NewsRepositoryError) -> Int {
    let count = try await storing { try await storage.deleteAllArticles() }
    if count > 0 { await removeUnusedImages() }
    return count
  }

  /// How many deleted (or evicted) articles' keys the store remembers (``forgetDeletedArticles()`` forgets them).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func rememberedDeletionCount() async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.deletedArticleCount() }
  }

  /// Forgets the articles deleted by ``delete(publishedBefore:keepingBookmarks:)`` (and evicted), so that the next
  /// refresh of a source that still lists them saves them again: it also forgets every query's stored validators,
  /// so that refresh is unconditional (a `304 Not Modified` would keep the list without them).
  ///
  /// - Returns: how many deleted articles were remembered.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func forgetDeletedArticles() async throws(NewsRepositoryError) -> Int {
    try await storing { try await storage.forgetDeletedArticles() }
  }

  /// Batch delete of the articles published before `date` (UTC instant), and then of the image files no article
  /// names any more (`removeUnusedImages()`). The deleted articles stay deleted: their keys are remembered (a year,
  /// at most 100,000 keys, the oldest forgotten first), so a refresh of a feed that still lists them does not save
  /// them again; ``forgetDeletedArticles()`` lets them return.
  ///
  /// - Parameters:
  ///   - date: the cut-off instant; articles with `publishedAt < date` go.
  ///   - keepingBookmarks: keep bookmarked articles whatever their date; default `false`.
  /// - Returns: the number of articles deleted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func delete(publishedBefore date: Date, keepingBookmarks: Bool = false) async throws(NewsRepositoryError)
    -> Int
  {
    let count = try await storing {
      try await storage.deleteArticles(publishedBefore: date, keepingBookmarks: keepingBookmarks)
    }
    if count > 0 { await removeUnusedImages() }
    return count
  }

  /// Deletes the cached articles `articles` (by their key, ``Article/url``), and then the image files no article
  /// names any more. They stay deleted as with ``delete(publishedBefore:keepingBookmarks:)``: a refresh of a feed
  /// that still lists them does not save them again (``forgetDeletedArticles()`` lets them return).
  ///
  /// - Returns: the number of articles deleted.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func delete(_ articles: [Article]) async throws(NewsRepositoryError) -> Int {
    let urls = articles.map(\.url.absoluteString)
    let now = clock()
    let count = try await storing { try await storage.deleteArticles(urls: urls, now: now) }
    if count > 0 { await removeUnusedImages() }
    return count
  }

  /// Fetches NewsAPI pages 1…`pages` of `query` (the `page` query item; `pageSize` as the query has it, else
  /// NewsAPI's default of 20) and joins them into one page, in order. Nothing is saved.
  ///
  /// It stops early after a page with no records, or once `page × pageSize` reaches `totalResults`. A
  /// `maximumResultsReached` error on a later page (NewsAPI caps free keys at 100 results,
  /// <https://newsapi.org/docs/errors>, <https://newsapi.org/pricing>) ends the pages with the rows already fetched;
  /// any other failure fails the whole fetch, so that a partial list never replaces the query's result. Issues of
  /// page *n* have their key path prefixed with `pages[n].`.
  ///
  /// - Throws: ``NewsNetworkError`` of the first page, or of a later page (except `maximumResultsReached`).
  package func fetchPages(_ query: NewsQuery, pages: Int) async throws(NewsNetworkError) -> NewsPage {
    let pageSize = query.queryItem("pageSize").flatMap { Int($0) }.map { max(1, $0) } ?? 20
    var joined = NewsPage(articles: [])
    for number in 1...max(1, pages) {
      let page: NewsPage
      do {
        page = try await network.fetch(query.page(number))
      } catch {
        if number > 1, case .api(let apiError) = error, apiError.code == .maximumResultsReached { break }
        throw error
      }
      joined.articles += page.articles
      joined.issues += page.issues.map { issue in
        var issue = issue
        issue.keyPath = IssuePlace.path("pages[\(number)]", issue.keyPath)
        return issue
      }
      joined.totalResults = page.totalResults ?? joined.totalResults
      if page.articles.isEmpty && page.issues.isEmpty { break }
      if let total = page.totalResults, number * pageSize >= total { break }
    }
    return joined
  }

  // MARK: - Reading

  private func cachedResult(for query: NewsQuery, maxAge: TimeInterval?, limit: Int?)
    async throws(NewsRepositoryError) -> NewsResult
  {
    let now = clock()
    return try await storing {
      let (rows, record) = try await storage.cachedEntry(forQuery: query.cacheKey, limit: limit)
      return NewsResult(
        query: query, articles: rows, origin: .cache, fetchedAt: record?.fetchedAt, maxAge: maxAge ?? record?.maxAge,
        now: now)
    }
  }

  /// The result of a network answer: the query's stored rows read back, or, without `readsBack`, only their number
  /// (the fetch record's count of the query's result list: every member has its row, `query_result.url` references
  /// `article`).
  private func networkResult(
    _ query: NewsQuery, fetchedAt: Timestamp, issues: [RecordIssue], revalidated: Bool, maxAge: TimeInterval?,
    limit: Int?, counts: ArticleSaveResult?, movedTo: URL? = nil, movedSeen: Int = 0, readsBack: Bool = true
  ) async throws(NewsRepositoryError) -> NewsResult {
    try await storing {
      var rows: [Article] = []
      let record: FetchRecord?
      if readsBack {
        let entry = try await storage.cachedEntry(forQuery: query.cacheKey, limit: limit)
        rows = entry.0
        record = entry.1
      } else {
        record = try await storage.fetchRecord(forQuery: query.cacheKey)
      }
      var result = NewsResult(
        query: query, articles: rows, origin: .network, fetchedAt: fetchedAt, issues: issues,
        maxAge: maxAge ?? record?.maxAge, now: fetchedAt, revalidated: revalidated)
      if !readsBack { result.storedCount = min(limit ?? Int.max, record?.cachedCount ?? 0) }
      result.saved = counts
      result.movedPermanently = movedTo
      result.permanentRedirects = movedTo == nil ? 0 : max(1, movedSeen)
      return result
    }
  }

  /// Network first, the cache on failure (or at the deadline, when there are cached rows); without `fallsBack`
  /// (network-only), a network failure throws ``NewsRepositoryError/networkFailed(query:network:)``.
  private func networkFirst(
    _ query: NewsQuery, maxAge: TimeInterval?, limit: Int?, pages: Int, deadline: TimeInterval?, cached: NewsResult?,
    readsBack: Bool = true, fallsBack: Bool = true
  ) async throws(NewsRepositoryError) -> NewsResult {
    let refresh = await refresh(query, maxAge: maxAge, pages: pages)
    let outcome: RefreshOutcome
    if let deadline, let settled = await value(of: refresh.task, within: deadline) {
      outcome = settled
    } else if let deadline {
      let late = NewsNetworkError.transport(
        .timedOut, detail: "no answer within the \(formatted(deadline)) s deadline")
      var result = try await fallback(cached, query, maxAge: maxAge, limit: limit, after: late)
      if let settled = refresh.settled {
        outcome = settled  // it finished while the cache was read: its answer, not the cache
      } else if !result.articles.isEmpty {
        result.networkError = late
        result.refreshContinues = true
        return result
      } else {
        outcome = await refresh.task.value  // nothing to serve: wait for the network after all
      }
    } else {
      outcome = await refresh.task.value
    }
    switch outcome {
    case .saved(let fetchedAt, let issues, let notModified, let counts, let movedTo, let movedSeen, let feedTitle):
      var result = try await networkResult(
        query, fetchedAt: fetchedAt, issues: issues, revalidated: notModified, maxAge: maxAge, limit: limit,
        counts: counts, movedTo: movedTo, movedSeen: movedSeen, readsBack: readsBack)
      result.feedTitle = feedTitle
      return result
    case .failed(let failure):
      guard fallsBack else { throw .networkFailed(query: query, network: failure) }
      var result = try await fallback(cached, query, maxAge: maxAge, limit: limit, after: failure)
      guard !result.articles.isEmpty else { throw .networkFailedAndCacheEmpty(query: query, network: failure) }
      result.networkError = failure
      return result
    case .storageFailed(let error):
      throw .storage(error, network: nil)
    }
  }

  /// The cached result already read (aged anew), or a fresh read of it; a storage failure keeps the network's
  /// error.
  private func fallback(
    _ cached: NewsResult?, _ query: NewsQuery, maxAge: TimeInterval?, limit: Int?, after failure: NewsNetworkError
  ) async throws(NewsRepositoryError) -> NewsResult {
    if let cached {
      return NewsResult(
        query: query, articles: cached.articles, origin: .cache, fetchedAt: cached.fetchedTimestamp,
        maxAge: cached.maxAge,
        now: clock())
    }
    do {
      return try await cachedResult(for: query, maxAge: maxAge, limit: limit)
    } catch {
      if case .storage(let storageError, _) = error { throw .storage(storageError, network: failure) }
      throw error
    }
  }

  // MARK: - Refreshing

  /// The refresh of `query` running now, or a new one: concurrent reads share one.
  private func refresh(_ query: NewsQuery, maxAge: TimeInterval?, pages: Int) async -> Refresh {
    let pages = query.url.isFileURL ? 1 : max(1, pages)
    return await inFlight.refresh(for: Self.refreshKey(query, pages: pages)) { [self] in
      await fetchAndStore(query, maxAge: maxAge, pages: pages)
    }
  }

  private static func refreshKey(_ query: NewsQuery, pages: Int) -> String { "\(pages) \(query.cacheKey)" }

  /// Returns once `count` reads share the refresh of `query` running now (for tests of de-duplication).
  func waitForReaders(_ count: Int, of query: NewsQuery, pages: Int = 1) async {
    await inFlight.waitForReaders(count, key: Self.refreshKey(query, pages: query.url.isFileURL ? 1 : max(1, pages)))
  }

  /// One refresh: the network (conditional whenever the query's last good response left validators), then the
  /// store: save, confirm on `304`, or note the failure.
  ///
  /// The validators are sent even when rows of that response are gone since, or when it saved none (every item
  /// deleted or evicted): a deletion and an eviction remember the keys they remove (`article_tombstone`), so a
  /// `200` would not bring those rows back either, and the `304` keeps the list as it is. What does let them back,
  /// ``forgetDeletedArticles()``, clears every stored validator, so the refresh after it is unconditional.
  private func fetchAndStore(_ query: NewsQuery, maxAge: TimeInterval?, pages: Int) async -> RefreshOutcome {
    let key = query.cacheKey
    var validators = CacheValidators.none
    if pages == 1, let record = try? await storage.fetchRecord(forQuery: key) {
      validators = CacheValidators(etag: record.etag, lastModified: record.lastModified)
    }
    let response: NewsResponse
    do {
      if pages == 1 {
        response = try await network.fetch(NewsRequest(query: query, validators: validators))
      } else {
        response = .page(try await fetchPages(query, pages: pages), validators: .none)
      }
    } catch {
      return await failed(error, key)
    }
    let now = clock()
    do throws(StorageError) {
      switch response {
      case .notModified(let newer, _):
        let moved = response.movedPermanently
        let seen = try await storage.refreshFetch(
          forQuery: key, fetchedAt: now, maxAge: maxAge, etag: newer.etag, lastModified: newer.lastModified,
          movedTo: moved)
        guard let seen else {
          return .failed(
            .invalidResponse(BodyProblem(.protocolViolation, "304 Not Modified, but the query's cached rows are gone")))
        }
        return .saved(fetchedAt: now, issues: [], notModified: true, counts: nil, movedTo: moved, movedSeen: seen)
      case .page(let page, let newer):
        guard !page.articles.isEmpty else {
          let skipped = page.skippedCount
          let detail = skipped == 0 ? "the response held no articles" : "none of its \(skipped) records was valid"
          return await failed(.invalidResponse(BodyProblem(.noArticles, detail)), key)
        }
        let counts = try await storage.saveArticles(
          page.articles, forQuery: key, source: query.source ?? key, fetchedAt: now, maxAge: maxAge, etag: newer.etag,
          lastModified: newer.lastModified, movedTo: page.movedPermanently)
        if counts.evicted > 0 { await removeUnusedImages() }
        return .saved(
          fetchedAt: now, issues: page.issues, notModified: false, counts: counts, movedTo: page.movedPermanently,
          movedSeen: counts.permanentRedirects, feedTitle: page.feedTitle)
      }
    } catch {
      return .storageFailed(error)
    }
  }

  /// Notes a failed refresh in the query's fetch record (best effort: a read-only store does not fail the read).
  private func failed(_ error: NewsNetworkError, _ key: String) async -> RefreshOutcome {
    // A refresh cancelled by its program (``cancelRefreshes()``) says nothing of the source: not recorded.
    if !Task.isCancelled { _ = try? await storage.recordFetchError(error.description, forQuery: key, at: clock()) }
    return .failed(error)
  }

  func storing<T>(_ body: () async throws -> T) async throws(NewsRepositoryError) -> T {
    do {
      return try await body()
    } catch let error as StorageError {
      throw .storage(error, network: nil)
    } catch {
      throw .storage(StorageError(kind: .other, path: storage.path), network: nil)
    }
  }
}

extension NewsQuery {
  /// This query for page `number` of a NewsAPI result: its `page` query item set to `number` (added when absent),
  /// every other item kept as it was encoded.
  package func page(_ number: Int) -> NewsQuery {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return self }
    var items = (components.percentEncodedQueryItems ?? []).filter { $0.name != "page" }
    items.append(URLQueryItem(name: "page", value: String(number)))
    components.percentEncodedQueryItems = items
    return NewsQuery(url: components.url ?? url, source: source)
  }

  /// The (decoded) value of the first query item named `name`, or `nil`.
  package func queryItem(_ name: String) -> String? {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
  }
}

private func formatted(_ seconds: TimeInterval) -> String {
  seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(format: "%.1f", seconds)
}
