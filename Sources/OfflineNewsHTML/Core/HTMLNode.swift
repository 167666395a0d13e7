import CLibXML2

/// A node of an ``HTMLDocument``: an element, a text node, a comment, or the document itself.
///
/// For example:
/// ```swift
/// for link in document.body?.descendants(named: "a") ?? [] {
///   print(link.textContent, link["href"] ?? "")
/// }
/// ```
///
/// A node keeps its document alive. Names are lower case (libxml2's HTML parser folds them). Walks over a subtree
/// (``descendants(named:)``, ``textContent``) are iterative: any depth of nesting is safe. Two values are equal when
/// they are the same node.
package struct HTMLNode: Hashable, CustomStringConvertible {
  /// What a node is.
  package enum Kind: Sendable, Equatable {
    case element, text, comment, document, other
  }

  let raw: RawNode
  /// The document the node belongs to.
  package let document: HTMLDocument

  init(_ raw: RawNode, in document: HTMLDocument) {
    self.raw = raw
    self.document = document
  }

  package static func == (lhs: HTMLNode, rhs: HTMLNode) -> Bool { lhs.raw == rhs.raw }
  package func hash(into hasher: inout Hasher) { hasher.combine(raw) }

  /// The node's kind. CDATA sections count as text.
  package var kind: Kind {
    switch raw.type {
    case XML_ELEMENT_NODE: .element
    case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: .text
    case XML_COMMENT_NODE: .comment
    case XML_HTML_DOCUMENT_NODE, XML_DOCUMENT_NODE: .document
    default: .other
    }
  }

  /// The element's name in lower case (`"p"`, `"h2"`), `"#text"` for text, `"#comment"`, `"#document"`.
  package var name: String {
    switch kind {
    case .element, .other: raw.name
    case .text: "#text"
    case .comment: "#comment"
    case .document: "#document"
    }
  }

  package var description: String {
    kind == .element ? "<\(name)>" : name
  }

  // MARK: Tree

  /// The parent node (an element or the document), or `nil` for a node not in a tree.
  package var parent: HTMLNode? { raw.parent.map { HTMLNode($0, in: document) } }
  /// Every child node, in order.
  package var childNodes: [HTMLNode] { raw.childNodes.map { HTMLNode($0, in: document) } }
  /// The element children, in order.
  package var children: [HTMLNode] { raw.elementChildren.map { HTMLNode($0, in: document) } }
  package var firstChild: HTMLNode? { raw.firstChild.map { HTMLNode($0, in: document) } }
  package var lastChild: HTMLNode? { raw.lastChild.map { HTMLNode($0, in: document) } }
  package var nextSibling: HTMLNode? { raw.nextSibling.map { HTMLNode($0, in: document) } }
  package var previousSibling: HTMLNode? { raw.previousSibling.map { HTMLNode($0, in: document) } }

  /// The descendant elements named `name` (lower case), in document order (DOM `getElementsByTagName`).
  package func descendants(named name: String) -> [HTMLNode] {
    var found: [HTMLNode] = []
    var node = raw.next(within: raw)
    while let current = node {
      if current.isElement, current.name == name { found.append(HTMLNode(current, in: document)) }
      node = current.next(within: raw)
    }
    return found
  }

  /// Every descendant node (elements, text, comments), in document order.
  package var descendants: [HTMLNode] {
    var found: [HTMLNode] = []
    var node = raw.next(within: raw)
    while let current = node {
      found.append(HTMLNode(current, in: document))
      node = current.next(within: raw)
    }
    return found
  }

  // MARK: Attributes

  /// The value of an attribute (character references decoded), or `nil` when the element has none of that name.
  package subscript(attribute: String) -> String? { raw.attribute(attribute) }

  /// Every attribute as (name, value), in source order.
  package var attributes: [(name: String, value: String)] { raw.attributes }

  /// Sets an attribute, `value` taken literally.
  package func setAttribute(_ name: String, to value: String) { raw.setAttribute(name, value) }

  /// Removes an attribute (nothing when it is absent).
  package func removeAttribute(_ name: String) { raw.removeAttribute(name) }

  // MARK: Text

  /// DOM `textContent`: a text node's text, or the text of every text descendant of an element, in order, as it
  /// is in the source (whitespace kept; comments, which are not text, left out).
  package var textContent: String { raw.textContent }

  // MARK: Changing the tree

  /// Takes the node out of the tree. It stays valid (and can be put back) until the document is freed.
  package func remove() { document.remove(raw) }

  /// Moves `child` to the end of this node's children.
  package func append(_ child: HTMLNode) {
    guard child.document === document else { return }
    document.append(child.raw, to: raw)
  }

  /// Moves `node` to just before this node.
  package func insertBefore(_ node: HTMLNode) {
    guard node.document === document else { return }
    document.insert(node.raw, before: raw)
  }

  /// Puts `replacement` in this node's place and takes this node out of the tree.
  package func replace(with replacement: HTMLNode) {
    guard replacement.document === document else { return }
    document.replace(raw, with: replacement.raw)
  }

  /// Renames an element in place: `div` to `p`, keeping attributes and children.
  package func rename(to name: String) {
    guard kind == .element, !name.isEmpty else { return }
    document.rename(raw, to: name.lowercased())
  }

  // MARK: Serialising

  /// The node as HTML (libxml2's HTML serialiser, unformatted: no whitespace added).
  package var outerHTML: String { HTMLSerializer.html(of: raw, in: document) }

  /// The node's children as HTML.
  package var innerHTML: String {
    raw.childNodes.map { HTMLSerializer.html(of: $0, in: document) }.joined()
  }
}
