/// Decodes HTML character references in text, exactly once: `&amp;lt;` becomes `&lt;`, not `<`.
///
/// Numeric references (`&#39;`, `&#x27;`) of any valid scalar, and the named references news feeds use (the XML
/// five, `&nbsp;`, typographic quotes and dashes, `&hellip;`, common accented letters). Unknown names are left
/// as they are. Source: the HTML Living Standard, "Named character references".
enum HTMLEntities {
  static let named: [Substring: String] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "hellip": "…",
    "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«",
    "raquo": "»", "copy": "©", "reg": "®", "trade": "™", "euro": "€", "pound": "£", "deg": "°", "middot": "·",
    "bull": "•", "eacute": "é", "egrave": "è", "aacute": "á", "agrave": "à", "iacute": "í", "oacute": "ó",
    "uacute": "ú", "ntilde": "ñ", "ccedil": "ç", "auml": "ä", "ouml": "ö", "uuml": "ü", "szlig": "ß",
    "Auml": "Ä", "Ouml": "Ö", "Uuml": "Ü",
  ]

  static func decode(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var out = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      let after = rest[rest.index(after: amp)...]
      guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
        out += "&"
        rest = after
        continue
      }
      let name = after[..<semicolon]
      if let decoded = decodeReference(name) {
        out += decoded
        rest = after[after.index(after: semicolon)...]
      } else {
        out += "&"
        rest = after
      }
    }
    return out + rest
  }

  private static func decodeReference(_ name: Substring) -> String? {
    if name.hasPrefix("#x") || name.hasPrefix("#X") {
      return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
    if name.hasPrefix("#") {
      return UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
    return named[name]
  }
}
