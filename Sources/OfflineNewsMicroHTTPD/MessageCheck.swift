import Foundation

/// The rules of RFC 9112 on a request's framing and `Host` that libmicrohttpd 0.9.75 does not apply itself: it
/// parses the header fields and keeps every line (`MHD_get_connection_values` iterates them all), but reads the
/// first `Host` and the first `Content-Length` and ignores the others, so that a second one could slip a request past
/// the Host check or frame the body differently from a proxy in front (request smuggling). It already answers 400
/// itself for a `Content-Length` that is no single decimal number (`2, 5`, `-1`, `abc`), and those are not checked
/// here again.
///
/// A request is refused, before its body is read and with the connection closed, when it has
/// - more than one `Host` line, or a `Host` value that is not `uri-host [":" port]` (RFC 9112 §3.2; RFC 3986 §3.2.2),
///   or no `Host` at all in HTTP/1.1 (§3.2): 400;
/// - `Content-Length` lines of different values (§6.3 point 5; identical ones are one value, as §6.3 allows): 400;
/// - `Transfer-Encoding` together with `Content-Length` (§6.1: a server may refuse it, and must close the
///   connection either way), in an HTTP/1.0 request (§6.1: its framing is faulty), or whose last coding is not
///   `chunked` (§6.3 point 4: the body's length cannot be known) or that applies `chunked` twice (§7): 400;
/// - any transfer coding besides one `chunked` (`gzip, chunked`), which libmicrohttpd does not decode: 501 (§6.1).
enum MessageCheck {
  /// Why the request with `version` (`HTTP/1.1`) and `headers` (names lower-cased, every line in order) is refused,
  /// and its status; `nil` when it may be read.
  static func refusal(version: String, headers: [(name: String, value: String)]) -> (status: Int, reason: String)? {
    let hosts = headers.filter { $0.name == "host" }.map(\.value)
    if hosts.count > 1 { return (400, "more than one Host header field") }
    if let host = hosts.first, !isValidHost(host) { return (400, "invalid Host header field") }
    if hosts.isEmpty, version.uppercased() == "HTTP/1.1" { return (400, "no Host header field") }
    let lengths = headers.filter { $0.name == "content-length" }.map { $0.value.trimmingCharacters(in: .whitespaces) }
    if Set(lengths).count > 1 { return (400, "Content-Length header fields of different values") }
    let encodings = headers.filter { $0.name == "transfer-encoding" }.map(\.value)
    guard !encodings.isEmpty else { return nil }
    if !lengths.isEmpty { return (400, "both Transfer-Encoding and Content-Length") }
    if version.uppercased() == "HTTP/1.0" { return (400, "Transfer-Encoding in an HTTP/1.0 request") }
    let codings = encodings.joined(separator: ",").split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }.filter { !$0.isEmpty }
    if codings.last != "chunked" || codings.filter({ $0 == "chunked" }).count > 1 {
      return (400, "Transfer-Encoding whose last coding is not one chunked")
    }
    if codings.count > 1 { return (501, "transfer codings besides chunked are not implemented") }
    return nil
  }

  /// Whether `value` is `uri-host [":" port]` (RFC 9110 §7.2, RFC 3986 §3.2.2): an IP literal in brackets, or a
  /// `reg-name` (possibly empty: RFC 9112 §3.2 sends an empty Host for a target without authority) or IPv4 address
  /// of unreserved characters, percent escapes and sub-delimiters; then a port of digits. No user information, no
  /// white space, no second colon.
  static func isValidHost(_ value: String) -> Bool {
    var rest = Substring(value)
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { return false }
      let literal = rest[rest.index(after: rest.startIndex)..<close]
      guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || ":.vV-_~!$&'()*+,;=".contains($0) }) else {
        return false
      }
      rest = rest[rest.index(after: close)...]
    } else {
      let name = rest.prefix { $0 != ":" }
      let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%")
      guard name.allSatisfy({ allowed.contains($0) }) else { return false }
      rest = rest[name.endIndex...]
    }
    if rest.isEmpty { return true }
    guard rest.hasPrefix(":") else { return false }
    return rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
  }
}
