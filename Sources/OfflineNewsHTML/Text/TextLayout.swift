import Foundation
import OfflineNewsModel

/// The work of ``HTMLTextRenderer``: one walk over the tree (iterative, any depth) that gathers inline text into
/// blocks, lays each block out with its prefixes (list markers, quote indentation) and wraps it.
struct TextLayout {
  enum Mode {
    /// For a terminal: heading marks, link references, image marks, indentation, wrapping.
    case terminal
    /// Plain reader text: structure only.
    case plain
  }

  private enum Container {
    case quote
    case definition
    case list(ordered: Bool, next: Int, items: Int)
    case item(marker: String, used: Bool)
    case pre
  }

  let mode: Mode
  let width: Int?
  var baseURL: URL?

  private var lines: [String] = []
  private var containers: [Container] = []
  /// The inline text of the block being gathered, UTF-8; `\n` for a `<br>`. Bytes, not a `String`, so that text is
  /// copied in runs rather than character by character.
  private var inline: [UInt8] = []
  private var pendingSpace = false
  /// Whether `inline` is empty or ends with a line break (a space there would lead a line).
  private var atLineStart = true
  private var preText: [UInt8] = []
  private var preDepth = 0
  private var headingLevel: Int?
  /// The next block follows the previous one on the next line, without a blank line (list items, rows).
  private var tight = false
  /// The cells of the table row being gathered, while inside one; nested tables' rows are text of its cells.
  private var row: [String]?
  private var rowDepth = 0
  private var rowIsFirst = true
  /// The number of each link open, or `nil` for one without a reference, with the inline length at its start.
  private var openLinks: [(number: String?, start: Int)] = []
  private var links: [String] = []
  private var linkNumbers: [String: Int] = [:]
  /// Each `<sup>` or `<sub>` open: where its text starts in `inline`, and which; `nil` for one in `<pre>`.
  private var openScripts: [(start: Int, superscript: Bool)?] = []

  init(mode: Mode, width: Int?, baseURL: URL?) {
    self.mode = mode
    self.width = width
    self.baseURL = baseURL
  }

  // MARK: Walking

  static let skipped: Set<String> = [
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base", "iframe", "object", "embed",
    "svg", "math", "canvas", "video", "audio", "source", "track", "map", "input", "button", "select", "textarea",
    "option", "optgroup", "datalist", "dialog", "frame", "frameset", "param",
  ]
  static let blocks: Set<String> = [
    "html", "body", "address", "article", "aside", "blockquote", "center", "dd", "details", "dir", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
    "hr", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "caption", "legend",
    "tr", "thead", "tbody", "tfoot",
  ]

  mutating func walk(_ root: RawNode) {
    var stack: [(node: RawNode, exiting: Bool)] = [(root, false)]
    while let (node, exiting) = stack.popLast() {
      if exiting {
        exit(node)
        continue
      }
      if node.isText {
        appendText(node)
        continue
      }
      guard node.isElement || node == root else { continue }
      if node.isElement {
        let name = node.name
        if Self.skipped.contains(name) || isHidden(node) { continue }
        enter(node, name: name)
      }
      stack.append((node, true))
      var child = node.lastChild
      while let current = child {
        stack.append((current, false))
        child = current.previousSibling
      }
    }
  }

  private func isHidden(_ node: RawNode) -> Bool {
    if node.hasAttribute("hidden") || node.attribute("aria-hidden") == "true" { return true }
    guard let style = node.attribute("style") else { return false }
    return InlineStyle.value(of: "display", in: style) == "none"
      || InlineStyle.value(of: "visibility", in: style) == "hidden"
  }

  private mutating func enter(_ node: RawNode, name: String) {
    switch name {
    case "br":
      if preDepth > 0 {
        preText.append(0x0A)
      } else if rowDepth > 0 {
        appendSpace()
      } else {
        inline.append(0x0A)
        pendingSpace = false
        atLineStart = true
      }
    case "img":
      guard mode == .terminal else { return }
      // Alternative text on one line: whitespace (tabs and line breaks too) made single spaces, controls dropped.
      let alt = sanitize(node.attribute("alt") ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
      let mark = alt.isEmpty ? "[image]" : "[image: \(alt)]"
      if preDepth > 0 { preText += Array(mark.utf8) } else { appendWord(mark) }
    case "a":
      openLinks.append((preDepth > 0 ? nil : linkReference(node), inline.count))
    case "sup", "sub":
      openScripts.append(preDepth > 0 ? nil : (inline.count, name == "sup"))
    case "td", "th":
      appendSpace()
    default:
      guard Self.blocks.contains(name) else { return }
      endBlock()
      switch name {
      case "h1", "h2", "h3", "h4", "h5", "h6":
        headingLevel = Int(String(name.dropFirst()))
      case "ul", "ol", "menu", "dir":
        let start = name == "ol" ? node.attribute("start").flatMap { Int(JSString.trim($0)) } ?? 1 : 1
        containers.append(.list(ordered: name == "ol", next: start, items: 0))
      case "li":
        beginItem(node)
      case "blockquote":
        containers.append(.quote)
      case "pre":
        containers.append(.pre)
        preDepth += 1
      case "dt":
        tight = true
      case "dd":
        tight = true
        containers.append(.definition)
      case "tr":
        rowDepth += 1
        if rowDepth == 1 {
          row = []
          if !rowIsFirst { tight = true }
        }
      case "table":
        rowIsFirst = true
      case "hr":
        emitRule()
      default:
        break
      }
    }
  }

  private mutating func exit(_ node: RawNode) {
    guard node.isElement else {
      endBlock()
      return
    }
    let name = node.name
    switch name {
    case "a":
      guard let link = openLinks.popLast() else { return }
      if let number = link.number, inline.count > link.start { appendRaw("[\(number)]") }
    case "sup", "sub":
      guard let open = openScripts.popLast(), let script = open, script.start <= inline.count else { return }
      closeScript(from: script.start, superscript: script.superscript)
    case "td", "th":
      appendSpace()
      if rowDepth == 1 {
        row?.append(JSString.trim(String(decoding: inline, as: UTF8.self)))
        clearInline()
      }
    default:
      guard Self.blocks.contains(name) else { return }
      if name == "tr" && rowDepth > 1 {
        rowDepth -= 1
        appendSpace()
        return
      }
      if name == "tr", let cells = row {
        rowDepth = 0
        row = nil
        clearInline()
        let text = cells.filter { !$0.isEmpty }.joined(separator: mode == .terminal ? " | " : "\t")
        if !text.isEmpty {
          emitParagraph(text)
          rowIsFirst = false
        }
        return
      }
      endBlock()
      switch name {
      case "h1", "h2", "h3", "h4", "h5", "h6": headingLevel = nil
      case "ul", "ol", "menu", "dir", "li", "blockquote", "dd": popContainer()
      case "pre":
        popContainer()
        preDepth -= 1
      case "table": rowIsFirst = true
      default: break
      }
    }
  }

  /// The superscript characters Unicode has: digits, `+ − = ( )`, `n`, `i` (U+2070–U+207F, U+00B9, U+00B2, U+00B3).
  static let superscripts: [Character: Character] = [
    "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹",
    "+": "⁺", "-": "⁻", "−": "⁻", "=": "⁼", "(": "⁽", ")": "⁾", "n": "ⁿ", "i": "ⁱ",
  ]
  /// The subscript characters Unicode has for the same: digits, `+ − = ( )` (U+2080–U+208E).
  static let subscripts: [Character: Character] = [
    "0": "₀", "1": "₁", "2": "₂", "3": "₃", "4": "₄", "5": "₅", "6": "₆", "7": "₇", "8": "₈", "9": "₉",
    "+": "₊", "-": "₋", "−": "₋", "=": "₌", "(": "₍", ")": "₎",
  ]

  /// Rewrites the text of a `<sup>`/`<sub>` that ended (from `start` in `inline`) so that it stays readable once
  /// the markup is gone: `2<sup>4</sup>` → `2⁴`, `00<sub>2</sub>` → `00₂` when Unicode has every character's
  /// superscript (subscript) form, else `2^x`, `x_ab` (`^(…)`, `_(…)` around text with a space), a bracketed
  /// footnote mark (`[1]`) as it is; never `24`.
  static func script(_ text: String, superscript: Bool) -> String {
    let table = superscript ? superscripts : subscripts
    let mapped = text.compactMap { table[$0] }
    if mapped.count == text.count { return String(mapped) }
    // A bracketed footnote mark (`<sup>[1]</sup>`) is readable as it is.
    if text.hasPrefix("[") { return text }
    let mark = superscript ? "^" : "_"
    return text.contains(" ") ? "\(mark)(\(text))" : mark + text
  }

  private mutating func closeScript(from start: Int, superscript: Bool) {
    var begin = start
    while begin < inline.count, inline[begin] == 0x20 || inline[begin] == 0x0A { begin += 1 }
    guard begin < inline.count else { return }
    let text = String(decoding: inline[begin...], as: UTF8.self)
    inline.replaceSubrange(begin..., with: Array(Self.script(text, superscript: superscript).utf8))
  }

  private mutating func popContainer() {
    if !containers.isEmpty { containers.removeLast() }
  }

  private mutating func beginItem(_ node: RawNode) {
    var marker = "• "
    if let index = containers.lastIndex(where: { if case .list = $0 { true } else { false } }),
      case .list(let ordered, let next, let items) = containers[index]
    {
      let depth = containers.filter { if case .list = $0 { true } else { false } }.count
      if ordered {
        let value = node.attribute("value").flatMap { Int(JSString.trim($0)) } ?? next
        marker = "\(value). "
        containers[index] = .list(ordered: true, next: value + 1, items: items + 1)
      } else {
        marker = depth <= 1 ? "• " : depth == 2 ? "◦ " : "▪ "
        containers[index] = .list(ordered: false, next: next, items: items + 1)
      }
      if items > 0 { tight = true }
    }
    if containers.contains(where: { if case .item = $0 { true } else { false } }) { tight = true }
    containers.append(.item(marker: marker, used: false))
  }

  // MARK: Inline text

  private mutating func clearInline() {
    inline.removeAll(keepingCapacity: true)
    pendingSpace = false
    atLineStart = true
  }

  /// Appends a text node: in `<pre>` as it is (less control characters other than tab and line feed), elsewhere
  /// with runs of ASCII whitespace made one space and control characters (C0, DEL, C1) dropped.
  private mutating func appendText(_ node: RawNode) {
    node.forEachText { bytes in
      if preDepth > 0 && row == nil {
        appendPreformatted(bytes)
      } else {
        appendCollapsed(bytes)
      }
    }
  }

  /// Whether the bytes at `index` start a control character to drop: C0 (other than whitespace), DEL, or C1
  /// (U+0080–U+009F, `C2 80`–`C2 9F` in UTF-8). Returns its length, 0 when it is not one.
  @inline(__always)
  private func controlLength(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Int {
    let byte = bytes[index]
    if byte < 0x20 || byte == 0x7F { return 1 }
    if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return 2 }
    return 0
  }

  @inline(__always)
  private func isCollapsible(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
  }

  private mutating func appendCollapsed(_ bytes: UnsafeBufferPointer<UInt8>) {
    var index = 0
    let count = bytes.count
    while index < count {
      if isCollapsible(bytes[index]) {
        pendingSpace = true
        index += 1
        continue
      }
      let control = controlLength(bytes, index)
      if control > 0 {
        index += control
        continue
      }
      var end = index + 1
      while end < count, !isCollapsible(bytes[end]), controlLength(bytes, end) == 0 { end += 1 }
      if pendingSpace && !atLineStart { inline.append(0x20) }
      pendingSpace = false
      atLineStart = false
      inline.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
      index = end
    }
  }

  private mutating func appendPreformatted(_ bytes: UnsafeBufferPointer<UInt8>) {
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      // Line breaks and tabs are kept; any other control character (C0, DEL, C1) is left out.
      let control = byte == 0x0A || byte == 0x09 ? 0 : controlLength(bytes, index)
      if control > 0 {
        index += control
      } else {
        preText.append(byte)
        index += 1
      }
    }
  }

  private mutating func appendSpace() { pendingSpace = true }

  private mutating func appendWord(_ word: String) {
    if pendingSpace && !atLineStart { inline.append(0x20) }
    pendingSpace = false
    atLineStart = false
    inline += Array(word.utf8)
  }

  /// Appends text right after what is there (a link's reference), keeping a pending space for after it.
  private mutating func appendRaw(_ text: String) {
    inline += Array(text.utf8)
    atLineStart = false
  }

  private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private func sanitize(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { !isControl($0) || $0 == "\n" || $0 == "\t" }))
  }

  /// The reference number of a link, or `nil` when it gets none (plain mode, no URL, a fragment, a script).
  private mutating func linkReference(_ node: RawNode) -> String? {
    guard mode == .terminal, let href = node.attribute("href") else { return nil }
    let trimmed = JSString.trim(href)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !URLResolution.isJavaScript(trimmed) else { return nil }
    // Escaped like a URI (no spaces, no controls, ASCII, a Unicode host as IDNA), so that it reads and copies as one.
    let url = URLReference.asciiForm(sanitize(URLResolution.resolve(trimmed, against: baseURL) ?? trimmed))
    if let number = linkNumbers[url] { return String(number) }
    links.append(url)
    linkNumbers[url] = links.count
    return String(links.count)
  }

  // MARK: Blocks

  /// Ends the block being gathered: lays it out when it has text.
  mutating func endBlock() {
    if rowDepth > 0 {
      appendSpace()
      return
    }
    if preDepth > 0 || !preText.isEmpty {
      if !preText.isEmpty { emitPre() }
      if preDepth > 0 { return }
    }
    // Lines (apart by <br>) without the spaces at their ends; nothing when there is no text.
    var segments = inline.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
      var slice = line[...]
      while slice.first == 0x20 { slice = slice.dropFirst() }
      while slice.last == 0x20 { slice = slice.dropLast() }
      let line = String(decoding: slice, as: UTF8.self)
      // No-break and other Unicode spaces at an end (`<p>&nbsp;</p>`) go too.
      return (slice.first ?? 0) >= 0x80 || (slice.last ?? 0) >= 0x80 ? JSString.trim(line) : line
    }
    clearInline()
    // A <br> at the start or the end of a block adds no empty line.
    while segments.first?.isEmpty == true { segments.removeFirst() }
    while segments.last?.isEmpty == true { segments.removeLast() }
    guard !segments.isEmpty else { return }
    emitParagraph(segments)
  }

  private mutating func emitParagraph(_ text: String) {
    emitParagraph([text])
  }

  /// Lays out a paragraph given as its lines: wrapped, with the containers' prefixes.
  private mutating func emitParagraph(_ segments: [String]) {
    var segments = segments
    if let level = headingLevel, mode == .terminal, !segments.isEmpty {
      segments[0] = String(repeating: "#", count: level) + " " + segments[0]
    }
    let (first, rest) = prefixes()
    var laidOut: [String] = []
    for (index, segment) in segments.enumerated() {
      let firstPrefix = index == 0 ? first : rest
      if let width {
        let wrapper = LineWrapper(
          firstWidth: max(1, width - TerminalColumns.width(of: firstPrefix)),
          restWidth: max(1, width - TerminalColumns.width(of: rest)))
        let wrapped = wrapper.wrap(segment)
        for (lineIndex, line) in wrapped.enumerated() {
          laidOut.append((lineIndex == 0 ? firstPrefix : rest) + line)
        }
      } else {
        laidOut.append(firstPrefix + segment)
      }
    }
    appendBlock(laidOut)
  }

  /// Lays out preformatted text line for line; with a width, a line longer than the room is cut between
  /// characters onto the next line (where a terminal would wrap it).
  private mutating func emitPre() {
    let text = expandTabs(String(decoding: preText, as: UTF8.self))
    var textLines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
      var slice = line[...]
      while slice.last == 0x20 { slice = slice.dropLast() }
      return String(Substring(slice))
    }
    preText = []
    while textLines.first?.isEmpty == true { textLines.removeFirst() }
    while textLines.last?.isEmpty == true { textLines.removeLast() }
    guard !textLines.isEmpty else { return }
    let (first, rest) = prefixes()
    // The four columns of indentation count in the half of the width indentation may take.
    var indent = mode == .terminal ? "    " : ""
    if let width, TerminalColumns.width(of: first) + 4 > width / 2 { indent = "" }
    var block: [String] = []
    for (index, line) in textLines.enumerated() {
      guard !line.isEmpty else {
        block.append("")
        continue
      }
      let prefix = (index == 0 ? first : rest) + indent
      if let width {
        let room = max(1, width - TerminalColumns.width(of: prefix))
        for (part, chunk) in LineWrapper.cut(line, width: room).enumerated() {
          block.append((part == 0 ? prefix : rest + indent) + chunk)
        }
      } else {
        block.append(prefix + line)
      }
    }
    appendBlock(block)
  }

  private func expandTabs(_ text: String) -> String {
    guard text.contains("\t") else { return text }
    var out = ""
    var column = 0
    for character in text {
      if character == "\t" {
        let spaces = 8 - column % 8
        out += String(repeating: " ", count: spaces)
        column += spaces
      } else if character == "\n" {
        out.append(character)
        column = 0
      } else {
        out.append(character)
        column += TerminalColumns.width(of: character)
      }
    }
    return out
  }

  /// A horizontal rule for `<hr>`: 40 columns, or what is left of the line after the indentation.
  private mutating func emitRule() {
    endBlock()
    let (prefix, _) = prefixes()
    let room = width.map { $0 - TerminalColumns.width(of: prefix) } ?? 40
    appendBlock([prefix + String(repeating: "─", count: max(1, min(room, 40)))])
  }

  /// Adds a laid-out block, after a blank line unless it is tight; no line keeps spaces at its end (an empty line
  /// of a list item would be only its indentation).
  private mutating func appendBlock(_ block: [String]) {
    guard !block.isEmpty else { return }
    if !lines.isEmpty && !tight { lines.append("") }
    tight = false
    for line in block {
      var end = line.utf8.endIndex
      while end > line.utf8.startIndex, line.utf8[line.utf8.index(before: end)] == 0x20 {
        end = line.utf8.index(before: end)
      }
      lines.append(end == line.utf8.endIndex ? line : String(line[..<end]))
    }
  }

  /// The prefixes of the first line and of the following lines of a block, from the containers it is in; a list
  /// item's marker goes on the first line of its first block only. With a width, indentation takes at most half of
  /// it: the outermost levels are left out first.
  private mutating func prefixes() -> (first: String, rest: String) {
    var parts: [(first: String, rest: String)] = []
    for index in containers.indices {
      switch containers[index] {
      case .quote, .definition:
        guard mode == .terminal else { continue }
        parts.append(("    ", "    "))
      case .item(let marker, let used):
        let blank = String(repeating: " ", count: TerminalColumns.width(of: marker))
        parts.append((used ? blank : marker, blank))
        containers[index] = .item(marker: marker, used: true)
      case .list, .pre:
        continue
      }
    }
    if let width {
      var total = parts.reduce(0) { $0 + TerminalColumns.width(of: $1.first) }
      while total > width / 2, let outermost = parts.first {
        total -= TerminalColumns.width(of: outermost.first)
        parts.removeFirst()
      }
    }
    return (parts.map(\.first).joined(), parts.map(\.rest).joined())
  }

  /// The text laid out, with the link references listed at the end.
  mutating func finish() -> String {
    if let cells = row, !cells.isEmpty { inline = Array((cells.joined(separator: " ") + " ").utf8) + inline }
    row = nil
    rowDepth = 0
    preDepth = 0
    endBlock()
    if !links.isEmpty {
      tight = false
      var block: [String] = []
      // Each URL on one line, however wide: a URL cut across lines (and indented) cannot be copied or clicked;
      // the terminal folds a long line itself, which selecting it undoes.
      for (index, url) in links.enumerated() { block.append("[\(index + 1)] " + url) }
      appendBlock(block)
    }
    guard !lines.isEmpty else { return "" }
    return lines.joined(separator: "\n") + "\n"
  }
}
