import Foundation
import OfflineNewsModel

/// Resolving a reference found in a page (`href`, `src`) against the page's base URL: the package's one resolver
/// (``URLReference``, RFC 3986 §5.2), with what a page's rewriting needs around it.
enum URLResolution {
  /// `reference` made absolute against `base` (``URLReference/resolve(_:against:escaping:)``: surrounding ASCII
  /// white space ignored, as browsers do, characters URIs never hold percent-encoded); the reference itself, as
  /// written, when it already has a scheme or there is no base; the base for an empty reference (RFC 3986 §5.2.2:
  /// the document itself); `nil` when it cannot be resolved.
  static func resolve(_ reference: String, against base: URL?) -> String? {
    let trimmed = URLReference.trimmingWhitespace(reference)
    if URLReference.hasScheme(trimmed) { return trimmed }
    guard let base else { return trimmed }
    if trimmed.isEmpty { return base.absoluteString }
    return URLReference.resolve(trimmed, against: base)?.absoluteString
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

}
