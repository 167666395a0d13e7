import Foundation
import OfflineNewsModel

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
  package func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The response's `ETag` and `Last-Modified`, as sent, for the next conditional request (RFC 9110 §8.8) — but a
  /// `Last-Modified` not before the response's `Date` (the same second) is left out: HTTP dates have whole seconds,
  /// so the representation may change again within that second, and an `If-Modified-Since` with it would then be
  /// answered `304 Not Modified` for a changed feed (RFC 9110 §8.8.2.2 calls such a date weak; a server compares at
  /// one-second resolution, as Python's `http.server` and nginx do). The `ETag` is kept either way.
  package var validators: CacheValidators {
    var lastModified = header("Last-Modified")
    if let modified = lastModified.flatMap({ Timestamp(httpDate: $0) }),
      let date = header("Date").flatMap({ Timestamp(httpDate: $0) }), modified >= date
    {
      lastModified = nil
    }
    return CacheValidators(etag: header("ETag"), lastModified: lastModified)
  }

  /// The reason phrase of a status code, e.g. `Internal Server Error` for `500`: RFC 9110 §15's, with RFC 6585's
  /// (`428`, `429`, `431`, `511`), RFC 7725's `451` and WebDAV's (RFC 4918, 5842, 2295, 2774, 3229); the class's name
  /// (`Client Error` for an unnamed `4xx`) for any other code, `Server Error` outside `1xx`–`4xx`. The texts
  /// FoundationNetworking's `HTTPURLResponse.localizedString(forStatusCode:)` gives on Linux, without linking it.
  package static func reasonPhrase(forStatus status: Int) -> String {
    if let phrase = reasonPhrases[status] { return phrase }
    switch status {
    case 100..<200: return "Informational"
    case 200..<300: return "Success"
    case 300..<400: return "Redirection"
    case 400..<500: return "Client Error"
    default: return "Server Error"
    }
  }

  private static let reasonPhrases: [Int: String] = [
    100: "Continue", 101: "Switching Protocols", 102: "Processing",
    200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
    205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
    300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
    305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
    409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
    414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
    421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency",
    426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
    431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
    500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
    504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
    507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
  ]
}
