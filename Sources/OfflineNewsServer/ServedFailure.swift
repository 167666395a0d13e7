import OfflineNews
import OfflineNewsHTTP
import OfflineNewsStorage

/// How a failure of the library reaches a client of `news serve`: one rule for the Miniflux API, the Reader API and
/// the web reader.
///
/// Two failures are no fault of the request nor of the server, only of the moment, and are answered
/// `503 Service Unavailable` (RFC 9110 §15.6.4), which clients take as "cannot do it now", not
/// `500 Internal Server Error`:
/// - the store is *busy*: another process holds its write lock longer than the busy timeout (a `news import` of a
///   large file writes in one transaction); the request will work later, so the answer carries `Retry-After`
///   (RFC 9110 §10.2.3) and clients retry;
/// - the store (or the subscription file) *cannot be written*: its file or folder is read-only (`chattr +i`,
///   permissions, a read-only mount) or the disk is full. Nothing was changed; reads keep working. No
///   `Retry-After`: it lasts until someone changes the file system, and the text says why.
///
/// Every other failure is a 500. The body is each API's error shape (Miniflux: `{"error_message": "…"}`; Reader and
/// the web reader's script: text) with ``message(_:)``.
enum ServedFailure {
  /// Why a change could not be made now, when it is no fault of the request.
  enum Cause: Equatable {
    /// Another process holds the store's write lock.
    case busy
    /// The store or the subscription file cannot be written (read-only, disk full).
    case unwritable
  }

  /// Seconds a client is asked to wait before trying a busy store again.
  static let retryAfterSeconds = 5

  /// The status for `error`: 503 when the store is busy or cannot be written, else 500.
  static func status(of error: any Error) -> Int { cause(of: error) == nil ? 500 : 503 }

  /// Whether `error` is the store's `busy` (another connection's lock outlasted the busy timeout).
  static func isBusy(_ error: any Error) -> Bool { cause(of: error) == .busy }

  /// Why `error` stopped a change now (``Cause``), or `nil` for any other failure.
  static func cause(of error: any Error) -> Cause? {
    if case .list(let list) = error as? ServedSubscriptions.Failure { return cause(of: list) }
    if case .file(let file) = error as? SubscriptionChangeError {
      return file.kind == .unwritable ? .unwritable : nil
    }
    guard let storage = storageError(of: error) else { return nil }
    switch storage.kind {
    case .busy: return .busy
    case .readOnly, .diskFull: return .unwritable
    default: return nil
    }
  }

  /// The storage failure behind `error`, if any.
  private static func storageError(of error: any Error) -> StorageError? {
    if let error = error as? NewsRepositoryError { return error.storageError }
    if let error = error as? StorageError { return error }
    if case .storage(let storage) = error as? SubscriptionChangeError { return storage }
    if case .storage(let storage) = error as? RefreshFailure { return storage }
    return nil
  }

  /// The text for `error`: what to do about a busy store, why nothing can be saved, else the error's own
  /// description.
  static func message(_ error: any Error) -> String {
    switch cause(of: error) {
    case .busy: "the store is busy: another program (an import?) is writing to it; try again in a few seconds"
    case .unwritable:
      "\(error): nothing is saved until it can be written; news serve serves the store as it is (reading works)"
    case nil: "\(error)"
    }
  }

  /// The header fields an answer to `error` carries: `Retry-After` for a busy store.
  static func headers(of error: any Error) -> [(name: String, value: String)] {
    isBusy(error) ? [(name: "Retry-After", value: String(retryAfterSeconds))] : []
  }

  /// `response` (the error's answer in a door's own shape) with ``headers(of:)``.
  static func answer(_ response: ServerResponse, to error: any Error) -> ServerResponse {
    var response = response
    response.headers += headers(of: error)
    return response
  }

  /// The Miniflux API's answer: `{"error_message": …}`, ``status(of:)``, ``headers(of:)``.
  static func miniflux(_ error: any Error) -> ServerResponse {
    answer(MinifluxJSON.error(message(error), status: status(of: error)), to: error)
  }

  /// A plain-text answer (the Reader API's, the web reader's changes): `prefix` and ``message(_:)``.
  static func text(_ error: any Error, prefix: String = "") -> ServerResponse {
    answer(.text(prefix + message(error), status: status(of: error)), to: error)
  }
}
