import Foundation
import OfflineNewsModel

/// The validators of a stored response, for a conditional request (RFC 9110 §8.8 and §13.1).
///
/// A server that sent `ETag` and/or `Last-Modified` with a response can be asked next time whether the response
/// changed: the request carries `If-None-Match: <etag>` and/or `If-Modified-Since: <lastModified>`, and the server
/// answers `304 Not Modified` (no body) when it did not (<https://www.rfc-editor.org/rfc/rfc9110#name-304-not-modified>).
/// The values are kept exactly as the server sent them (a weak `W/"…"` tag included) and sent back unchanged.
public struct CacheValidators: Sendable, Hashable {
  /// The `ETag` header of the response, e.g. `"33a64df5"` or `W/"0815"`; `nil` when the server sent none.
  public var etag: String?
  /// The `Last-Modified` header of the response, an HTTP-date (e.g. `Sun, 06 Nov 1994 08:49:37 GMT`); `nil` when
  /// the server sent none.
  public var lastModified: String?

  public init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag.flatMap { $0.isEmpty ? nil : $0 }
    self.lastModified = lastModified.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// No validators: the request is unconditional.
  public static let none = CacheValidators()

  /// `true` when there is neither an entity tag nor a modification date.
  public var isEmpty: Bool { etag == nil && lastModified == nil }

  /// These validators, each replaced by `newer`'s when `newer` has one (a `304` may repeat or update them).
  public func updated(with newer: CacheValidators) -> CacheValidators {
    CacheValidators(etag: newer.etag ?? etag, lastModified: newer.lastModified ?? lastModified)
  }
}

/// One request to a ``NewsNetwork``: what to fetch and, optionally, the validators of the copy already held.
public struct NewsRequest: Sendable, Hashable {
  /// What to fetch.
  public var query: NewsQuery
  /// The validators of the cached copy; when not empty, an HTTP network sends `If-None-Match` /
  /// `If-Modified-Since` and may answer ``NewsResponse/notModified(validators:)``.
  public var validators: CacheValidators

  public init(query: NewsQuery, validators: CacheValidators = .none) {
    self.query = query
    self.validators = validators
  }
}

/// The answer of a ``NewsNetwork`` to a ``NewsRequest``.
public enum NewsResponse: Sendable, Hashable {
  /// A complete, valid page, and the validators the server sent with it (empty when it sent none).
  case page(NewsPage, validators: CacheValidators)
  /// `304 Not Modified`: the copy described by the request's validators is still current. `validators` are those
  /// the `304` carried (a server should repeat its `ETag`, RFC 9110 §15.4.5); empty when it sent none.
  case notModified(validators: CacheValidators)

  /// The page, or `nil` for ``notModified(validators:)``.
  public var page: NewsPage? {
    if case .page(let page, _) = self { return page }
    return nil
  }

  /// The validators the server sent.
  public var validators: CacheValidators {
    switch self {
    case .page(_, let validators), .notModified(let validators): return validators
    }
  }
}
