import Foundation
@_exported import OfflineNewsImport
@_exported import OfflineNewsModel
@_exported import OfflineNewsNetwork
@_exported import OfflineNewsStorage

/// Where the rows of a ``NewsResult`` came from.
public enum Origin: String, Sendable, Hashable, Codable {
  /// A response received just now, saved to the store, then read back.
  case network
  /// The store, because the network failed (or returned nothing usable).
  case cache
}

/// The answer to a read: the rows, where they came from, how old they are, and why the network was not used.
///
/// Following Store5 and Siesta, a result carries both the last good data and the last error: a cached result after
/// a failure has ``origin`` `.cache`, the ``fetchedAt`` of the response the rows came from, and the
/// ``networkError`` that caused the fallback.
public struct NewsResult: Sendable {
  /// The query answered.
  public var query: NewsQuery
  /// The articles, newest first (`publishedAt` descending, then `url`).
  public var articles: [Article]
  /// Where the rows came from.
  public var origin: Origin
  /// When the response these rows came from was received (UTC, milliseconds); `nil` when unknown.
  public var fetchedAt: Timestamp?
  /// The failure that made the repository serve the cache; `nil` for a network result.
  public var networkError: NewsNetworkError?
  /// For a network result: records of the response that were skipped or had values dropped.
  public var issues: [RecordIssue]

  public init(
    query: NewsQuery, articles: [Article], origin: Origin, fetchedAt: Timestamp?,
    networkError: NewsNetworkError? = nil, issues: [RecordIssue] = []
  ) {
    self.query = query
    self.articles = articles
    self.origin = origin
    self.fetchedAt = fetchedAt
    self.networkError = networkError
    self.issues = issues
  }

  /// Seconds between ``fetchedAt`` and `now`; `nil` when ``fetchedAt`` is unknown.
  public func age(at now: Date = Date()) -> TimeInterval? {
    fetchedAt.map { now.timeIntervalSince($0.date) }
  }
}
