/// How many columns text takes on a terminal.
///
/// For example: `TerminalColumns.width(of: "日本語")` is 6, `TerminalColumns.width(of: "e\u{301}")` is 1.
///
/// A character (grapheme cluster) takes 0 columns when made only of combining marks, format and control characters
/// (zero-width space, joiners, bidi marks); 2 for East Asian Wide and Fullwidth characters (CJK ideographs, kana,
/// Hangul syllables, fullwidth forms; Unicode Standard Annex #11, East Asian Width, Unicode 15) and emoji shown as
/// emoji (Emoji_Presentation, a U+FE0F variation selector, flags, ZWJ sequences); 1 otherwise. This is what
/// `wcwidth` and the common terminals compute.
package enum TerminalColumns {
  /// The columns one character takes: 0, 1 or 2.
  package static func width(of character: Character) -> Int {
    if character.isASCII {
      guard let value = character.asciiValue else { return 1 }  // "\r\n"
      return value < 0x20 || value == 0x7F ? 0 : 1
    }
    var visible = false
    var wide = false
    for scalar in character.unicodeScalars where !isZeroWidth(scalar) {
      visible = true
      if scalar.properties.isEmojiPresentation || isEastAsianWide(scalar) { wide = true }
    }
    guard visible else { return 0 }
    if wide { return 2 }
    let scalars = character.unicodeScalars
    if scalars.contains("\u{FE0F}"), scalars.first?.properties.isEmoji == true { return 2 }
    return 1
  }

  /// The columns a text takes: the sum of its characters' widths.
  package static func width(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + width(of: $1) }
  }

  /// Whether a character is East Asian Wide or Fullwidth (a line may break before or after it).
  static func isWide(_ character: Character) -> Bool {
    !character.isASCII && width(of: character) == 2
      && character.unicodeScalars.first.map { isEastAsianWide($0) } == true
  }

  private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control: return true
    default: return (0x1160...0x11FF).contains(scalar.value)  // Hangul medial vowels and final consonants
    }
  }

  /// East Asian Width W or F (UAX #11, Unicode 15), except emoji, which are told by their properties.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
    0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF,
    0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]

  private static func isEastAsianWide(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    guard value >= 0x1100 else { return false }
    return wideRanges.contains { $0.contains(value) }
  }
}
