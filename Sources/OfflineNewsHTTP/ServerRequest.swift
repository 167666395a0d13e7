import Foundation

/// An HTTP request as a server received it: what a server transport (the one over GNU libmicrohttpd,
/// `OfflineNewsMicroHTTPD`) hands a ``ServerHandler``, already parsed by that library — never by hand.
///
/// Header names are lower-cased (RFC 9110 §5.1: field names are case-insensitive); the path is percent-decoded;
/// query arguments and `application/x-www-form-urlencoded` body fields are decoded pairs in the order they came, a
/// name may repeat (the Google Reader API sends `i=…&i=…`).
public struct ServerRequest: Sendable {
  /// The method, upper-case as sent: `GET`, `POST`, `PUT`, `DELETE`, `HEAD`.
  public var method: String
  /// The path, percent-decoded, without the query: `/v1/entries`. A leading run of slashes is one slash
  /// (`//v1/feeds` → `/v1/feeds`): a client configured with a trailing slash on the server's address
  /// (`miniflux-url "http://127.0.0.1:8080/"`, as newsboat's manual writes it) joins it so, and nginx's
  /// `merge_slashes` serves it; slashes further in are kept (a Reader stream id holds `http://`).
  public var path: String
  /// The query arguments, decoded, in order.
  public var query: [(name: String, value: String)]
  /// The header fields, names lower-cased, in order.
  public var headers: [(name: String, value: String)]
  /// The body, at most the server's body limit (``ServerLimits/maxBodyBytes``); empty for none.
  public var body: Data
  /// The peer's address as text (`127.0.0.1`, `::1`), for the request log and login throttling.
  public var remoteAddress: String
  /// Set by a server transport that answered the request itself, before any handler could: `431` (header fields
  /// over ``ServerLimits/maxHeaderBytes``), `413` (a body over ``ServerLimits/maxBodyBytes``), `400` or `501` (a
  /// message RFC 9112 makes an error: two `Host` lines, `Content-Length` values that differ, …). The handler is then
  /// called only so that the request is logged like any other; its answer is not sent. `nil` for every request a
  /// handler answers.
  public var refusedWith: Int?
  /// With ``refusedWith``: why, for the log (`more than one Host header field`); `nil` when the status says it (431,
  /// 413) or the request was not refused.
  public var refusalReason: String?

  /// - Parameters: see the properties of the same names. `target` is the request target (`/v1/entries?limit=5`):
  ///   its path is percent-decoded and its query split into ``query`` (RFC 3986 §3.4, `+` as a space as HTML
  ///   forms send it).
  public init(
    method: String, target: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
    remoteAddress: String = "127.0.0.1"
  ) {
    self.method = method
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let rawPath = parts.first.map(String.init) ?? "/"
    path = Self.oneLeadingSlash(rawPath.removingPercentEncoding ?? rawPath)
    query = parts.count > 1 ? Self.formPairs(String(parts[1])) : []
    self.headers = headers.map { (name: $0.name.lowercased(), value: $0.value) }
    self.body = body
    self.remoteAddress = remoteAddress
  }

  /// - Parameters: see the properties of the same names; `path` already decoded and `query` already split.
  public init(
    method: String, path: String, query: [(name: String, value: String)], headers: [(name: String, value: String)],
    body: Data, remoteAddress: String
  ) {
    self.method = method
    self.path = Self.oneLeadingSlash(path)
    self.query = query
    self.headers = headers.map { (name: $0.name.lowercased(), value: $0.value) }
    self.body = body
    self.remoteAddress = remoteAddress
  }

  /// `path` with its leading run of slashes made one (``path``).
  static func oneLeadingSlash(_ path: String) -> String {
    guard path.hasPrefix("//") else { return path }
    return "/" + path.drop { $0 == "/" }
  }

  /// The first value of header `name` (any case), or `nil`.
  public func header(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name == lower }?.value
  }

  /// The first value of query argument `name`, or `nil`.
  public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

  /// Every value of query argument `name`, in order.
  public func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }

  /// The fields of an `application/x-www-form-urlencoded` body (HTML forms, the Google Reader API's POSTs), in
  /// order; empty when the body is of another type.
  public var formFields: [(name: String, value: String)] {
    guard let type = header("content-type")?.lowercased(), type.hasPrefix("application/x-www-form-urlencoded")
    else { return [] }
    return Self.formPairs(String(decoding: body, as: UTF8.self))
  }

  /// The first value of form field `name` (``formFields``), else of query argument `name`: the Google Reader API
  /// accepts either.
  public func parameter(_ name: String) -> String? {
    formFields.first { $0.name == name }?.value ?? queryValue(name)
  }

  /// Every value of `name` in the form fields and then the query arguments.
  public func parameters(_ name: String) -> [String] {
    formFields.filter { $0.name == name }.map(\.value) + queryValues(name)
  }

  /// `a=1&b=two+words&c=%2F` → pairs, `+` as a space and percent escapes decoded (WHATWG URL "application/x-www-form-
  /// urlencoded parsing"); a field without `=` has an empty value; an undecodable escape is kept as written.
  public static func formPairs(_ text: String) -> [(name: String, value: String)] {
    text.split(separator: "&").compactMap { field in
      guard !field.isEmpty else { return nil }
      let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
      }
      return (name: decode(pair[0]), value: pair.count > 1 ? decode(pair[1]) : "")
    }
  }
}
