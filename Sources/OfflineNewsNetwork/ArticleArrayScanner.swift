import Foundation

/// Finds the elements of a NewsAPI body's top-level `"articles"` array without decoding them, so that large bodies
/// can be decoded in chunks on several cores.
///
/// It only delimits: strings (with their escapes), nesting and separators. Validation is left to `JSONDecoder`,
/// which decodes every chunk and the rest of the envelope; when the body is not shaped as expected (no top-level
/// object, no `articles` array, an unterminated string or array), the scanner returns `nil` and the caller decodes
/// the body whole, which reports the precise error.
struct ArticleArrayScanner {
  struct Layout {
    /// The byte range of the `[ … ]` array, brackets included.
    var array: Range<Int>
    /// The byte range of each element, in order.
    var elements: [Range<Int>]
  }

  static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Layout? {
    var scanner = ArticleArrayScanner(bytes: bytes)
    return scanner.scanEnvelope()
  }

  private let bytes: UnsafeBufferPointer<UInt8>
  private var i = 0

  private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  private static let articlesKey = Array("articles".utf8)

  private mutating func skipWhitespace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
  }

  private mutating func expect(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard i < bytes.count, bytes[i] == byte else { return false }
    i += 1
    return true
  }

  /// Skips a string starting at `"`; returns its content range (escapes not decoded).
  private mutating func skipString() -> Range<Int>? {
    guard i < bytes.count, bytes[i] == 0x22 else { return nil }
    i += 1
    let start = i
    while i < bytes.count {
      switch bytes[i] {
      case 0x5C: i += 2  // backslash: skip the escaped byte (\" included)
      case 0x22:
        defer { i += 1 }
        return start..<i
      default: i += 1
      }
    }
    return nil
  }

  /// Skips any value; returns `false` when the input ends first.
  private mutating func skipValue() -> Bool {
    skipWhitespace()
    guard i < bytes.count else { return false }
    switch bytes[i] {
    case 0x22: return skipString() != nil
    case 0x7B, 0x5B:
      var depth = 0
      while i < bytes.count {
        switch bytes[i] {
        case 0x22: if skipString() == nil { return false } else { continue }
        case 0x7B, 0x5B: depth += 1
        case 0x7D, 0x5D:
          depth -= 1
          if depth == 0 {
            i += 1
            return true
          }
        default: break
        }
        i += 1
      }
      return false
    default:
      let start = i
      while i < bytes.count, ![0x2C, 0x7D, 0x5D, 0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
      // A scalar has at least one byte; a stray `}` or `]` here means the body is not shaped as expected (and
      // returning without advancing would loop forever).
      return i > start && i < bytes.count
    }
  }

  private mutating func scanEnvelope() -> Layout? {
    guard expect(0x7B) else { return nil }
    var layout: Layout?
    while true {
      skipWhitespace()
      guard i < bytes.count else { return nil }
      if bytes[i] == 0x7D { return layout }
      if bytes[i] == 0x2C {
        i += 1
        continue
      }
      guard let key = skipString(), expect(0x3A) else { return nil }
      skipWhitespace()
      if layout == nil, Array(bytes[key]) == Self.articlesKey, i < bytes.count, bytes[i] == 0x5B {
        guard let found = scanArray() else { return nil }
        layout = found
      } else if !skipValue() {
        return nil
      }
    }
  }

  private mutating func scanArray() -> Layout? {
    let start = i
    i += 1
    var elements: [Range<Int>] = []
    // JSON's grammar for arrays (RFC 8259 §5): `[` [ value *( `,` value ) ] `]` — separators are checked, not
    // skipped, so that a missing, doubled, leading or trailing comma is refused here as it is by JSONDecoder.
    skipWhitespace()
    if i < bytes.count, bytes[i] == 0x5D {
      i += 1
      return Layout(array: start..<i, elements: elements)
    }
    while true {
      skipWhitespace()
      guard i < bytes.count, bytes[i] != 0x2C, bytes[i] != 0x5D else { return nil }
      let elementStart = i
      guard skipValue() else { return nil }
      elements.append(elementStart..<i)
      skipWhitespace()
      guard i < bytes.count else { return nil }
      if bytes[i] == 0x5D {
        i += 1
        return Layout(array: start..<i, elements: elements)
      }
      guard bytes[i] == 0x2C else { return nil }
      i += 1
    }
  }

  // MARK: - Streaming: one element at a time

  /// What ``nextElement()`` found.
  enum Step: Equatable {
    /// The next element's byte range.
    case element(Range<Int>)
    /// The array's closing `]`; the byte after it.
    case end(Int)
    /// A separator or an element that is not where JSON's grammar puts one, or the input ended first.
    case invalid
  }

  /// A scanner positioned right after the `[` of the top-level `"articles"` array, and the byte range before it
  /// (from the start of the body to the `[` excluded); `nil` when the body is not shaped so (no top-level object,
  /// no `articles` array, or the input ends first).
  static func openArticles(_ bytes: UnsafeBufferPointer<UInt8>) -> (scanner: ArticleArrayScanner, arrayStart: Int)? {
    var scanner = ArticleArrayScanner(bytes: bytes)
    guard scanner.expect(0x7B) else { return nil }
    while true {
      scanner.skipWhitespace()
      guard scanner.i < bytes.count else { return nil }
      if bytes[scanner.i] == 0x7D { return nil }
      if bytes[scanner.i] == 0x2C {
        scanner.i += 1
        continue
      }
      guard let key = scanner.skipString(), scanner.expect(0x3A) else { return nil }
      scanner.skipWhitespace()
      if Array(bytes[key]) == Self.articlesKey, scanner.i < bytes.count, bytes[scanner.i] == 0x5B {
        let start = scanner.i
        scanner.i += 1
        scanner.elementsSeen = 0
        return (scanner, start)
      } else if !scanner.skipValue() {
        return nil
      }
    }
  }

  /// Elements delimited so far by ``nextElement()``.
  private(set) var elementsSeen = 0

  /// Where the next call of ``nextElement()`` starts reading.
  var position: Int { i }

  /// A scanner inside the `"articles"` array over new bytes: those of a window of the body that now starts where an
  /// earlier scanner stood (at its ``position``), `elementsSeen` elements already delimited. ``nextElement()`` then
  /// continues exactly as the earlier scanner would have with more input.
  init(resuming bytes: UnsafeBufferPointer<UInt8>, at position: Int, elementsSeen: Int) {
    self.bytes = bytes
    self.i = position
    self.elementsSeen = elementsSeen
  }

  /// The next element of the array opened by ``openArticles(_:)``, checking the separators as ``scan(_:)`` does.
  mutating func nextElement() -> Step {
    skipWhitespace()
    guard i < bytes.count else { return .invalid }
    if elementsSeen == 0, bytes[i] == 0x5D {
      i += 1
      return .end(i)
    }
    if elementsSeen > 0 {
      if bytes[i] == 0x5D {
        i += 1
        return .end(i)
      }
      guard bytes[i] == 0x2C else { return .invalid }
      i += 1
      skipWhitespace()
    }
    guard i < bytes.count, bytes[i] != 0x2C, bytes[i] != 0x5D else { return .invalid }
    let start = i
    guard skipValue() else { return .invalid }
    elementsSeen += 1
    return .element(start..<i)
  }
}
