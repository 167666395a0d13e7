/// The text measures of Readability.js, computed on libxml2's UTF-8 text without making strings.
///
/// Readability.js measures `textContent.trim()` (optionally with runs of two or more whitespace characters
/// replaced by one space) in JavaScript string length, which counts UTF-16 code units. Whitespace is JavaScript's
/// `\s`: ASCII tab, line feed, vertical tab, form feed, carriage return and space, and U+00A0, U+1680,
/// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF (ECMA-262, "WhiteSpace" and "LineTerminator").
struct TextMeasure {
  /// UTF-16 code units that are not whitespace.
  private(set) var visibleUnits = 0
  /// Whitespace runs between visible text (each would become one space), and their total length.
  private(set) var innerRuns = 0
  private(set) var innerWhitespaceUnits = 0
  /// Commas of the kinds Readability.js counts (`REGEXPS.commas`: Latin, Arabic, Chinese, small and fullwidth
  /// forms), and ASCII commas alone (`_getCharCount(e, ",")`).
  private(set) var commas = 0
  private(set) var asciiCommas = 0

  private var pendingUnits = 0
  private var pendingRun = false

  /// `_getInnerText(e).length`: trimmed, runs of whitespace counted as one character.
  var normalizedLength: Int { visibleUnits + innerRuns }
  /// `_getInnerText(e, false).length` and `textContent.trim().length`.
  var trimmedLength: Int { visibleUnits + innerWhitespaceUnits }

  /// The measures of the text of `node` (its own text, or all its text descendants').
  init(_ node: RawNode) {
    node.forEachText { add($0) }
  }

  init(bytes: UnsafeBufferPointer<UInt8>) {
    add(bytes)
  }

  private mutating func visible(_ units: Int) {
    if pendingRun && visibleUnits > 0 {
      innerRuns += 1
      innerWhitespaceUnits += pendingUnits
    }
    pendingRun = false
    pendingUnits = 0
    visibleUnits += units
  }

  private mutating func whitespace() {
    pendingRun = true
    pendingUnits += 1
  }

  mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if byte < 0x80 {
        // ASCII: a run of visible characters at once.
        if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
          whitespace()
          index += 1
          continue
        }
        var end = index
        while end < count {
          let next = bytes[end]
          guard next < 0x80, next != 0x20, next < 0x09 || next > 0x0D else { break }
          if next == 0x2C {
            commas += 1
            asciiCommas += 1
          }
          end += 1
        }
        visible(end - index)
        index = end
        continue
      }
      let scalar = Self.scalar(in: bytes, at: index)
      if scalar.isComma { commas += 1 }
      if scalar.isSpace { whitespace() } else { visible(scalar.units) }
      index += scalar.length
    }
  }

  /// The non-ASCII scalar starting at `index`: its length in bytes and UTF-16 code units, whether it is JavaScript
  /// whitespace or one of Readability.js's commas.
  @inline(__always)
  static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int)
    -> (length: Int, units: Int, isSpace: Bool, isComma: Bool)
  {
    let count = bytes.count
    let byte = bytes[index]
    let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
    let b1 = index + 1 < count ? bytes[index + 1] : 0
    let b2 = index + 2 < count ? bytes[index + 2] : 0
    var isSpace = false
    var isComma = false
    switch length {
    case 2:
      isSpace = byte == 0xC2 && b1 == 0xA0
      isComma = byte == 0xD8 && b1 == 0x8C  // U+060C
    case 3:
      switch (byte, b1) {
      case (0xE1, 0x9A): isSpace = b2 == 0x80
      case (0xE2, 0x80): isSpace = (0x80...0x8A).contains(b2) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF
      case (0xE2, 0x81): isSpace = b2 == 0x9F
      case (0xE3, 0x80): isSpace = b2 == 0x80
      case (0xEF, 0xBB): isSpace = b2 == 0xBF
      case (0xE2, 0xB9): isComma = b2 == 0x81  // U+2E41
      case (0xE2, 0xB8): isComma = b2 == 0xB4 || b2 == 0xB2  // U+2E34, U+2E32
      case (0xEF, 0xB9): isComma = b2 == 0x90  // U+FE50
      case (0xEF, 0xB8): isComma = b2 == 0x90 || b2 == 0x91  // U+FE10, U+FE11
      case (0xEF, 0xBC): isComma = b2 == 0x8C  // U+FF0C
      default: break
      }
    default: break
    }
    return (min(length, count - index), length == 4 ? 2 : 1, isSpace, isComma)
  }

  /// Whether the node has any text that is not whitespace (`textContent.trim() !== ""`), stopping at the first.
  static func hasVisibleText(_ node: RawNode) -> Bool {
    var found = false
    node.forEachText { bytes in
      guard !found else { return }
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte < 0x80 {
          if byte != 0x20 && (byte < 0x09 || byte > 0x0D) {
            found = true
            return
          }
          index += 1
          continue
        }
        let scalar = scalar(in: bytes, at: index)
        if !scalar.isSpace {
          found = true
          return
        }
        index += scalar.length
      }
    }
    return found
  }
}

/// JavaScript string operations Readability.js relies on, with JavaScript's definition of whitespace.
enum JSString {
  static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
    default: false
    }
  }

  /// `String.prototype.trim`.
  static func trim(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
    guard let last = scalars.lastIndex(where: { !isWhitespace($0) }) else { return "" }
    if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
    return String(scalars[first...last])
  }

  /// `text.trim().replace(/\s{2,}/g, " ")`: Readability.js's `_getInnerText` with `normalizeSpaces`.
  static func normalize(_ text: String) -> String {
    let trimmed = trim(text)
    var out = String.UnicodeScalarView()
    var run: [Unicode.Scalar] = []
    func flush() {
      if run.count >= 2 { out.append(" ") } else { out.append(contentsOf: run) }
      run.removeAll(keepingCapacity: true)
    }
    for scalar in trimmed.unicodeScalars {
      if isWhitespace(scalar) {
        run.append(scalar)
      } else {
        if !run.isEmpty { flush() }
        out.append(scalar)
      }
    }
    if !run.isEmpty { flush() }
    return String(out)
  }

  /// `text.split(/\s+/).length`: Readability.js's `wordCount` (a leading or trailing run counts an empty word).
  static func wordCount(_ text: String) -> Int {
    var count = 1
    var inRun = false
    for scalar in text.unicodeScalars {
      if isWhitespace(scalar) {
        if !inRun { count += 1 }
        inRun = true
      } else {
        inRun = false
      }
    }
    return count
  }

  /// JavaScript `length`: UTF-16 code units.
  static func length(_ text: String) -> Int { text.utf16.count }

  /// ASCII lower case (what a `/…/i` pattern of ASCII letters compares).
  static func asciiLowercased(_ text: String) -> [UInt8] {
    text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
  }
}
