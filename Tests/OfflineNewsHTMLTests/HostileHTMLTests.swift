import Foundation
import OfflineNewsHTML
import TestSupport
import Testing

/// Inputs no page should be, for the parser, the extractor and the renderer: nothing crashes, hangs or recurses
/// without bound (libxml2 stops nesting at 256 levels, and every walk here is iterative).
@Suite(.timeLimit(.minutes(5)))
struct HostileHTMLTests {
  static func exercise(_ data: Data) throws {
    let article = try ReadabilityExtractor().extract(from: data, url: URL(string: "https://example.com/a/b"))
    if let article {
      _ = HTMLTextRenderer(width: 40).render(html: article.content)
      #expect(!article.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
    }
    let document = try HTMLDocument(data: data)
    if let body = document.body {
      let rendered = HTMLTextRenderer(width: 30).render(body)
      let wide = rendered.split(separator: "\n").filter {
        TerminalColumns.width(of: $0) > 30 && !HTMLTextRenderer.isLinkReference($0)
      }
      #expect(wide.count == 0, "lines too wide: \(wide.prefix(3).map { String(reflecting: String($0.prefix(120))) })")
      _ = HTMLTextRenderer.text(of: body)
    }
  }

  @Test("empty input, whitespace, a lone byte order mark, NUL bytes")
  func tiny() throws {
    for bytes: [UInt8] in [
      [], [0x20, 0x0A], [0xEF, 0xBB, 0xBF], [0], [0, 0, 0x3C, 0], Array("<".utf8), Array("<!--".utf8),
    ] {
      try Self.exercise(Data(bytes))
    }
  }

  @Test("random bytes, and random bytes among tags")
  func randomBytes() throws {
    var generator = SplitMix64(seed: 20_241_201)
    let pieces = [
      "<div>", "</div>", "<p>", "<br>", "<a href='", "'>", "</a>", "<table><tr><td>", "<li>", "&#", ";",
      "<pre>", "<img alt=", "<script>", "</script>", "<!--", "-->", "<![CDATA[", "<noscript>", " ", "\u{0}",
    ]
    for _ in 0..<200 {
      var data = Data()
      for _ in 0..<Int.random(in: 1...400, using: &generator) {
        if Bool.random(using: &generator) {
          data.append(contentsOf: pieces.randomElement(using: &generator)!.utf8)
        } else {
          data.append(UInt8.random(in: 0...255, using: &generator))
        }
      }
      try Self.exercise(data)
    }
  }

  @Test("10 MB of nested <div>s; 1 MB each of nested inline elements, lists, tables, quotes and links")
  func deepNesting() throws {
    let megabyte = 1024 * 1024
    for (opening, size) in [
      ("<div>", 10 * megabyte), ("<b>", megabyte), ("<ul><li>", megabyte), ("<table><tr><td>", megabyte),
      ("<blockquote>", megabyte), ("<a href=x>", megabyte),
    ] {
      var html = String(repeating: opening + "text, ", count: size / (opening.utf8.count + 6))
      html += "end"
      try Self.exercise(Data(html.utf8))
    }
  }

  @Test("2 MB of sibling paragraphs and 200,000 <br>s")
  func wideDocuments() throws {
    let paragraphs = String(repeating: "<p>Some words, and commas, in a paragraph.</p>", count: 45_000)
    try Self.exercise(Data(paragraphs.utf8))
    let breaks = "<div>start" + String(repeating: "<br>", count: 200_000) + "end</div>"
    try Self.exercise(Data(breaks.utf8))
  }

  @Test("one text node of 10 MB, and an attribute of 5 MB")
  func hugeText() throws {
    try Self.exercise(Data(("<p>" + String(repeating: "word ", count: 2_000_000) + "</p>").utf8))
    try Self.exercise(Data(("<a href=\"" + String(repeating: "x", count: 5_000_000) + "\">link</a>").utf8))
  }
}
