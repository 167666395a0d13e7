import Foundation

/// A byte-level parser for the usual shape of one NewsAPI record, three times cheaper than `JSONDecoder`'s
/// `Decodable` machinery for the same ``RawArticle``.
///
/// It accepts only what it can decode exactly as `JSONDecoder` does, and declines (returns `nil`) everything else, for
/// the caller to hand to `JSONDecoder`: an element that is not an object; a key that is unknown, repeated or written
/// with an escape; a value that is neither a string nor `null` (nor, for `source`, an object of `id`/`name` strings
/// or nulls); a string with a raw control character, a lone UTF-16 surrogate, an unknown escape or invalid UTF-8;
/// anything else after the closing brace. What it accepts is therefore valid JSON, and its ``RawArticle`` is the one
/// `JSONDecoder` makes.
///
/// Related: RFC 8259 §7 (strings, `\u` escapes and surrogate pairs).
enum RawArticleScanner {
  /// The record in `bytes[range]`, or `nil` when it is not of the usual shape (decode it with `JSONDecoder` then).
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> RawArticle? {
    var parser = Parser(bytes: bytes, i: range.lowerBound, end: range.upperBound)
    return parser.record()
  }

  /// Appends the record in `bytes[range]` (one element of an `articles` array) to `records`: parsed here when it
  /// is of the usual shape, else decoded by `JSONDecoder`, whose `DecodingError` is thrown when it is no record.
  static func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to records: inout [RawArticle]) throws {
    if let record = parse(bytes, range) {
      records.append(record)
      return
    }
    var text = Data(capacity: range.count + 2)
    text.append(0x5B)
    text.append(contentsOf: bytes[range])
    text.append(0x5D)
    records += try JSONDecoder().decode([RawArticle].self, from: text)
  }

  /// The text of the UTF-8 `bytes`, or `nil` when they are not valid UTF-8: what `String(validating:as:)` gives,
  /// without its generic path (a look-up of type metadata per call, a tenth of the decoding thread's time).
  /// `String(decoding:as:)` replaces each invalid sequence with U+FFFD, which changes the bytes: text of the very
  /// bytes given was valid. ASCII (`isASCII`: no byte above 0x7F) is always valid.
  static func text(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    if isASCII { return text }
    var decoded = text
    let unchanged = decoded.withUTF8 { utf8 in
      guard utf8.count == bytes.count, let left = utf8.baseAddress, let right = bytes.baseAddress else {
        return utf8.count == bytes.count
      }
      return memcmp(left, right, bytes.count) == 0
    }
    return unchanged ? text : nil
  }

  private enum Key: Int {
    case source, author, title, description, url, urlToImage, publishedAt, content, id, name
  }

  private static let recordKeys: [([UInt8], Key)] = [
    (Array("source".utf8), .source), (Array("author".utf8), .author), (Array("title".utf8), .title),
    (Array("description".utf8), .description), (Array("url".utf8), .url), (Array("urlToImage".utf8), .urlToImage),
    (Array("publishedAt".utf8), .publishedAt), (Array("content".utf8), .content),
  ]
  private static let sourceKeys: [([UInt8], Key)] = [(Array("id".utf8), .id), (Array("name".utf8), .name)]

  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i: Int
    let end: Int
    var scratch: [UInt8] = []

    mutating func skipWhitespace() {
      while i < end {
        switch bytes[i] {
        case 0x20, 0x0A, 0x0D, 0x09: i += 1
        default: return
        }
      }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
      skipWhitespace()
      guard i < end, bytes[i] == byte else { return false }
      i += 1
      return true
    }

    mutating func record() -> RawArticle? {
      var raw = RawArticle()
      let valid = object(among: RawArticleScanner.recordKeys) { parser, key in
        if key == .source { return parser.source(into: &raw) }
        guard let value = parser.optionalString() else { return false }
        switch key {
        case .author: raw.author = value
        case .title: raw.title = value
        case .description: raw.description = value
        case .url: raw.url = value
        case .urlToImage: raw.urlToImage = value
        case .publishedAt: raw.publishedAt = value
        case .content: raw.content = value
        default: return false
        }
        return true
      }
      return valid && atEnd() ? raw : nil
    }

    mutating func atEnd() -> Bool {
      skipWhitespace()
      return i == end
    }

    /// `"source": null` or `{"id": …, "name": …}` with strings or nulls.
    mutating func source(into raw: inout RawArticle) -> Bool {
      skipWhitespace()
      if i < end, bytes[i] == 0x6E { return literalNull() }
      return object(among: RawArticleScanner.sourceKeys) { parser, key in
        guard let value = parser.optionalString() else { return false }
        if key == .id { raw.sourceID = value } else { raw.sourceName = value }
        return true
      }
    }

    /// An object whose keys are among `keys`, each at most once; `value` reads the value after each key's colon and
    /// says whether it was valid. Whether the whole object was.
    mutating func object(among keys: [([UInt8], Key)], _ value: (inout Parser, Key) -> Bool) -> Bool {
      guard consume(0x7B) else { return false }
      skipWhitespace()
      if i < end, bytes[i] == 0x7D {
        i += 1
        return true
      }
      var seen = 0
      while true {
        guard let key = key(among: keys), seen & (1 << key.rawValue) == 0 else { return false }
        seen |= 1 << key.rawValue
        guard consume(0x3A), value(&self, key) else { return false }
        skipWhitespace()
        guard i < end else { return false }
        if bytes[i] == 0x2C {
          i += 1
          continue
        }
        guard bytes[i] == 0x7D else { return false }
        i += 1
        return true
      }
    }

    /// A key without escapes that is one of `keys`.
    mutating func key(among keys: [([UInt8], Key)]) -> Key? {
      guard consume(0x22) else { return nil }
      let start = i
      while i < end, bytes[i] != 0x22 {
        guard bytes[i] != 0x5C else { return nil }
        i += 1
      }
      guard i < end else { return nil }
      let name = UnsafeBufferPointer(rebasing: bytes[start..<i])
      i += 1
      for (candidate, key) in keys where candidate.count == name.count && candidate.elementsEqual(name) {
        return key
      }
      return nil
    }

    mutating func literalNull() -> Bool {
      guard end - i >= 4, bytes[i] == 0x6E, bytes[i + 1] == 0x75, bytes[i + 2] == 0x6C, bytes[i + 3] == 0x6C else {
        return false
      }
      i += 4
      return true
    }

    /// `.some(nil)` for `null`, `.some(text)` for a string, `nil` for anything else.
    mutating func optionalString() -> String?? {
      skipWhitespace()
      guard i < end else { return nil }
      if bytes[i] == 0x6E { return literalNull() ? .some(nil) : nil }
      guard bytes[i] == 0x22 else { return nil }
      i += 1
      let start = i
      // Fast path: no escape (nearly every value).
      var high: UInt8 = 0
      while i < end {
        let byte = bytes[i]
        if byte == 0x22 {
          let text = RawArticleScanner.text(UnsafeBufferPointer(rebasing: bytes[start..<i]), isASCII: high < 0x80)
          i += 1
          return text.map { .some($0) }
        }
        if byte == 0x5C { break }
        guard byte >= 0x20 else { return nil }
        high |= byte
        i += 1
      }
      guard i < end else { return nil }
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
      while i < end {
        let byte = bytes[i]
        switch byte {
        case 0x22:
          i += 1
          return scratch.withUnsafeBufferPointer { RawArticleScanner.text($0, isASCII: false) }.map { .some($0) }
        case 0x5C:
          guard escape() else { return nil }
        default:
          guard byte >= 0x20 else { return nil }
          scratch.append(byte)
          i += 1
        }
      }
      return nil
    }

    /// Decodes the escape at `i` (a backslash) into `scratch`.
    mutating func escape() -> Bool {
      guard i + 1 < end else { return false }
      let letter = bytes[i + 1]
      i += 2
      switch letter {
      case 0x22, 0x5C, 0x2F: scratch.append(letter)
      case 0x62: scratch.append(0x08)
      case 0x66: scratch.append(0x0C)
      case 0x6E: scratch.append(0x0A)
      case 0x72: scratch.append(0x0D)
      case 0x74: scratch.append(0x09)
      case 0x75:
        guard let unit = hex4() else { return false }
        var value = UInt32(unit)
        if (0xD800..<0xDC00).contains(unit) {
          // A high surrogate must be followed by an escaped low one; a lone surrogate is left to JSONDecoder.
          guard i + 1 < end, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else { return false }
          i += 2
          guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return false }
          value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00..<0xE000).contains(unit) {
          return false
        }
        guard let scalar = Unicode.Scalar(value) else { return false }
        UTF8.encode(scalar) { scratch.append($0) }
      default: return false
      }
      return true
    }

    mutating func hex4() -> UInt16? {
      guard end - i >= 4 else { return nil }
      var value: UInt16 = 0
      for _ in 0..<4 {
        let byte = bytes[i]
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x41...0x46: digit = byte - 0x41 + 10
        case 0x61...0x66: digit = byte - 0x61 + 10
        default: return nil
        }
        value = value << 4 | UInt16(digit)
        i += 1
      }
      return value
    }
  }
}
