/// Why the repository could not serve a read, a save or a delete.
public enum NewsRepositoryError: Error, Sendable, CustomStringConvertible {
  /// The network failed and the cache holds nothing for the query. `network` is the network's failure.
  case networkFailedAndCacheEmpty(query: NewsQuery, network: NewsNetworkError)
  /// The store failed. `network` is the network failure that made the repository read the cache, if any.
  case storage(StorageError, network: NewsNetworkError?)

  /// The network failure behind this error, if there was one.
  public var networkError: NewsNetworkError? {
    switch self {
    case .networkFailedAndCacheEmpty(_, let network): return network
    case .storage(_, let network): return network
    }
  }

  public var description: String {
    switch self {
    case .networkFailedAndCacheEmpty(_, let network):
      return "network failed (\(network)) and nothing is cached for this query"
    case .storage(let error, let network):
      return "\(error)" + (network.map { " (after the network failed: \($0))" } ?? "")
    }
  }
}
