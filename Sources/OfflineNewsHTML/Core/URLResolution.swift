import CLibXML2
import Foundation

/// Resolving a reference found in a page (`href`, `src`) against the page's base URL (RFC 3986 §5.2), with
/// libxml2's `xmlBuildURI`.
enum URLResolution {
  /// `reference` made absolute against `base`; the reference itself when it is already absolute or there is no
  /// base; `nil` when it cannot be resolved. Surrounding ASCII whitespace is ignored, as browsers do.
  static func resolve(_ reference: String, against base: URL?) -> String? {
    let trimmed = trimmingHTMLWhitespace(reference)
    if hasScheme(trimmed) { return trimmed }
    guard let base else { return trimmed }
    // A reference with spaces or characters beyond ASCII is escaped first: xmlBuildURI refuses them.
    let escaped = escapeForURI(trimmed)
    // A refused reference (one over libxml2's 1 MB MAX_URI_LENGTH) is reported on the thread's generic error
    // handler, which would print "URI error : …" on standard error: it is only `nil` here.
    let previous = clibxml2_silence_errors()
    defer { clibxml2_restore_errors(previous) }
    guard let built = xmlBuildURI(escaped, base.absoluteString) else { return nil }
    defer { clibxml2_free(built) }
    return String(cString: built)
  }

  /// Whether a reference is a `javascript:` URL as a browser reads it (WHATWG URL Standard: leading C0 controls
  /// and spaces stripped, tabs and line breaks removed anywhere, the scheme case-insensitive), or as an XML or HTML
  /// parser reading it again would (libxml2 drops every other C0 control and DEL from attribute values too).
  static func isJavaScript(_ reference: String) -> Bool {
    var scalars = withoutControls(reference).unicodeScalars[...]
    while let first = scalars.first, first.value <= 0x20 { scalars = scalars.dropFirst() }
    let prefix = String(String.UnicodeScalarView(scalars.prefix(11))).lowercased()
    return prefix == "javascript:"
  }

  /// `text` without C0 control characters (tab and line breaks included) and DEL, which no URL keeps
  /// (RFC 3986 allows none of them; the WHATWG URL parser removes tabs and line breaks and percent-encodes the rest).
  static func withoutControls(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
  }

  /// Whether `text` starts with an RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`, then `:`.
  static func hasScheme(_ text: String) -> Bool {
    var first = true
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): break
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
        if first { return false }
      case UInt8(ascii: ":"): return !first
      default: return false
      }
      first = false
    }
    return false
  }

  /// Percent-encodes the bytes RFC 3986 never allows in a URI reference (space, controls, `"<>\^`{|}`, non-ASCII),
  /// leaving `%` and every reserved character as it is.
  static func escapeForURI(_ text: String) -> String {
    var needs = false
    for byte in text.utf8 where byte <= 0x20 || byte >= 0x7F || disallowed.contains(byte) {
      needs = true
      break
    }
    guard needs else { return text }
    var out = ""
    for byte in text.utf8 {
      if byte <= 0x20 || byte >= 0x7F || disallowed.contains(byte) {
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      } else {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return out
  }

  private static let disallowed: Set<UInt8> = Set("\"<>\\^`{|}".utf8)
}

extension String {
  fileprivate func leftPadded(to count: Int) -> String {
    self.count >= count ? self : String(repeating: "0", count: count - self.count) + self
  }
}

/// `text` without leading and trailing ASCII whitespace as the HTML standard defines it (tab, line feed, form feed,
/// carriage return, space).
func trimmingHTMLWhitespace(_ text: String) -> String {
  let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0C || $0 == 0x0D }
  let utf8 = text.utf8
  guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) })
  else { return "" }
  if first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) { return text }
  return String(text[first...last])
}
