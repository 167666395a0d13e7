import Foundation

/// Resolving a URI reference against a base URL (RFC 3986 §5.2, with Foundation's `URL(string:relativeTo:)`): the
/// one resolver of the package, for links in pages (`href`, `src`), in feeds (`xml:base`, RSS and Atom links, JSON
/// Feed URLs) and in imported records (a mapping's `baseURL`).
///
/// The rules, the same for every caller:
/// - ASCII white space around the reference is ignored (HTML's: tab, line feed, form feed, carriage return, space,
///   a superset of XML's `S`), as browsers and feed readers do; an empty reference resolves to nothing.
/// - Characters RFC 3986 never allows in a reference (space, controls, `"<>\^`{|}`, non-ASCII) are percent-encoded
///   as UTF-8, unless the caller refuses such references (`escaping: false`, an imported value that must be a
///   reference as written); `%` and every reserved character stay as they are.
/// - A reference with a scheme is absolute and resolves to itself; one without resolves against `base`. The `feed`
///   scheme that browsers and OPML files of some readers write for a feed (`feed://host/path`, `feed:https://…`,
///   draft-obasanjo-feed-URI) names the http(s) URL inside it (``unwrappingFeedScheme(_:)``).
///
/// What a caller accepts of the result (only `http(s)` with a host, ``Foundation/URL/isWebURL``; or also `file:`)
/// is the caller's rule, checked on the URL this returns.
package enum URLReference {
  /// `reference` resolved against `base` (RFC 3986 §5.2), or `nil` when it is empty, holds a character URIs never
  /// hold and `escaping` is off, is relative with no `base`, or cannot be parsed.
  ///
  /// ```swift
  /// URLReference.resolve(" ../g ", against: URL(string: "http://a/b/c/d;p?q"))  // http://a/b/g
  /// ```
  package static func resolve(_ reference: String, against base: URL?, escaping: Bool = true) -> URL? {
    let trimmed = trimmingWhitespace(reference)
    guard !trimmed.isEmpty else { return nil }
    let text: String
    if needsEscape(trimmed) {
      guard escaping else { return nil }
      text = escaped(trimmed)
    } else {
      text = trimmed
    }
    if hasScheme(text) { return URL(string: unwrappingFeedScheme(text)) }
    guard let base, let url = URL(string: text, relativeTo: base) else { return nil }
    return url.absoluteURL
  }

  /// The http(s) URL a `feed` URI names: `feed://host/path` is `http://host/path`, `feed:https://host/path` is
  /// `https://host/path` (draft-obasanjo-feed-URI, as browsers and NetNewsWire read it); any other text as it is.
  package static func unwrappingFeedScheme(_ text: String) -> String {
    let lowered = text.prefix(13).lowercased()
    if lowered.hasPrefix("feed://") { return "http://" + text.dropFirst(7) }
    if lowered.hasPrefix("feed:http://") || lowered.hasPrefix("feed:https://") { return String(text.dropFirst(5)) }
    return text
  }

  /// Whether `text` starts with an RFC 3986 scheme (§3.1): a letter, then letters, digits, `+`, `-`, `.`, then `:`.
  package static func hasScheme(_ text: String) -> Bool {
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

  /// `text` without leading and trailing ASCII white space as the HTML standard defines it (tab, line feed, form
  /// feed, carriage return, space).
  package static func trimmingWhitespace(_ text: String) -> String {
    let utf8 = text.utf8
    guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) })
    else { return "" }
    if first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) { return text }
    return String(text[first...last])
  }

  /// `text` with the bytes RFC 3986 never allows in a URI reference (space, controls, `"<>\^`{|}`, non-ASCII)
  /// percent-encoded, leaving `%` and every reserved character as it is.
  package static func escaped(_ text: String) -> String {
    guard needsEscape(text) else { return text }
    var out = ""
    for byte in text.utf8 {
      if isDisallowed(byte) {
        out += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0xF)])
      } else {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return out
  }

  private static func needsEscape(_ text: String) -> Bool { text.utf8.contains(where: isDisallowed) }

  private static func isDisallowed(_ byte: UInt8) -> Bool {
    byte <= 0x20 || byte >= 0x7F || disallowed.contains(byte)
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
  }

  private static let disallowed: Set<UInt8> = Set("\"<>\\^`{|}".utf8)
  private static let hexDigits = Array("0123456789ABCDEF")
}
