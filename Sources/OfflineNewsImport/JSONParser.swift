import Foundation

/// A parsed JSON document: its value, and what the reader had to repair to read it.
package struct JSONDocument: Sendable, Hashable {
  /// The document's value.
  package var value: JSONValue
  /// Text the reader could not keep as written (a lone surrogate, invalid UTF-8, a raw control character, an
  /// unknown escape), in document order. Each is repaired in place; the rest of the document is read as usual.
  package var repairs: [JSONRepair] = []
}

/// One repair the JSON reader made: where, and what it did.
package struct JSONRepair: Sendable, Hashable, CustomStringConvertible {
  /// The key path of the value holding the repaired text: `items[3].title`; empty for the top-level value.
  package var keyPath: String
  /// The byte offset of the repaired text in the document (0-based, after any byte order mark).
  package var offset: Int
  /// Its line (1-based) and column (1-based, in Unicode scalars).
  package var line: Int
  package var column: Int
  /// What was found and what was kept: `a lone UTF-16 surrogate \ud83d, replaced by U+FFFD`.
  package var problem: String

  package init(keyPath: String, offset: Int, line: Int, column: Int, problem: String) {
    self.keyPath = keyPath
    self.offset = offset
    self.line = line
    self.column = column
    self.problem = problem
  }

  package var description: String { "\(problem) (byte \(offset), line \(line), column \(column))" }
}

extension JSONValue {
  /// Parses JSON text (RFC 8259, <https://www.rfc-editor.org/rfc/rfc8259>).
  ///
  /// As `parseDocument(_:)`, without the list of repairs.
  ///
  /// - Throws: ``ImportError/invalidJSON(_:)`` naming the byte offset, line and column where the text stops being
  ///   JSON.
  package static func parse(_ data: Data) throws(ImportError) -> JSONValue {
    try parseDocument(data).value
  }

  /// Parses a hand-written JSON file: as ``parse(_:)``, and a comma before a closing `}` or `]` (`{"a": 1,}`),
  /// which people leave when they edit a list by hand and which RFC 8259 does not allow, is skipped. Data from
  /// servers and files to import stay strict (``parse(_:)``).
  ///
  /// - Throws: ``ImportError/invalidJSON(_:)`` as ``parse(_:)``.
  package static func parseHandWritten(_ data: Data) throws(ImportError) -> JSONValue {
    try parseDocument(data, trailingCommas: true).value
  }

  /// Parses JSON text (RFC 8259), tolerant of what real documents hold and strict about their structure.
  ///
  /// For example:
  /// ```swift
  /// let document = try JSONValue.parseDocument(Data(#"{"title": "\ud83d"}"#.utf8))
  /// document.value[path: "title"]          // .string("\u{FFFD}")
  /// document.repairs.first?.keyPath        // "title"
  /// ```
  ///
  /// - Integers without a fraction or exponent are kept exact (`Int64`); other numbers are `Double`s. Booleans are
  ///   not numbers.
  /// - A UTF-8 byte order mark at the start is skipped (RFC 8259 §8.1 lets parsers ignore it).
  /// - Inside strings, a lone UTF-16 surrogate escape (`\ud83d` without its pair) and invalid UTF-8 become U+FFFD;
  ///   a raw control character is kept; an unknown escape (`\x`) keeps the character after the backslash. Each is a
  ///   ``JSONRepair``, never a failed document.
  /// - A later duplicate object key replaces the earlier one.
  /// - Nesting deeper than 512 arrays and objects is refused (no stack overflow on hostile input).
  ///
  /// - Throws: ``ImportError/invalidJSON(_:)`` with the byte offset, line and column where the text stops being
  ///   JSON (a truncated document, a missing comma, a UTF-16 document, trailing text), e.g.
  ///   `byte 41 (line 3, column 7): expected "," or "}" after a member of an object, found "]"`.
  package static func parseDocument(_ data: Data) throws(ImportError) -> JSONDocument {
    try parseDocument(data, trailingCommas: false)
  }

  private static func parseDocument(_ data: Data, trailingCommas: Bool) throws(ImportError) -> JSONDocument {
    let result: Result<JSONDocument, ImportError> = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      var parser = JSONParser(bytes: raw)
      parser.trailingCommas = trailingCommas
      do throws(JSONParser.Failure) {
        return .success(try parser.document())
      } catch {
        return .failure(.invalidJSON(error.message))
      }
    }
    return try result.get()
  }
}

/// A JSON document whose array of records is read one element at a time, so that a large payload is never held
/// whole as ``JSONValue``s: the document is read (and checked) once as ``JSONValue/parseDocument(_:)`` reads it, the
/// records array empty in ``document``, and each record is read again from its bytes when asked for.
///
/// The document's errors (with their byte, line and column) and repairs (with their key paths, records' included,
/// in document order) are those of ``JSONValue/parseDocument(_:)``: each element is checked in the first reading.
struct JSONRecordsReader {
  /// The document's bytes; valid while the reader is used.
  let bytes: UnsafeRawBufferPointer
  /// The document, the records array (when there is an array at the records path) read as empty.
  let document: JSONDocument
  /// The byte offset of each record.
  let elementStarts: [Int]
  let depth: Int
  let path: [JSONParser.PathComponent]

  /// Reads the document in `bytes` with the array at `records` left unread.
  ///
  /// - Throws: ``ImportError/invalidJSON(_:)`` as ``JSONValue/parseDocument(_:)``.
  init(bytes: UnsafeRawBufferPointer, records: JSONPath) throws(ImportError) {
    var parser = JSONParser(bytes: bytes)
    parser.skimmedArray = records.components
    do throws(JSONParser.Failure) {
      document = try parser.document()
    } catch {
      throw .invalidJSON(error.message)
    }
    self.bytes = bytes
    elementStarts = parser.elementStarts
    depth = parser.skimmedDepth
    path = parser.skimmedPath
  }

  /// The number of records.
  var count: Int { elementStarts.count }

  /// The record at `index` (`0..<count`), read from its bytes (already checked: its repairs are in ``document``).
  func element(_ index: Int) throws(ImportError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    parser.position = elementStarts[index]
    parser.depth = depth
    parser.path = path + [.index(index)]
    do throws(JSONParser.Failure) {
      return try parser.parseValue()
    } catch {
      throw .invalidJSON(error.message)
    }
  }
}

/// A byte-level RFC 8259 parser producing ``JSONValue``s.
struct JSONParser {
  struct Failure: Error {
    var message: String
  }

  enum PathComponent {
    case key(String)
    case index(Int)
  }

  static let maximumDepth = 512

  let bytes: UnsafeRawBufferPointer
  var position = 0
  var depth = 0
  var path: [PathComponent] = []
  var repairs: [JSONRepair] = []
  /// Whether a comma before a container's close is skipped (``JSONValue/parseHandWritten(_:)``).
  var trailingCommas = false
  /// The key path of the array whose elements are only checked, not kept (``JSONRecordsReader``): each element's
  /// start goes to ``elementStarts`` and the array reads as empty; `nil` to keep every value.
  var skimmedArray: [String]?
  /// The byte offset of each element of the skimmed array (of the last one, when a repeated key holds it twice).
  var elementStarts: [Int] = []
  /// The depth and key path of the skimmed array (its elements are read there).
  var skimmedDepth = 0
  var skimmedPath: [PathComponent] = []
  /// Whether the value being read is checked (syntax, depth, repairs and their places, exactly as when kept) but not
  /// kept: its strings, arrays and objects are not built.
  var skimming = false

  init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  mutating func document() throws(Failure) -> JSONDocument {
    if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
      throw Failure(message: "the document is UTF-16 text; JSON must be UTF-8 (RFC 8259 §8.1)")
    }
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    skipWhitespace()
    guard position < bytes.count else {
      throw Failure(message: bytes.count == 0 ? "the document is empty" : "the document holds only whitespace")
    }
    let value = try parseValue()
    skipWhitespace()
    if position < bytes.count {
      throw failure("unexpected \(found()) after the end of the top-level value")
    }
    return JSONDocument(value: value, repairs: repairs)
  }

  // MARK: - Values

  mutating func parseValue() throws(Failure) -> JSONValue {
    guard position < bytes.count else { throw failure("the document ends where a value should be") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString(keep: !skimming))
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw failure("expected a value (an object, array, string, number, true, false or null), found \(found())")
    }
  }

  mutating func literal(_ word: StaticString) throws(Failure) {
    let start = position
    let count = word.utf8CodeUnitCount
    let ok = word.withUTF8Buffer { expected in
      guard position + count <= bytes.count else { return false }
      for index in 0..<count where bytes[position + index] != expected[index] { return false }
      return true
    }
    guard ok else {
      position = start
      throw failure("expected \(word), found \(found())")
    }
    position += count
  }

  mutating func parseObject() throws(Failure) -> JSONValue {
    try enter()
    position += 1  // {
    var fields: [String: JSONValue] = [:]
    if closesEmpty("}") { return .object(fields) }
    while true {
      skipWhitespace()
      guard position < bytes.count else { throw failure("the document ends inside an object") }
      guard bytes[position] == UInt8(ascii: "\"") else {
        throw failure("expected a member name in double quotes, found \(found())")
      }
      let key = try parseString()
      skipWhitespace()
      guard position < bytes.count else { throw failure("the document ends inside an object") }
      guard bytes[position] == UInt8(ascii: ":") else {
        throw failure("expected \":\" after the member name \"\(key)\", found \(found())")
      }
      position += 1
      skipWhitespace()
      path.append(.key(key))
      let value = try parseValue()
      if !skimming { fields[key] = value }
      path.removeLast()
      if try closes("}", "an object", after: "a member of an object") { return .object(fields) }
    }
  }

  mutating func parseArray() throws(Failure) -> JSONValue {
    try enter()
    position += 1  // [
    var items: [JSONValue] = []
    // The skimmed array's elements are checked and their starts kept; it reads as empty.
    let skims = !skimming && skimmedArray.map(isCurrentPath) == true
    if skims {
      elementStarts = []
      skimmedDepth = depth
      skimmedPath = path
      skimming = true
    }
    defer { if skims { skimming = false } }
    var count = 0
    if closesEmpty("]") { return .array(items) }
    while true {
      skipWhitespace()
      path.append(.index(count))
      if skims { elementStarts.append(position) }
      let value = try parseValue()
      if !skimming { items.append(value) }
      count += 1
      path.removeLast()
      if try closes("]", "an array", after: "an element of an array") { return .array(items) }
    }
  }

  /// Whether the value being read is at `keyPath`, as ``JSONValue/subscript(path:)`` reads it (an array element by
  /// its index).
  func isCurrentPath(_ keyPath: [String]) -> Bool {
    guard keyPath.count == path.count else { return false }
    for (component, name) in zip(path, keyPath) {
      switch component {
      case .key(let key): if key != name { return false }
      case .index(let index): if Int(name) != index { return false }
      }
    }
    return true
  }

  /// Whether the container just opened closes at once with `close` (it is empty): then past the close, the container
  /// left; else at its first item, white space skipped.
  mutating func closesEmpty(_ close: Unicode.Scalar) -> Bool {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: close) else { return false }
    position += 1
    depth -= 1
    return true
  }

  /// Reads what follows `item` in `container` (closed by `close`): `false` past a comma (another item follows), `true`
  /// past the close (the container is left).
  mutating func closes(_ close: Unicode.Scalar, _ container: String, after item: String) throws(Failure) -> Bool {
    skipWhitespace()
    guard position < bytes.count else { throw failure("the document ends inside \(container)") }
    switch bytes[position] {
    case UInt8(ascii: ","):
      position += 1
      guard trailingCommas else { return false }
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: close) else { return false }
      position += 1
      depth -= 1
      return true
    case UInt8(ascii: close):
      position += 1
      depth -= 1
      return true
    default: throw failure("expected \",\" or \"\(close)\" after \(item), found \(found())")
    }
  }

  mutating func enter() throws(Failure) {
    depth += 1
    if depth > Self.maximumDepth {
      throw failure("arrays and objects are nested deeper than \(Self.maximumDepth) levels")
    }
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (RFC 8259 §6). Integers that fit are exact `Int64`s.
  mutating func parseNumber() throws(Failure) -> JSONValue {
    let start = position
    func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] &- UInt8(ascii: "0") < 10 }
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard digit(position) else { throw failure("expected a digit after \"-\", found \(found())") }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
      if digit(position) { throw failure("a number cannot start with 0 followed by digits (leading zeros)") }
    } else {
      while digit(position) { position += 1 }
    }
    var integral = true
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      integral = false
      position += 1
      guard digit(position) else { throw failure("expected a digit after the decimal point, found \(found())") }
      while digit(position) { position += 1 }
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
      integral = false
      position += 1
      if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
        position += 1
      }
      guard digit(position) else { throw failure("expected a digit in the exponent, found \(found())") }
      while digit(position) { position += 1 }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    if integral, let exact = Int64(text) { return .integer(exact) }
    guard let number = Double(text), number.isFinite else {
      position = start
      throw failure("the number \(text) is out of range")
    }
    return .number(number)
  }

  // MARK: - Strings

  /// Reads a string; with `keep: false` (a skimmed value) it is checked and repaired as usual but an ASCII one is not
  /// built (read as empty).
  mutating func parseString(keep: Bool = true) throws(Failure) -> String {
    position += 1  // opening quote
    let start = position
    // Fast path: no escapes and no control characters up to the closing quote.
    var ascii = true
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        position += 1
        if ascii { return keep ? String(decoding: slice, as: UTF8.self) : "" }
        if let valid = String(validating: slice, as: UTF8.self) { return valid }
        repair(at: start, "invalid UTF-8 in a string, replaced by U+FFFD")
        return String(decoding: slice, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      if byte >= 0x80 { ascii = false }
      position += 1
    }
    guard position < bytes.count else { throw endInsideString(start - 1) }
    // Slow path: escapes or control characters.
    var buffer: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
    var pendingHigh: (value: UInt32, offset: Int)?
    func flushHigh(_ parser: inout JSONParser) {
      if let high = pendingHigh {
        parser.repair(
          at: high.offset, "a lone UTF-16 surrogate \\u\(String(high.value, radix: 16)), replaced by U+FFFD")
        buffer += [0xEF, 0xBF, 0xBD]
        pendingHigh = nil
      }
    }
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        flushHigh(&self)
        position += 1
        if let valid = String(validating: buffer, as: UTF8.self) { return valid }
        repair(at: start, "invalid UTF-8 in a string, replaced by U+FFFD")
        return String(decoding: buffer, as: UTF8.self)
      }
      if byte < 0x20 {
        flushHigh(&self)
        repair(at: position, "a raw control character U+\(hex4(UInt32(byte))) in a string (kept; JSON escapes it)")
        buffer.append(byte)
        position += 1
        continue
      }
      guard byte == UInt8(ascii: "\\") else {
        flushHigh(&self)
        buffer.append(byte)
        position += 1
        continue
      }
      let escapeStart = position
      position += 1
      guard position < bytes.count else { break }
      let escaped = bytes[position]
      position += 1
      if escaped == UInt8(ascii: "u") {
        guard let unit = hexQuad() else {
          position = escapeStart
          throw failure("expected four hex digits after \\u")
        }
        if (0xD800...0xDBFF).contains(unit) {
          flushHigh(&self)
          pendingHigh = (unit, escapeStart)
        } else if (0xDC00...0xDFFF).contains(unit) {
          if let high = pendingHigh {
            let scalar = 0x10000 + ((high.value - 0xD800) << 10) + (unit - 0xDC00)
            appendScalar(scalar, to: &buffer)
            pendingHigh = nil
          } else {
            repair(at: escapeStart, "a lone UTF-16 surrogate \\u\(String(unit, radix: 16)), replaced by U+FFFD")
            buffer += [0xEF, 0xBF, 0xBD]
          }
        } else {
          flushHigh(&self)
          appendScalar(unit, to: &buffer)
        }
        continue
      }
      flushHigh(&self)
      switch escaped {
      case UInt8(ascii: "\""): buffer.append(0x22)
      case UInt8(ascii: "\\"): buffer.append(0x5C)
      case UInt8(ascii: "/"): buffer.append(0x2F)
      case UInt8(ascii: "b"): buffer.append(0x08)
      case UInt8(ascii: "f"): buffer.append(0x0C)
      case UInt8(ascii: "n"): buffer.append(0x0A)
      case UInt8(ascii: "r"): buffer.append(0x0D)
      case UInt8(ascii: "t"): buffer.append(0x09)
      default:
        repair(at: escapeStart, "an unknown escape \\\(printable(escaped)) in a string (kept as \(printable(escaped)))")
        buffer.append(escaped)
      }
    }
    throw endInsideString(start - 1)
  }

  /// The document ended inside the string whose opening quote is at `quote`.
  mutating func endInsideString(_ quote: Int) -> Failure {
    position = bytes.count
    let (line, column) = lineAndColumn(quote)
    return failure("the document ends inside a string (it starts at line \(line), column \(column))")
  }

  mutating func hexQuad() -> UInt32? {
    guard position + 4 <= bytes.count else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }

  func appendScalar(_ value: UInt32, to buffer: inout [UInt8]) {
    guard let scalar = Unicode.Scalar(value) else {
      buffer += [0xEF, 0xBF, 0xBD]
      return
    }
    buffer += Array(String(Character(scalar)).utf8)
  }

  // MARK: - Places and messages

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  /// Line and column (1-based; columns count Unicode scalars) of a byte offset.
  func lineAndColumn(_ offset: Int) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    var index = 0
    let end = min(offset, bytes.count)
    while index < end {
      let byte = bytes[index]
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
      index += 1
    }
    return (line, column)
  }

  /// The current key path as the importer writes it: `items[3].title`.
  var keyPath: String {
    var text = ""
    for component in path {
      switch component {
      case .key(let key): text += text.isEmpty ? key : ".\(key)"
      case .index(let index): text += "[\(index)]"
      }
    }
    return text
  }

  mutating func repair(at offset: Int, _ problem: String) {
    let (line, column) = lineAndColumn(offset)
    repairs.append(JSONRepair(keyPath: keyPath, offset: offset, line: line, column: column, problem: problem))
  }

  func failure(_ problem: String) -> Failure {
    let (line, column) = lineAndColumn(position)
    let place = keyPath.isEmpty ? "" : ", in \(keyPath)"
    return Failure(message: "byte \(position) (line \(line), column \(column)\(place)): \(problem)")
  }

  /// The byte at the current position, for messages: `"]"`, `"x"`, `byte 0xC3`, `the end of the document`.
  func found() -> String {
    guard position < bytes.count else { return "the end of the document" }
    return printable(bytes[position])
  }

  func printable(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
