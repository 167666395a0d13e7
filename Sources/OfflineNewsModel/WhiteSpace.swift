extension Unicode.Scalar {
  /// Whether the scalar is white space as Unicode defines it (the `White_Space` property, what
  /// `properties.isWhitespace` answers): ASCII's tab, line feed, vertical tab, form feed, carriage return and space are
  /// told by their value, any other scalar by the property table. Most text is ASCII, and a property look-up per
  /// scalar was a visible part of reading feeds and imports.
  package var isWhiteSpace: Bool {
    value < 0x80 ? value == 0x20 || (value >= 0x09 && value <= 0x0D) : properties.isWhitespace
  }
}

extension StringProtocol {
  /// The text without white space at either end: ``Unicode/Scalar/isWhiteSpace`` (Unicode's `White_Space`) and
  /// U+200B ZERO WIDTH SPACE, which Unicode does not count but Foundation's `.whitespacesAndNewlines` trims (a feed
  /// date wrapped in it was read before and must still be); the same text, uncopied, when there is none at either end (the
  /// usual case). The package's one trim of values read from feeds, JSON and forms: Foundation's
  /// `trimmingCharacters(in:)` walks a `CharacterSet` and bridges the string on every call, a tenth of a whole import
  /// on Linux and 17,000 instructions for each feed date.
  package var trimmingWhiteSpace: String {
    let scalars = unicodeScalars
    func trimmed(_ scalar: Unicode.Scalar) -> Bool { scalar.isWhiteSpace || scalar == "\u{200B}" }
    guard let first = scalars.first, let last = scalars.last, trimmed(first) || trimmed(last) else {
      return String(self)
    }
    guard let start = scalars.firstIndex(where: { !trimmed($0) }), let end = scalars.lastIndex(where: { !trimmed($0) })
    else { return "" }
    return String(String.UnicodeScalarView(scalars[start...end]))
  }
}
