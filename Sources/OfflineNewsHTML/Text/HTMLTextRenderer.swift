import Foundation

/// Renders HTML — an article's content, a feed item's summary — as text for a terminal.
///
/// For example:
/// ```swift
/// let text = HTMLTextRenderer(width: 72).render(html: "<p>India&#039;s <a href=\"/x\">rise</a></p>", baseURL: page)
/// // India's rise[1]
/// //
/// // [1] https://example.com/x
/// ```
///
/// What it writes:
/// - paragraphs and other blocks apart by a blank line; `<br>` a line break;
/// - headings as `# Title`, `## Section`… on a line of their own;
/// - list items with `•` (`◦`, `▪` when nested) or their number (`1.`, from the list's `start`), continuation
///   lines under the item's text; `<dt>`/`<dd>` with the description indented;
/// - block quotes indented by four columns; `<pre>` kept line for line (tabs expanded to 8-column stops),
///   indented, never wrapped;
/// - links as the link text followed by a numbered reference, `text[1]`, the URLs (made absolute against
///   `baseURL`) listed at the end, each URL once; `#fragment` and `javascript:` links without a reference;
/// - images as `[image: alt text]` (`[image]` without one); table rows one per line, cells apart by ` | `;
///   `<hr>` a rule;
/// - nothing of `<script>`, `<style>`, `<head>`, `<template>`, `<svg>`, embeds, form controls, or elements that
///   are hidden (`hidden`, `aria-hidden="true"`, `display: none`, `visibility: hidden`);
/// - text as the parser decoded it (character references decoded exactly once: `India&#039;s` → `India's`),
///   runs of spaces, tabs and line breaks made one space, control characters (C0, DEL, C1; so no escape sequence)
///   dropped;
/// - with a `width`, every line (except `<pre>` lines) wrapped to at most that many terminal columns (wide
///   characters count 2; see ``TerminalColumns``), never splitting a character.
///
/// The output ends with a newline, unless it is empty.
package struct HTMLTextRenderer: Sendable {
  /// The terminal columns to wrap to; `nil` for no wrapping.
  package var width: Int?

  package init(width: Int? = nil) {
    self.width = width.map { max(1, $0) }
  }

  /// Renders HTML text, a fragment or a page (see ``HTMLDocument/init(html:url:)``).
  ///
  /// - Parameter baseURL: what relative link URLs are resolved against (with the HTML's own `<base>` first).
  package func render(html: String, baseURL: URL? = nil) -> String {
    let document = HTMLDocument(html: html, url: baseURL)
    guard let root = document.body ?? document.root else { return "" }
    return render(root)
  }

  /// Renders several pieces of HTML one after another (a summary, then a content), each parsed on its own — an
  /// unclosed tag or comment in one cannot swallow the next — with one list of link references at the end.
  package func render(htmlFragments: [String], baseURL: URL? = nil) -> String {
    var layout = TextLayout(mode: .terminal, width: width, baseURL: baseURL)
    for fragment in htmlFragments {
      let document = HTMLDocument(html: fragment, url: baseURL)
      guard let root = document.body ?? document.root else { continue }
      layout.baseURL = document.baseURL
      layout.walk(root.raw)
      layout.endBlock()
    }
    return layout.finish()
  }

  /// Renders a node and what is below it; links resolve against the document's ``HTMLDocument/baseURL``.
  package func render(_ node: HTMLNode) -> String {
    var layout = TextLayout(mode: .terminal, width: width, baseURL: node.document.baseURL)
    layout.walk(node.raw)
    return layout.finish()
  }

  /// The plain text of HTML text: what a reader reads, without markup, references or image marks. Blocks are apart
  /// by a blank line, list items and table rows on lines of their own (items with their `•` or number, cells
  /// apart by a tab), whitespace normalised, nothing wrapped.
  /// Whether `line` is one of the link references listed after the text, `[N] URL`: the only lines wider than the
  /// width may be, since a URL is never cut across lines (it could not be copied).
  package static func isLinkReference(_ line: some StringProtocol) -> Bool {
    guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return false }
    let number = line[line.index(after: line.startIndex)..<close]
    let rest = line[line.index(after: close)...]
    return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber) && rest.hasPrefix(" ")
      && rest.dropFirst().count > 0 && !rest.dropFirst().contains(" ")
  }

  package static func text(of html: String) -> String {
    let document = HTMLDocument(html: html)
    guard let root = document.body ?? document.root else { return "" }
    return text(of: root)
  }

  /// The plain text of a node (see ``text(of:)-(String)``).
  package static func text(of node: HTMLNode) -> String {
    var layout = TextLayout(mode: .plain, width: nil, baseURL: nil)
    layout.walk(node.raw)
    return layout.finish()
  }
}
