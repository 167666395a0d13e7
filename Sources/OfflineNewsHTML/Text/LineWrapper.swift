/// Breaks a paragraph into lines of at most a given number of terminal columns.
///
/// Lines break at spaces (the space is dropped) and before or after East Asian wide characters (CJK text has no
/// spaces between words; UAX #14 allows a break around ideographs). A word wider than the line is cut between
/// characters (grapheme clusters, never inside one). No-break spaces (U+00A0) do not break. Widths are
/// ``TerminalColumns``.
struct LineWrapper {
  /// The columns available for text on the first line and on the lines after it (the prefixes take the rest).
  var firstWidth: Int
  var restWidth: Int

  /// The lines of `text` (a paragraph without line breaks).
  func wrap(_ text: String) -> [String] {
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

  enum Piece: Equatable {
    case space
    case word(String, width: Int)
  }

  /// The text as words and the spaces between them; each wide character is a word of its own.
  static func pieces(of text: String) -> [Piece] {
    var pieces: [Piece] = []
    var word = ""
    var width = 0
    func flush() {
      if !word.isEmpty { pieces.append(.word(word, width: width)) }
      word = ""
      width = 0
    }
    for character in text {
      if character == " " {
        flush()
        pieces.append(.space)
      } else if TerminalColumns.isWide(character) {
        flush()
        pieces.append(.word(String(character), width: TerminalColumns.width(of: character)))
      } else {
        word.append(character)
        width += TerminalColumns.width(of: character)
      }
    }
    flush()
    return pieces
  }
}
