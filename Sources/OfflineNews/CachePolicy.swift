/// How a read combines the cache and the network, named as Apollo iOS and Store5 name theirs.
///
/// Every policy that reaches the network saves what a good response brings (one transaction) and never lets a
/// failed, partial, error or empty response change the cache. Freshness is judged against a max-age: the one given
/// to the call, else the one stored with the query's last fetch (see ``NewsResult/isStale``).
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
  /// The network; on failure the cached rows, with the network's error. Throws
  /// ``NewsRepositoryError/networkFailedAndCacheEmpty(query:network:)`` when nothing is cached. With a repository
  /// deadline, the cache is served once it passes, while the request goes on in the background.
  case networkFirst
  /// The cached rows when there are some and they are fresh (never touching the network); otherwise as
  /// ``networkFirst``, falling back to the stale rows when the network fails.
  case cacheFirst
  /// The network only; a good response is still saved. On failure throws
  /// ``NewsRepositoryError/networkFailed(query:network:)`` with the cause, whatever the cache holds.
  case networkOnly
  /// The cache only, never the network. Nothing cached is not an error: the result has no rows, no fetch time,
  /// and ``NewsResult/isCacheMiss`` is `true`.
  case cacheOnly
  /// The cached rows at once, then the network's answer when it arrives: see
  /// ``NewsRepository/results(for:policy:maxAge:limit:pages:)``. Read with
  /// ``NewsRepository/articles(for:policy:maxAge:limit:pages:)``, which returns a single result, it is
  /// ``networkFirst`` without the deadline.
  case cacheThenNetwork
}

extension CachePolicy {
  /// The policies a configuration file's `"policy"` and `news fetch --policy` accept, in the order help lists them.
  public static let names = ["network-first", "cache-first", "network-only", "cache-only"]

  /// The policy named `name` (`network-first`, `cache-first`, `network-only`, `cache-only`), or `nil`.
  public init?(name: String) {
    switch name {
    case "network-first": self = .networkFirst
    case "cache-first": self = .cacheFirst
    case "network-only": self = .networkOnly
    case "cache-only": self = .cacheOnly
    default: return nil
    }
  }

  /// Its name in configuration files and on the command line, e.g. `network-first`.
  public var name: String {
    switch self {
    case .networkFirst: "network-first"
    case .cacheFirst: "cache-first"
    case .networkOnly: "network-only"
    case .cacheOnly: "cache-only"
    case .cacheThenNetwork: "cache-then-network"
    }
  }
}
