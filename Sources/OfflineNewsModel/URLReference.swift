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
    guard needsEscape(trimmed) else { return parse(trimmed, against: base) }
    guard escaping else { return nil }
    // A host written in Unicode (an IDN, `http://bücher.example/`) is kept for Foundation to encode as IDNA
    // (`xn--bcher-kva.example`, RFC 5891), which DNS resolves; percent-encoded, it names no host. Should Foundation
    // refuse that host, the reference is read with every byte escaped, as any other.
    if let url = parse(escaped(trimmed, keepingUnicodeHost: true), against: base) { return url }
    return parse(escaped(trimmed), against: base)
  }

  /// `text` (no character URIs never hold, but for a Unicode host) parsed, resolved against `base` when relative.
  private static func parse(_ text: String, against base: URL?) -> URL? {
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
  /// `text` in ASCII, as it reads and copies as one link: escaped (``escaped(_:keepingUnicodeHost:)``), but for a
  /// Unicode host, which is encoded as IDNA (RFC 5891, by Foundation: `http://bücher.example/ü` is
  /// `http://xn--bcher-kva.example/%C3%BC`), or percent-encoded as the rest when Foundation refuses it.
  package static func asciiForm(_ text: String) -> String {
    let kept = escaped(text, keepingUnicodeHost: true)
    guard kept.utf8.contains(where: { $0 >= 0x80 }) else { return kept }
    return URL(string: kept)?.absoluteString ?? escaped(text)
  }

  /// With `keepingUnicodeHost`, the non-ASCII bytes of the host of an absolute or network-path reference
  /// (`scheme://host…`, `//host…`: after the authority's last `@`, before its port, RFC 3986 §3.2) are kept as they
  /// are, for Foundation to encode as IDNA.
  package static func escaped(_ text: String, keepingUnicodeHost: Bool = false) -> String {
    guard needsEscape(text) else { return text }
    let host = keepingUnicodeHost ? hostRange(text) : nil
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count * 3)
    for (offset, byte) in text.utf8.enumerated() {
      if isDisallowed(byte), !(byte >= 0x80 && host?.contains(offset) == true) {
        out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
      } else {
        out.append(byte)  // ASCII, or a byte of a kept host's UTF-8 (whole: a host ends at an ASCII byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The UTF-8 offsets of the host of an absolute or network-path reference (RFC 3986 §3.2: the authority after
  /// `//`, up to the first `/`, `?` or `#`; its host after the last `@`, up to a `:` port), or `nil` when it has
  /// no authority.
  private static func hostRange(_ text: String) -> Range<Int>? {
    let bytes = Array(text.utf8)
    var start = 0
    if hasScheme(text), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) { start = colon + 1 }
    guard bytes.count >= start + 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/")
    else { return nil }
    start += 2
    var end = start
    while end < bytes.count, !"/?#".utf8.contains(bytes[end]) { end += 1 }
    if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
    if let colon = bytes[start..<end].lastIndex(of: UInt8(ascii: ":")), !bytes[start..<end].contains(UInt8(ascii: "]"))
    {
      end = colon
    }
    return start..<end
  }

  private static func needsEscape(_ text: String) -> Bool { text.utf8.contains(where: isDisallowed) }

  private static func isDisallowed(_ byte: UInt8) -> Bool {
    byte <= 0x20 || byte >= 0x7F || disallowed.contains(byte)
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
  }

  private static let disallowed: Set<UInt8> = Set("\"<>\\^`{|}".utf8)
  private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
