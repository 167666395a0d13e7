import Foundation

/// JSON text written without an encoder (RFC 8259 §7): the one string escaper of the package, used where rows and
/// values are written as JSON text on hot paths (the `article.tags`/`enclosures` columns, the importer's canonical
/// JSON of a value, search messages).
package enum JSONText {
  /// `text` as a JSON string literal: `"` and `\` escaped, `\n` `\r` `\t` as themselves, the other C0 controls as
  /// `\u00XX`; every other character as it is (JSON text is UTF-8).
  package static func quoted(_ text: String) -> String {
    var bytes: [UInt8] = []
    appendQuoted(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `text` as a JSON string literal (``quoted(_:)``) to `bytes`, as UTF-8: the runs of characters that
  /// need no escape are copied whole.
  package static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    var text = text
    text.withUTF8 { utf8 in
      bytes.reserveCapacity(bytes.count + utf8.count + 2)
      bytes.append(UInt8(ascii: "\""))
      var start = 0
      for index in 0..<utf8.count {
        let byte = utf8[index]
        if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        start = index + 1
        switch byte {
        case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        default: bytes += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
      bytes.append(UInt8(ascii: "\""))
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)
}
