import OfflineNewsModel

/// Why a search text cannot be searched.
public enum SearchQueryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text holds no word to look for: it is empty, or only spaces, punctuation and stray quotes or stars.
  case noTerms(String)
  /// The text holds more words and phrases than `SearchQuery.maximumTerms`.
  case tooManyTerms(count: Int, maximum: Int)

  public var description: String {
    switch self {
    case .noTerms(let text):
      let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
      return text.allSatisfy(\.isWhitespace)
        ? "the search text is empty"
        : "the search text \(JSONText.quoted(shown)) has no word to look for (only punctuation)"
    case .tooManyTerms(let count, let maximum):
      return "the search text has \(count) words and phrases; at most \(maximum) are allowed"
    }
  }
}

/// A user's search text, parsed into words, phrases and operators, and its safe SQLite FTS5 form.
///
/// What a user can type:
/// - words: `storm ferries` finds articles holding both (an implicit `AND`);
/// - phrases in double quotes (`"climate change"`; typographic quotes “ ” „ too): the words next to each other;
/// - prefixes with a trailing `*`: `elect*` finds election, electric…; `"climate chan"*` is a phrase prefix;
/// - the operators `AND`, `OR` and `NOT`, in capitals, between two words or phrases. `NOT` binds tightest, then
///   `AND` (written or implied by a space), then `OR`: `a OR b NOT c d` is `a OR (b AND d AND NOT c)`.
///
/// Anything else is plain text, never query syntax: an operator at the start or the end, or next to another operator,
/// is searched as a word (`NOT` alone looks for "not"); lowercase `and`/`or`/`not` are words; the characters
/// `( ) [ ] { } : ; , ^` and control characters split words (so `title:storm` is the words "title" and "storm", and
/// `NEAR(a b)` the words "near", "a" and "b"); other punctuation stays inside its word (`covid-19`, `U.S.`,
/// `e-mail` are searched as those tokens in a row); a quote without a closing one, a `*` that does not end a word,
/// and words made only of punctuation are ignored. The text never reaches SQL: every word becomes an FTS5 string
/// (`"word"`, inner double quotes doubled) and the whole expression is a bound parameter of `MATCH`.
///
/// Soft hyphens, zero-width spaces, joiners and word joiners are removed from the text before it is read
/// (`foldedScalars`), as they are from the indexed text.
///
/// Words in scripts written without spaces between words — Chinese, Japanese, Korean (Hangul), Thai, Lao, Khmer,
/// Myanmar — are found anywhere inside the text (substring search), since FTS5's `unicode61` tokenizer cannot cut
/// such text into words; see `StorageContext.search(_:filter:limit:offset:)`.
///
/// For example:
/// ```swift
/// let query = try SearchQuery("storm OR gale NOT \"weather warning\" ferr*")
/// query.matchExpression  // (("storm")) OR (("gale" AND "ferr"*) NOT ("weather warning"))
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#full_text_query_syntax>
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {

  /// One word or phrase to look for.
  package struct Term: Sendable, Hashable {
    /// The word or the phrase's text as typed, without quotes or the trailing `*`.
    package var text: String
    /// Whether it was a quoted phrase.
    package var isPhrase: Bool
    /// Whether it ends with `*`: a prefix of a word (of the phrase's last word).
    package var isPrefix: Bool

    /// Whether it holds characters of a script written without spaces between words (Han, Hiragana, Katakana,
    /// Hangul, Bopomofo, Thai, Lao, Khmer, Myanmar): such a term is searched as a substring.
    package var isSubstring: Bool { text.unicodeScalars.contains(where: SearchQuery.isUnspacedScript) }

    /// The term as an FTS5 string: `"text"` with inner double quotes doubled, then `*` for a prefix. A NUL becomes
    /// a space: FTS5 reads its query as a C string, so a NUL would end it inside the quotes ("unterminated string");
    /// the tokenizer splits words at a NUL in the text anyway. Built from Unicode scalars, not Characters: a quote
    /// followed by a combining mark is one Character, and must still be doubled.
    package var ftsString: String {
      var quoted = String.UnicodeScalarView()
      quoted.append("\"")
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": quoted.append(contentsOf: "\"\"".unicodeScalars)
        case "\u{0}": quoted.append(" ")
        default: quoted.append(scalar)
        }
      }
      quoted.append("\"")
      if isPrefix { quoted.append("*") }
      return String(quoted)
    }

    /// The text a substring search looks for: ends trimmed of punctuation, white space collapsed to one space,
    /// ASCII letters lowercased (as SQLite's `lower()` does without ICU).
    var needle: String {
      let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      let scalars = Array(words.unicodeScalars)
      guard let first = scalars.firstIndex(where: SearchQuery.isWordContent),
        let last = scalars.lastIndex(where: SearchQuery.isWordContent)
      else { return "" }
      var view = String.UnicodeScalarView()
      for scalar in scalars[first...last] {
        if scalar.value >= 0x41 && scalar.value <= 0x5A, let lower = Unicode.Scalar(scalar.value + 0x20) {
          view.append(lower)
        } else {
          view.append(scalar)
        }
      }
      return String(view)
    }

    /// A term; `text` is used as it is (quotes inside it are doubled in ``ftsString``).
    package init(text: String, isPhrase: Bool = false, isPrefix: Bool = false) {
      self.text = text
      self.isPhrase = isPhrase
      self.isPrefix = isPrefix
    }
  }

  /// A conjunction: every ``required`` term, and none of the ``excluded`` ones. It has at least one required term.
  package struct Clause: Sendable, Hashable {
    /// The terms an article must hold (`AND`).
    package var required: [Term]
    /// The terms it must not hold (each after a `NOT`).
    package var excluded: [Term]
  }

  /// The most words and phrases a query may hold.
  package static let maximumTerms = 200

  /// The text as the user typed it.
  public let text: String
  /// The query: an article matches when it matches any of the clauses (`OR`).
  package let clauses: [Clause]

  /// Parses a user's search text.
  ///
  /// - Throws: ``SearchQueryError/noTerms(_:)`` when the text holds no word (empty, or only spaces and
  ///   punctuation); ``SearchQueryError/tooManyTerms(count:maximum:)`` past `maximumTerms` words and phrases.
  public init(_ text: String) throws(SearchQueryError) {
    self.text = text
    let items = Self.resolveOperators(Self.lex(Self.folded(text)))
    var clauses: [Clause] = []
    var current = Clause(required: [], excluded: [])
    var pending = Operator.and
    var count = 0
    for item in items {
      switch item {
      case .term(let term):
        count += 1
        switch pending {
        case .and: current.required.append(term)
        case .not: current.excluded.append(term)
        case .or:
          clauses.append(current)
          current = Clause(required: [term], excluded: [])
        }
        pending = .and
      case .operator(let op, _):
        pending = op
      }
    }
    if !current.required.isEmpty { clauses.append(current) }
    guard count > 0 else { throw .noTerms(text) }
    guard count <= Self.maximumTerms else { throw .tooManyTerms(count: count, maximum: Self.maximumTerms) }
    self.clauses = clauses
  }

  /// The invisible characters folded out of text before it is tokenized, in the index (the view
  /// `article_search_text` of migration 7) and in every query: the soft hyphen U+00AD, the zero-width space U+200B,
  /// the zero-width non-joiner and joiner U+200C and U+200D, the word joiner U+2060 and the zero-width no-break space
  /// U+FEFF. A reader sees `Bundes­verfassungs­gericht` (soft hyphens) as one word, and so does the search.
  package static let foldedScalars: Set<Unicode.Scalar> = [
    "\u{AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}",
  ]

  /// `text` without the ``foldedScalars``; `text` itself when it has none (the usual case).
  package static func folded(_ text: String) -> String {
    guard containsFoldedScalar(text) else { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.filter { !foldedScalars.contains($0) }))
  }

  /// Whether `text` holds one of the ``foldedScalars``, read from its UTF-8 bytes: each folded scalar is a 2- or
  /// 3-byte sequence (``foldedUTF8``), so ASCII costs one comparison per byte. The bulk save uses it to index text
  /// that folding would not change straight from `article` instead of through `article_search_text`.
  package static func containsFoldedScalar(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        if foldedLength(bytes, at: index) > 0 { return true }
        index += 1
      }
      return false
    }
  }

  /// Appends the UTF-8 bytes of ``folded(_:)`` of `text` to `buffer`, without making a `String`: the bytes between
  /// the folded scalars' sequences (``foldedUTF8``), copied as runs. For writers that bind the bytes themselves
  /// (``SideSearchIndex``).
  package static func appendFoldedUTF8(_ text: String, to buffer: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      let count = bytes.count
      var start = 0
      var index = 0
      while index < count {
        let length = foldedLength(bytes, at: index)
        if length > 0 {
          buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
          index += length
          start = index
        } else {
          index += 1
        }
      }
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
    }
  }

  /// The length of the folded scalar's UTF-8 sequence that starts at `bytes[index]`, or 0 when none does. A byte
  /// that starts no sequence of ``foldedUTF8`` (ASCII, and the lead bytes of most scripts: Arabic, CJK) is
  /// answered by one comparison or one table look-up; only the three lead bytes of the folded scalars compare their sequences.
  @inline(__always)
  private static func foldedLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
    let byte = bytes[index]
    guard byte >= 0xC2, foldedLeadBytes[Int(byte)] else { return 0 }
    for sequence in foldedUTF8 where sequence[0] == byte && index + sequence.count <= bytes.count {
      var offset = 1
      while offset < sequence.count, bytes[index + offset] == sequence[offset] { offset += 1 }
      if offset == sequence.count { return sequence.count }
    }
    return 0
  }

  /// Whether a byte starts one of ``foldedUTF8``'s sequences, by byte value.
  private static let foldedLeadBytes: [Bool] = (0...255).map { byte in foldedUTF8.contains { $0[0] == byte } }

  /// The UTF-8 encodings of the ``foldedScalars``.
  static let foldedUTF8: [[UInt8]] = foldedScalars.map { Array(String($0).utf8) }

  /// Every term, in the order typed.
  package var terms: [Term] { clauses.flatMap { $0.required + $0.excluded } }

  /// The terms an article is looked for by (the excluded ones left out), each once.
  package var positiveTerms: [Term] {
    var seen = Set<Term>()
    return clauses.flatMap(\.required).filter { seen.insert($0).inserted }
  }

  /// Whether some term is searched as a substring (see ``Term/isSubstring``).
  package var needsSubstringSearch: Bool { terms.contains(where: \.isSubstring) }

  /// The FTS5 `MATCH` expression: clauses joined by `OR`, each `(required AND …) NOT (excluded OR …)`, every term a
  /// quoted FTS5 string. Parenthesized throughout, so FTS5's own precedence never matters.
  package var matchExpression: String {
    clauses.map { clause in
      var text = "(" + clause.required.map(\.ftsString).joined(separator: " AND ") + ")"
      if !clause.excluded.isEmpty {
        text += " NOT (" + clause.excluded.map(\.ftsString).joined(separator: " OR ") + ")"
      }
      return "(" + text + ")"
    }.joined(separator: " OR ")
  }

  public var description: String { matchExpression }

  // MARK: - Lexing

  enum Operator: Sendable, Hashable {
    case and, or, not
  }

  enum Item: Sendable, Hashable {
    case term(Term)
    case `operator`(Operator, String)
  }

  /// Characters that split words outside quotes: FTS5 syntax that never belongs inside a word.
  private static let splitters: Set<Character> = ["(", ")", "[", "]", "{", "}", ":", ";", ",", "^"]
  private static let quotes: Set<Character> = ["\"", "\u{201C}", "\u{201D}", "\u{201E}"]

  /// Words, phrases and operator candidates, in order; words made only of punctuation are dropped.
  static func lex(_ text: String) -> [Item] {
    var items: [Item] = []
    var word = ""
    func endWord() {
      defer { word = "" }
      guard !word.isEmpty else { return }
      switch word {
      case "AND": items.append(.operator(.and, word))
      case "OR": items.append(.operator(.or, word))
      case "NOT": items.append(.operator(.not, word))
      default:
        var body = Substring(word)
        while body.last == "*" { body.removeLast() }
        let term = Term(text: String(body), isPrefix: body.count < word.count)
        if hasWordContent(term.text) { items.append(.term(term)) }
      }
    }
    let characters = Array(text)
    var index = 0
    while index < characters.count {
      let character = characters[index]
      index += 1
      if character.isWhitespace || splitters.contains(character) || isControl(character) {
        endWord()
      } else if quotes.contains(character) {
        endWord()
        // A phrase runs to the next quote; a quote with none after it is ignored.
        guard let close = characters[index...].firstIndex(where: { quotes.contains($0) }) else { continue }
        let phrase = String(characters[index..<close])
        index = close + 1
        var isPrefix = false
        while index < characters.count, characters[index] == "*" {
          isPrefix = true
          index += 1
        }
        if hasWordContent(phrase) { items.append(.term(Term(text: phrase, isPhrase: true, isPrefix: isPrefix))) }
      } else {
        word.append(character)
      }
    }
    endWord()
    return items
  }

  /// Keeps an operator only between two terms; any other becomes a word.
  static func resolveOperators(_ items: [Item]) -> [Item] {
    var resolved: [Item] = []
    for (index, item) in items.enumerated() {
      guard case .operator(_, let word) = item else {
        resolved.append(item)
        continue
      }
      let afterTerm: Bool
      if case .term = resolved.last { afterTerm = true } else { afterTerm = false }
      let beforeTerm: Bool
      if index + 1 < items.count, case .term = items[index + 1] { beforeTerm = true } else { beforeTerm = false }
      resolved.append(afterTerm && beforeTerm ? item : .term(Term(text: word)))
    }
    return resolved
  }

  private static func isControl(_ character: Character) -> Bool {
    character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
  }

  /// Whether `text` holds something a tokenizer indexes: a letter, a digit or a private-use character.
  static func hasWordContent(_ text: String) -> Bool { text.unicodeScalars.contains(where: isWordContent) }

  static func isWordContent(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
      .letterNumber, .otherNumber, .privateUse:
      return true
    default:
      return false
    }
  }

  /// Blocks of scripts written without spaces between words.
  private static let unspacedRanges: [ClosedRange<UInt32>] = [
    0x0E00...0x0EFF,  // Thai, Lao
    0x1000...0x109F,  // Myanmar
    0x1100...0x11FF,  // Hangul Jamo
    0x1780...0x17FF,  // Khmer
    0x19E0...0x19FF,  // Khmer symbols
    0x2E80...0x2FDF,  // CJK radicals, Kangxi radicals
    0x3005...0x3007,  // 々 〆 〇
    0x3021...0x3029,  // Hangzhou numerals
    0x3031...0x3035,  // kana repeat marks
    0x3038...0x303C,
    0x3040...0x30FF,  // Hiragana, Katakana
    0x3100...0x312F,  // Bopomofo
    0x3130...0x318F,  // Hangul compatibility Jamo
    0x31A0...0x31BF,  // Bopomofo extended
    0x31F0...0x31FF,  // Katakana phonetic extensions
    0x3400...0x4DBF,  // CJK extension A
    0x4E00...0x9FFF,  // CJK unified ideographs
    0xA960...0xA97F,  // Hangul Jamo extended A
    0xA9E0...0xA9FF,  // Myanmar extended B
    0xAA60...0xAA7F,  // Myanmar extended A
    0xAC00...0xD7FF,  // Hangul syllables, Jamo extended B
    0xF900...0xFAFF,  // CJK compatibility ideographs
    0xFF66...0xFFDC,  // halfwidth Katakana and Hangul
    0x1B000...0x1B16F,  // Kana supplement, extended
    0x20000...0x323AF,  // CJK extensions B–H
  ]

  static func isUnspacedScript(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    guard value >= 0x0E00 else { return false }
    return unspacedRanges.contains { $0.contains(value) }
  }
}
