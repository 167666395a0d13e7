import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// Where the rows of a ``NewsResult`` came from.
public enum Origin: String, Sendable, Hashable, Codable {
  /// A response received just now, saved to the store, then read back.
  case network
  /// The store: because the network failed (or returned nothing usable), or because the policy read the cache.
  case cache
}

/// The answer to a read: the rows, where they came from, how old they are, and why the network was not used.
///
/// Following Store5 and Siesta, a result carries both the last good data and the last error: a cached result after
/// a failure has ``origin`` `.cache`, the ``fetchedAt`` of the response the rows came from, and the
/// ``networkError`` that caused the fallback. Every result also says how old its rows are (``age``, seconds) and
/// whether that is older than the max-age in force (``isStale``).
public struct NewsResult: Sendable {
  /// The query answered.
  public var query: NewsQuery
  /// The articles, newest first (`publishedAt` descending, then `url`).
  public var articles: [Article]
  /// Where the rows came from.
  public var origin: Origin
  /// When the response these rows came from was received (an instant, to the millisecond); `nil` when unknown.
  public var fetchedAt: Date? { fetchedTimestamp?.date }
  /// ``fetchedAt`` as the store keeps it: UTC milliseconds since 1970.
  package var fetchedTimestamp: Timestamp?
  /// The failure that made the repository serve the cache; `nil` for a network result.
  public var networkError: NewsNetworkError?
  /// For a network result: records of the response that were skipped or had values dropped.
  public var issues: [RecordIssue]
  /// Seconds from ``fetchedAt`` to the moment of the read; `nil` when ``fetchedAt`` is unknown. A network result's
  /// age is 0. Negative only when the fetch time lies more than `futureTolerance` ahead of the read (the clock was
  /// set back after the fetch): such rows are stale (``isStale``), whatever the max-age.
  public var age: TimeInterval?
  /// The max-age in force, in seconds: the one given to the read, else the one stored with the query's last fetch;
  /// `nil` when there is none.
  public var maxAge: TimeInterval?
  /// `true` when the server answered `304 Not Modified` and the cached rows were confirmed, not rewritten (origin
  /// `.network`, ``fetchedAt`` the time of the `304`).
  public var revalidated: Bool
  /// For a network result that saved a response: what the save did (inserted, updated, unchanged, evicted);
  /// `nil` for a cache result or a `304`.
  public var saved: ArticleSaveResult?
  /// For a network result: where permanent redirects (`301`, `308`) took the request, the address to use from now
  /// on (``NewsPage/movedPermanently``), whether the server answered with a page or a `304`; `nil` otherwise.
  public var movedPermanently: URL?
  /// For a network result that saved a feed's page: the feed's own title as its document gave it
  /// (``NewsPage/feedTitle``); `nil` otherwise (a `304`, a cache result, a response that is no feed).
  public var feedTitle: String?
  /// With ``movedPermanently``: how many answered refreshes of the query in a row, this one included, permanent
  /// redirects took to that same address (kept in the store's fetch log); `0` without it.
  public var permanentRedirects = 0
  /// For a cache result served at the repository's deadline: `true` while the request it gave up waiting for goes
  /// on; its answer is saved when it comes, as long as the process lives (an app, `news serve`). A process that
  /// exits first (the `news` command) drops it: the next read asks again.
  public var refreshContinues = false
  /// For a network result read without its rows (a refresh of every source reports how many are cached, not
  /// which): how many rows the query's result holds; `nil` when ``articles`` holds them.
  package var storedCount: Int?
  /// How many rows the query's result holds: ``storedCount``, else the number of ``articles``.
  package var rowCount: Int { storedCount ?? articles.count }

  /// - Parameters:
  ///   - fetchedAt: when the rows' response was received (UTC, milliseconds), or `nil` when unknown.
  ///   - maxAge: the max-age in force, seconds, or `nil`.
  ///   - now: the moment of the read, for ``age``; the current time when `nil`.
  ///   - revalidated: whether a `304 Not Modified` confirmed the rows.
  package init(
    query: NewsQuery, articles: [Article], origin: Origin, fetchedAt: Timestamp?,
    networkError: NewsNetworkError? = nil, issues: [RecordIssue] = [], maxAge: TimeInterval? = nil,
    now: Timestamp? = nil, revalidated: Bool = false
  ) {
    self.query = query
    self.articles = articles
    self.origin = origin
    self.fetchedTimestamp = fetchedAt
    self.networkError = networkError
    self.issues = issues
    self.maxAge = maxAge
    self.revalidated = revalidated
    let reference = now ?? .now()
    age = fetchedAt.map {
      let seconds = Double(reference.millisecondsSince1970 - $0.millisecondsSince1970) / 1000
      return seconds < -Self.futureTolerance ? seconds : max(0, seconds)
    }
  }

  /// How far ahead of the read a fetch time may lie (clock skew between processes), in seconds, and still count as
  /// "just now": 60.
  package static let futureTolerance: TimeInterval = 60

  /// Whether the rows' fetch time lies ahead of the read by more than `futureTolerance`.
  public var isFromTheFuture: Bool { (age ?? 0) < 0 }

  /// Whether the rows are older than the max-age in force: `age >= maxAge` (RFC 9111 §4.2: a response is fresh
  /// while its age is less than its freshness lifetime). `false` without a max-age; `true` when nothing was ever
  /// fetched (no ``fetchedAt``).
  public var isStale: Bool {
    guard let age, age >= 0 else { return true }
    guard let maxAge else { return false }
    return age >= maxAge
  }

  /// `true` for a cache result with no rows: nothing is cached for the query (``CachePolicy/cacheOnly`` returns
  /// this instead of throwing).
  public var isCacheMiss: Bool { origin == .cache && articles.isEmpty }

  /// Seconds between ``fetchedAt`` and `now`; `nil` when ``fetchedAt`` is unknown.
  package func age(at now: Date = Date()) -> TimeInterval? {
    fetchedAt.map { now.timeIntervalSince($0) }
  }
}
