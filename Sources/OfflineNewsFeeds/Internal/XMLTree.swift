import CLibXML2
import Foundation

/// A libxml2 document (`xmlDoc`), freed with the value. Elements read from it are valid while it lives.
final class XMLTreeDocument {
  let pointer: xmlDocPtr

  init(_ pointer: xmlDocPtr) { self.pointer = pointer }

  deinit { xmlFreeDoc(pointer) }

  /// The root element, or `nil` when libxml2 recovered nothing but a prologue.
  var root: XMLElement? {
    xmlDocGetRootElement(pointer).map(XMLElement.init)
  }
}

/// Namespace names the feed formats use.
enum Namespace {
  static let atom10 = "http://www.w3.org/2005/Atom"
  static let atom03 = "http://purl.org/atom/ns#"
  static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  static let rss10 = "http://purl.org/rss/1.0/"
  static let rss090 = "http://my.netscape.com/rdf/simple/0.9/"
  static let content = "http://purl.org/rss/1.0/modules/content/"
  static let dublinCore = "http://purl.org/dc/elements/1.1/"
  static let dublinCoreTerms = "http://purl.org/dc/terms/"
  static let media = "http://search.yahoo.com/mrss/"
  static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
  static let xhtml = "http://www.w3.org/1999/xhtml"
  static let xml = "http://www.w3.org/XML/1998/namespace"
  /// RSS 2.0 in a default namespace: UserLand's (`http://backend.userland.com/rss2`) and Harvard's
  /// (`http://blogs.law.harvard.edu/tech/rss`), which RSS 2.0 feeds of 2002–2004 declared; RSS 2.0 itself has none.
  static let userlandRSS2 = "http://backend.userland.com/rss2"
  static let harvardRSS2 = "http://blogs.law.harvard.edu/tech/rss"

  /// Whether `uri` is Media RSS's namespace (feeds write it with and without the final slash).
  static func isMedia(_ uri: String?) -> Bool { uri == media || uri == "http://search.yahoo.com/mrss" }

  /// Whether `uri` is the iTunes namespace: Apple's documentation writes it `…/DTDs/Podcast-1.0.dtd`, feeds write it
  /// in either case (namespace names are compared as written by XML, so both are listed).
  static func isITunes(_ uri: String?) -> Bool { uri == itunes || uri == "http://www.itunes.com/DTDs/Podcast-1.0.dtd" }

  /// The iTunes namespace in both spellings.
  static let itunesNames: [String?] = [itunes, "http://www.itunes.com/DTDs/Podcast-1.0.dtd"]
}

/// An element of a libxml2 tree. Not `Sendable`: it points into its ``XMLTreeDocument``.
struct XMLElement {
  let node: xmlNodePtr

  /// The local name, e.g. `link` for `atom:link`.
  var name: String { node.pointee.name.map { String(cString: $0) } ?? "" }

  /// The namespace name (URI), or `nil` for an element in no namespace.
  var namespace: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

  /// Whether the element is `name` in namespace `namespace` (`nil`: no namespace).
  func isNamed(_ name: String, in namespace: String?) -> Bool { self.name == name && self.namespace == namespace }

  /// The 1-based line the element starts on.
  var line: Int { Int(xmlGetLineNo(node)) }

  /// The child elements, in document order.
  var children: [XMLElement] {
    var result: [XMLElement] = []
    var child = node.pointee.children
    while let current = child {
      if current.pointee.type == XML_ELEMENT_NODE { result.append(XMLElement(node: current)) }
      child = current.pointee.next
    }
    return result
  }

  /// The first child element named `name` in one of `namespaces`.
  func child(_ name: String, in namespaces: [String?]) -> XMLElement? {
    children.first { $0.name == name && namespaces.contains($0.namespace) }
  }

  /// The child elements named `name` in one of `namespaces`.
  func children(_ name: String, in namespaces: [String?]) -> [XMLElement] {
    children.filter { $0.name == name && namespaces.contains($0.namespace) }
  }

  /// The value of an attribute (`namespace` `nil`: an unprefixed attribute), entity references resolved; `nil` when
  /// the element has no such attribute.
  func attribute(_ name: String, in namespace: String? = nil) -> String? {
    var property = node.pointee.properties
    while let current = property {
      let attributeName = current.pointee.name.map { String(cString: $0) }
      let attributeNamespace = current.pointee.ns?.pointee.href.map { String(cString: $0) }
      if attributeName == name, attributeNamespace == namespace {
        var text = TextCollector()
        text.appendChildren(of: UnsafeMutableRawPointer(current).assumingMemoryBound(to: xmlNode.self))
        return text.result
      }
      property = current.pointee.next
    }
    return nil
  }

  /// The text of the element and its descendants, entity references resolved (an HTML entity XML does not define
  /// is read as HTML's character), comments and processing instructions left out. No white space is changed.
  var text: String { textWithinBudget.text }

  /// ``text``, and whether it was cut at ``TextCollector/budget`` (only entity expansion makes a value that large:
  /// the document itself is at most ``FeedParser/maximumDocumentSize``).
  var textWithinBudget: (text: String, cut: Bool) {
    var collector = TextCollector()
    collector.appendChildren(of: node)
    return (collector.result, collector.wasCut)
  }

  /// The element's children serialised as XML (libxml2's `xmlNodeDump`): markup stays markup. For Atom's `xhtml`
  /// text constructs.
  var innerXML: String {
    guard let buffer = xmlBufferCreate() else { return "" }
    defer { xmlBufferFree(buffer) }
    var child = node.pointee.children
    while let current = child {
      xmlNodeDump(buffer, node.pointee.doc, current, 0, 0)
      child = current.pointee.next
    }
    guard let content = xmlBufferContent(buffer) else { return "" }
    return String(cString: content)
  }

  /// ``innerXML`` as HTML: the XHTML namespace declarations libxml2 writes on the outermost XHTML elements
  /// (`<div xmlns="http://www.w3.org/1999/xhtml">`) left out, since in HTML every element is in that namespace.
  var innerXHTMLAsHTML: String {
    let xml = innerXML
    guard xml.contains(Self.xhtmlDeclaration) else { return xml }
    return xml.replacingOccurrences(of: Self.xhtmlDeclaration, with: "")
  }

  private static let xhtmlDeclaration = " xmlns=\"\(Namespace.xhtml)\""

  /// The `xml:base` values in scope, innermost first (XML Base, <https://www.w3.org/TR/xmlbase/>).
  var xmlBases: [String] {
    var bases: [String] = []
    var current: xmlNodePtr? = node
    while let element = current, element.pointee.type == XML_ELEMENT_NODE {
      if let base = XMLElement(node: element).attribute("base", in: Namespace.xml) { bases.append(base) }
      current = element.pointee.parent
    }
    return bases
  }
}

/// Collects the text of a subtree with a budget, so that entities that expand into each other (a "billion laughs"
/// document that libxml2's own checks let through) cannot make one value grow without bound.
struct TextCollector {
  /// The most UTF-8 bytes one value may hold: the document cap (64 MiB), so that any text the document holds is read
  /// whole and only entity expansion can reach it; the rest is cut (and said, ``wasCut``).
  static let budget = FeedParser.maximumDocumentSize
  /// How deep entity references may nest.
  static let maximumEntityDepth = 8

  private var bytes: [UInt8] = []
  private var depth = 0

  var result: String { String(decoding: bytes, as: UTF8.self) }
  /// Whether the value reached ``budget`` and the rest was left out.
  var wasCut: Bool { bytes.count >= Self.budget }

  mutating func appendChildren(of parent: xmlNodePtr) {
    var child = parent.pointee.children
    while let current = child, bytes.count < Self.budget {
      append(current)
      child = current.pointee.next
    }
  }

  private mutating func append(_ node: xmlNodePtr) {
    switch node.pointee.type {
    case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
      if let content = node.pointee.content { appendCString(content) }
    case XML_ELEMENT_NODE:
      appendChildren(of: node)
    case XML_ENTITY_REF_NODE:
      appendEntity(node)
    default:
      break
    }
  }

  private mutating func appendEntity(_ reference: xmlNodePtr) {
    let name = reference.pointee.name.map { String(cString: $0) } ?? ""
    guard let declaration = reference.pointee.children, declaration.pointee.type == XML_ENTITY_DECL else {
      // Not declared: HTML's character when it is an HTML entity, else the reference as written.
      if let scalar = HTMLEntityTable.character(named: name) {
        appendString(String(Character(scalar)))
      } else {
        appendString("&\(name);")
      }
      return
    }
    guard depth < Self.maximumEntityDepth else { return }
    depth += 1
    defer { depth -= 1 }
    if declaration.pointee.children != nil {
      appendChildren(of: declaration)
    } else {
      let entity = UnsafeMutableRawPointer(declaration).assumingMemoryBound(to: xmlEntity.self)
      if let content = entity.pointee.content { appendCString(content) }
    }
  }

  private mutating func appendCString(_ pointer: UnsafePointer<xmlChar>) {
    let length = strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    let room = Self.budget - bytes.count
    bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: min(length, max(0, room))))
  }

  private mutating func appendString(_ text: String) {
    bytes.append(contentsOf: text.utf8.prefix(max(0, Self.budget - bytes.count)))
  }
}
