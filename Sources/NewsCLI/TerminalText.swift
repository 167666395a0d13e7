/// Text from the data made safe to print on a terminal: it cannot send codes, break a line, reorder what follows
/// it, or hide characters.
///
/// Every field ``OutputFormat/sanitized(_:collapsingWhitespace:)`` prints goes through ``field(_:collapsingWhitespace:)``,
/// every message of ``Console/printError(_:hint:)`` and ``Console/printNote(_:)`` through ``message(_:)``:
///
/// - Line breaks and tabs become spaces; other control characters (C0, DEL, C1: any escape sequence's introducer)
///   are dropped.
/// - Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069; UAX #9 §2.4–2.6) are closed at
///   the field's end: an open LRE, RLE, LRO or RLO gets its PDF, an open LRI, RLI or FSI its PDI, innermost first.
///   A PDF or PDI that closes nothing the field opened is dropped. So a headline holding U+202E cannot reverse the
///   columns after it. Right-to-left text itself (Arabic, Hebrew…) is unchanged.
/// - The bidi marks LRM, RLM and ALM (U+200E, U+200F, U+061C) are kept between two visible characters of the field,
///   where they shape its own layout, and dropped at its ends, where they could only act on the text around it.
/// - Invisible format characters (general category Cf) are dropped: the soft hyphen, zero-width space, word joiner
///   and invisible operators (U+2060–U+2064), U+FEFF, the Mongolian vowel separator, the deprecated U+206A–U+206F,
///   interlinear annotation marks, language tags… with three exceptions that are part of what is shown: ZWJ and ZWNJ
///   between two letters, marks or emoji (Indic conjuncts, Persian words, emoji ZWJ sequences); tag characters in an
///   emoji tag sequence (a flag like 🏴󠁧󠁢󠁳󠁣󠁴󠁿, U+1F3F4 followed by tags, Unicode TR #51 §2.3.1); and the visible
///   prepended concatenation marks (Arabic number signs U+0600–U+0605, U+06DD, U+070F, U+0890–U+0891, U+08E2, Kaithi
///   U+110BD, U+110CD).
/// - Variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian U+180B–U+180D, U+180F) are kept after a visible
///   base character and dropped when alone (at the field's start or after a space).
///
/// `--json` output never goes through here: it is the data, verbatim.
enum TerminalText {
  /// A field of the data, one line (see the type's rules); with `collapsingWhitespace`, runs of the spaces made from
  /// line breaks and tabs become one, and the ends are trimmed.
  static func field(_ text: String, collapsingWhitespace: Bool = false) -> String {
    sanitize(text, collapsingWhitespace: collapsingWhitespace, boundaries: [])
  }

  /// A message for standard error, one line: as a field, but every ASCII double quote also ends a field (bidi
  /// controls are closed and bidi marks dropped before it), since messages quote values from the data
  /// (`"…" is not a date`) and a quoted value must not reorder the rest of the message.
  static func message(_ text: String) -> String {
    sanitize(text, collapsingWhitespace: false, boundaries: ["\""])
  }

  /// `text` with its open embeddings, overrides and isolates closed at its end (after a cut, for instance).
  static func closingBidi(_ text: String) -> String {
    var balance = BidiBalance()
    for scalar in text.unicodeScalars {
      switch BidiControl(scalar) {
      case .embedding?: balance.open(.embedding)
      case .isolate?: balance.open(.isolate)
      case .popEmbedding?: _ = balance.closeEmbedding()
      case .popIsolate?: _ = balance.closeIsolate()
      case nil: break
      }
    }
    return balance.isBalanced ? text : text + balance.closers
  }

  // MARK: - The pass

  private static func sanitize(_ text: String, collapsingWhitespace: Bool, boundaries: Set<Unicode.Scalar>)
    -> String
  {
    let input = Array(text.unicodeScalars)
    var output = String.UnicodeScalarView()
    var balance = BidiBalance()
    var pendingSpace = false
    var pendingMarks: [Unicode.Scalar] = []
    var sawVisible = false
    var last: Unicode.Scalar?
    var inTagSequence = false

    func emit(_ scalar: Unicode.Scalar) {
      output.append(scalar)
      last = scalar
    }
    func flushSpace() {
      if pendingSpace && sawVisible { emit(" ") }
      pendingSpace = false
    }
    func emitVisible(_ scalar: Unicode.Scalar) {
      flushSpace()
      if sawVisible { for mark in pendingMarks { emit(mark) } }
      pendingMarks = []
      emit(scalar)
      sawVisible = true
      inTagSequence = scalar == "\u{1F3F4}"
    }
    func endField() {
      pendingMarks = []
      output.append(contentsOf: balance.closers.unicodeScalars)
      balance = BidiBalance()
    }

    for (index, scalar) in input.enumerated() {
      // Printable ASCII but the space (most of the data): what the checks below make of it (no line break, control,
      // bidi control or mark, variation selector or format character), without looking up Unicode properties.
      if (0x21...0x7E).contains(scalar.value) && (boundaries.isEmpty || !boundaries.contains(scalar)) {
        emitVisible(scalar)
        continue
      }
      if isLineBreakOrTab(scalar) {
        inTagSequence = false
        if collapsingWhitespace {
          pendingSpace = true
        } else {
          emitVisible(" ")
        }
        continue
      }
      let category = scalar.properties.generalCategory
      if category == .control { continue }
      if boundaries.contains(scalar) {
        endField()
        emitVisible(scalar)
        continue
      }
      if let control = BidiControl(scalar) {
        switch control {
        case .embedding:
          // A space before an initiator stays before it (outside the scope it opens).
          flushSpace()
          balance.open(.embedding)
          emit(scalar)
        case .isolate:
          flushSpace()
          balance.open(.isolate)
          emit(scalar)
        case .popEmbedding:
          if balance.closeEmbedding() { emit(scalar) }
        case .popIsolate:
          if balance.closeIsolate() { emit(scalar) }
        }
        continue
      }
      if isBidiMark(scalar) {
        pendingMarks.append(scalar)
        continue
      }
      if isVariationSelector(scalar) {
        if let last, sawVisible, isBase(last) { emit(scalar) }
        continue
      }
      if category == .format {
        switch scalar.value {
        case 0x200C, 0x200D:
          let next = index + 1 < input.count ? input[index + 1] : nil
          if let last, let next, sawVisible, isJoinable(last), isJoinable(next) { emit(scalar) }
        case 0xE0020...0xE007E:
          if inTagSequence { emit(scalar) }
        case 0xE007F:
          if inTagSequence { emit(scalar) }
          inTagSequence = false
        default:
          if isPrependedConcatenationMark(scalar) { emitVisible(scalar) }
        }
        continue
      }
      emitVisible(scalar)
    }
    endField()
    return String(output)
  }

  // MARK: - Character classes

  private static func isLineBreakOrTab(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isWhitespace && (scalar.value <= 0x20 || [0x85, 0x2028, 0x2029].contains(scalar.value))
  }

  /// LRM, RLM, ALM: strong directional characters without a glyph (UAX #9 §2.6).
  private static func isBidiMark(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
  }

  private static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: return true
    default: return false
    }
  }

  /// A character a variation selector can apply to: anything shown that is not a space.
  private static func isBase(_ scalar: Unicode.Scalar) -> Bool {
    !scalar.properties.isWhitespace && scalar.properties.generalCategory != .format
  }

  /// A character ZWJ or ZWNJ may stand beside and have an effect: a letter, a mark, an emoji (not the ASCII and
  /// Latin-1 characters that merely can be one: digits, `#`, `*`, ©, ®).
  private static func isJoinable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
      .spacingMark, .enclosingMark:
      return true
    default:
      return scalar.value > 0xFF && (scalar.properties.isEmoji || scalar.properties.isEmojiModifier)
    }
  }

  /// Format characters that are shown: the prepended concatenation marks (Unicode `PropList.txt`).
  private static func isPrependedConcatenationMark(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0600...0x0605, 0x06DD, 0x070F, 0x0890...0x0891, 0x08E2, 0x110BD, 0x110CD: return true
    default: return false
    }
  }
}

/// The explicit bidi formatting characters that open or close a scope (UAX #9 §2.1–2.5).
private enum BidiControl {
  /// LRE, RLE, LRO, RLO: closed by PDF.
  case embedding
  /// LRI, RLI, FSI: closed by PDI.
  case isolate
  /// PDF.
  case popEmbedding
  /// PDI.
  case popIsolate

  init?(_ scalar: Unicode.Scalar) {
    switch scalar.value {
    case 0x202A, 0x202B, 0x202D, 0x202E: self = .embedding
    case 0x202C: self = .popEmbedding
    case 0x2066, 0x2067, 0x2068: self = .isolate
    case 0x2069: self = .popIsolate
    default: return nil
    }
  }
}

/// The scopes a text has opened and not closed, innermost last, with the rules of UAX #9 §3.3.2 (X6a, X7): a PDI
/// closes the innermost open isolate and every embedding opened inside it; a PDF closes the innermost embedding
/// only when no isolate was opened after it.
private struct BidiBalance {
  enum Scope { case embedding, isolate }
  private var open: [Scope] = []

  var isBalanced: Bool { open.isEmpty }

  mutating func open(_ scope: Scope) { open.append(scope) }

  /// Whether a PDF closes something (else it is to be dropped).
  mutating func closeEmbedding() -> Bool {
    guard open.last == .embedding else { return false }
    open.removeLast()
    return true
  }

  /// Whether a PDI closes something (else it is to be dropped).
  mutating func closeIsolate() -> Bool {
    guard let isolate = open.lastIndex(of: .isolate) else { return false }
    open.removeSubrange(isolate...)
    return true
  }

  /// The PDFs and PDIs that close every open scope, innermost first.
  var closers: String {
    String(String.UnicodeScalarView(open.reversed().map { $0 == .embedding ? "\u{202C}" : "\u{2069}" }))
  }
}
