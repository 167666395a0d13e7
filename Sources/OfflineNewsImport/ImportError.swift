import OfflineNewsModel
import OfflineNewsStorage

/// Why an import could not run at all. Nothing is written when one of these is thrown.
///
/// Problems with single records are not errors: they are reported in `ImportReport/errors` and the record is
/// skipped (or its old value kept), and the rest is imported.
public enum ImportError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The input is not valid JSON (truncated, not JSON at all); says where it stops.
  case invalidJSON(String)
  /// The JSON does not have the shape the mapping expects, e.g. no array at the records key path.
  case doesNotMatchMapping(String)
  /// The mapping itself is invalid; says which file and key.
  case invalidMapping(String)

  public var description: String {
    switch self {
    case .invalidJSON(let detail): return "not valid JSON: \(detail)"
    case .doesNotMatchMapping(let detail): return "does not match the mapping: \(detail)"
    case .invalidMapping(let detail): return "invalid mapping: \(detail)"
    }
  }
}

/// Why ``Importer/run(_:into:source:options:)`` failed. Nothing is written in either case: the save is one
/// transaction.
public enum ImportFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// The payload or the mapping: not valid JSON, not the mapping's shape (nothing read was saved).
  case input(ImportError)
  /// The save failed and was rolled back.
  case storage(StorageError)
  /// The task was cancelled before the save.
  case cancelled

  public var description: String {
    switch self {
    case .input(let error): error.description
    case .storage(let error): error.description
    case .cancelled: "cancelled; nothing was written"
    }
  }
}

/// A problem with one value of one record, reported with the record's identity and the value's key path.
public struct RecordError: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The entity the record belongs to.
  public var entity: String
  /// The record's identity as text (`|`-separated for a composite identity), when it could be read.
  public var identity: String?
  /// Where in the input: `results[3].publishedAt`.
  public var keyPath: String
  /// What was wrong: `not an RFC 3339 date-time: "yesterday"`.
  public var reason: String

  /// A record error; `keyPath` is where in the payload (`articles[3].publishedAt`), `reason` what went wrong.
  public init(entity: String, identity: String?, keyPath: String, reason: String) {
    self.entity = entity
    self.identity = identity
    self.keyPath = keyPath
    self.reason = reason
  }

  public var description: String {
    IssuePlace.text(reason, at: keyPath, "(\(entity)\(identity.map { " \($0)" } ?? ""))")
  }
}
