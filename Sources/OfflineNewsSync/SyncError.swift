import Foundation
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsStorage

/// Why the sync of one class stopped. Pages already imported stay imported, a staged page stays staged (the next sync
/// resumes it), and the cursor never moves past what was imported.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No complete HTTP response (refused, timed out, cut short…, after the retries).
  case network(className: String, HTTPError)
  /// Parse Server answered with an error: `{"code":…,"error":…}` (Parse REST error codes,
  /// <https://docs.parseplatform.org/rest/guide/#error-codes>), or a non-2xx status with another body (a `429`/`5xx`
  /// still failing after the retries included).
  case server(className: String, status: Int, code: Int?, message: String)
  /// A `200` whose body is not a page of results: not JSON, truncated, no `results` array, or objects the cursor
  /// cannot order (no `objectId` or `updatedAt`). Nothing of it was staged.
  case invalidPage(className: String, detail: String)
  /// The page could not be imported with the mapping (nothing of it was written; it stays staged).
  case importFailed(className: String, detail: String)
  /// The database failed (full, locked, read-only…): the storage context's error, naming the file and the cause.
  case storage(className: String, StorageError)

  /// The kind of a failure, without its details; its raw value is what `--json` output prints (`errorKind`).
  public enum Kind: String, Sendable, Hashable, Encodable {
    /// ``SyncError/network(className:_:)``: no complete answer came.
    case network
    /// ``SyncError/server(className:status:code:message:)``: the server answered with an error.
    case server
    /// ``SyncError/invalidPage(className:detail:)``: the answer was no page of results.
    case invalidPage
    /// ``SyncError/importFailed(className:detail:)``: the page could not be imported.
    case importFailed
    /// ``SyncError/storage(className:_:)``: the database failed.
    case storage
  }

  /// The kind of failure: ``Kind/network``, ``Kind/server``, ``Kind/invalidPage``, ``Kind/importFailed`` or
  /// ``Kind/storage``.
  package var kind: Kind {
    switch self {
    case .network: .network
    case .server: .server
    case .invalidPage: .invalidPage
    case .importFailed: .importFailed
    case .storage: .storage
    }
  }

  /// The class the error belongs to.
  package var className: String {
    switch self {
    case .network(let name, _), .server(let name, _, _, _), .invalidPage(let name, _), .importFailed(let name, _),
      .storage(let name, _):
      return name
    }
  }

  public var description: String {
    switch self {
    case .network(let name, let error): return "\(name): \(error)"
    case .server(let name, let status, let code, let message):
      return "\(name): the server answered HTTP \(status)\(code.map { ", code \($0)" } ?? ""): \(message)"
    case .invalidPage(let name, let detail): return "\(name): invalid page: \(detail)"
    case .importFailed(let name, let detail): return "\(name): import failed: \(detail)"
    case .storage(let name, let error): return "\(name): storage: \(error)"
    }
  }
}

/// What one sync did, class by class.
public struct SyncReport: Sendable, Hashable, Encodable {
  /// One class's part, in the order the classes were synced.
  public struct ClassReport: Sendable, Hashable, Encodable {
    /// The Parse class.
    public var className: String
    /// The entity its objects were imported into.
    public var entity: String
    /// Pages downloaded and imported in this run.
    public var pages = 0
    /// Pages staged by an earlier, interrupted run and imported in this one.
    public var resumedPages = 0
    /// Objects in the imported pages.
    public var objects = 0
    /// Objects inserted as new rows.
    public var inserted = 0
    /// Objects whose row changed.
    public var updated = 0
    /// Objects already stored as sent (not rewritten).
    public var unchanged = 0
    /// Rows deleted because the server no longer lists them (``ParseSyncEngine/deleteMissing``).
    public var deleted = 0
    /// Objects skipped or failed, with the reasons in ``errors``.
    public var failed = 0
    /// Objects left out because a deletion or an eviction of their articles is remembered
    /// (``OfflineNewsImport/ImportReport/remembered``): neither imported nor failed.
    public var remembered = 0
    /// Of ``remembered``, those the store's eviction policy removed (the others were deleted).
    public var rememberedEvicted = 0
    /// Why each failed object failed: entity, identity, key path, reason.
    public var errors: [RecordError] = []
    /// Values not stored in objects that were imported (``ImportReport/warnings``).
    public var warnings: [RecordError] = []
    /// Files downloaded, already present, and refused or failed (with reasons in ``fileErrors``).
    public var filesDownloaded = 0
    /// Files already stored before this run.
    public var filesPresent = 0
    /// Why each refused or failed file was not stored (its URL redacted of secrets).
    public var fileErrors: [String] = []
    /// The file URLs tried in this run (not encoded): a failed one is not tried twice in one run.
    var filesTried: Set<URL> = []
    /// The cursor after this run (`updatedAt objectId`), `nil` when nothing was ever imported.
    public var cursor: String?
    /// Why the class stopped early, if it did.
    public var error: String?
    /// The kind of ``error``: `SyncError.kind` (encoded as its raw value, e.g. `"network"`).
    public var errorKind: SyncError.Kind?

    package init(className: String, entity: String) {
      self.className = className
      self.entity = entity
    }

    /// Every key but ``filesTried``'s. An absent cursor or error is left out by `JSONEncoder`; `news sync --json`
    /// writes it as `null` (`NullKeeping`), as every `--json` document.
    enum CodingKeys: String, CodingKey {
      case className, entity, pages, resumedPages, objects, inserted, updated, unchanged, deleted, failed, remembered
      case rememberedEvicted, errors
      case warnings
      case filesDownloaded, filesPresent, fileErrors, cursor, error, errorKind
    }
  }

  /// The classes, in the order they were synced.
  public var classes: [ClassReport] = []

  package init() {}

  /// Whether every class finished.
  public var succeeded: Bool { classes.allSatisfy { $0.error == nil } }
}

/// Progress of a sync, reported after each page.
public struct SyncProgress: Sendable, Hashable {
  /// The class being synced.
  public var className: String
  /// Pages imported for this class so far in this run (resumed ones included).
  public var pages: Int
  /// Objects imported for this class so far in this run.
  public var objects: Int
}
