import Foundation

/// The last steps on the article found: Readability.js's `_postProcessContent` (`_fixRelativeUris`,
/// `_simplifyNestedElements`, `_cleanClasses`).
extension Readability {
  static let mediaTags: Set<String> = ["img", "picture", "figure", "video", "audio", "source"]

  func postProcessContent(_ content: RawNode) {
    fixRelativeURLs(content)
    simplifyNestedElements(content)
    if !options.keepClasses { cleanClasses(content) }
  }

  /// Makes link and media URLs absolute against the document's base URL (`<base href>`, else the page's URL);
  /// fragment links stay as they are when there is no `<base>`. `javascript:` links become their content.
  func fixRelativeURLs(_ content: RawNode) {
    let base = document.baseURL
    let fragmentLinksStay = base == document.url
    func absolute(_ reference: String) -> String {
      if fragmentLinksStay && reference.hasPrefix("#") { return reference }
      return URLResolution.resolve(reference, against: base) ?? reference
    }

    for link in content.descendants("a") {
      guard let href = link.attribute("href"), !href.isEmpty else { continue }
      // Readability.js tests `href.indexOf("javascript:") === 0`; a browser also runs ` JavaScript:` and the like.
      if URLResolution.isJavaScript(href) {
        // The link cannot work once scripts are gone: its text (or a <span> of its children) stays.
        let children = link.childNodes
        if children.count == 1, children[0].isText {
          document.replace(link, with: document.makeText(link.textContent))
        } else {
          let span = document.makeElement("span")
          for child in children { document.append(child, to: span) }
          document.replace(link, with: span)
        }
      } else {
        link.setAttribute("href", absolute(href))
      }
    }

    for media in content.descendants(Self.mediaTags) {
      if let src = media.attribute("src"), !src.isEmpty { media.setAttribute("src", absolute(src)) }
      if let poster = media.attribute("poster"), !poster.isEmpty { media.setAttribute("poster", absolute(poster)) }
      if let srcset = media.attribute("srcset"), !srcset.isEmpty {
        media.setAttribute("srcset", Srcset.rewritingURLs(srcset, absolute))
      }
    }
  }

  /// Removes empty `<div>`s and `<section>`s and replaces those holding a single `<div>` or `<section>` by it
  /// (which takes their attributes).
  func simplifyNestedElements(_ content: RawNode) {
    var next: RawNode? = content
    while let node = next {
      if node.parent != nil, node.isElement("div") || node.isElement("section"),
        !(node.attribute("id") ?? "").hasPrefix("readability")
      {
        if isElementWithoutContent(node) {
          next = removeAndGetNext(node)
          continue
        }
        if hasSingleTagInsideElement(node, "div") || hasSingleTagInsideElement(node, "section"),
          let child = node.firstElementChild
        {
          for attribute in node.attributes { child.setAttribute(attribute.name, attribute.value) }
          document.replace(node, with: child)
          next = child
          continue
        }
      }
      next = nextNode(node)
    }
  }

  /// Removes every `class` attribute, keeping only the classes Readability sets itself (`page`).
  func cleanClasses(_ root: RawNode) {
    var next: RawNode? = root
    while let node = next {
      if node.isElement {
        let kept = (node.attribute("class") ?? "").split(whereSeparator: { character in
          character.unicodeScalars.allSatisfy(JSString.isWhitespace)
        }).filter { options.classesToPreserve.contains(String($0)) }
        if kept.isEmpty {
          node.removeAttribute("class")
        } else {
          node.setAttribute("class", kept.joined(separator: " "))
        }
      }
      next = node.next(within: root)
    }
  }
}

/// The `srcset` attribute's image candidates (HTML Living Standard, "srcset attributes"): URL and descriptor pairs
/// apart by commas.
enum Srcset {
  /// `srcset` with each candidate's URL passed through `transform`, descriptors kept.
  static func rewritingURLs(_ srcset: String, _ transform: (String) -> String) -> String {
    srcset.split(separator: ",", omittingEmptySubsequences: true).map { candidate -> String in
      let parts = candidate.split(whereSeparator: { $0.isWhitespace })
      guard let url = parts.first else { return String(candidate) }
      return ([transform(String(url))] + parts.dropFirst().map(String.init)).joined(separator: " ")
    }.joined(separator: ", ")
  }
}
