import CLibXML2

/// Preparing the page before any scoring: Readability.js's `_unwrapNoscriptImages`, `_removeScripts`,
/// `_prepDocument` and `_replaceBrs`.
extension Readability {
  /// Images a page shows only without scripts (`<noscript><img …></noscript>` after a lazy placeholder, as Medium
  /// does) replace their placeholder, keeping the placeholder's image attributes; placeholders without any image
  /// attribute (nor one a lazy loader names: ``LazyImage``) are removed first. A `<noscript>` image with no
  /// placeholder beside it (the page's placeholder had nothing to keep, or there is none) takes the `<noscript>`'s
  /// place, unless another image of the page already shows its address or it is a 1 × 1 tracking pixel: without it
  /// the image would be lost with the `<noscript>` (trafilatura#89, sallysbakingaddiction.com).
  func unwrapNoscriptImages(_ page: HTMLDocument) {
    guard let root = page.rawRoot else { return }
    let lazyAttributes = Set(["src", "srcset"] + LazyImage.sourceAttributes + LazyImage.srcsetAttributes)
    for image in root.descendants("img") {
      let hasImage = image.attributes.contains { attribute in
        lazyAttributes.contains(attribute.name)
          || ImageAttributes.hasImageExtension(attribute.value, caseInsensitive: true)
      }
      if !hasImage { page.remove(image) }
    }
    for noscript in root.descendants("noscript") {
      guard isSingleImage(noscript) else { continue }
      guard let previous = noscript.previousElementSibling, isSingleImage(previous) else {
        unwrapLoneNoscriptImage(noscript, page, root: root)
        continue
      }
      let copy = copyOfChildren(noscript, page)
      guard let replacement = copy.firstElementChild,
        let newImage = replacement.isElement("img") ? replacement : replacement.descendants("img").first,
        let previousImage = previous.isElement("img") ? previous : previous.descendants("img").first
      else { continue }
      for attribute in previousImage.attributes where !attribute.value.isEmpty {
        guard
          attribute.name == "src" || attribute.name == "srcset"
            || ImageAttributes.hasImageExtension(attribute.value, caseInsensitive: true)
        else { continue }
        if newImage.attribute(attribute.name) == attribute.value { continue }
        let name = newImage.hasAttribute(attribute.name) ? "data-old-" + attribute.name : attribute.name
        newImage.setAttribute(name, attribute.value)
      }
      page.replace(previous, with: replacement)
    }
  }

  /// A new `<div>` (not in the tree) holding copies of `node`'s children. Readability.js re-parses a `<noscript>`'s
  /// HTML into a new `<div>`; libxml2 has parsed it as elements already.
  private func copyOfChildren(_ node: RawNode, _ page: HTMLDocument) -> RawNode {
    let copy = page.makeElement("div")
    var child = node.firstChild
    while let current = child {
      if let copied = xmlDocCopyNode(current.pointer, page.pointer, 1) {
        page.adopt(RawNode(copied))
        page.append(RawNode(copied), to: copy)
      }
      child = current.nextSibling
    }
    return copy
  }

  /// Replaces a `<noscript>` holding one image, with no placeholder image beside it, by that image (see
  /// ``unwrapNoscriptImages(_:)``).
  private func unwrapLoneNoscriptImage(_ noscript: RawNode, _ page: HTMLDocument, root: RawNode) {
    guard let image = noscript.isElement("img") ? noscript : noscript.descendants("img").first,
      let src = image.attribute("src").map(JSString.trim), !src.isEmpty,
      !LazyImage.isPlaceholder(src, of: image)
    else { return }
    var ancestor = noscript.parent
    while let node = ancestor {
      if node.isElement("head") { return }
      ancestor = node.parent
    }
    let shown = root.descendants("img").contains { other in
      !other.isInside(noscript) && other.attributes.contains { JSString.trim($0.value) == src }
    }
    guard !shown else { return }
    let copy = copyOfChildren(noscript, page)
    guard let replacement = copy.firstElementChild else { return }
    page.replace(noscript, with: replacement)
  }

  /// Whether the node is an `<img>`, or holds exactly one element and no text, down to one.
  func isSingleImage(_ node: RawNode) -> Bool {
    var current: RawNode? = node
    while let element = current {
      if element.isElement("img") { return true }
      if element.elementChildCount != 1 || TextMeasure.hasVisibleText(element) { return false }
      current = element.firstElementChild
    }
    return false
  }

  /// Removes every `<script>` and `<noscript>`.
  func removeScripts(_ page: HTMLDocument) {
    guard let root = page.rawRoot else { return }
    for node in root.descendants(["script", "noscript"]) { page.remove(node) }
  }

  /// Removes styles, turns runs of `<br>` into paragraphs, and `<font>` into `<span>`.
  func prepDocument(_ page: HTMLDocument) {
    guard let root = page.rawRoot else { return }
    for style in root.descendants("style") { page.remove(style) }
    if let body = page.rawBody { replaceBrs(body, in: page) }
    for font in root.descendants("font") { page.rename(font, to: "span") }
  }

  /// The node itself or its next sibling that is an element or holds more than whitespace (`_nextNode`).
  func nextNonWhitespace(_ node: RawNode?) -> RawNode? {
    var next = node
    while let current = next, isBlankNonElement(current) { next = current.nextSibling }
    return next
  }

  /// A text node or comment whose text is only whitespace (`REGEXPS.whitespace` on its `textContent`).
  func isBlankNonElement(_ node: RawNode) -> Bool {
    if node.isElement { return false }
    if node.isText { return !TextMeasure.hasVisibleText(node) }
    return JSString.trim(node.textContent).isEmpty
  }

  /// Replaces two or more successive `<br>`s with one `<p>` holding the phrasing content that follows, up to the
  /// next such run: `<div>foo<br>bar<br> <br><br>abc</div>` becomes `<div>foo<br>bar<p>abc</p></div>`.
  func replaceBrs(_ element: RawNode, in page: HTMLDocument) {
    for br in element.descendants("br") {
      var next = br.nextSibling
      var replaced = false
      while let found = nextNonWhitespace(next), found.isElement("br") {
        replaced = true
        let sibling = found.nextSibling
        page.remove(found)
        next = sibling
      }
      guard replaced else { continue }
      let paragraph = page.makeElement("p")
      page.replace(br, with: paragraph)
      next = paragraph.nextSibling
      while let current = next {
        if current.isElement("br"), let following = nextNonWhitespace(current.nextSibling),
          following.isElement("br")
        {
          break
        }
        if !isPhrasingContent(current) { break }
        let sibling = current.nextSibling
        page.append(current, to: paragraph)
        next = sibling
      }
      while let last = paragraph.lastChild, isWhitespace(last) { page.remove(last) }
      if let parent = paragraph.parent, parent.isElement("p") { page.rename(parent, to: "div") }
    }
  }
}

/// Tests on image attribute values shared by the noscript and lazy-image steps.
enum ImageAttributes {
  private static let extensions = [".jpg", ".jpeg", ".png", ".webp"]

  /// `/\.(jpg|jpeg|png|webp)/` (with `/i` when asked): an image file extension anywhere in the value.
  static func hasImageExtension(_ value: String, caseInsensitive: Bool) -> Bool {
    let text = caseInsensitive ? value.lowercased() : value
    return extensions.contains { text.contains($0) }
  }

  /// `/\.(jpg|jpeg|png|webp)\s+\d/`: an image URL followed by a width or density descriptor, as in a `srcset`.
  static func looksLikeSrcset(_ value: String) -> Bool {
    let scalars = Array(value.unicodeScalars)
    for ext in extensions {
      let pattern = Array(ext.unicodeScalars)
      var index = 0
      while index + pattern.count <= scalars.count {
        if Array(scalars[index..<(index + pattern.count)]) == pattern {
          var after = index + pattern.count
          var spaces = 0
          while after < scalars.count, JSString.isWhitespace(scalars[after]) {
            after += 1
            spaces += 1
          }
          if spaces > 0, after < scalars.count, ("0"..."9").contains(scalars[after]) { return true }
        }
        index += 1
      }
    }
    return false
  }

  /// `/^\s*\S+\.(jpg|jpeg|png|webp)\S*\s*$/`: one image URL and nothing else.
  static func looksLikeSrc(_ value: String) -> Bool {
    let trimmed = JSString.trim(value)
    guard !trimmed.unicodeScalars.contains(where: JSString.isWhitespace) else { return false }
    return extensions.contains { ext in
      guard let range = trimmed.firstRange(of: ext) else { return false }
      if range.lowerBound != trimmed.startIndex { return true }
      // The first occurrence starts the text: look for a later one.
      return trimmed[trimmed.index(after: trimmed.startIndex)...].contains(ext)
    }
  }
}
