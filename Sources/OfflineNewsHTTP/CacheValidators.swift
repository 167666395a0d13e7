import Foundation

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

  /// Validators as a response sent them (RFC 9110 §8.8); none by default.
  public init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag.flatMap { $0.isEmpty ? nil : $0 }
    self.lastModified = lastModified.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// No validators: the request is unconditional.
  public static let none = CacheValidators()

  /// `true` when there is neither an entity tag nor a modification date.
  package var isEmpty: Bool { etag == nil && lastModified == nil }

  /// These validators, each replaced by `newer`'s when `newer` has one (a `304` may repeat or update them).
  package func updated(with newer: CacheValidators) -> CacheValidators {
    CacheValidators(etag: newer.etag ?? etag, lastModified: newer.lastModified ?? lastModified)
  }
}
