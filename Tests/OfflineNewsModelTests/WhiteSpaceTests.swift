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
    // U+200B is trimmed as Foundation trims it (a feed date wrapped in it is read); U+FEFF is kept by both.
    for sample in ["\u{FEFF}zero width\u{200B}", "\u{200B}Sun, 06 Nov 1994 08:49:37 GMT\u{200B}"] {
      #expect(sample.trimmingWhiteSpace == sample.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    #expect(Timestamp(feedDate: "\u{200B}Sun, 06 Nov 1994 08:49:37 GMT\u{200B}") != nil)
    let inner = "a  b"[...]
    #expect(" \(inner) "[...].trimmingWhiteSpace == "a  b")
  }
}
