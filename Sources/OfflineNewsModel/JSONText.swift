import Foundation

/// JSON text written without an encoder (RFC 8259 §7): the one string escaper of the package, used where rows and
/// values are written as JSON text on hot paths (the `article.tags`/`enclosures` columns, the importer's canonical
/// JSON of a value, search messages).
package enum JSONText {
  /// `text` as a JSON string literal: `"` and `\` escaped, `\n` `\r` `\t` as themselves, the other C0 controls as
  /// `\u00XX`; every other character as it is (JSON text is UTF-8).
  package static func quoted(_ text: String) -> String {
    var out = "\""
    out.reserveCapacity(text.utf8.count + 2)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
