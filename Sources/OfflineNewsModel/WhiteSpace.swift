extension Unicode.Scalar {
  /// Whether the scalar is white space as Unicode defines it (the `White_Space` property, what
  /// `properties.isWhitespace` answers): ASCII's tab, line feed, vertical tab, form feed, carriage return and space are
  /// told by their value, any other scalar by the property table. Most text is ASCII, and a property look-up per
  /// scalar was a visible part of reading feeds and imports.
  package var isWhiteSpace: Bool {
    value < 0x80 ? value == 0x20 || (value >= 0x09 && value <= 0x0D) : properties.isWhitespace
  }
}
