import Foundation

/// Where the parts of a JSON text are: for each object, its members' keys and value spans, as byte offsets into the
/// UTF-8 text. What an order-preserving edit of a hand-written file needs (``JSONFileEdit``): the text between
/// the spans — white space, layout, the order of keys — is never touched.
///
/// The scanner follows RFC 8259 (<https://www.rfc-editor.org/rfc/rfc8259>) closely enough to find spans, and leaves
/// judging the values to ``JSONValue/parse(_:)`` (`SubscriptionFile.jsonValue`), which reads the file anyway.
package struct JSONOutline {
  /// A value's span: `start..<end` in the text; for an object, its members in the order written.
  package struct Value {
    package var start: Int
    package var end: Int
    /// The object's members, or `nil` for any other value.
    package var members: [Member]?
  }

  package struct Member {
    /// The key, unescaped.
    package var key: String
    /// The offset of the key's opening quote.
    package var keyStart: Int
    package var value: Value
  }

  /// Why a text has no outline.
  package struct Failure: Error {
    package var offset: Int
    package var reason: String
  }

  package let bytes: [UInt8]
  /// The top-level value.
  package let root: Value

  package init(_ bytes: [UInt8]) throws(Failure) {
    self.bytes = bytes
    var scanner = Scanner(bytes: bytes)
    // A UTF-8 byte order mark before the text, which editors write and the JSON reader skips (RFC 8259 §8.1).
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
    scanner.skipSpace()
    root = try scanner.value(depth: 0)
    scanner.skipSpace()
    guard scanner.index == bytes.count else { throw Failure(offset: scanner.index, reason: "text after the value") }
  }

  /// The member of an object named `key` (the last one, as ``JSONValue/parse(_:)`` keeps the last of repeated keys).
  package static func member(_ key: String, of value: Value) -> Member? {
    value.members?.last { $0.key == key }
  }

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipSpace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Reads what follows a member of an object or an element of an array (`container`, closed by `close`): a comma,
    /// or the close. A comma right before the close is taken too, as Foundation's JSON reader accepts it in a
    /// hand-written file. Whether the container ended (the index is then past its close).
    mutating func endsAfterItem(closedBy close: Unicode.Scalar, _ container: String) throws(Failure) -> Bool {
      skipSpace()
      guard index < bytes.count else { throw Failure(offset: index, reason: "the \(container) is not closed") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: close) else { return false }
      } else {
        guard bytes[index] == UInt8(ascii: close) else {
          throw Failure(offset: index, reason: "',' or '\(close)' expected")
        }
      }
      index += 1
      return true
    }

    mutating func value(depth: Int) throws(Failure) -> Value {
      guard depth < 512 else { throw Failure(offset: index, reason: "nested too deeply") }
      guard index < bytes.count else { throw Failure(offset: index, reason: "a value was expected") }
      let start = index
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var members: [Member] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
          index += 1
          return Value(start: start, end: index, members: members)
        }
        while true {
          skipSpace()
          let keyStart = index
          guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw Failure(offset: index, reason: "a key was expected")
          }
          let key = try string()
          skipSpace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw Failure(offset: index, reason: "':' was expected")
          }
          index += 1
          skipSpace()
          members.append(Member(key: key, keyStart: keyStart, value: try value(depth: depth + 1)))
          if try endsAfterItem(closedBy: "}", "object") { return Value(start: start, end: index, members: members) }
        }
      case UInt8(ascii: "["):
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
          index += 1
          return Value(start: start, end: index)
        }
        while true {
          skipSpace()
          _ = try value(depth: depth + 1)
          if try endsAfterItem(closedBy: "]", "array") { return Value(start: start, end: index) }
        }
      case UInt8(ascii: "\""):
        _ = try string()
        return Value(start: start, end: index)
      default:
        // A number, true, false or null: up to the next structural character or white space.
        while index < bytes.count, ![0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        guard index > start else { throw Failure(offset: index, reason: "a value was expected") }
        return Value(start: start, end: index)
      }
    }

    /// A string at `index` (its opening quote), unescaped; `index` ends after the closing quote.
    mutating func string() throws(Failure) -> String {
      let start = index
      index += 1
      var hasEscapes = false
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        if bytes[index] == UInt8(ascii: "\\") {
          hasEscapes = true
          index += 1
        }
        index += 1
      }
      guard index < bytes.count else { throw Failure(offset: start, reason: "the string is not closed") }
      index += 1
      let raw = Array(bytes[start..<index])
      guard hasEscapes else { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
      // Escapes: let Foundation's JSON reader unescape the one string.
      guard let text = unescaped(raw) else { throw Failure(offset: start, reason: "a bad escape in a string") }
      return text
    }
  }
}

/// A JSON string literal (quotes included) unescaped, or `nil` when it is not a valid one.
private func unescaped(_ literal: [UInt8]) -> String? {
  (try? JSONSerialization.jsonObject(with: Data(literal), options: [.fragmentsAllowed])) as? String
}
