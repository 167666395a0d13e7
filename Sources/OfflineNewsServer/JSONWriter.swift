import Foundation
import OfflineNewsModel

/// JSON text (RFC 8259) written straight into one buffer of UTF-8, value by value, in the order encoded: how the sync
/// APIs write their answers (``MinifluxJSON``, ``ReaderJSON``). The documents are plain `Encodable` structs; their
/// synthesized `encode(to:)` drives this writer through `Encoder`, one member after another, so the fields are
/// declared once and written in their declared order.
///
/// Why not `JSONEncoder`: a page of 100 Miniflux entries is about 150 KB, and `JSONEncoder` first builds it as a tree
/// of boxed values and dictionaries (and converts every key to snake case with Unicode string operations), which cost
/// more than the page's query. Here strings are escaped by ``JSONText/appendQuoted(_:to:)``, the package's one
/// escaper, and a key is converted to snake case byte by byte as it is written.
///
/// As `Encodable`'s synthesized code does with `encodeIfPresent`, a `nil` optional member is left out. A
/// `[String: Int]` is written with its members sorted by name (the same answer each time). Dates and `Data` are not
/// given a format here: the documents carry their dates as the strings or numbers their API specifies.
struct JSONWriter {
  /// How member names are written.
  enum KeyStyle {
    /// As the `CodingKey` says (Google Reader's camelCase).
    case asIs
    /// camelCase → snake_case: an `_` before each ASCII capital, lowered (`feedUrl` → `feed_url`,
    /// `disableHttp2` → `disable_http2`), as Miniflux's Go `json` tags name them. Runs of capitals are not
    /// treated as one word, so a key is written in camelCase with one capital a word (`Http`, not `HTTP`).
    case snakeCase
  }

  /// `value`'s JSON text as UTF-8.
  static func data(_ value: some Encodable, keys: KeyStyle = .asIs, capacity: Int = 256) -> Data {
    let encoder = StreamEncoder(keys: keys, capacity: capacity)
    encoder.write(value)
    return Data(encoder.bytes)
  }
}

/// The `Encoder` behind ``JSONWriter``: containers append to one buffer as they are used and are closed when the
/// value that opened them returns from its `encode(to:)`. It serves encoders that fill a container in one pass, as
/// synthesized code does; a value may ask for its container more than once, not for two kinds of container, and a
/// nested container stays open until its value returns (so it must be the value's last member).
private final class StreamEncoder: Encoder {
  var bytes: [UInt8] = []
  let keys: JSONWriter.KeyStyle
  /// Whether a value was written in the current object or array, so that the next needs a comma first.
  var needsComma = false
  /// The closing bytes of the containers open, innermost last.
  var closers: [UInt8] = []
  /// Whether the value being encoded has opened its container (it may ask again; it gets the same one).
  var opened = false

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(keys: JSONWriter.KeyStyle, capacity: Int) {
    self.keys = keys
    bytes.reserveCapacity(capacity)
  }

  /// Writes `value` after a comma where one is needed, closing whatever container it opened.
  func write<T: Encodable>(_ value: T) {
    // Compared by type first: a failed dynamic cast costs more than the member it would write.
    if T.self == String.self, let text = value as? String { return string(text) }
    if T.self == [String].self, let texts = value as? [String] { return strings(texts) }
    if T.self == [String: Int].self, let counts = value as? [String: Int] { return sortedObject(counts) }
    let depth = closers.count
    let wasOpened = opened
    opened = false
    // The writer's own containers do not throw; a value's `encode(to:)` that throws on its own is a programming
    // error of that document type, and what was written so far stands.
    try? value.encode(to: self)
    while closers.count > depth { close() }
    opened = wasOpened
    needsComma = true
  }

  func separate() {
    if needsComma { bytes.append(UInt8(ascii: ",")) }
  }

  func open(_ opening: Unicode.Scalar, closing: Unicode.Scalar) {
    guard !opened else { return }
    opened = true
    separate()
    bytes.append(UInt8(ascii: opening))
    closers.append(UInt8(ascii: closing))
    needsComma = false
  }

  func close() {
    bytes.append(closers.removeLast())
    needsComma = true
  }

  /// A member's name and the colon; its value follows.
  func key(_ key: some CodingKey) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    var name = key.stringValue
    name.withUTF8 { utf8 in
      switch keys {
      case .asIs: bytes.append(contentsOf: utf8)
      case .snakeCase:
        for byte in utf8 {
          if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
            bytes += [UInt8(ascii: "_"), byte + 32]
          } else {
            bytes.append(byte)
          }
        }
      }
    }
    bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
    needsComma = false
  }

  func string(_ value: String) {
    separate()
    JSONText.appendQuoted(value, to: &bytes)
    needsComma = true
  }

  /// Numbers, `true`, `false` and `null`: their text as it is.
  func literal(_ text: String) {
    separate()
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
    needsComma = true
  }

  func strings(_ values: [String]) {
    separate()
    bytes.append(UInt8(ascii: "["))
    needsComma = false
    for value in values { string(value) }
    bytes.append(UInt8(ascii: "]"))
    needsComma = true
  }

  func sortedObject(_ values: [String: Int]) {
    separate()
    bytes.append(UInt8(ascii: "{"))
    needsComma = false
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      string(key)
      bytes.append(UInt8(ascii: ":"))
      needsComma = false
      literal(String(value))
    }
    bytes.append(UInt8(ascii: "}"))
    needsComma = true
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    open("{", closing: "}")
    return KeyedEncodingContainer(Keyed(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    open("[", closing: "]")
    return Unkeyed(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

  struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) {
      encoder.key(key)
      encoder.literal("null")
    }
    mutating func encode(_ value: Bool, forKey key: Key) {
      encoder.key(key)
      encoder.literal(value ? "true" : "false")
    }
    mutating func encode(_ value: String, forKey key: Key) {
      encoder.key(key)
      encoder.string(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) {
      encoder.key(key)
      encoder.literal(String(value))
    }
    mutating func encode(_ value: Int64, forKey key: Key) {
      encoder.key(key)
      encoder.literal(String(value))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
      encoder.key(key)
      encoder.write(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      encoder.key(key)
      encoder.opened = false
      return encoder.container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      encoder.key(key)
      encoder.opened = false
      return encoder.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
  }

  struct Unkeyed: UnkeyedEncodingContainer {
    let encoder: StreamEncoder
    var codingPath: [any CodingKey] { [] }
    var count = 0

    mutating func encodeNil() {
      count += 1
      encoder.literal("null")
    }
    mutating func encode<T: Encodable>(_ value: T) {
      count += 1
      encoder.write(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
      NestedKey
    > {
      count += 1
      encoder.opened = false
      return encoder.container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      count += 1
      encoder.opened = false
      return encoder.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { encoder }
  }

  struct Single: SingleValueEncodingContainer {
    let encoder: StreamEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() { encoder.literal("null") }
    mutating func encode(_ value: Bool) { encoder.literal(value ? "true" : "false") }
    mutating func encode(_ value: String) { encoder.string(value) }
    mutating func encode(_ value: Int) { encoder.literal(String(value)) }
    mutating func encode(_ value: Int64) { encoder.literal(String(value)) }
    mutating func encode(_ value: Double) { encoder.literal(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) { encoder.write(value) }
  }
}
