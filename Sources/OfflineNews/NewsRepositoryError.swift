import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// Why the repository could not serve a read, a save or a delete.
///
/// It keeps the underlying cause whole: a ``NewsNetworkError`` (transport failure and its kind, HTTP status and body
/// prefix, NewsAPI error code and message, invalid response with the place decoding failed) and/or a
/// ``StorageError`` (the database file and SQLite's error). When both the network and the cache fail, the network's
/// cause is kept beside the storage error.
public enum NewsRepositoryError: Error, Sendable, CustomStringConvertible {
  /// The network failed and the cache holds nothing for the query. `network` is the network's failure.
  case networkFailedAndCacheEmpty(query: NewsQuery, network: NewsNetworkError)
  /// The store failed. `network` is the network failure that made the repository read the cache, if any.
  case storage(StorageError, network: NewsNetworkError?)
  /// The network failed for a ``CachePolicy/networkOnly`` read (the cache was neither read nor changed).
  case networkFailed(query: NewsQuery, network: NewsNetworkError)
  /// The search text cannot be searched (``NewsRepository/search(_:filter:limit:offset:)``): it holds no word to
  /// look for, or too many; the error names the text. The caller's input, not a failure of the store.
  case invalidSearch(SearchQueryError)

  /// The network failure behind this error, if there was one.
  package var networkError: NewsNetworkError? {
    switch self {
    case .networkFailedAndCacheEmpty(_, let network): return network
    case .storage(_, let network): return network
    case .networkFailed(_, let network): return network
    case .invalidSearch: return nil
    }
  }

  /// The storage failure behind this error, if there was one.
  package var storageError: StorageError? {
    if case .storage(let error, _) = self { return error }
    return nil
  }

  public var description: String {
    switch self {
    case .networkFailedAndCacheEmpty(_, let network):
      return "network failed (\(network)) and nothing is cached for this query"
    case .storage(let error, let network):
      return "\(error)" + (network.map { " (after the network failed: \($0))" } ?? "")
    case .networkFailed(_, let network):
      return "network failed (\(network))"
    case .invalidSearch(let error):
      return error.description
    }
  }
}
