/// Breaks a paragraph into lines of at most a given number of terminal columns.
///
/// For example: `LineWrapper(width: 10).wrap("news readable offline")` is `["news", "readable", "offline"]`.
///
/// Lines break at spaces (the space is dropped) and before or after East Asian wide characters (CJK text has no
/// spaces between words; UAX #14 allows a break around ideographs). A word wider than the line is cut between
/// characters (grapheme clusters, never inside one). No-break spaces (U+00A0) do not break. Widths are
/// ``TerminalColumns``.
package struct LineWrapper: Sendable {
  /// The columns available for text on the first line and on the lines after it (a prefix, such as a list marker
  /// or a label, takes the rest).
  package var firstWidth: Int
  package var restWidth: Int

  /// A wrapper whose first line may be narrower (or wider) than the others; widths below 1 count as 1.
  package init(firstWidth: Int, restWidth: Int) {
    self.firstWidth = firstWidth
    self.restWidth = restWidth
  }

  /// A wrapper with one width for every line.
  package init(width: Int) {
    self.init(firstWidth: width, restWidth: width)
  }

  /// The lines of `text`, a paragraph on one line (a line feed in it is a character like any other: split the
  /// text at line breaks first). Spaces at the ends of lines are dropped; an empty text is one empty line.
  package func wrap(_ text: String) -> [String] {
    var lines: [String] = []
    var line = ""
    var lineWidth = 0
    var limit = max(1, firstWidth)

    func finishLine() {
      while line.last == " " {
        line.removeLast()
        lineWidth -= 1
      }
      lines.append(line)
      line = ""
      lineWidth = 0
      limit = max(1, restWidth)
    }

    for piece in Self.pieces(of: text) {
      switch piece {
      case .space:
        if lineWidth > 0 && lineWidth < limit {
          line.append(" ")
          lineWidth += 1
        } else if lineWidth >= limit {
          finishLine()
        }
      case .word(let word, let width):
        if lineWidth > 0 && lineWidth + width > limit {
          finishLine()
        }
        if width <= limit - lineWidth {
          line += word
          lineWidth += width
          continue
        }
        // Wider than a whole line: cut between characters.
        for character in word {
          let columns = TerminalColumns.width(of: character)
          if lineWidth > 0 && lineWidth + columns > limit { finishLine() }
          line.append(character)
          lineWidth += columns
        }
      }
    }
    if !line.isEmpty || lines.isEmpty { finishLine() }
    return lines
  }

  /// `line` in pieces of at most `width` columns, cut between characters (a character wider than `width` is a
  /// piece of its own).
  static func cut(_ line: String, width: Int) -> [String] {
    guard TerminalColumns.width(of: line) > width else { return [line] }
    var pieces: [String] = []
    var piece = ""
    var used = 0
    for character in line {
      let columns = TerminalColumns.width(of: character)
      if used > 0 && used + columns > width {
        pieces.append(piece)
        piece = ""
        used = 0
      }
      piece.append(character)
      used += columns
    }
    if !piece.isEmpty { pieces.append(piece) }
    return pieces
  }

  enum Piece: Equatable {
    case space
    case word(String, width: Int)
  }

  /// The text as words and the spaces between them; each wide character is a word of its own. ASCII words are
  /// measured by their length (every printable ASCII character is one column); others character by character.
  static func pieces(of text: String) -> [Piece] {
    var pieces: [Piece] = []
    var text = text
    text.withUTF8 { bytes in
      var index = 0
      let count = bytes.count
      while index < count {
        if bytes[index] == 0x20 {
          pieces.append(.space)
          index += 1
          continue
        }
        var end = index
        var ascii = true
        while end < count, bytes[end] != 0x20 {
          if bytes[end] >= 0x80 { ascii = false }
          end += 1
        }
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        if ascii {
          pieces.append(.word(word, width: end - index))
        } else {
          appendMeasured(word, to: &pieces)
        }
        index = end
      }
    }
    return pieces
  }

  /// Splits a word with characters beyond ASCII at its wide characters and measures the parts.
  private static func appendMeasured(_ segment: String, to pieces: inout [Piece]) {
    var word = ""
    var width = 0
    for character in segment {
      if TerminalColumns.isWide(character) {
        if !word.isEmpty { pieces.append(.word(word, width: width)) }
        pieces.append(.word(String(character), width: TerminalColumns.width(of: character)))
        word = ""
        width = 0
      } else {
        word.append(character)
        width += TerminalColumns.width(of: character)
      }
    }
    if !word.isEmpty { pieces.append(.word(word, width: width)) }
  }
}
