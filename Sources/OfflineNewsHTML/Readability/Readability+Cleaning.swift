/// Cleaning the article found: Readability.js's `_prepArticle` and the steps it calls (`_cleanStyles`,
/// `_markDataTables`, `_fixLazyImages`, `_clean`, `_cleanConditionally`, `_cleanMatchedNodes`, `_cleanHeaders`).
extension Readability {
  static let presentationalAttributes = [
    "align", "background", "bgcolor", "border", "cellpadding", "cellspacing", "frame", "hspace", "rules", "style",
    "valign", "vspace",
  ]
  static let deprecatedSizeAttributeElements: Set<String> = ["table", "th", "td", "hr", "pre"]
  static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]
  static let textishTags: Set<String> = divToParagraphElements.union(["span", "li", "td"])
  static let embedTags: Set<String> = ["object", "embed", "iframe"]

  /// Cleans the article: styles, forms, embeds that are not videos, asides, share boxes, fishy tables, lists and
  /// divs, empty paragraphs; `<h1>` becomes `<h2>` (the title is shown apart).
  func prepArticle(_ content: RawNode) {
    cleanStyles(content)
    markDataTables(content)
    fixLazyImages(content)
    cleanConditionally(content, "form")
    cleanConditionally(content, "fieldset")
    clean(content, "object")
    clean(content, "embed")
    clean(content, "footer")
    clean(content, "link")
    clean(content, "aside")

    // Small elements with "share" in their class or id, below each top candidate (not the candidates themselves).
    let shareElementThreshold = ReadabilityExtractor.Options.defaultCharacterThreshold
    for topCandidate in content.elementChildren {
      cleanMatchedNodes(topCandidate) { node, matchString in
        ReadabilityPatterns.isShareElement(JSString.asciiLowercased(matchString))
          && JSString.length(node.textContent) < shareElementThreshold
      }
    }

    clean(content, "iframe")
    clean(content, "input")
    clean(content, "textarea")
    clean(content, "select")
    clean(content, "button")
    cleanHeaders(content)

    // Last, as the steps before may have removed junk that changes these.
    cleanConditionally(content, "table")
    cleanConditionally(content, "ul")
    cleanConditionally(content, "div")

    for heading in content.descendants("h1") { document.rename(heading, to: "h2") }

    for paragraph in content.descendants("p").reversed() where paragraph.parent != nil {
      let media =
        paragraph.countDescendants("img") + paragraph.countDescendants("embed")
        + paragraph.countDescendants("object") + paragraph.countDescendants("iframe")
      if media == 0 && !TextMeasure.hasVisibleText(paragraph) { document.remove(paragraph) }
    }

    for br in content.descendants("br") {
      if let next = nextNonWhitespace(br.nextSibling), next.isElement("p") { document.remove(br) }
    }

    // Single-cell tables become their cell, as a <p> when it holds only phrasing content, else a <div>.
    for table in content.descendants("table") {
      let body = hasSingleTagInsideElement(table, "tbody") ? (table.firstElementChild ?? table) : table
      guard hasSingleTagInsideElement(body, "tr"), let row = body.firstElementChild,
        hasSingleTagInsideElement(row, "td"), let cell = row.firstElementChild
      else { continue }
      let phrasing = cell.childNodes.allSatisfy(isPhrasingContent)
      document.rename(cell, to: phrasing ? "p" : "div")
      document.replace(table, with: cell)
    }
  }

  /// Removes `style` and the presentational attributes everywhere below `node`, except inside `<svg>`.
  func cleanStyles(_ root: RawNode) {
    var node: RawNode? = root
    while let current = node {
      if current.isElement("svg") {
        node = current == root ? nil : current.next(within: root, skippingChildren: true)
        continue
      }
      if current.isElement {
        for attribute in Self.presentationalAttributes { current.removeAttribute(attribute) }
        if Self.deprecatedSizeAttributeElements.contains(current.name) {
          current.removeAttribute("width")
          current.removeAttribute("height")
        }
      }
      node = current.next(within: root)
    }
  }

  /// Tells data tables from layout tables, as Firefox's accessibility code does: `role="presentation"` and
  /// `datatable="0"` are layout; a `summary`, a `<caption>`, or `<col>`, `<colgroup>`, `<tfoot>`, `<thead>`,
  /// `<th>` make data; nested tables are layout; one row or one column is layout; 10 rows or more than 4 columns
  /// are data; else more than 10 cells.
  func markDataTables(_ root: RawNode) {
    for table in root.descendants("table") {
      if table.attribute("role") == "presentation" { continue }
      if table.attribute("datatable") == "0" { continue }
      if let summary = table.attribute("summary"), !summary.isEmpty {
        dataTables.insert(table)
        continue
      }
      if let caption = table.descendants("caption").first, caption.firstChild != nil {
        dataTables.insert(table)
        continue
      }
      if table.descendants(["col", "colgroup", "tfoot", "thead", "th"]).first != nil {
        dataTables.insert(table)
        continue
      }
      if table.hasDescendant("table") { continue }
      let (rows, columns) = rowAndColumnCount(table)
      if columns == 1 || rows == 1 { continue }
      if rows >= 10 || columns > 4 {
        dataTables.insert(table)
        continue
      }
      if rows * columns > 10 { dataTables.insert(table) }
    }
  }

  private func rowAndColumnCount(_ table: RawNode) -> (rows: Int, columns: Int) {
    var rows = 0
    var columns = 0
    for row in table.descendants("tr") {
      rows += leadingInteger(row.attribute("rowspan")).flatMap { $0 == 0 ? nil : $0 } ?? 1
      var columnsInRow = 0
      for cell in row.descendants("td") {
        columnsInRow += leadingInteger(cell.attribute("colspan")).flatMap { $0 == 0 ? nil : $0 } ?? 1
      }
      columns = max(columns, columnsInRow)
    }
    return (rows, columns)
  }

  /// JavaScript `parseInt(text, 10)`: the optionally signed digits at the start, after whitespace.
  private func leadingInteger(_ text: String?) -> Int? {
    guard let text else { return nil }
    var rest = Substring(JSString.trim(text))
    var sign = 1
    if rest.first == "-" || rest.first == "+" {
      sign = rest.first == "-" ? -1 : 1
      rest = rest.dropFirst()
    }
    let digits = rest.prefix { $0.isASCII && $0.isNumber }.prefix(9)
    return Int(digits).map { $0 * sign }
  }

  /// Lazy-loaded images (`data-src`, `data-srcset`, a placeholder `src`): the real URL is copied to `src` or
  /// `srcset`, and a `<figure>` without an image gets one. First, the attributes lazy loaders name
  /// (``LazyImage``) fill a placeholder `src` or an empty `srcset` of an `<img>` or `<source>`, whatever the
  /// address's extension; then Readability.js's rule copies any attribute that looks like an image address.
  func fixLazyImages(_ root: RawNode) {
    for element in root.descendants(["img", "picture", "figure", "source"]) {
      let isImage = element.isElement("img")
      if isImage || element.isElement("source") { LazyImage.promote(element) }
      if element.isElement("source") { continue }
      if isImage, let src = element.attribute("src"), let mime = DataURL.base64MediaType(src) {
        // A tiny base64 placeholder (under 100 bytes, 133 encoded) is dropped when another attribute has an image;
        // SVG can be meaningful that small.
        if mime == "image/svg+xml" { continue }
        let otherImage = element.attributes.contains { attribute in
          attribute.name != "src" && ImageAttributes.hasImageExtension(attribute.value, caseInsensitive: true)
        }
        if otherImage, DataURL.base64PayloadLength(src) < 133 { element.removeAttribute("src") }
      }
      if isImage {
        let src = element.attribute("src") ?? ""
        let srcset = element.attribute("srcset") ?? ""
        let lazy = (element.attribute("class") ?? "").lowercased().contains("lazy")
        if (!src.isEmpty || (!srcset.isEmpty && srcset != "null")) && !lazy { continue }
      }
      for attribute in element.attributes where !["src", "srcset", "alt"].contains(attribute.name) {
        var copyTo: String?
        if ImageAttributes.looksLikeSrcset(attribute.value) {
          copyTo = "srcset"
        } else if ImageAttributes.looksLikeSrc(attribute.value) {
          copyTo = "src"
        }
        guard let copyTo else { continue }
        if isImage || element.isElement("picture") {
          element.setAttribute(copyTo, attribute.value)
        } else if element.isElement("figure"), element.descendants(["img", "picture"]).isEmpty {
          let image = document.makeElement("img")
          image.setAttribute(copyTo, attribute.value)
          document.append(image, to: element)
        }
      }
    }
  }

  /// Whether an `<object>`, `<embed>` or `<iframe>` shows a video from a host Readability.js keeps.
  func isAllowedVideo(_ node: RawNode) -> Bool {
    if node.attributes.contains(where: { ReadabilityPatterns.isVideo(JSString.asciiLowercased($0.value)) }) {
      return true
    }
    return node.isElement("object")
      && ReadabilityPatterns.isVideo(JSString.asciiLowercased(HTMLNode(node, in: document).innerHTML))
  }

  /// Removes every `tag` element below `root` (videos excepted, for embeds).
  func clean(_ root: RawNode, _ tag: String) {
    let isEmbed = Self.embedTags.contains(tag)
    for node in root.descendants(Set([tag])).reversed() where node.parent != nil {
      if isEmbed && isAllowedVideo(node) { continue }
      document.remove(node)
    }
  }

  /// Removes the `tag` elements below `root` that look fishy: a negative class, or (with fewer than 10 commas)
  /// more images than paragraphs, more list items than paragraphs outside a list, inputs, too little text with
  /// links, too many links for their weight, embeds, or no text at all. Data tables and what is in them stay.
  func cleanConditionally(_ root: RawNode, _ tag: String) {
    guard flags.contains(.cleanConditionally) else { return }
    for node in root.descendants(Set([tag])).reversed() where node.parent != nil {
      if shouldRemoveConditionally(node, tag: tag) { document.remove(node) }
    }
  }

  private func shouldRemoveConditionally(_ node: RawNode, tag: String) -> Bool {
    let text = TextMeasure(node)
    var isList = tag == "ul" || tag == "ol"
    if !isList {
      var listLength = 0
      for list in node.descendants(["ul", "ol"]) { listLength += TextMeasure(list).normalizedLength }
      isList = Double(listLength) / Double(text.normalizedLength) > 0.9
    }
    let isDataTable: (RawNode) -> Bool = { self.dataTables.contains($0) }
    if tag == "table" && isDataTable(node) { return false }
    if hasAncestorTag(node, "table", maxDepth: -1, filter: isDataTable) { return false }
    if hasAncestorTag(node, "code") { return false }
    if node.descendants("table").contains(where: isDataTable) { return false }

    let weight = classWeight(node)
    if weight < 0 { return true }
    guard text.asciiCommas < 10 else { return false }

    let paragraphs = node.countDescendants("p")
    let images = node.countDescendants("img")
    let listItems = node.countDescendants("li") - 100
    let inputs = node.countDescendants("input")
    let headingDensity = textDensity(node, tags: Self.headings, textLength: text.normalizedLength)
    var embedCount = 0
    for embed in node.descendants(Self.embedTags) {
      if isAllowedVideo(embed) { return false }
      embedCount += 1
    }
    let contentLength = text.normalizedLength
    if contentLength <= 24 {
      let innerText = innerText(node)
      if ReadabilityPatterns.isAdWords(innerText) || ReadabilityPatterns.isLoadingWords(innerText) { return true }
    }
    let linkDensity = linkDensity(node, textLength: contentLength)
    let textDensity = textDensity(node, tags: Self.textishTags, textLength: contentLength)
    let isFigureChild = hasAncestorTag(node, "figure")

    var remove = false
    if !isFigureChild && images > 1 && Double(paragraphs) / Double(images) < 0.5 { remove = true }
    if !isList && listItems > paragraphs { remove = true }
    if inputs > paragraphs / 3 { remove = true }
    if !isList && !isFigureChild && headingDensity < 0.9 && contentLength < 25 && (images == 0 || images > 2)
      && linkDensity > 0
    {
      remove = true
    }
    if !isList && weight < 25 && linkDensity > 0.2 + options.linkDensityModifier { remove = true }
    if weight >= 25 && linkDensity > 0.5 + options.linkDensityModifier { remove = true }
    if (embedCount == 1 && contentLength < 75) || embedCount > 1 { remove = true }
    if images == 0 && textDensity == 0 { remove = true }

    // Simple lists of images stay: every item one image, no item with more than one child.
    if isList && remove {
      for child in node.elementChildren where child.elementChildCount > 1 { return true }
      if images == node.countDescendants("li") { return false }
    }
    return remove
  }

  /// Removes the elements below `root` (not `root` itself) that `filter` selects, given the node and its
  /// `className + " " + id`.
  func cleanMatchedNodes(_ root: RawNode, _ filter: (RawNode, String) -> Bool) {
    let end = nextNode(root, ignoringSelfAndKids: true)
    var next = nextNode(root)
    while let node = next, node != end {
      if filter(node, matchString(of: node)) {
        next = removeAndGetNext(node)
      } else {
        next = nextNode(node)
      }
    }
  }

  /// Removes `<h1>` and `<h2>` elements with a negative class weight.
  func cleanHeaders(_ root: RawNode) {
    for heading in root.descendants(["h1", "h2"]).reversed() where heading.parent != nil {
      if classWeight(heading) < 0 { document.remove(heading) }
    }
  }
}

/// `data:` URLs as `_fixLazyImages` reads them (RFC 2397).
enum DataURL {
  /// The media type of a base64 `data:` URL (`/^data:\s*([^\s;,]+)\s*;\s*base64\s*,/i`), or `nil`.
  static func base64MediaType(_ url: String) -> String? {
    var rest = Substring(url)
    guard rest.lowercased().hasPrefix("data:") else { return nil }
    rest = rest.dropFirst(5).drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    let type = rest.prefix { !$0.unicodeScalars.allSatisfy(JSString.isWhitespace) && $0 != ";" && $0 != "," }
    guard !type.isEmpty else { return nil }
    rest = rest.dropFirst(type.count).drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    guard rest.first == ";" else { return nil }
    rest = rest.dropFirst().drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    guard rest.lowercased().hasPrefix("base64") else { return nil }
    rest = rest.dropFirst(6).drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    guard rest.first == "," else { return nil }
    return String(type)
  }

  /// The length of what follows the `data:…;base64,` prefix (in UTF-16 code units), 0 when there is no prefix.
  static func base64PayloadLength(_ url: String) -> Int {
    guard let comma = url.firstIndex(of: ","), base64MediaType(url) != nil else { return 0 }
    return url[url.index(after: comma)...].utf16.count
  }
}
