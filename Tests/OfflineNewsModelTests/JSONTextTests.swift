import Foundation
import Testing

@testable import OfflineNewsModel

/// `JSONText`, the package's one JSON string escaper (RFC 8259 §7), as a JSON parser reads it back.
@Suite("JSON string literals (RFC 8259 §7)")
struct JSONTextTests {
  @Test("quotes, backslashes and every C0 control are escaped; everything else is copied as UTF-8")
  func escapes() throws {
    #expect(JSONText.quoted("") == #""""#)
    #expect(JSONText.quoted("a\"b\\c\nd\re\tf\u{1}g\u{1F}") == #""a\"b\\c\nd\re\tf\u0001g\u001f""#)
    #expect(JSONText.quoted("</script> é 🗞 \u{2028} \u{7F}") == "\"</script> é 🗞 \u{2028} \u{7F}\"")
    let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
    for text in [
      "", "plain", controls, "\"\\\"\\", "mixed \"é\"\n🗞\\", String(repeating: "long ", count: 2000) + "\u{0}",
    ] {
      let literal = JSONText.quoted(text)
      let read = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed) as? String
      #expect(read == text, "\(literal.prefix(80))")
      var bytes: [UInt8] = Array("[".utf8)
      JSONText.appendQuoted(text, to: &bytes)
      #expect(bytes == Array(("[" + literal).utf8), "appending writes the same literal")
    }
  }
}
