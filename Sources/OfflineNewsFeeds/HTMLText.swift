import CLibXML2
import Foundation

/// Plain text out of HTML, by libxml2's HTML parser (`htmlReadMemory`, recover mode, no network): the way a feed's
/// HTML summary becomes a title or a line of text.
///
/// For example:
/// ```swift
/// HTMLText.plainText(fromHTML: "<p>Caf&eacute; <b>au</b> lait</p><p>Second</p>")  // "Café au lait\nSecond"
/// ```
package enum HTMLText {
  /// Elements whose text is not text a reader sees.
  static let hidden: Set<String> = ["script", "style", "noscript", "template", "head", "title"]
  /// Elements that start and end a line.
  static let blocks: Set<String> = [
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "tr", "table",
    "section", "article", "header", "footer", "aside", "figure", "figcaption", "hr", "dd", "dt", "dl", "nav",
    "address",
  ]

  /// The text of an HTML fragment or document: entities decoded, scripts, styles and comments left out, each block
  /// element and `<br>` on its own line; runs of spaces within a line become one space, and lines are trimmed,
  /// empty ones dropped.
  ///
  /// - Parameter html: the HTML, as a string (it is read as UTF-8).
  /// - Returns: the text; empty when there is none.
  package static func plainText(fromHTML html: String) -> String {
    guard !html.isEmpty else { return "" }
    guard let document = HTMLDocument(Data(html.utf8), url: nil, encoding: "UTF-8") else { return "" }
    var raw = ""
    document.withRoot { collect($0, into: &raw) }
    return normalizedLines(raw)
  }

  /// The text of an HTML fragment on one line (every run of white space one space), trimmed.
  static func singleLine(fromHTML html: String) -> String {
    collapsed(plainText(fromHTML: html))
  }

  /// `text` with every run of white space (new lines included) made one space, and trimmed.
  static func collapsed(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    var pendingSpace = false
    for scalar in text.unicodeScalars {
      // ASCII first: most text is, and a property lookup per scalar is what made this slow.
      let isSpace =
        scalar.value < 0x80
        ? scalar.value == 0x20 || (scalar.value >= 0x09 && scalar.value <= 0x0D) : scalar.properties.isWhitespace
      if isSpace {
        pendingSpace = !result.isEmpty
      } else {
        if pendingSpace { result.append(" ") }
        pendingSpace = false
        result.append(scalar)
      }
    }
    return String(result)
  }

  private static func collect(_ element: XMLElement, into text: inout String) {
    let name = element.name.lowercased()
    if hidden.contains(name) { return }
    let isBlock = blocks.contains(name)
    if isBlock { text.append("\n") }
    var child = element.node.pointee.children
    while let node = child {
      switch node.pointee.type {
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
        if let content = node.pointee.content { text.append(String(cString: content)) }
      case XML_ELEMENT_NODE:
        collect(XMLElement(node: node), into: &text)
      default:
        break
      }
      child = node.pointee.next
    }
    if isBlock { text.append("\n") }
  }

  private static func normalizedLines(_ raw: String) -> String {
    raw.split(separator: "\n", omittingEmptySubsequences: true)
      .map { collapsed(String($0)) }
      .filter { !$0.isEmpty }
      .joined(separator: "\n")
  }
}

/// A document read by libxml2's HTML parser (`htmlCtxtReadMemory`: recover, no network, no error output).
struct HTMLDocument {
  private let tree: XMLTreeDocument

  /// - Parameters:
  ///   - url: the page's URL, kept as the document's URL.
  ///   - encoding: the encoding to read the bytes in (an HTTP `charset`), or `nil` for the page's own `<meta
  ///     charset>` (else libxml2's default).
  init?(_ data: Data, url: String?, encoding: String?) {
    LibXML2.initialize()
    guard !data.isEmpty, data.count < Int32.max, let context = htmlNewParserCtxt() else { return nil }
    defer { htmlFreeParserCtxt(context) }
    if let sax = context.pointee.sax { sax.pointee.serror = { _, _ in } }
    let options = Int32(
      HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
        | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_COMPACT.rawValue)
    let document = LibXML2.withErrorHandler(nil, context: nil) {
      data.withUnsafeBytes { raw -> xmlDocPtr? in
        guard let base = raw.baseAddress else { return nil }
        return htmlCtxtReadMemory(
          context, base.assumingMemoryBound(to: CChar.self), Int32(raw.count), url, encoding, options)
      }
    }
    guard let document else { return nil }
    tree = XMLTreeDocument(document)
  }

  /// Runs `body` with the `html` element, while the document is alive.
  func withRoot(_ body: (XMLElement) -> Void) {
    withExtendedLifetime(tree) {
      if let root = tree.root { body(root) }
    }
  }

  /// Runs `body` over every element in document order (depth first), while the document is alive.
  func forEachElement(_ body: (XMLElement) -> Void) {
    withExtendedLifetime(tree) {
      guard let root = tree.root else { return }
      var stack: [xmlNodePtr] = [root.node]
      while let node = stack.popLast() {
        body(XMLElement(node: node))
        var children: [xmlNodePtr] = []
        var child = node.pointee.children
        while let current = child {
          if current.pointee.type == XML_ELEMENT_NODE { children.append(current) }
          child = current.pointee.next
        }
        stack.append(contentsOf: children.reversed())
      }
    }
  }
}

extension String {
  /// The text without XML's white space (space, tab, carriage return, line feed: XML 1.0 §2.3 `S`) at either end.
  var trimmedXMLSpace: String {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    let bytes = utf8
    guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return "" }
    // After the last byte that is not a space comes a space or the end: a character boundary.
    return String(self[first..<bytes.index(after: last)])
  }
}
