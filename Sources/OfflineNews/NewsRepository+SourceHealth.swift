import Foundation

/// How a source has been doing, from its fetch record: its last good fetch, its last failure since, whether the
/// server said the feed is gone, and since when it has been failing — what a reader shows beside a source and uses
/// to stop polling one that is gone.
public struct SourceHealth: Sendable, Hashable {
  /// The last good fetch (a saved response or a `304`); `nil` when it never had one.
  public var lastFetched: Date?
  /// The last failed refresh since the last good fetch, described for a person; `nil` when the last one was good.
  public var lastError: String?
  /// When that refresh failed.
  public var lastErrorAt: Date?
  /// Whether the last refresh was answered `410 Gone` (RFC 9110 §15.5.11: removed on purpose, not coming back).
  /// ``NewsRepository/refresh(_:options:progress:)`` no longer asks such a source, unless
  /// ``RefreshOptions/askGone``; a good answer later (one fetch that asks anyway) clears it.
  public var isGone: Bool

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
  /// The health of `source` (a feed, file or query; a Parse source's is its sync bookkeeping's, and reads as never
  /// fetched here).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func health(of source: NewsSource) async throws(NewsRepositoryError) -> SourceHealth {
    let key = source.query.cacheKey
    let record = try await storing { try await storage.fetchRecord(forQuery: key) }
    var health = SourceHealth(lastFetched: record?.fetchedAt.date)
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
}
