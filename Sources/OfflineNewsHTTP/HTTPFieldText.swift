/// How a header field value's octets and its text map to each other, both ways: the one rule of every field the
/// transport reads and sends.
///
/// RFC 9110 §5.5: a field value is octets; besides visible ASCII it may hold `obs-text` (bytes `0x80`–`0xFF`,
/// "historically … text in the ISO-8859-1 charset"), which "a recipient SHOULD treat … as opaque data". So a value
/// is read one scalar per octet (ISO-8859-1: byte `0xE9` is `é`, `0xFF` is `ÿ`) and sent back the same way: every
/// byte sequence has exactly one text, and that text gives the same bytes back. An entity tag the server wrote in
/// bytes that are not UTF-8 (`"caf\xE9\xFF"`) is sent in `If-None-Match` byte for byte, and through the store too
/// (SQLite keeps the text as it is), so the server can answer `304 Not Modified`; one in UTF-8 (`"café"`, bytes
/// `C3 A9`) is read as two scalars and sent back as those two bytes. Reading as UTF-8 could not do both: invalid
/// bytes became U+FFFD and were sent back as `EF BF BD`.
///
/// For example:
/// ```swift
/// HTTPFieldText.text([0x22, 0xE9, 0xFF, 0x22])  // "\"éÿ\""
/// HTTPFieldText.octets("\"éÿ\"")               // [0x22, 0xE9, 0xFF, 0x22]
/// ```
package enum HTTPFieldText {
  /// `octets` as text, one Unicode scalar per octet (ISO-8859-1); ASCII is read as it is.
  package static func text(_ octets: some Collection<UInt8>) -> String {
    if octets.allSatisfy({ $0 < 0x80 }) { return String(decoding: octets, as: UTF8.self) }
    var text = String()
    text.unicodeScalars.append(contentsOf: octets.map { Unicode.Scalar($0) })
    return text
  }

  /// `text` without the optional white space around a field's name and value: spaces and horizontal tabs only (RFC
  /// 9110 §5.6.3 `OWS`), so that an octet such as `0xA0` (read as U+00A0 by ``text(_:)``) at an end of a value stays
  /// part of it.
  package static func trimmingOWS(_ text: some StringProtocol) -> String {
    let scalars = text.unicodeScalars
    guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
      let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
    else { return "" }
    return String(String.UnicodeScalarView(scalars[start...end]))
  }

  /// The octets `value` is sent as: one per scalar when every scalar is at most U+00FF (ISO-8859-1, so that what
  /// ``text(_:)`` read goes back byte for byte), else its UTF-8 (a value a caller wrote with other characters: none
  /// that was received).
  package static func octets(_ value: String) -> [UInt8] {
    guard value.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) else { return Array(value.utf8) }
    return value.unicodeScalars.map { UInt8($0.value) }
  }

  /// A field value read as a URI reference (`Location`): its octets as UTF-8 when they are valid UTF-8 — a
  /// `Location` with raw non-ASCII characters, which browsers read as UTF-8 (and libcurl percent-encodes byte by
  /// byte: the same URL) — else `value` as it is. `URLReference` then percent-encodes its non-ASCII characters.
  package static func uriReference(_ value: String) -> String {
    let bytes = octets(value)
    guard !bytes.allSatisfy({ $0 < 0x80 }) else { return value }
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var text = String()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
      case .emptyInput: return text
      case .error: return value
      }
    }
  }
}
