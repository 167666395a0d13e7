import Foundation

/// One run of Mozilla Readability's algorithm over one page: the state Readability.js keeps on its object, and
/// its `parse()` and `_grabArticle()`.
///
/// Written after Readability.js (mozilla/readability, Apache-2.0), step by step and with its constants; the other
/// steps are in `Readability+Document.swift` (preparing the page), `Readability+Nodes.swift` (measures and tests
/// of nodes), `Readability+Cleaning.swift` (`_prepArticle`) and `Readability+PostProcess.swift`.
final class Readability {
  /// The filters `_grabArticle` starts with and turns off one by one while the text found is too short.
  struct Flags: OptionSet {
    let rawValue: Int
    static let stripUnlikelies = Flags(rawValue: 0x1)
    static let weightClasses = Flags(rawValue: 0x2)
    static let cleanConditionally = Flags(rawValue: 0x4)
  }

  /// One try of `_grabArticle` that found too little text, kept in case no try finds enough.
  private struct Attempt {
    var content: RawNode
    var document: HTMLDocument
    var textLength: Int
  }

  /// How each attempt gets a fresh copy of the prepared page (Readability.js keeps `pageCacheHtml`).
  enum Restart {
    /// Copy the prepared page for every attempt (it must stay as it is).
    case copying
    /// Use the prepared page for the first attempt, and parse and prepare these bytes again for any later one: one
    /// copy fewer for the pages (most) that need one attempt.
    case reparsing(Data, url: URL?, charset: String?)
  }

  let options: ReadabilityExtractor.Options
  let restart: Restart
  /// The page after preparation.
  let source: HTMLDocument
  /// The page of the current attempt, a copy of ``source``.
  var document: HTMLDocument
  var flags: Flags = [.stripUnlikelies, .weightClasses, .cleanConditionally]

  var metadata = ArticleMetadata()
  var articleTitle = ""
  var articleByline: String?
  var articleDir: String?
  var articleLang: String?

  /// `node.readability.contentScore` of the nodes initialised in this attempt.
  var scores: [RawNode: Double] = [:]
  /// The tables `_markDataTables` found to hold data (`_readabilityDataTable`).
  var dataTables: Set<RawNode> = []

  init(document: HTMLDocument, options: ReadabilityExtractor.Options, restart: Restart = .copying) {
    self.source = document
    self.document = document
    self.options = options
    self.restart = restart
  }

  /// Readability.js's preparation of the page before `_grabArticle`; returns the JSON-LD metadata found.
  @discardableResult
  func prepare(_ page: HTMLDocument) -> ArticleMetadata {
    unwrapNoscriptImages(page)
    let jsonLD = ArticleMetadata.fromJSONLD(page)
    removeScripts(page)
    prepDocument(page)
    return jsonLD
  }

  /// The page for attempt number `attempt` (0 first): see ``Restart``.
  private func page(forAttempt attempt: Int) -> HTMLDocument {
    switch restart {
    case .copying:
      return HTMLDocument(copying: source)
    case .reparsing(let data, let url, let charset):
      if attempt == 0 { return source }
      guard let page = try? HTMLDocument(data: data, url: url, charset: charset) else {
        return HTMLDocument(copying: source)  // not reached: these bytes parsed once already
      }
      prepare(page)
      return page
    }
  }

  // MARK: parse()

  func parse() -> ReadableArticle? {
    let jsonLD = prepare(source)
    metadata = ArticleMetadata.of(source, jsonLD: jsonLD)
    articleTitle = metadata.title ?? ""

    guard let (content, page) = grabArticle() else { return nil }
    document = page
    postProcessContent(content)

    var excerpt = metadata.excerpt
    if excerpt == nil, let paragraph = content.descendants("p").first {
      excerpt = JSString.trim(paragraph.textContent)
    }
    let node = HTMLNode(content, in: page)
    return ReadableArticle(
      title: articleTitle, byline: metadata.byline ?? articleByline, publishedTime: metadata.publishedTime,
      siteName: metadata.siteName, excerpt: excerpt, lang: articleLang, dir: articleDir, content: node.innerHTML,
      text: HTMLTextRenderer.text(of: node))
  }

  // MARK: _grabArticle()

  static let tagsToScore: Set<String> = ["section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"]
  static let unlikelyRoles: Set<String> = [
    "menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog",
  ]
  static let emptyRemovable: Set<String> = ["div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"]
  static let alterToDivExceptions: Set<String> = ["div", "article", "section", "p", "ol", "ul"]

  /// Finds the article's content: a detached `<div>` of the attempt's document holding the page `<div>`, or `nil`
  /// when the page has no body or no attempt found any text.
  private func grabArticle() -> (RawNode, HTMLDocument)? {
    var attempts: [Attempt] = []
    while true {
      let page = page(forAttempt: attempts.count)
      document = page
      scores = [:]
      dataTables = []
      guard let body = page.rawBody else { return nil }

      let elementsToScore = prepareNodes(page)
      let topCandidates = scoreCandidates(elementsToScore)

      var topCandidate: RawNode
      var neededToCreateTopCandidate = false
      if let first = topCandidates.first, !first.isElement("body") {
        topCandidate = betterTopCandidate(first, among: topCandidates)
      } else {
        // No candidate (or the body itself): everything in the body, text included, goes into one new <div>.
        topCandidate = page.makeElement("div")
        neededToCreateTopCandidate = true
        while let child = body.firstChild { page.append(child, to: topCandidate) }
        page.append(topCandidate, to: body)
        initializeNode(topCandidate)
      }

      let parentOfTopCandidate = topCandidate.parent ?? body
      let articleContent = joinSiblings(of: topCandidate, in: parentOfTopCandidate)
      prepArticle(articleContent)

      if neededToCreateTopCandidate {
        topCandidate.setAttribute("id", "readability-page-1")
        topCandidate.setAttribute("class", "page")
      } else {
        let div = page.makeElement("div")
        div.setAttribute("id", "readability-page-1")
        div.setAttribute("class", "page")
        while let child = articleContent.firstChild { page.append(child, to: div) }
        page.append(div, to: articleContent)
      }

      var result = articleContent
      var resultPage = page
      let textLength = TextMeasure(articleContent).normalizedLength
      if textLength < options.characterThreshold {
        attempts.append(Attempt(content: articleContent, document: page, textLength: textLength))
        if flags.contains(.stripUnlikelies) {
          flags.remove(.stripUnlikelies)
          continue
        } else if flags.contains(.weightClasses) {
          flags.remove(.weightClasses)
          continue
        } else if flags.contains(.cleanConditionally) {
          flags.remove(.cleanConditionally)
          continue
        }
        // No luck after removing flags: the longest text any attempt found (the first of equals, a stable sort).
        guard
          let best = attempts.enumerated().max(by: { lhs, rhs in
            lhs.element.textLength != rhs.element.textLength
              ? lhs.element.textLength < rhs.element.textLength : lhs.offset > rhs.offset
          })?.element, best.textLength > 0
        else { return nil }
        result = best.content
        resultPage = best.document
      }

      // The text direction: the first `dir` among the top candidate's parent, itself, and the parent's ancestors.
      let ancestors = [parentOfTopCandidate, topCandidate] + nodeAncestors(parentOfTopCandidate)
      for ancestor in ancestors where ancestor.isElement {
        if let dir = ancestor.attribute("dir"), !dir.isEmpty {
          articleDir = dir
          break
        }
      }
      return (result, resultPage)
    }
  }

  /// The first pass: removes hidden, unlikely and empty nodes and the byline, turns `<div>`s used as paragraphs
  /// into `<p>`s, and collects the elements to score.
  private func prepareNodes(_ page: HTMLDocument) -> [RawNode] {
    let stripUnlikelyCandidates = flags.contains(.stripUnlikelies)
    var elementsToScore: [RawNode] = []
    var shouldRemoveTitleHeader = true
    var next = page.rawRoot
    while var node = next {
      if node.isElement("html") { articleLang = node.attribute("lang") }
      let matchString = matchString(of: node)

      if !isProbablyVisible(node) {
        next = removeAndGetNext(node)
        continue
      }
      // Someone cannot see an element that has both aria-modal="true" and role="dialog".
      if node.attribute("aria-modal") == "true" && node.attribute("role") == "dialog" {
        next = removeAndGetNext(node)
        continue
      }
      if checkByline(node, matchString: matchString) {
        next = removeAndGetNext(node)
        continue
      }
      if shouldRemoveTitleHeader && headerDuplicatesTitle(node) {
        shouldRemoveTitleHeader = false
        next = removeAndGetNext(node)
        continue
      }
      if stripUnlikelyCandidates {
        let lowered = JSString.asciiLowercased(matchString)
        if ReadabilityPatterns.unlikelyCandidates.occurs(in: lowered)
          && !ReadabilityPatterns.maybeCandidate.occurs(in: lowered) && !hasAncestorTag(node, "table")
          && !hasAncestorTag(node, "code") && !node.isElement("body") && !node.isElement("a")
        {
          next = removeAndGetNext(node)
          continue
        }
        if let role = node.attribute("role"), Self.unlikelyRoles.contains(role) {
          next = removeAndGetNext(node)
          continue
        }
      }
      let name = node.name
      if Self.emptyRemovable.contains(name) && isElementWithoutContent(node) {
        next = removeAndGetNext(node)
        continue
      }
      if Self.tagsToScore.contains(name) { elementsToScore.append(node) }

      if name == "div" {
        wrapPhrasingContent(of: node)
        // A <div> holding only a <p> (as mobile.slate.com wraps each paragraph) is that paragraph.
        if hasSingleTagInsideElement(node, "p"), linkDensity(node) < 0.25, let paragraph = node.firstElementChild {
          page.replace(node, with: paragraph)
          node = paragraph
          elementsToScore.append(node)
        } else if !hasChildBlockElement(node) {
          page.rename(node, to: "p")
          elementsToScore.append(node)
        }
      }
      next = nextNode(node)
    }
    return elementsToScore
  }

  /// Puts each run of phrasing content (text, inline elements) directly inside a `<div>` into a new `<p>`.
  private func wrapPhrasingContent(of div: RawNode) {
    var paragraph: RawNode?
    var child = div.firstChild
    while let current = child {
      let next = current.nextSibling
      if isPhrasingContent(current) {
        if let paragraph {
          document.append(current, to: paragraph)
        } else if !isWhitespace(current) {
          let created = document.makeElement("p")
          document.replace(current, with: created)
          document.append(current, to: created)
          paragraph = created
        }
      } else if let open = paragraph {
        while let last = open.lastChild, isWhitespace(last) { document.remove(last) }
        paragraph = nil
      }
      child = next
    }
  }

  /// Scores each paragraph by its text (a point, a point per comma, a point per 100 characters up to 3), adds the
  /// score to its parent, half to its grandparent and a third of the level above to each further ancestor (up to
  /// five), scales each candidate by (1 − link density), and returns the best ``Options/candidateCount``.
  private func scoreCandidates(_ elementsToScore: [RawNode]) -> [RawNode] {
    var candidates: [RawNode] = []
    for element in elementsToScore {
      guard let parent = element.parent, parent.isElement else { continue }
      let measure = TextMeasure(element)
      let length = measure.normalizedLength
      if length < 25 { continue }
      let ancestors = nodeAncestors(element, maxDepth: 5)
      if ancestors.isEmpty { continue }
      let contentScore = 1 + Double(measure.commas + 1) + Double(min(length / 100, 3))
      for (level, ancestor) in ancestors.enumerated() {
        guard ancestor.isElement, let above = ancestor.parent, above.isElement else { continue }
        if scores[ancestor] == nil {
          initializeNode(ancestor)
          candidates.append(ancestor)
        }
        let divider = level == 0 ? 1 : level == 1 ? 2 : Double(level * 3)
        scores[ancestor, default: 0] += contentScore / divider
      }
    }

    var topCandidates: [RawNode] = []
    for candidate in candidates {
      let score = (scores[candidate] ?? 0) * (1 - linkDensity(candidate))
      scores[candidate] = score
      for index in 0..<options.candidateCount {
        if index >= topCandidates.count || score > (scores[topCandidates[index]] ?? 0) {
          topCandidates.insert(candidate, at: index)
          if topCandidates.count > options.candidateCount { topCandidates.removeLast() }
          break
        }
      }
    }
    return topCandidates
  }

  /// The top candidate, or an ancestor of it that is a better container: one shared by three of the close
  /// runners-up, one whose score rises on the way up, or the parent of an only child.
  private func betterTopCandidate(_ first: RawNode, among topCandidates: [RawNode]) -> RawNode {
    var topCandidate = first
    let topScore = scores[topCandidate] ?? 0
    var alternativeAncestors: [[RawNode]] = []
    for candidate in topCandidates.dropFirst() where (scores[candidate] ?? 0) / topScore >= 0.75 {
      alternativeAncestors.append(nodeAncestors(candidate))
    }
    let minimumTopCandidates = 3
    if alternativeAncestors.count >= minimumTopCandidates {
      var parent = topCandidate.parentElement
      while let current = parent, !current.isElement("body") {
        var lists = 0
        for ancestors in alternativeAncestors where lists < minimumTopCandidates {
          if ancestors.contains(current) { lists += 1 }
        }
        if lists >= minimumTopCandidates {
          topCandidate = current
          break
        }
        parent = current.parentElement
      }
    }
    if scores[topCandidate] == nil { initializeNode(topCandidate) }

    // Parents of candidates have scores too; a parent scoring higher than the node holds more of the content.
    var parent = topCandidate.parentElement
    var lastScore = scores[topCandidate] ?? 0
    let scoreThreshold = lastScore / 3
    while let current = parent, !current.isElement("body") {
      guard let parentScore = scores[current] else {
        parent = current.parentElement
        continue
      }
      if parentScore < scoreThreshold { break }
      if parentScore > lastScore {
        topCandidate = current
        break
      }
      lastScore = parentScore
      parent = current.parentElement
    }

    // An only child: its parent, so that sibling joining sees the content around it.
    parent = topCandidate.parentElement
    while let current = parent, !current.isElement("body"), current.elementChildCount == 1 {
      topCandidate = current
      parent = current.parentElement
    }
    if scores[topCandidate] == nil { initializeNode(topCandidate) }
    return topCandidate
  }

  /// A new `<div>` holding the top candidate and those of its siblings that look like more of the article.
  private func joinSiblings(of topCandidate: RawNode, in parent: RawNode) -> RawNode {
    let articleContent = document.makeElement("div")
    let topScore = scores[topCandidate] ?? 0
    let siblingScoreThreshold = max(10, topScore * 0.2)
    let topClass = topCandidate.attribute("class") ?? ""
    for sibling in parent.elementChildren {
      var append = false
      if sibling == topCandidate {
        append = true
      } else {
        var contentBonus = 0.0
        if !topClass.isEmpty && (sibling.attribute("class") ?? "") == topClass { contentBonus += topScore * 0.2 }
        if let score = scores[sibling], score + contentBonus >= siblingScoreThreshold {
          append = true
        } else if sibling.isElement("p") {
          let density = linkDensity(sibling)
          let content = innerText(sibling)
          let length = JSString.length(content)
          if length > 80 && density < 0.25 {
            append = true
          } else if length < 80 && length > 0 && density == 0 && endsSentence(content) {
            append = true
          }
        }
      }
      guard append else { continue }
      if !Self.alterToDivExceptions.contains(sibling.name) { document.rename(sibling, to: "div") }
      document.append(sibling, to: articleContent)
    }
    return articleContent
  }

  /// `/\.( |$)/`: a full stop followed by a space or the end.
  private func endsSentence(_ text: String) -> Bool {
    text.hasSuffix(".") || text.contains(". ")
  }
}
