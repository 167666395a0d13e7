import Foundation
import OfflineNews
import OfflineNewsHTML
import OfflineNewsModel

/// Article HTML made safe to show in a page of the server: parsed with libxml2's HTML parser (``HTMLDocument``,
/// recover mode, as a browser repairs it) and written back from the tree with an allow-list of elements and
/// attributes, every text and attribute value escaped here — the input's markup is never copied through.
///
/// For example:
/// ```swift
/// let safe = ArticleHTMLSanitizer.sanitize(
///   #"<p onclick="x()">Hi <a href="javascript:alert(1)">there</a><script>alert(2)</script></p>"#,
///   base: URL(string: "https://example.com/story"))
/// // <p>Hi <a>there</a></p>
/// ```
///
/// What comes out:
/// - Only the elements of ``allowedElements``. A few elements are removed with everything in them
///   (``droppedElements``: `script`, `style`, `iframe`, `object`, `embed`, `form` and its controls, `base`, `meta`,
///   `link`, `template`, `noscript`, `svg`, `math`, media…): their content is code, another document or raw text.
///   Any other element (`font`, `center`, `picture`, an unknown tag) is unwrapped: its children are kept.
///   Comments, processing instructions and doctype go.
/// - Only the attributes of ``allowedAttributes`` for each element: never an `on*` handler, `style`, `id`, `class`
///   or `name` (they would reach the page's own style and script: DOM clobbering), `srcset` or `sizes`.
/// - `href` (and `cite`) only as an absolute `http`, `https` or `mailto` URL, resolved against `base`; anything
///   else (`javascript:`, `vbscript:`, `data:`, `file:`, a scheme hidden behind entities, whitespace, control
///   characters or letter case, which the parser decoded and this reads as a browser does) removes the attribute.
///   Every link gets `rel="noopener noreferrer"`.
/// - `img src`: the server's own copy when `images` maps the image's address (its remote address, or the local
///   file a stored full text links to) to one; a `data:image/png|jpeg|gif|webp|avif` URL as it is; otherwise, with
///   ``RemoteImages/replaceWithText`` (the web reader, whose Content-Security-Policy `img-src 'self' data:` would
///   block it anyway), the image is replaced by its `alt` text, so that the page neither leaks the reader to the
///   image's host nor shows a broken image; with ``RemoteImages/keep`` (API clients, which load what they like)
///   the absolute `http(s)` address stays. An image with no usable address goes.
public enum ArticleHTMLSanitizer {
  /// What happens to an image the store has no copy of.
  public enum RemoteImages: Sendable, Equatable {
    /// Keep its absolute `http` or `https` address.
    case keep
    /// Replace it by its `alt` text (nothing when it has none).
    case replaceWithText
  }

  /// Sanitises article HTML (a stored full text, a feed's content or summary, a fragment or a whole page: only the
  /// body is kept).
  ///
  /// - Parameters:
  ///   - html: the article's HTML, as stored.
  ///   - base: the article's address, against which relative links and images are resolved (a `<base>` element of
  ///     the input is ignored: content must not choose where its links go).
  ///   - images: address → the server's URL of its stored copy (`/images/…`), the address as text: remote
  ///     (`https://…`) or the `file:` URL a stored full text was relinked to.
  ///   - remoteImages: what happens to the other images.
  /// - Returns: HTML safe to put inside an element of a page.
  public static func sanitize(
    _ html: String, base: URL?, images: [String: String] = [:], remoteImages: RemoteImages = .replaceWithText
  ) -> String {
    let document = HTMLDocument(html: html)
    guard let body = document.body else { return "" }
    var writer = Writer(base: base, images: images, remoteImages: remoteImages)
    writer.write(childrenOf: body)
    return writer.output
  }

  /// The elements written back (with their allowed attributes).
  public static let allowedElements: Set<String> = [
    "a", "abbr", "address", "article", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code",
    "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp",
    "rt", "ruby", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
  ]

  /// The elements removed with all their content.
  public static let droppedElements: Set<String> = [
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "param", "form", "input", "button",
    "select", "option", "optgroup", "textarea", "datalist", "output", "keygen", "base", "meta", "link", "title",
    "head", "template", "noscript", "noembed", "noframes", "xmp", "plaintext", "listing", "svg", "math", "canvas",
    "audio", "video", "source", "track", "portal", "dialog", "slot", "marquee",
  ]

  /// The attributes kept, by element (`*` for every allowed element).
  public static let allowedAttributes: [String: Set<String>] = [
    "*": ["title", "lang", "dir"],
    "a": ["href"],
    "img": ["src", "alt", "width", "height"],
    "blockquote": ["cite"], "q": ["cite"], "del": ["cite", "datetime"], "ins": ["cite", "datetime"],
    "td": ["colspan", "rowspan", "headers", "scope"], "th": ["colspan", "rowspan", "headers", "scope", "abbr"],
    "col": ["span"], "colgroup": ["span"],
    "ol": ["start", "reversed", "type"], "li": ["value"], "time": ["datetime"],
    "details": ["open"],
  ]

  /// Dropped elements that have no content in HTML (void elements): whatever libxml2 put inside one follows it in
  /// a browser's tree, and is kept.
  static let droppedVoidElements: Set<String> = [
    "embed", "param", "source", "track", "keygen", "base", "meta", "link", "input", "frame",
  ]

  /// Elements without an end tag.
  static let voidElements: Set<String> = ["br", "hr", "img", "wbr", "col"]

  /// The raster image types a `data:` URL may carry in `img src` (never SVG, a document that may run script).
  static let dataImageTypes: Set<String> = [
    "image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/avif",
  ]

  /// The scheme of a URL as a browser reads it (lower case), `nil` for a relative reference: leading and trailing
  /// C0 controls and spaces are stripped and tabs and line breaks anywhere removed first (WHATWG URL parsing), so
  /// that `" java\tscript:"` is `javascript`.
  static func scheme(of text: String) -> String? {
    let cleaned = browserCleaned(text)
    guard let colon = cleaned.firstIndex(of: ":") else { return nil }
    let candidate = cleaned[..<colon]
    guard let first = candidate.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
      candidate.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
      })
    else { return nil }
    return candidate.lowercased()
  }

  /// `text` as a browser's URL parser first reads it: C0 controls and spaces trimmed, tab, LF and CR removed.
  static func browserCleaned(_ text: String) -> String {
    let trimmed = text.unicodeScalars.drop { $0.value <= 0x20 }.reversed().drop { $0.value <= 0x20 }.reversed()
    var scalars = String.UnicodeScalarView()
    for scalar in trimmed where scalar != "\t" && scalar != "\n" && scalar != "\r" { scalars.append(scalar) }
    return String(scalars)
  }

  /// An absolute `http`, `https` (or, for links, `mailto`) URL for an attribute value, resolved against `base`;
  /// `nil` for anything else.
  static func safeURL(_ value: String, base: URL?, allowMail: Bool) -> String? {
    let cleaned = browserCleaned(value)
    guard !cleaned.isEmpty else { return nil }
    if let scheme = scheme(of: cleaned) {
      if allowMail, scheme == "mailto" { return cleaned }
      guard let url = URL(string: cleaned), url.isWebURL else { return nil }
      return url.absoluteString
    }
    guard let url = URLReference.resolve(cleaned, against: base), url.isWebURL else { return nil }
    return url.absoluteString
  }

  /// Whether `value` is a `data:` URL of a raster image type.
  static func isDataImage(_ value: String) -> Bool {
    let cleaned = browserCleaned(value)
    guard scheme(of: cleaned) == "data" else { return false }
    let afterScheme = cleaned.dropFirst(5)
    let type = afterScheme.prefix { $0 != ";" && $0 != "," }.trimmingWhiteSpace.lowercased()
    return dataImageTypes.contains(type)
  }

  /// `text` escaped for an HTML text node: `&`, `<`, `>`.
  public static func escapeText(_ text: String) -> String { escape(text, quotes: false) }

  /// `text` escaped for a double-quoted attribute value: `&`, `<`, `>`, `"`, `'`.
  public static func escapeAttribute(_ text: String) -> String { escape(text, quotes: true) }

  /// `text` with `&`, `<`, `>` as character references, and with `quotes`, `"` and `'` too.
  private static func escape(_ text: String, quotes: Bool) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"" where quotes: out += "&quot;"
      case "'" where quotes: out += "&#39;"
      default: out.append(character)
      }
    }
    return out
  }

  /// Writes the allowed part of a tree, iteratively (any depth of nesting).
  private struct Writer {
    let base: URL?
    let images: [String: String]
    let remoteImages: RemoteImages
    var output = ""

    init(base: URL?, images: [String: String], remoteImages: RemoteImages) {
      self.base = base
      self.images = images
      self.remoteImages = remoteImages
    }

    private enum Step {
      case open(HTMLNode)
      case close(String)
    }

    mutating func write(childrenOf root: HTMLNode) {
      var stack: [Step] = root.childNodes.reversed().map { .open($0) }
      while let step = stack.popLast() {
        switch step {
        case .close(let name): output += "</\(name)>"
        case .open(let node):
          switch node.kind {
          case .text: output += escapeText(node.textContent)
          case .element:
            let name = node.name
            if droppedElements.contains(name) {
              // A void element (`embed`) that libxml2's parser, unlike a browser's, let hold what follows it:
              // its children are the browser's siblings, and are written as such.
              if droppedVoidElements.contains(name) { stack += node.childNodes.reversed().map { .open($0) } }
              continue
            }
            guard allowedElements.contains(name) else {
              stack += node.childNodes.reversed().map { .open($0) }
              continue
            }
            if name == "img" {
              writeImage(node)
              continue
            }
            output += "<" + name + attributes(of: node, name: name) + ">"
            if voidElements.contains(name) { continue }
            stack.append(.close(name))
            stack += node.childNodes.reversed().map { .open($0) }
          case .comment, .document, .other: continue
          }
        }
      }
    }

    private func attributes(of node: HTMLNode, name: String) -> String {
      let allowed = (allowedAttributes["*"] ?? []).union(allowedAttributes[name] ?? [])
      var written = ""
      var seen = Set<String>()
      for (attribute, value) in node.attributes {
        let key = attribute.lowercased()
        guard allowed.contains(key), seen.insert(key).inserted else { continue }
        var kept = value
        if key == "href" || key == "cite" {
          guard let url = safeURL(value, base: base, allowMail: key == "href") else { continue }
          kept = url
        }
        written += " \(key)=\"\(escapeAttribute(kept))\""
      }
      if name == "a" { written += " rel=\"noopener noreferrer\"" }
      return written
    }

    private mutating func writeImage(_ node: HTMLNode) {
      let src = node["src"].map(browserCleaned) ?? ""
      let remote = node[HTMLImageLinks.remoteSourceAttribute].map(browserCleaned)
      var address: String?
      if let local = images[src] ?? remote.flatMap({ images[$0] }) {
        address = local
      } else if let resolved = safeURL(remote ?? src, base: base, allowMail: false) {
        address = images[resolved] ?? (remoteImages == .keep ? resolved : nil)
      } else if isDataImage(src) {
        address = src
      }
      guard let address else {
        let alt = (node["alt"] ?? "").trimmingWhiteSpace
        if remoteImages == .replaceWithText, !alt.isEmpty { output += "<span>[\(escapeText(alt))]</span>" }
        return
      }
      var written = " src=\"\(escapeAttribute(address))\""
      for key in ["alt", "title", "width", "height", "lang", "dir"] {
        guard let value = node[key] else { continue }
        if key == "width" || key == "height", !value.allSatisfy(\.isNumber) { continue }
        written += " \(key)=\"\(escapeAttribute(value))\""
      }
      output += "<img" + written + ">"
    }
  }
}
