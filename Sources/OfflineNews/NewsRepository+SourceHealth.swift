import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import OfflineNewsSync

/// How a source has been doing, from its fetch record (a Parse source: its classes' sync bookkeeping): its last good
/// fetch, its last failure since, whether the server said the feed is gone, since when it has been failing, how many
/// articles its last fetch cached and for how long the server said they are fresh — what a reader shows beside a
/// source (`news sources`, the web reader) and what refreshing uses to stop polling one that is gone.
public struct SourceHealth: Sendable, Hashable {
  /// The last good fetch (a saved response or a `304`; a Parse source: its latest class sync); `nil` when it never
  /// had one.
  public var lastFetched: Date?
  /// The last failed refresh since the last good fetch, described for a person; `nil` when the last one was good.
  public var lastError: String?
  /// When that refresh failed.
  public var lastErrorAt: Date?
  /// Whether the last refresh was answered `410 Gone` (RFC 9110 §15.5.11: removed on purpose, not coming back).
  /// ``NewsRepository/refresh(_:options:progress:)`` no longer asks such a source, unless
  /// ``RefreshOptions/askGone``; a good answer later (one fetch that asks anyway) clears it.
  public var isGone: Bool
  /// The articles the last good fetch cached (a Parse source: those cached under its article query).
  public var cachedCount: Int = 0
  /// The freshness lifetime in seconds the server gave with the last fetch (`Cache-Control: max-age`, `Expires`);
  /// `nil` when it gave none, and for a Parse source.
  public var serverMaxAge: TimeInterval?

  /// Since when every refresh has failed: the last good fetch when a failure came after it; `nil` for a source whose
  /// last refresh was good, or that was never fetched successfully (see ``lastErrorAt``).
  public var failingSince: Date? {
    guard lastError != nil, let lastFetched, let lastErrorAt, lastErrorAt >= lastFetched else { return nil }
    return lastFetched
  }

  /// Whether it has been failing for at least `seconds` at `now` (`news sources` flags a source failing for a
  /// week).
  public func isFailing(for seconds: TimeInterval, now: Date) -> Bool {
    failingSince.map { now.timeIntervalSince($0) >= seconds } ?? false
  }

  /// A health; see the properties.
  public init(lastFetched: Date? = nil, lastError: String? = nil, lastErrorAt: Date? = nil, isGone: Bool = false) {
    self.lastFetched = lastFetched
    self.lastError = lastError
    self.lastErrorAt = lastErrorAt
    self.isGone = isGone
  }
}

extension NewsRepository {
  /// The health of `source`: of a feed, file or query from its fetch record (one read, and one more of its last
  /// failure when it was never fetched); of a Parse source from its classes' sync bookkeeping (the latest sync, the
  /// latest error of any class).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func health(of source: NewsSource) async throws(NewsRepositoryError) -> SourceHealth {
    if case .parse = source.kind { return try await health(ofParseSource: source.name) }
    let key = source.query.cacheKey
    let record = try await storing { try await storage.fetchRecord(forQuery: key) }
    var health = SourceHealth(lastFetched: record?.fetchedAt.date)
    health.cachedCount = record?.cachedCount ?? 0
    health.serverMaxAge = record?.maxAge
    if let record {
      health.lastError = record.lastError
      health.lastErrorAt = record.lastErrorAt?.date
    } else if let failure = try await storing({ try await storage.lastFailure(forQuery: key) }) {
      health.lastError = failure.message
      health.lastErrorAt = failure.at.date
    }
    health.isGone = health.lastError.map(NewsNetworkError.isGone(description:)) ?? false
    return health
  }

  /// What the store's fetch log holds besides `queries` (a list's sources: ``NewsSource/query``, and
  /// ``NewsSource/query(ofParseSource:)`` for a Parse source): the files imported (`news import FILE`), URLs read
  /// once (`news fetch --url`) and sources no longer in the list whose articles are still cached, each as its
  /// query's cache key with its last good fetch and cached rows, most recent first. One read of the fetch log; no
  /// article is counted. A query whose last save was for one of `names` (the list's sources, any case) is left out
  /// too: the old address of a source re-linked after a permanent redirect, or one whose URL was edited, whose
  /// articles the source itself shows (they are recorded under its name).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func cachedQueries(besides queries: [NewsQuery], savedForNoneOf names: [String] = [])
    async throws(NewsRepositoryError) -> [CachedQuery]
  {
    let known = Set(queries.map(\.cacheKey))
    let sources = Set(names.map { $0.lowercased() })
    return try await storing { try await storage.fetchRecords() }
      .filter { record in
        guard !known.contains(record.query), record.cachedCount > 0 else { return false }
        return record.savedFor.map { !sources.contains($0.lowercased()) } ?? true
      }
      .map { CachedQuery(cacheKey: $0.query, fetchedAt: $0.fetchedAt.date, cachedCount: $0.cachedCount) }
  }

  /// The health of the Parse source named `name`, from its classes' sync bookkeeping: the latest sync of any class,
  /// the latest error of any class, the articles cached under its article query (``NewsSource/query(ofParseSource:)``).
  /// Needs no mapping: for a list of sources that must show even when a mapping cannot be loaded.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func health(ofParseSource name: String) async throws(NewsRepositoryError) -> SourceHealth {
    let classes = try await storing { try await SyncBookkeeping.status(source: name, in: storage) }
    var health = SourceHealth(lastFetched: classes.compactMap(\.syncedAt).max()?.date)
    let failed = classes.compactMap { status -> (String, Timestamp)? in
      guard let message = status.lastError, let at = status.lastErrorAt else { return nil }
      return (message, at)
    }.max { $0.1 < $1.1 }
    health.lastError = failed?.0
    health.lastErrorAt = failed?.1.date
    let key = NewsSource.query(ofParseSource: name).cacheKey
    health.cachedCount = try await storing { try await storage.fetchRecord(forQuery: key) }?.cachedCount ?? 0
    return health
  }
}

/// A query in the store's fetch log that no source of a list fetches (``NewsRepository/cachedQueries(besides:savedForNoneOf:)``).
public struct CachedQuery: Sendable, Hashable {
  /// The query's cache key: a file's path or `file:` URL, or the URL that was fetched (a NewsAPI key never in it).
  public var cacheKey: String
  /// Its last good fetch or import.
  public var fetchedAt: Date
  /// Its rows still cached.
  public var cachedCount: Int
}

extension CachedQuery {
  /// The source its articles came from, as no subscription reads it: named by its path (a file imported: what its
  /// articles are recorded under, ``SourceMatch/init(location:)``), else by its key (the URL read); `nil` for a key
  /// that is no URL. The one rule for what `news sources` lists as "also cached", `news read` shows below the
  /// sources and `news serve` serves in its *Imported* folder.
  public var source: NewsSource? {
    guard let url = URL(string: cacheKey) else { return nil }
    return NewsSource(name: url.isFileURL ? url.path : cacheKey, url: url)
  }

  /// Its articles (``ArticleFilter/anyOfSources``): those recorded under its ``source``'s name and those of its
  /// last result; `nil` when it has no ``source``.
  public var match: SourceMatch? { source.map { SourceMatch(source: $0.name, queries: [cacheKey]) } }
}
