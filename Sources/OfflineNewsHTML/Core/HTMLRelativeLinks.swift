import Foundation
import OfflineNewsModel

/// Relative references inside an HTML fragment (a feed item's summary or content) made absolute, on libxml2's HTML
/// parser: what the item's `xml:base` (or the feed's URL) means for the links and images of its text, which is
/// stored without its base.
///
/// For example:
/// ```swift
/// HTMLRelativeLinks.resolving(#"<a href="/a">x</a>"#, against: URL(string: "https://example.org/feed")!)
/// // <a href="https://example.org/a">x</a>
/// ```
package enum HTMLRelativeLinks {
  /// The attributes that hold one URL reference, on any element: `href` (`a`, `area`, `link`), `src` (`img`,
  /// `video`, `audio`, `source`, `iframe`, `embed`, `track`), `poster`, `cite` (`blockquote`, `q`, `del`, `ins`),
  /// `longdesc`, `action`, `formaction`, `background`, `data` (`object`). `srcset` is a list and is rewritten URL by
  /// URL.
  static let referenceAttributes: Set<String> = [
    "href", "src", "poster", "cite", "longdesc", "action", "formaction", "background", "data",
  ]

  /// `html` with every relative reference resolved against `base` (RFC 3986 §5.2; fragment-only references `#x`
  /// and references with a scheme stay as written). HTML that holds no relative reference is returned unchanged,
  /// byte for byte, without being parsed; otherwise the fragment is read by libxml2's HTML parser and written back
  /// by its serialiser.
  package static func resolving(_ html: String, against base: URL) -> String {
    guard mayHoldRelativeReference(html) else { return html }
    let document = HTMLDocument(html: html, url: base)
    guard let body = document.body else { return html }
    var changed = false
    for element in [body] + body.descendants {
      for (name, value) in element.attributes {
        let lowered = name.lowercased()
        if referenceAttributes.contains(lowered) {
          let trimmed = URLReference.trimmingWhitespace(value)
          guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !URLReference.hasScheme(trimmed),
            let resolved = URLResolution.resolve(trimmed, against: base), resolved != value
          else { continue }
          element.setAttribute(name, to: resolved)
          changed = true
        } else if lowered == "srcset" {
          let rewritten = Srcset.rewritingURLs(value) { reference in
            URLReference.hasScheme(reference)
              ? reference : URLResolution.resolve(reference, against: base) ?? reference
          }
          if rewritten != value {
            element.setAttribute(name, to: rewritten)
            changed = true
          }
        }
      }
    }
    return changed ? body.innerHTML : html
  }

  /// A cheap look for an attribute that may hold a relative reference: `href=`, `src=` (also `srcset=`, …) or one of
  /// the other reference attributes, whose value does not start with `http:`, `https:`, `mailto:`, `data:` or `#`.
  /// Only a hint that decides whether the fragment is parsed at all: the parser then decides what is an attribute.
  static func mayHoldRelativeReference(_ html: String) -> Bool {
    let bytes = Array(html.utf8)
    guard bytes.contains(UInt8(ascii: "=")) else { return false }
    var index = 0
    while index < bytes.count {
      defer { index += 1 }
      guard bytes[index] == UInt8(ascii: "=") else { continue }
      // The attribute name before the `=` (white space allowed between).
      var end = index
      while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0A { end -= 1 }
      var start = end
      while start > 0, (bytes[start - 1] | 0x20) >= UInt8(ascii: "a"), (bytes[start - 1] | 0x20) <= UInt8(ascii: "z") {
        start -= 1
      }
      let name = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
      guard referenceAttributes.contains(name) || name == "srcset" else { continue }
      // The value's first characters.
      var value = index + 1
      while value < bytes.count, bytes[value] == 0x20 || bytes[value] == 0x09 || bytes[value] == 0x0A { value += 1 }
      if value < bytes.count, bytes[value] == UInt8(ascii: "\"") || bytes[value] == UInt8(ascii: "'") { value += 1 }
      let head = String(decoding: bytes[value..<min(bytes.count, value + 8)], as: UTF8.self).lowercased()
      if head.hasPrefix("http:") || head.hasPrefix("https:") || head.hasPrefix("mailto:") || head.hasPrefix("data:")
        || head.hasPrefix("#") || head.hasPrefix("\"") || head.hasPrefix("'") || head.isEmpty
      {
        continue
      }
      return true
    }
    return false
  }
}
