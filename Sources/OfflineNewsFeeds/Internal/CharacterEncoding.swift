import CLibXML2
import Foundation

/// Which character encoding a document is read in, decided before libxml2 reads it.
///
/// The order is RFC 7303 §3.2's (<https://www.rfc-editor.org/rfc/rfc7303#section-3.2>): a byte order mark, then the
/// HTTP `charset` parameter, then the XML declaration, then UTF-8. Two corrections for the web as it is:
/// - labels are read as the WHATWG Encoding Standard reads them (<https://encoding.spec.whatwg.org/#names-and-labels>)
///   where it names a superset: `ISO-8859-1`/`US-ASCII` as windows-1252, `GB2312`/`GBK` as GB18030, `Shift_JIS` as
///   Windows-31J (CP932), `EUC-KR` as CP949. Text in the smaller set reads the same; the characters publishers put
///   in the larger one (curly quotes in "ISO-8859-1" feeds) are no longer lost;
/// - a `charset` of UTF-8 on bytes that are not UTF-8 gives way to the document's own declaration, and a document
///   with neither a declaration nor valid UTF-8 is read as windows-1252; both are reported.
struct CharacterEncoding {
  /// The encoding name handed to libxml2, or `nil` to let libxml2 follow the document (its declaration, a UTF-16
  /// pattern, else UTF-8).
  var name: String?
  /// What was noticed while deciding, for the feed's issues.
  var notes: [String] = []

  /// Decides the encoding of `data`.
  ///
  /// - Parameters:
  ///   - charset: the HTTP `charset` parameter, when the document came over HTTP with one.
  ///   - declared: the XML declaration's `encoding`, when it has one.
  static func choose(for data: Data, charset: String?, declared: String?) -> CharacterEncoding {
    if let bom = byteOrderMark(data) {
      var choice = CharacterEncoding(name: bom)
      if let charset = cleaned(charset), !sameEncoding(charset, bom) {
        choice.notes.append("the byte order mark says \(bom); charset=\(charset) ignored")
      }
      return choice
    }
    var notes: [String] = []
    let isUTF8 = String(validating: data, as: UTF8.self) != nil
    if let charset = cleaned(charset) {
      let label = superset(of: charset)
      if !isSupported(label) {
        notes.append("charset=\(charset) is not an encoding libxml2 knows; ignored")
      } else if isUTF8Label(label), !isUTF8, let declared, !isUTF8Label(declared) {
        notes.append("charset=\(charset), but the bytes are not UTF-8: read as the declared \(declared)")
      } else {
        return CharacterEncoding(name: label, notes: notes)
      }
    }
    if let declared {
      let label = superset(of: declared)
      if label != declared, isSupported(label) { return CharacterEncoding(name: label, notes: notes) }
      return CharacterEncoding(name: nil, notes: notes)
    }
    if !isUTF8, !looksLikeUTF16(data) {
      notes.append("no encoding declared and the bytes are not UTF-8: read as windows-1252")
      return CharacterEncoding(name: "windows-1252", notes: notes)
    }
    return CharacterEncoding(name: nil, notes: notes)
  }

  /// `UTF-8`, `UTF-16LE` or `UTF-16BE` when `data` starts with that byte order mark.
  static func byteOrderMark(_ data: Data) -> String? {
    let bytes = Array(data.prefix(3))
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return "UTF-8" }
    if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
    if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
    return nil
  }

  /// `<` and `?` of a UTF-16 document without a byte order mark (XML 1.0 Appendix F).
  private static func looksLikeUTF16(_ data: Data) -> Bool {
    let bytes = Array(data.prefix(4))
    return bytes == [0x00, 0x3C, 0x00, 0x3F] || bytes == [0x3C, 0x00, 0x3F, 0x00]
  }

  /// A `charset` value without quotes and white space; `nil` when empty.
  private static func cleaned(_ charset: String?) -> String? {
    guard let charset else { return nil }
    let trimmed = charset.trimmingCharacters(in: CharacterSet(charactersIn: "\"' \t"))
    return trimmed.isEmpty ? nil : trimmed
  }

  private static func sameEncoding(_ a: String, _ b: String) -> Bool {
    let a = a.lowercased().replacingOccurrences(of: "-", with: "")
    let b = b.lowercased().replacingOccurrences(of: "-", with: "")
    return a == b || (a == "utf16" && b.hasPrefix("utf16"))
  }

  private static func isUTF8Label(_ label: String) -> Bool {
    ["utf-8", "utf8", "unicode-1-1-utf-8"].contains(label.lowercased())
  }

  /// The WHATWG superset for a label, else the label itself.
  static func superset(of label: String) -> String {
    switch label.lowercased() {
    case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "cp819", "ibm819", "iso-ir-100", "csisolatin1",
      "us-ascii", "ascii", "ansi_x3.4-1968":
      return "windows-1252"
    case "gb2312", "gbk", "x-gbk", "chinese", "csgb2312", "iso-ir-58", "gb_2312-80":
      return "GB18030"
    case "shift_jis", "shift-jis", "sjis", "ms_kanji", "x-sjis", "csshiftjis", "windows-31j":
      return "CP932"
    case "euc-kr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "korean", "csksc56011987":
      return "CP949"
    default:
      return label
    }
  }

  /// Whether libxml2 (with iconv) can decode `label`.
  static func isSupported(_ label: String) -> Bool {
    guard let handler = xmlFindCharEncodingHandler(label) else { return false }
    xmlCharEncCloseFunc(handler)
    return true
  }
}
