import OfflineNewsHTML

/// Laying out reading text (an article, its metadata) for the console.
extension OutputFormat {
  /// The width to wrap reading text to: the console's, at most 100 columns (longer lines are hard to follow);
  /// `nil` without one (a pipe: no wrapping).
  static func readingWidth(_ width: Int?) -> Int? {
    width.map { max(1, min($0, 100)) }
  }

  /// `text` with each of its lines made safe to print (``sanitized(_:collapsingWhitespace:)``), line breaks kept.
  static func sanitizedLines(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { sanitized(String($0)) }
      .joined(separator: "\n")
  }

  /// A label and its value on one line, the value wrapped to `width` with its further lines under its start:
  /// `label  value…` (the label already padded to `indent` columns). With `attribute`, the value's lines are
  /// drawn in it on a colour console.
  static func labelled(
    _ label: String, _ value: String, indent: Int, width: Int?, attribute: TextStyle.Attribute? = nil,
    color: Bool = false
  ) -> String {
    let style = TextStyle(enabled: color)
    let lines = width.map { LineWrapper(width: max(1, $0 - indent)).wrap(value) } ?? [value]
    let margin = String(repeating: " ", count: indent)
    return lines.enumerated().map { index, line in
      (index == 0 ? label : margin) + (attribute.map { style.apply($0, line) } ?? line)
    }.joined(separator: "\n")
  }
}
