import Foundation
import OfflineNewsHTML
import TestSupport
import Testing

/// What the `readability` and `render` fuzzers found (`Fuzz/ReadabilityFuzz.swift`, `Fuzz/RenderFuzz.swift`), each
/// kept as a regression test; the inputs are in `Fuzz/crashers/readability/` and `Fuzz/crashers/render/`.
@Suite("HTML: inputs found by the readability and render fuzzers")
struct HTMLFuzzRegressionTests {
  static func crasher(_ target: String, _ name: String) throws -> Data {
    try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Fuzz/crashers/\(target)/\(name)"))
  }

  // Was a bug (HTMLDocument): in some repairs libxml2 starts a second <html> at the top of the document; the
  // preparation steps walked the first root only, so a <noscript> and a <font> in the second one reached the
  // article's content. The document now merges every root into the first one's head and body.
  @Test("regression: a page with a second <html> root has no <noscript> or <font> left in its content")
  func secondHTMLRoot() throws {
    let data = try Self.crasher("readability", "second-html-root")
    let article = try #require(
      try ReadabilityExtractor().extract(from: data, url: URL(string: "https://fuzz.example/news/2024/story.html")))
    let content = HTMLDocument(html: article.content)
    for name in ["noscript", "font", "script", "style"] {
      #expect(content.body?.descendants(named: name).isEmpty == true, "<\(name)> in the content")
    }
  }

  // Was a bug (TextLayout): an empty line inside a list item (two <br>s in a row) was printed as the item's
  // indentation alone, a line of spaces.
  @Test("regression: no rendered line ends with a space")
  func blankLineInListItem() throws {
    let data = try Self.crasher("render", "blank-line-in-list-item")
    let width = Int(data[0]) % 120 + 1
    let html = String(decoding: data.dropFirst(), as: UTF8.self)
    let text = HTMLTextRenderer(width: width).render(html: html, baseURL: URL(string: "https://fuzz.example/a/b.html"))
    for line in text.split(separator: "\n") {
      #expect(!line.hasSuffix(" "), "\(String(reflecting: String(line)))")
      #expect(TerminalColumns.width(of: line) <= width)
    }
  }
}
