import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// One request to a ``NewsNetwork``: what to fetch and, optionally, the validators of the copy already held.
public struct NewsRequest: Sendable, Hashable {
  /// What to fetch.
  public var query: NewsQuery
  /// The validators of the cached copy; when not empty, an HTTP network sends `If-None-Match` /
  /// `If-Modified-Since` and may answer ``NewsResponse/notModified(validators:movedPermanently:)``.
  public var validators: CacheValidators

  /// A request for `query`, conditional when `validators` are given (RFC 9110 §13.1).
  public init(query: NewsQuery, validators: CacheValidators = .none) {
    self.query = query
    self.validators = validators
  }

  /// The largest body (or `file:` source) a news network reads, in bytes: 64 MiB, the feed parser's own limit
  /// (`FeedParser.maximumDocumentSize`); a NewsAPI page is rarely 1 MiB. Checked before reading — a file by its
  /// size, a response by its `Content-Length` or the transport's body cap — so a larger one costs no memory
  /// (``NewsNetworkError/tooLarge(bytes:limit:)``). A large NewsAPI export is read by `NewsAPIFileStream`.
  public static let maximumBodySize = 64 << 20
}

/// The answer of a ``NewsNetwork`` to a ``NewsRequest``.
public enum NewsResponse: Sendable, Hashable {
  /// A complete, valid page, and the validators the server sent with it (empty when it sent none).
  case page(NewsPage, validators: CacheValidators)
  /// `304 Not Modified`: the copy described by the request's validators is still current. `validators` are those
  /// the `304` carried (a server should repeat its `ETag`, RFC 9110 §15.4.5); empty when it sent none.
  /// `movedPermanently`: where permanent redirects (`301`, `308`) took the request before the `304`, as
  /// ``NewsPage/movedPermanently`` says it for a page; `nil` when none did.
  case notModified(validators: CacheValidators, movedPermanently: URL? = nil)

  /// The page, or `nil` for ``notModified(validators:movedPermanently:)``.
  package var page: NewsPage? {
    if case .page(let page, _) = self { return page }
    return nil
  }

  /// The validators the server sent.
  package var validators: CacheValidators {
    switch self {
    case .page(_, let validators), .notModified(let validators, _): return validators
    }
  }

  /// Where permanent redirects took the request (RFC 9110 §15.4.2, §15.4.9), whether it was answered with a page or
  /// a `304`; `nil` when none did.
  package var movedPermanently: URL? {
    switch self {
    case .page(let page, _): return page.movedPermanently
    case .notModified(_, let moved): return moved
    }
  }
}
