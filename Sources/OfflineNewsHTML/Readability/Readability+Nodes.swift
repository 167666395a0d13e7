/// Tests and measures of nodes: Readability.js's `_initializeNode`, `_getClassWeight`, `_getLinkDensity`,
/// `_isProbablyVisible`, `_isPhrasingContent`, `_getNextNode` and their helpers.
extension Readability {
  static let phrasingElements: Set<String> = [
    "abbr", "audio", "b", "bdo", "br", "button", "cite", "code", "data", "datalist", "dfn", "em", "embed", "i", "img",
    "input", "kbd", "label", "mark", "math", "meter", "noscript", "object", "output", "progress", "q", "ruby",
    "samp", "script", "select", "small", "span", "strong", "sub", "sup", "textarea", "time", "var", "wbr",
  ]
  static let divToParagraphElements: Set<String> = [
    "blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul",
  ]

  // MARK: Scores

  /// Gives a node its starting score: by its tag (`<div>` +5, `<pre>`, `<td>`, `<blockquote>` +3, lists and forms
  /// −3, headings and `<th>` −5) and its class and id.
  func initializeNode(_ node: RawNode) {
    var score = 0.0
    switch node.name {
    case "div": score += 5
    case "pre", "td", "blockquote": score += 3
    case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": score -= 3
    case "h1", "h2", "h3", "h4", "h5", "h6", "th": score -= 5
    default: break
    }
    scores[node] = score + Double(classWeight(node))
  }

  /// −25 for a class or id that looks like page furniture, +25 for one that looks like content, per attribute;
  /// 0 once the class-weight flag is off.
  func classWeight(_ node: RawNode) -> Int {
    guard flags.contains(.weightClasses) else { return 0 }
    var weight = 0
    for name in ["class", "id"] {
      guard let value = node.attribute(name), !value.isEmpty else { continue }
      let lowered = JSString.asciiLowercased(value)
      if ReadabilityPatterns.isNegative(lowered) { weight -= 25 }
      if ReadabilityPatterns.positive.occurs(in: lowered) { weight += 25 }
    }
    return weight
  }

  /// `className + " " + id`, what the class and id patterns are matched against.
  func matchString(of node: RawNode) -> String {
    (node.attribute("class") ?? "") + " " + (node.attribute("id") ?? "")
  }

  // MARK: Text measures

  /// `_getInnerText(e)`: the text, trimmed, runs of whitespace made one space.
  func innerText(_ node: RawNode) -> String {
    JSString.normalize(node.textContent)
  }

  /// The share of the node's text that is inside links (links to a fragment count 30 %), 0 for a node without text.
  func linkDensity(_ node: RawNode, textLength known: Int? = nil) -> Double {
    let textLength = known ?? TextMeasure(node).normalizedLength
    guard textLength > 0 else { return 0 }
    var linkLength = 0.0
    for link in node.descendants("a") {
      let href = link.attribute("href") ?? ""
      let coefficient = href.count > 1 && href.hasPrefix("#") ? 0.3 : 1
      linkLength += Double(TextMeasure(link).normalizedLength) * coefficient
    }
    return linkLength / Double(textLength)
  }

  /// The share of the node's text that is inside descendants with one of `tags`.
  func textDensity(_ node: RawNode, tags: Set<String>, textLength known: Int? = nil) -> Double {
    let textLength = known ?? TextMeasure(node).normalizedLength
    guard textLength > 0 else { return 0 }
    var childrenLength = 0
    for child in node.descendants(tags) { childrenLength += TextMeasure(child).normalizedLength }
    return Double(childrenLength) / Double(textLength)
  }

  // MARK: Node tests

  /// Whether someone would see the node: not `display: none` or `visibility: hidden` in its `style`, no `hidden`
  /// attribute, and not `aria-hidden="true"` (except Wikimedia's math images, class `fallback-image`).
  func isProbablyVisible(_ node: RawNode) -> Bool {
    if let style = node.attribute("style") {
      if InlineStyle.value(of: "display", in: style) == "none" { return false }
      if InlineStyle.value(of: "visibility", in: style) == "hidden" { return false }
    }
    if node.hasAttribute("hidden") { return false }
    if node.attribute("aria-hidden") == "true" {
      return (node.attribute("class") ?? "").contains("fallback-image")
    }
    return true
  }

  /// Whether the node is phrasing content: text, an inline element, or a link, `<del>` or `<ins>` holding only
  /// phrasing content. Checked without recursion.
  func isPhrasingContent(_ node: RawNode) -> Bool {
    var pending = [node]
    while let current = pending.popLast() {
      if current.isText { continue }
      guard current.isElement else { return false }
      let name = current.name
      if Self.phrasingElements.contains(name) { continue }
      guard name == "a" || name == "del" || name == "ins" else { return false }
      pending.append(contentsOf: current.childNodes)
    }
    return true
  }

  /// A text node of only whitespace, or a `<br>`.
  func isWhitespace(_ node: RawNode) -> Bool {
    (node.isText && !TextMeasure.hasVisibleText(node)) || node.isElement("br")
  }

  /// Whether the element has exactly one element child, named `tag`, and no text that ends in non-whitespace.
  func hasSingleTagInsideElement(_ element: RawNode, _ tag: StaticString) -> Bool {
    var elementCount = 0
    var child = element.firstChild
    while let current = child {
      if current.isElement {
        elementCount += 1
        if elementCount > 1 || !current.isElement(tag) { return false }
      } else if current.isText, endsWithNonWhitespace(current) {
        return false
      }
      child = current.nextSibling
    }
    return elementCount == 1
  }

  /// `REGEXPS.hasContent`, `/\S$/`: the text ends with a character that is not whitespace.
  private func endsWithNonWhitespace(_ node: RawNode) -> Bool {
    guard let last = node.textContent.unicodeScalars.last else { return false }
    return !JSString.isWhitespace(last)
  }

  /// An element without text whose element children, if any, are all `<br>` or `<hr>`.
  func isElementWithoutContent(_ node: RawNode) -> Bool {
    guard node.isElement, !TextMeasure.hasVisibleText(node) else { return false }
    let children = node.elementChildCount
    return children == 0 || children == node.countDescendants("br") + node.countDescendants("hr")
  }

  /// Whether any descendant is a block element (one that keeps a `<div>` from being a paragraph).
  func hasChildBlockElement(_ element: RawNode) -> Bool {
    var node = element.next(within: element)
    while let current = node {
      if current.isElement, Self.divToParagraphElements.contains(current.name) { return true }
      node = current.next(within: element)
    }
    return false
  }

  /// Whether an ancestor within `maxDepth` levels (any depth when `maxDepth` ≤ 0) is named `tag` and passes
  /// `filter`.
  func hasAncestorTag(
    _ node: RawNode, _ tag: StaticString, maxDepth: Int = 3, filter: ((RawNode) -> Bool)? = nil
  ) -> Bool {
    var depth = 0
    var current = node
    while let parent = current.parent {
      if maxDepth > 0 && depth > maxDepth { return false }
      if parent.isElement(tag) && (filter?(parent) ?? true) { return true }
      current = parent
      depth += 1
    }
    return false
  }

  /// The node's ancestors, nearest first, up to `maxDepth` of them (all when 0), the document node included.
  func nodeAncestors(_ node: RawNode, maxDepth: Int = 0) -> [RawNode] {
    var ancestors: [RawNode] = []
    var current = node
    while let parent = current.parent {
      ancestors.append(parent)
      if maxDepth > 0 && ancestors.count == maxDepth { break }
      current = parent
    }
    return ancestors
  }

  // MARK: Walking

  /// The next element of a depth-first walk over elements (`_getNextNode`); with `ignoringSelfAndKids`, the next
  /// one after this node's subtree.
  func nextNode(_ node: RawNode, ignoringSelfAndKids: Bool = false) -> RawNode? {
    if !ignoringSelfAndKids, let child = node.firstElementChild { return child }
    if let sibling = node.nextElementSibling { return sibling }
    var current: RawNode? = node
    repeat {
      current = current?.parent
    } while current != nil && current?.nextElementSibling == nil
    return current?.nextElementSibling
  }

  /// Removes the node and returns the next element after it (`_removeAndGetNext`).
  func removeAndGetNext(_ node: RawNode) -> RawNode? {
    let next = nextNode(node, ignoringSelfAndKids: true)
    document.remove(node)
    return next
  }

  // MARK: Byline and title

  /// Whether the node is the article's byline (`rel="author"`, `itemprop` with `author`, or a byline class or id,
  /// and a text of 1 to 99 characters); records its text, or the text of a descendant with `itemprop="name"` (the
  /// author's name alone). Only the first byline counts, and none when the metadata named one.
  func checkByline(_ node: RawNode, matchString: String) -> Bool {
    guard articleByline == nil, metadata.byline == nil else { return false }
    let rel = node.attribute("rel")
    let itemprop = node.attribute("itemprop")
    guard
      rel == "author" || (itemprop?.contains("author") ?? false)
        || ReadabilityPatterns.byline.occurs(in: JSString.asciiLowercased(matchString))
    else { return false }
    let length = TextMeasure(node).trimmedLength
    guard length > 0 && length < 100 else { return false }
    let end = nextNode(node, ignoringSelfAndKids: true)
    var next = nextNode(node)
    var nameNode: RawNode?
    while let current = next, current != end {
      if let itemprop = current.attribute("itemprop"), itemprop.contains("name") {
        nameNode = current
        break
      }
      next = nextNode(current)
    }
    articleByline = JSString.trim((nameNode ?? node).textContent)
    return true
  }

  /// Whether the node is an `<h1>` or `<h2>` whose text is mostly the article's title.
  func headerDuplicatesTitle(_ node: RawNode) -> Bool {
    guard node.isElement("h1") || node.isElement("h2") else { return false }
    let heading = JSString.trim(node.textContent)
    return ArticleMetadata.textSimilarity(articleTitle, heading) > 0.75
  }
}

/// Reading one property of a `style` attribute (a CSS declaration list, CSS Syntax Level 3 §5.3.8), as the DOM's
/// `element.style.display` does for Readability.js.
enum InlineStyle {
  /// The last declared value of `property`, lower-cased, without `!important`; `nil` when it is not declared.
  static func value(of property: String, in style: String) -> String? {
    var found: String?
    for declaration in style.split(separator: ";") {
      guard let colon = declaration.firstIndex(of: ":") else { continue }
      let name = declaration[..<colon].trimmingCSSWhitespace().lowercased()
      guard name == property else { continue }
      var value = declaration[declaration.index(after: colon)...].trimmingCSSWhitespace().lowercased()
      if value.hasSuffix("!important") { value = String(value.dropLast(10)).trimmingCSSWhitespace() }
      found = value
    }
    return found
  }
}

extension StringProtocol {
  fileprivate func trimmingCSSWhitespace() -> String {
    let scalars = unicodeScalars
    let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
    guard let first = scalars.firstIndex(where: { !isSpace($0) }),
      let last = scalars.lastIndex(where: { !isSpace($0) })
    else { return "" }
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars[first...last])
    return String(view)
  }
}
