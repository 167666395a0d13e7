import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A complete HTTP response: status, headers, the body, and where it came from after redirects.
public struct HTTPResponse: Sendable, Hashable {
  /// The HTTP status code, e.g. `200`.
  public var status: Int
  /// The response headers, keyed by lowercased name.
  public var headers: [String: String]
  /// The whole body; empty when ``bodyLimitExceeded`` is set.
  public var body: Data
  /// When the request's ``HTTPRequest/maxBodyBytes`` stopped the transfer: the bytes read, or the `Content-Length`
  /// announced; else `nil`.
  public var bodyLimitExceeded: Int?
  /// The URL that answered: the request's, or the target of the last redirect followed.
  public var url: URL
  /// The URL to ask from now on: the target of the last redirect in an unbroken chain of permanent ones (`301`,
  /// `308`) from the request's URL, which a client "ought to" use in place of the old one (RFC 9110 §15.4.2,
  /// §15.4.9); the request's URL when the first redirect was temporary or there was none.
  public var permanentURL: URL

  /// - Parameters:
  ///   - url: the URL that answered.
  ///   - status: the status code.
  ///   - headers: names in any letter case (stored lowercased; of two names differing only in case, the first).
  ///   - body: the body.
  ///   - bodyLimitExceeded: bytes, when the body was over a cap.
  ///   - permanentURL: `url` by default.
  public init(
    url: URL, status: Int, headers: [String: String] = [:], body: Data, bodyLimitExceeded: Int? = nil,
    permanentURL: URL? = nil
  ) {
    self.url = url
    self.status = status
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    self.body = body
    self.bodyLimitExceeded = bodyLimitExceeded
    self.permanentURL = permanentURL ?? url
  }

  /// The value of header `name` (any letter case), or `nil`.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The response's `ETag` and `Last-Modified`, as sent, for the next conditional request (RFC 9110 §8.8).
  public var validators: CacheValidators {
    CacheValidators(etag: header("ETag"), lastModified: header("Last-Modified"))
  }

  /// The reason phrase of a status code, e.g. `internal server error` for `500` (RFC 9110 §15).
  package static func reasonPhrase(forStatus status: Int) -> String {
    HTTPURLResponse.localizedString(forStatusCode: status)
  }
}
