// libFuzzer target: the terminal renderer, `HTMLTextRenderer(width:).render(html:baseURL:)` and
// `HTMLTextRenderer.text(of:)`, on the input as HTML text (the first byte chooses the width, 1–120 columns; the rest
// is the HTML, UTF-8 with invalid bytes replaced).
//
// Built by scripts/fuzz.sh together with Sources/OfflineNewsHTML and the system libxml2 (see Fuzz/README.md).
// Properties checked on every input, each a crash when broken:
// - rendering never traps or hangs;
// - every line fits the width in terminal columns (`TerminalColumns`), or is one character wider than the width
//   alone; no line ends with a space;
// - the output holds no control character but line feeds (no escape sequence reaches a terminal), and is empty
//   or ends with exactly one line feed;
// - the plain text holds no control character but line feeds and tabs; rendering is deterministic.
import Foundation
import OfflineNewsHTML

private let baseURL = URL(string: "https://fuzz.example/a/b.html")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let width = Int(data[0]) % 120 + 1
  let html = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
  let renderer = HTMLTextRenderer(width: width)
  let text = renderer.render(html: html, baseURL: baseURL)
  guard text == renderer.render(html: html, baseURL: baseURL) else { fatalError("two renderings differ") }
  if !text.isEmpty && (!text.hasSuffix("\n") || text.hasSuffix("\n\n")) {
    fatalError("output does not end with exactly one line feed: \(String(reflecting: String(text.suffix(40))))")
  }
  for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
    let columns = TerminalColumns.width(of: line)
    // A character wider than the whole line (a CJK character at width 1) can only be a line of its own.
    // A link reference keeps its URL on one line, however wide (HTMLTextRenderer.isLinkReference).
    if columns > width && line.count > 1 && !HTMLTextRenderer.isLinkReference(line) {
      fatalError("a line of \(columns) columns at width \(width): \(String(reflecting: String(line)))")
    }
    if line.hasSuffix(" ") { fatalError("a line ends with a space: \(String(reflecting: String(line)))") }
  }
  if let bad = text.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
  {
    fatalError("output holds the control character U+\(String(bad.value, radix: 16))")
  }
  let plain = HTMLTextRenderer.text(of: html)
  if let bad = plain.unicodeScalars.first(where: {
    ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
  }) {
    fatalError("plain text holds the control character U+\(String(bad.value, radix: 16))")
  }
  return 0
}
