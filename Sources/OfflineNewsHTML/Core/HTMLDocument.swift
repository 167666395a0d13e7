import CLibXML2
import Foundation

/// A parsed HTML document: libxml2's tree, owned by this object and freed with it.
///
/// For example:
/// ```swift
/// let document = try HTMLDocument(data: bytes, url: URL(string: "https://example.com/news/1"))
/// let headline = document.body?.descendants(named: "h1").first?.textContent
/// ```
///
/// The bytes are parsed by libxml2's HTML parser (`htmlReadMemory`) in recover mode, as a browser would: any input
/// gives a tree, never an error (unclosed and misnested tags are repaired, unknown ones kept as elements), with
/// `HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING` (nothing printed) and `HTML_PARSE_NONET` (nothing fetched). Character
/// references are decoded once, by the parser; text in the tree is UTF-8.
///
/// The character encoding is, in order: the `charset` given (the HTTP `Content-Type` parameter, which the HTML
/// standard puts before the page's own declaration); else UTF-8 when the bytes are valid UTF-8 (a saved page often
/// keeps a stale `<meta charset>`); else a byte order mark, the page's `<meta charset>` or
/// `<meta http-equiv="Content-Type">`; else ISO-8859-1 (libxml2's fallback for bytes that are not UTF-8). A
/// charset libxml2 does not know (through iconv) is ignored.
///
/// Nodes are `HTMLNode` values that keep their document alive. A node removed from the tree (`HTMLNode/remove()`)
/// stays valid, detached, until the document is freed. A document and its nodes are not `Sendable`: use them from
/// one task at a time.
///
/// Related libxml2 documentation: <https://gnome.pages.gitlab.gnome.org/libxml2/devhelp/libxml2-HTMLparser.html>
public final class HTMLDocument {
  /// Why a document could not be made.
  public enum ParseError: Error, Equatable, CustomStringConvertible {
    /// The input is larger than libxml2 can parse in one buffer (2 GiB − 1 bytes).
    case tooLarge(bytes: Int)

    public var description: String {
      switch self {
      case .tooLarge(let bytes): "HTML input of \(bytes) bytes is larger than the parser's limit of 2147483647 bytes"
      }
    }
  }

  let pointer: htmlDocPtr
  /// Nodes created or removed and not (yet) in the tree; freed with the document.
  private var detached: Set<xmlNodePtr> = []

  /// The address the document was read from, when known: relative URLs are resolved against it (and `<base>`).
  package let url: URL?

  /// The options every parse uses: recover, no messages, no network.
  static let parseOptions = Int32(
    bitPattern: HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
      | HTML_PARSE_NONET.rawValue)

  /// libxml2 must be initialised once, on one thread, before threads parse (its documentation: "xmlInitParser").
  private static let libraryInitialized: Void = { xmlInitParser() }()

  /// Parses `data` as an HTML page.
  ///
  /// - Parameters:
  ///   - data: the page's bytes as received.
  ///   - url: where the page came from; used for ``baseURL``.
  ///   - charset: the `charset` parameter of the HTTP `Content-Type` header (`"utf-8"`, `"iso-8859-1"`,
  ///     `"windows-1252"`, `"shift_jis"`…), when there was one.
  /// - Throws: ``ParseError/tooLarge(bytes:)`` for an input of 2 GiB or more. Nothing else: malformed HTML is repaired.
  package convenience init(data: Data, url: URL? = nil, charset: String? = nil) throws(ParseError) {
    guard data.count < Int(Int32.max) else { throw .tooLarge(bytes: data.count) }
    self.init(pointer: Self.parse(data, url: url, charset: charset), url: url)
  }

  /// Parses HTML text: a whole page or a fragment (a summary, a feed item's content), read as UTF-8 whatever its
  /// `<meta>` says (the text is already decoded). A string of 2 GiB or more gives an empty document.
  package convenience init(html: String, url: URL? = nil) {
    let data = Data(html.utf8)
    let pointer = data.count < Int(Int32.max) ? Self.parse(data, url: url, charset: "UTF-8") : nil
    self.init(pointer: pointer, url: url)
  }

  /// A deep copy of `other` (libxml2's `xmlCopyDoc`): the extractor's fresh start for each of its attempts.
  convenience init(copying other: HTMLDocument) {
    self.init(pointer: xmlCopyDoc(other.pointer, 1), url: other.url)
  }

  private init(pointer: htmlDocPtr?, url: URL?) {
    // libxml2 gives no document for an empty input (or one of only a byte order mark): an empty document instead.
    self.pointer = pointer ?? htmlNewDocNoDtD(nil, nil)
    self.url = url
    mergeRootElements()
  }

  /// Gives the document one root element holding one `<head>` and one `<body>`, as the HTML standard's tree
  /// construction does: in some repairs libxml2 starts a second `<html>`, beside or inside the first, or leaves
  /// elements and text after it at the top level; their content moves into the first root's `<head>` and `<body>`,
  /// so that every walk from the root, and from the body, sees all of the page.
  private func mergeRootElements() {
    var top = documentNode.firstChild
    var root: RawNode?
    var strays: [RawNode] = []
    while let node = top {
      if node.isElement || node.isText {
        if root == nil && node.isElement { root = node } else if root != nil { strays.append(node) }
      }
      top = node.nextSibling
    }
    guard let root else { return }
    // A second <html> may also be nested in the first one.
    strays += root.elementChildren.filter { $0.isElement("html") }
    guard !strays.isEmpty else { return }
    let body =
      rawBody
      ?? {
        let made = makeElement("body")
        append(made, to: root)
        return made
      }()
    for stray in strays {
      guard stray.isElement("html") else {
        append(stray, to: body)
        continue
      }
      for child in stray.childNodes {
        if child.isElement("head"), let head = rawHead {
          for node in child.childNodes { append(node, to: head) }
        } else if child.isElement("head") || child.isElement("body") {
          for node in child.childNodes { append(node, to: body) }
        } else {
          append(child, to: body)
        }
      }
      remove(stray)
    }
  }

  private static func parse(_ data: Data, url: URL?, charset: String?) -> htmlDocPtr? {
    libraryInitialized
    var encoding = charset.flatMap { $0.isEmpty ? nil : $0 }
    // Without a charset from HTTP, bytes that are all valid UTF-8 are read as UTF-8 whatever the <meta> says: a page
    // saved as UTF-8 often keeps its server's old declaration, and text in a legacy encoding is almost never valid
    // UTF-8 by chance. Otherwise libxml2 follows the <meta>.
    if encoding == nil, isValidUTF8(data) { encoding = "UTF-8" }
    let previous = clibxml2_silence_errors()
    defer { clibxml2_restore_errors(previous) }
    return data.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
      return htmlReadMemory(
        base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), url?.absoluteString, encoding, parseOptions)
    }
  }

  /// Whether the bytes are well-formed UTF-8 (RFC 3629), checked without making a string.
  static func isValidUTF8(_ data: Data) -> Bool {
    data.withUnsafeBytes { raw in
      let bytes = raw
      var index = 0
      let count = bytes.count
      while index < count {
        let byte = bytes[index]
        if byte < 0x80 {
          index += 1
          continue
        }
        let length: Int
        let lower: UInt8
        let upper: UInt8
        switch byte {
        case 0xC2...0xDF: (length, lower, upper) = (2, 0x80, 0xBF)
        case 0xE0: (length, lower, upper) = (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, lower, upper) = (3, 0x80, 0xBF)
        case 0xED: (length, lower, upper) = (3, 0x80, 0x9F)
        case 0xF0: (length, lower, upper) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (length, lower, upper) = (4, 0x80, 0xBF)
        case 0xF4: (length, lower, upper) = (4, 0x80, 0x8F)
        default: return false
        }
        guard index + length <= count else { return false }
        let second = bytes[index + 1]
        guard second >= lower && second <= upper else { return false }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
        index += length
      }
      return true
    }
  }

  deinit {
    // Detached subtrees first (their strings may live in the document's dictionary, freed by xmlFreeDoc). A node
    // put back into a tree has a parent: it is freed with that tree. Read every parent before freeing anything.
    let roots = detached.filter { $0.pointee.parent == nil }
    for node in roots { xmlFreeNode(node) }
    xmlFreeDoc(pointer)
  }

  // MARK: Structure

  var documentNode: RawNode {
    RawNode(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: xmlNode.self))
  }

  /// The root element (`<html>`), or `nil` for an empty document.
  package var root: HTMLNode? {
    RawNode(xmlDocGetRootElement(pointer)).map { HTMLNode($0, in: self) }
  }

  var rawRoot: RawNode? { RawNode(xmlDocGetRootElement(pointer)) }

  var rawBody: RawNode? { rawRootChild("body") }

  var rawHead: RawNode? { rawRootChild("head") }

  /// The first child element of the root named `name`.
  private func rawRootChild(_ name: StaticString) -> RawNode? {
    var child = rawRoot?.firstElementChild
    while let node = child {
      if node.isElement(name) { return node }
      child = node.nextElementSibling
    }
    return nil
  }

  /// The `<head>` element, when there is one.
  package var head: HTMLNode? { rawHead.map { HTMLNode($0, in: self) } }

  /// The `<body>` element, when there is one (a fragment is put in one).
  package var body: HTMLNode? { rawBody.map { HTMLNode($0, in: self) } }

  /// DOM `document.title`: the text of the first `<title>` element, ASCII whitespace stripped and collapsed to
  /// single spaces (HTML Living Standard, "document.title"); `""` without one.
  package var title: String {
    guard let root = rawRoot else { return "" }
    let titles = root.isElement("title") ? [root] : root.descendants("title")
    guard let first = titles.first else { return "" }
    return first.textContent.split(whereSeparator: \.isASCIIWhitespaceForHTML).joined(separator: " ")
  }

  /// The URL relative references in the document are resolved against: its first `<base href>` resolved against
  /// ``url``, else ``url`` (HTML Living Standard, "document base URL").
  package var baseURL: URL? {
    if let root = rawRoot {
      for base in root.descendants("base") {
        guard let href = base.attribute("href") else { continue }
        return URLResolution.resolve(href, against: url).flatMap { URL(string: $0) } ?? url
      }
    }
    return url
  }

  // MARK: Making and moving nodes

  /// A new element named `name` (lower case), not yet in the tree.
  package func createElement(_ name: String) -> HTMLNode {
    HTMLNode(makeElement(name), in: self)
  }

  /// A new text node holding `text` literally, not yet in the tree.
  package func createText(_ text: String) -> HTMLNode {
    HTMLNode(makeText(text), in: self)
  }

  func makeElement(_ name: String) -> RawNode {
    guard let node = xmlNewDocNode(pointer, nil, name, nil) else { unavailableNode() }
    detached.insert(node)
    return RawNode(node)
  }

  func makeText(_ text: String) -> RawNode {
    guard let node = xmlNewDocText(pointer, text) else { unavailableNode() }
    detached.insert(node)
    return RawNode(node)
  }

  /// libxml2 returns no node only when `malloc` fails; there is nothing sensible to continue with.
  private func unavailableNode() -> Never {
    fatalError("libxml2 could not allocate a node (out of memory)")
  }

  /// Makes the document responsible for a node libxml2 made outside the tree (`xmlDocCopyNode`).
  func adopt(_ node: RawNode) {
    if node.pointer.pointee.parent == nil { detached.insert(node.pointer) }
  }

  /// Takes `node` out of the tree; it stays valid (detached) until the document is freed.
  func remove(_ node: RawNode) {
    guard node.pointer.pointee.parent != nil else { return }
    xmlUnlinkNode(node.pointer)
    detached.insert(node.pointer)
  }

  /// Moves `child` (from wherever it is) to the end of `parent`'s children. Adjacent text nodes are not merged, so
  /// every node value stays valid. Nothing happens when `child` is `parent` or one of its ancestors.
  func append(_ child: RawNode, to parent: RawNode) {
    // `child` at or above `parent` would make a cycle.
    guard !parent.isInside(child) else { return }
    xmlUnlinkNode(child.pointer)
    detached.remove(child.pointer)
    let c = child.pointer
    let p = parent.pointer
    c.pointee.parent = p
    c.pointee.next = nil
    c.pointee.prev = p.pointee.last
    if let last = p.pointee.last { last.pointee.next = c } else { p.pointee.children = c }
    p.pointee.last = c
  }

  /// Moves `node` (from wherever it is) just before `reference`, under `reference`'s parent.
  func insert(_ node: RawNode, before reference: RawNode) {
    guard let parent = reference.parent, node != reference, !parent.isInside(node) else { return }
    xmlUnlinkNode(node.pointer)
    detached.remove(node.pointer)
    let n = node.pointer
    let r = reference.pointer
    n.pointee.parent = parent.pointer
    n.pointee.next = r
    n.pointee.prev = r.pointee.prev
    if let previous = r.pointee.prev { previous.pointee.next = n } else { parent.pointer.pointee.children = n }
    r.pointee.prev = n
  }

  /// Puts `replacement` where `node` is and takes `node` out of the tree (it stays valid, detached).
  func replace(_ node: RawNode, with replacement: RawNode) {
    guard node != replacement, node.parent != nil else { return }
    insert(replacement, before: node)
    if replacement.parent != nil { remove(node) }
  }

  /// Renames an element in place (its attributes and children stay).
  func rename(_ node: RawNode, to name: String) {
    xmlNodeSetName(node.pointer, name)
  }

  /// Wraps a node of this document.
  func node(_ raw: RawNode) -> HTMLNode { HTMLNode(raw, in: self) }
}

extension Character {
  /// ASCII whitespace as the HTML standard defines it: tab, line feed, form feed, carriage return, space.
  var isASCIIWhitespaceForHTML: Bool {
    self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\u{0C}" || self == "\r\n"
  }
}
