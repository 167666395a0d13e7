import Foundation
import OfflineNewsModel
import Testing

@Suite("trimmingWhiteSpace: the package's one trim")
struct WhiteSpaceTests {
  @Test("trims what Foundation's .whitespacesAndNewlines trims, and keeps a combining mark at an end")
  func sameAsFoundation() {
    let samples = [
      "", " ", "\n\t\r ", "plain", "  both  ", "\u{00A0}no-break\u{00A0}", "\u{2003}em space\u{3000}",
      "\u{0085}next line\u{2028}", "e\u{0301} ", " \u{0301}x",
      "Sun, 06 Nov 1994 08:49:37 GMT\r\n", "東京 ", "🎉\u{200D}\u{1F525} ",
    ]
    for sample in samples {
      #expect(
        sample.trimmingWhiteSpace == sample.trimmingCharacters(in: .whitespacesAndNewlines),
        "\(sample.debugDescription)")
    }
    // Zero-width characters are not white space in Unicode (swift-corelibs-foundation trims U+200B, not U+FEFF).
    #expect("\u{FEFF}zero width\u{200B}".trimmingWhiteSpace == "\u{FEFF}zero width\u{200B}")
    let inner = "a  b"[...]
    #expect(" \(inner) "[...].trimmingWhiteSpace == "a  b")
  }
}
