import OfflineNewsModel

extension String {
  /// The text with every run of white space (new lines included; Unicode `White_Space`) made one space, and trimmed:
  /// how a feed's titles, names and categories are read.
  var collapsingWhiteSpace: String {
    var result = String.UnicodeScalarView()
    var pendingSpace = false
    for scalar in unicodeScalars {
      if scalar.isWhiteSpace {
        pendingSpace = !result.isEmpty
      } else {
        if pendingSpace { result.append(" ") }
        pendingSpace = false
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// The text without XML's white space (space, tab, carriage return, line feed: XML 1.0 §2.3 `S`) at either end.
  var trimmedXMLSpace: String {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    let bytes = utf8
    guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return "" }
    // After the last byte that is not a space comes a space or the end: a character boundary.
    return String(self[first..<bytes.index(after: last)])
  }
}
