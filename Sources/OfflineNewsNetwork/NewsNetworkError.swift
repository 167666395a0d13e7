import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// Why a fetch failed. Every case keeps what the user needs to understand it; none includes the API key.
public enum NewsNetworkError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The request never got a complete HTTP response: refused, DNS failure, timeout, connection lost, TLS…
  case transport(TransportFailure, detail: String)
  /// The server answered with a non-2xx status and a body that is not a NewsAPI error. `bodyPrefix` is what the
  /// body was: its first 200 characters on one line, or, for an HTML page or an XML document, a summary with its
  /// content type and size (`an HTML page (text/html, 1,234 bytes)`).
  case httpStatus(Int, bodyPrefix: String)
  /// NewsAPI answered `{"status":"error","code":…,"message":…}`, whatever the HTTP status.
  case api(NewsAPIError)
  /// The body is not a response the network reads: a web page, not JSON, truncated, the wrong shape… The problem's
  /// ``BodyProblem/kind`` says which, its ``BodyProblem/detail`` where.
  case invalidResponse(BodyProblem)
  /// A `file` source could not be read.
  case unreadableFile(path: String, reason: String)
  /// The query's URL is not one this network can fetch (e.g. a `ftp:` URL).
  case unsupportedURL(String)
  /// The file or body is larger than `limit` bytes (``NewsRequest/maximumBodySize``), refused before it is read:
  /// `bytes` is its size (a file's `stat(2)`, a response's `Content-Length`), `nil` when the transfer passed the
  /// limit without announcing one.
  case tooLarge(bytes: Int?, limit: Int)

  /// The kind of transport failure, as far as it can be told (the HTTP transport's).
  public typealias TransportFailure = HTTPError.TransportFailure

  /// The news network's reading of an HTTP transport's error: a transport failure stays one, an unsupported URL
  /// stays one, a redirect loop or a refused redirect is an invalid response.
  package init(_ error: HTTPError) {
    switch error {
    case .transport(let failure, let detail): self = .transport(failure, detail: detail)
    case .unsupportedURL(let url): self = .unsupportedURL(url)
    case .tooManyRedirects, .redirectRefused:
      self = .invalidResponse(BodyProblem(.protocolViolation, error.description))
    }
  }

  /// A one-line summary for people, e.g. `connection refused` or `HTTP 500`.
  public var description: String {
    switch self {
    case .transport(let failure, let detail):
      return detail.isEmpty ? failure.rawValue : "\(failure.rawValue) (\(detail))"
    case .httpStatus(let status, let body):
      let reason = HTTPResponse.reasonPhrase(forStatus: status)
      let shown = body.isEmpty ? "" : ": \(body)"
      return "HTTP \(status) \(reason)\(shown)"
    case .api(let error): return error.description
    case .invalidResponse(let problem): return "invalid response: \(problem.detail)"
    case .unreadableFile(let path, let reason): return "cannot read \(path): \(reason)"
    case .unsupportedURL(let url): return "unsupported URL \(url) (use http, https or file)"
    case .tooLarge(let bytes, let limit):
      let size = bytes.map { "\(LocalFile.byteCount(Int64($0))) (\($0) bytes), " } ?? ""
      return "\(size)more than the limit of \(LocalFile.byteCount(Int64(limit))) a feed or response is read whole up to"
    }
  }
}

/// An error reported by NewsAPI in the body of a response.
///
/// NewsAPI documents the shape `{"status":"error","code":"apiKeyInvalid","message":"…"}` and a list of codes
/// (<https://newsapi.org/docs/errors>); clients also meet codes that are not documented, such as
/// `maximumResultsReached`, so ``code`` is an open set: unknown codes are kept as they came.
public struct NewsAPIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// NewsAPI's `code`, e.g. `apiKeyInvalid`, `rateLimited`, or one not known to this build. `"unknown"` if absent.
  public var code: Code
  /// NewsAPI's `message`.
  public var message: String
  /// The HTTP status of the response, when it came over HTTP.
  public var httpStatus: Int?

  /// An error response: the body's `code` and `message` and the HTTP status (NewsAPI v2 error body: `{"status":"error","code":…,"message":…}`).
  public init(code: Code, message: String, httpStatus: Int? = nil) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
  }

  public var description: String {
    "NewsAPI error \(code.rawValue)\(httpStatus.map { " (HTTP \($0))" } ?? ""): \(message)"
  }

  /// A NewsAPI error code. The documented ones have names; any other string is a valid code too.
  public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    /// The key was disabled.
    public static let apiKeyDisabled: Code = "apiKeyDisabled"
    /// The key has no requests left.
    public static let apiKeyExhausted: Code = "apiKeyExhausted"
    /// The key is not valid.
    public static let apiKeyInvalid: Code = "apiKeyInvalid"
    /// No key was sent.
    public static let apiKeyMissing: Code = "apiKeyMissing"
    /// A parameter is not supported or has a bad value.
    public static let parameterInvalid: Code = "parameterInvalid"
    /// A required parameter is missing.
    public static let parametersMissing: Code = "parametersMissing"
    /// Too many requests in a short time (HTTP 429).
    public static let rateLimited: Code = "rateLimited"
    /// More than 20 sources asked for.
    public static let sourcesTooMany: Code = "sourcesTooMany"
    /// A source asked for does not exist.
    public static let sourceDoesNotExist: Code = "sourceDoesNotExist"
    /// The server's own error.
    public static let unexpectedError: Code = "unexpectedError"
    /// Not in the documentation, but sent when a free key pages past 100 results.
    public static let maximumResultsReached: Code = "maximumResultsReached"
  }
}

extension NewsNetworkError {
  /// Whether a failure's ``description`` (as a fetch record keeps it) is a `410 Gone` answer (RFC 9110 §15.5.11):
  /// the one rule that reads the text ``httpStatus(_:bodyPrefix:)``'s description writes, `HTTP 410 Gone…`.
  package static func isGone(description: String) -> Bool {
    description.hasPrefix("HTTP 410 ")
  }
}
