import Foundation
import OfflineNewsModel

/// A document of the sync APIs that writes itself as JSON (``MinifluxJSON``, ``ReaderJSON``).
protocol JSONWritable {
  /// Writes this value: an object, an array or a scalar.
  func write(to json: inout JSONWriter)
}

/// JSON text (RFC 8259) written straight into one buffer of UTF-8, value by value, in the order given: how the sync APIs
/// write their answers. A page of 100 Miniflux entries is about 150 KB; `JSONEncoder` would first build it as a tree
/// of boxed values and dictionaries (and convert every key to snake case), which cost more than the page's query.
/// Strings are escaped by ``JSONText/appendQuoted(_:to:)``, the package's one escaper; member names are the callers' constants.
/// A `nil` optional member is left out, as `Encodable`'s `encodeIfPresent` does.
struct JSONWriter {
  /// The UTF-8 text written so far.
  private(set) var bytes: [UInt8] = []
  /// Whether a value was written in the current object or array, so that the next needs a comma first.
  private var needsComma = false

  /// A writer with room for `capacity` bytes.
  init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  /// `value`'s JSON text as UTF-8.
  static func data(_ value: some JSONWritable, capacity: Int = 256) -> Data {
    var json = JSONWriter(capacity: capacity)
    value.write(to: &json)
    return Data(json.bytes)
  }

  /// Appends `text`'s UTF-8 as it is.
  private mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
  }

  private mutating func separate() {
    if needsComma { bytes.append(UInt8(ascii: ",")) }
  }

  /// An object or array (between `open` and `close`) whose members or elements `body` writes.
  private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
    separate()
    bytes.append(open)
    needsComma = false
    body(&self)
    bytes.append(close)
    needsComma = true
  }

  /// An object whose members `body` writes.
  mutating func object(_ body: (inout JSONWriter) -> Void) { container(UInt8(ascii: "{"), UInt8(ascii: "}"), body) }

  /// An array of documents.
  mutating func array(_ elements: [some JSONWritable]) {
    container(UInt8(ascii: "["), UInt8(ascii: "]")) { json in
      for element in elements { element.write(to: &json) }
    }
  }

  /// A document written before, copied as it is.
  mutating func value(_ document: JSONDocument) {
    separate()
    bytes += document.bytes
    needsComma = true
  }

  /// A string.
  mutating func string(_ value: String) {
    separate()
    JSONText.appendQuoted(value, to: &bytes)
    needsComma = true
  }

  /// An integer, in decimal.
  mutating func number(_ value: Int64) {
    separate()
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var divisor: UInt64 = 1
    while magnitude / divisor >= 10 { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
      magnitude %= divisor
      divisor /= 10
    }
    needsComma = true
  }

  /// `true` or `false`.
  mutating func bool(_ value: Bool) {
    separate()
    append(value ? "true" : "false")
    needsComma = true
  }

  /// An object member's name (an ASCII constant, written as it is); its value follows.
  mutating func key(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    needsComma = false
  }

  /// Members that are the same in every document of a kind (the settings of Miniflux's that this server has none
  /// of, as Miniflux writes their defaults), as their JSON text `"name":value,…`, written as it is: once, at the
  /// declaration, instead of a stored property and a member line each. The text must be valid JSON members
  /// (`JSONWriterTests` reads every document back with `JSONSerialization`).
  mutating func constantMembers(_ text: String) {
    separate()
    append(text)
    needsComma = true
  }

  /// An object member whose members `body` writes.
  mutating func member(_ name: StaticString, object body: (inout JSONWriter) -> Void) {
    key(name)
    object(body)
  }

  /// An array member of `elements`, each written by `write`.
  mutating func member<Elements: Sequence>(
    _ name: StaticString, each elements: Elements, _ write: (inout JSONWriter, Elements.Element) -> Void
  ) {
    key(name)
    container(UInt8(ascii: "["), UInt8(ascii: "]")) { json in
      for element in elements { write(&json, element) }
    }
  }

  /// An array member of objects, one for each of `elements`, whose members `write` writes.
  mutating func member<Elements: Sequence>(
    _ name: StaticString, objects elements: Elements, _ write: (inout JSONWriter, Elements.Element) -> Void
  ) {
    member(name, each: elements) { json, element in
      json.object { json in write(&json, element) }
    }
  }

  /// A member of `value`, written by `write`; left out when `nil`.
  private mutating func member<Value>(
    _ name: StaticString, ifPresent value: Value?, _ write: (inout JSONWriter, Value) -> Void
  ) {
    guard let value else { return }
    key(name)
    write(&self, value)
  }

  /// A string member; left out when `nil`.
  mutating func member(_ name: StaticString, _ value: String?) {
    member(name, ifPresent: value) { json, value in json.string(value) }
  }

  /// A date member as the sync APIs write dates (``ServedDates/rfc3339(_:)``: RFC 3339, UTC, to the second),
  /// written straight into the text.
  mutating func member(_ name: StaticString, date: Date) {
    key(name)
    bytes.append(UInt8(ascii: "\""))
    Timestamp(date).appendRFC3339(to: &bytes, fraction: false)
    bytes.append(UInt8(ascii: "\""))
    needsComma = true
  }

  /// An integer member; left out when `nil`.
  mutating func member(_ name: StaticString, _ value: Int64?) {
    member(name, ifPresent: value) { json, value in json.number(value) }
  }

  /// An integer member; left out when `nil`.
  mutating func member(_ name: StaticString, _ value: Int?) { member(name, value.map(Int64.init)) }

  /// A Boolean member.
  mutating func member(_ name: StaticString, _ value: Bool) {
    key(name)
    bool(value)
  }

  /// A document member; left out when `nil`.
  mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
    member(name, ifPresent: value) { json, value in value.write(to: &json) }
  }

  /// An array member of documents; left out when `nil`.
  mutating func member(_ name: StaticString, _ values: [some JSONWritable]?) {
    member(name, ifPresent: values) { json, values in json.array(values) }
  }

  /// An array member of strings.
  mutating func member(_ name: StaticString, _ values: [String]) {
    member(name, each: values) { json, value in json.string(value) }
  }

  /// An object member of integers by name, its members sorted by name.
  mutating func member(_ name: StaticString, _ values: [String: Int]) {
    key(name)
    object { json in
      for (key, value) in values.sorted(by: { $0.key < $1.key }) {
        json.separate()
        JSONText.appendQuoted(key, to: &json.bytes)
        json.bytes.append(UInt8(ascii: ":"))
        json.needsComma = false
        json.number(Int64(value))
      }
    }
  }
}

/// An array of documents as one document.
struct JSONArray<Element: JSONWritable>: JSONWritable {
  /// The elements.
  var elements: [Element]

  /// - Parameter elements: the elements.
  init(_ elements: [Element]) { self.elements = elements }

  func write(to json: inout JSONWriter) { json.array(elements) }
}

/// A document written once and copied into every document that holds it (a Miniflux feed into each of its entries).
struct JSONDocument: JSONWritable, Sendable {
  /// Its JSON text as UTF-8.
  var bytes: [UInt8]

  /// The document `value` writes.
  init(_ value: some JSONWritable, capacity: Int = 1024) {
    var json = JSONWriter(capacity: capacity)
    value.write(to: &json)
    bytes = json.bytes
  }

  func write(to json: inout JSONWriter) { json.value(self) }
}

/// An object whose members a function writes: an answer of the sync APIs declared as one function of the values it
/// shows (``ReaderJSON/tagList(labels:)``, ``MinifluxJSON/counters(reads:unreads:)``), its nested objects written in
/// place, instead of a type per object that stores the values first.
struct JSONObject: JSONWritable {
  /// Writes the members.
  let members: (inout JSONWriter) -> Void

  /// The object whose members `members` writes.
  init(_ members: @escaping (inout JSONWriter) -> Void) { self.members = members }

  func write(to json: inout JSONWriter) { json.object(members) }
}
