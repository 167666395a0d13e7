import OfflineNews
import OfflineNewsStorage

/// How a failure of the library reaches a client of `news serve`: one rule for the Miniflux API, the Reader API and
/// the web reader.
///
/// The store is *busy* when another process holds its write lock longer than the busy timeout (a `news import` of a
/// large file writes in one transaction): the request was fine and will work later, so the answer is
/// `503 Service Unavailable` with `Retry-After` (RFC 9110 §15.6.4, §10.2.3; ``NewsServer`` adds the field), which
/// clients retry, not `500 Internal Server Error`. Every other failure is a 500.
enum ServedFailure {
  /// Seconds a client is asked to wait before trying a busy store again.
  static let retryAfterSeconds = 5

  /// The status for `error`: 503 when the store is busy, else 500.
  static func status(of error: any Error) -> Int { isBusy(error) ? 503 : 500 }

  /// Whether `error` is the store's `busy` (another connection's lock outlasted the busy timeout).
  static func isBusy(_ error: any Error) -> Bool {
    if let error = error as? NewsRepositoryError { return error.storageError?.kind == .busy }
    if let error = error as? StorageError { return error.kind == .busy }
    if case .storage(let storage) = error as? SubscriptionChangeError { return storage.kind == .busy }
    return false
  }

  /// The text for `error`: what to do about a busy store, else the error's own description.
  static func message(_ error: any Error) -> String {
    isBusy(error)
      ? "the store is busy: another program (an import?) is writing to it; try again in a few seconds"
      : "\(error)"
  }
}
