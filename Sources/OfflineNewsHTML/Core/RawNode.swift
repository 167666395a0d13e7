import CLibXML2

/// A libxml2 node without ownership: the tree operations every other type is built on.
///
/// Internal: a `RawNode` is valid while the ``HTMLDocument`` it belongs to is alive (nodes removed from the tree
/// are kept by the document until it is freed, so a removed node stays valid too). The public ``HTMLNode`` pairs a
/// `RawNode` with its document. The extractor works on `RawNode`s directly: no reference counting per node visited.
///
/// Every walk is iterative (parent, sibling and child pointers), never recursive, so a document nested millions
/// of elements deep cannot overflow the stack.
struct RawNode: Hashable {
  let pointer: xmlNodePtr

  init(_ pointer: xmlNodePtr) { self.pointer = pointer }

  init?(_ pointer: xmlNodePtr?) {
    guard let pointer else { return nil }
    self.pointer = pointer
  }

  // MARK: Kind and name

  var type: xmlElementType { pointer.pointee.type }
  var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }
  /// A text node or a CDATA section: what DOM `textContent` concatenates.
  var isText: Bool { pointer.pointee.type == XML_TEXT_NODE || pointer.pointee.type == XML_CDATA_SECTION_NODE }

  /// The element's name as libxml2's HTML parser stores it (lower case), or `""` for a node without a name.
  var name: String {
    guard let name = pointer.pointee.name else { return "" }
    return String(cString: name)
  }

  /// Whether this is an element named `tag` (lower case ASCII), compared without making a string.
  func isElement(_ tag: StaticString) -> Bool {
    guard pointer.pointee.type == XML_ELEMENT_NODE, let name = pointer.pointee.name else { return false }
    let count = tag.utf8CodeUnitCount
    let expected = tag.utf8Start
    for index in 0..<count where name[index] != expected[index] { return false }
    return name[count] == 0
  }

  // MARK: Tree

  var parent: RawNode? { RawNode(pointer.pointee.parent) }
  /// Whether this node is `container` or below it.
  func isInside(_ container: RawNode) -> Bool {
    var current: RawNode? = self
    while let node = current {
      if node == container { return true }
      current = node.parent
    }
    return false
  }
  /// The parent when it is an element (not the document node).
  var parentElement: RawNode? {
    guard let parent = pointer.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
    return RawNode(parent)
  }
  var firstChild: RawNode? { RawNode(pointer.pointee.children) }
  var lastChild: RawNode? { RawNode(pointer.pointee.last) }
  var nextSibling: RawNode? { RawNode(pointer.pointee.next) }
  var previousSibling: RawNode? { RawNode(pointer.pointee.prev) }

  var firstElementChild: RawNode? { Self.firstElement(from: pointer.pointee.children) { $0.pointee.next } }
  var nextElementSibling: RawNode? { Self.firstElement(from: pointer.pointee.next) { $0.pointee.next } }
  var previousElementSibling: RawNode? { Self.firstElement(from: pointer.pointee.prev) { $0.pointee.prev } }

  /// The first element among `start` and the nodes `step` leads to from it.
  @inline(__always)
  private static func firstElement(from start: xmlNodePtr?, step: (xmlNodePtr) -> xmlNodePtr?) -> RawNode? {
    var candidate = start
    while let node = candidate {
      if node.pointee.type == XML_ELEMENT_NODE { return RawNode(node) }
      candidate = step(node)
    }
    return nil
  }

  /// Every child node (elements, text, comments), in order.
  var childNodes: [RawNode] {
    var nodes: [RawNode] = []
    var child = pointer.pointee.children
    while let node = child {
      nodes.append(RawNode(node))
      child = node.pointee.next
    }
    return nodes
  }

  /// The element children, in order (DOM `children`).
  var elementChildren: [RawNode] {
    var nodes: [RawNode] = []
    var child = pointer.pointee.children
    while let node = child {
      if node.pointee.type == XML_ELEMENT_NODE { nodes.append(RawNode(node)) }
      child = node.pointee.next
    }
    return nodes
  }

  var elementChildCount: Int {
    var count = 0
    var child = pointer.pointee.children
    while let node = child {
      if node.pointee.type == XML_ELEMENT_NODE { count += 1 }
      child = node.pointee.next
    }
    return count
  }

  /// The next node of a depth-first, pre-order walk of the subtree of `root` (not leaving it), or `nil` at its end.
  func next(within root: RawNode, skippingChildren: Bool = false) -> RawNode? {
    if !skippingChildren, let child = pointer.pointee.children,
      pointer.pointee.type == XML_ELEMENT_NODE
        || pointer.pointee.type == XML_HTML_DOCUMENT_NODE || pointer.pointee.type == XML_DOCUMENT_NODE
    {
      return RawNode(child)
    }
    var node = self
    while node != root {
      if let next = node.pointer.pointee.next { return RawNode(next) }
      guard let parent = node.pointer.pointee.parent else { return nil }
      node = RawNode(parent)
    }
    return nil
  }

  /// The descendant elements named `tag` in document order (DOM `getElementsByTagName`), not including this node.
  func descendants(_ tag: StaticString) -> [RawNode] {
    var found: [RawNode] = []
    var node = next(within: self)
    while let current = node {
      if current.isElement(tag) { found.append(current) }
      node = current.next(within: self)
    }
    return found
  }

  /// The descendant elements whose name is one of `tags`, in document order.
  func descendants(_ tags: Set<String>) -> [RawNode] {
    var found: [RawNode] = []
    var node = next(within: self)
    while let current = node {
      if current.isElement, tags.contains(current.name) { found.append(current) }
      node = current.next(within: self)
    }
    return found
  }

  /// Whether any descendant element is named `tag`.
  func hasDescendant(_ tag: StaticString) -> Bool {
    var node = next(within: self)
    while let current = node {
      if current.isElement(tag) { return true }
      node = current.next(within: self)
    }
    return false
  }

  /// The number of descendant elements named `tag`.
  func countDescendants(_ tag: StaticString) -> Int {
    var count = 0
    var node = next(within: self)
    while let current = node {
      if current.isElement(tag) { count += 1 }
      node = current.next(within: self)
    }
    return count
  }

  /// The number of element ancestors between this node and the document (0 for the root element).
  var depth: Int {
    var depth = 0
    var node = pointer.pointee.parent
    while let current = node, current.pointee.type == XML_ELEMENT_NODE {
      depth += 1
      node = current.pointee.parent
    }
    return depth
  }

  // MARK: Attributes

  /// The value of the attribute `name` (no namespace), or `nil`.
  func attribute(_ name: String) -> String? {
    guard let value = xmlGetNoNsProp(pointer, name) else { return nil }
    defer { clibxml2_free(value) }
    return String(cString: value)
  }

  func hasAttribute(_ name: String) -> Bool { xmlHasProp(pointer, name) != nil }

  /// Every attribute as (name, value), in source order.
  var attributes: [(name: String, value: String)] {
    var pairs: [(name: String, value: String)] = []
    var attribute = pointer.pointee.properties
    while let current = attribute {
      if let name = current.pointee.name {
        let key = String(cString: name)
        var value = ""
        if let text = xmlNodeListGetString(pointer.pointee.doc, current.pointee.children, 1) {
          value = String(cString: text)
          clibxml2_free(text)
        }
        pairs.append((key, value))
      }
      attribute = current.pointee.next
    }
    return pairs
  }

  /// Sets the attribute `name` to `value`, taken literally (`&` is text, not the start of a reference).
  func setAttribute(_ name: String, _ value: String) {
    xmlSetProp(pointer, name, value)
  }

  func removeAttribute(_ name: String) {
    xmlUnsetProp(pointer, name)
  }

  // MARK: Text

  /// DOM `textContent`: the text of this node, or of every text and CDATA descendant in order.
  var textContent: String {
    if isText {
      guard let content = pointer.pointee.content else { return "" }
      return String(cString: content)
    }
    guard let content = xmlNodeGetContent(pointer) else { return "" }
    defer { clibxml2_free(content) }
    return String(cString: content)
  }

  /// Calls `body` with the UTF-8 bytes of every text and CDATA node of the subtree, in document order.
  func forEachText(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    if isText {
      if let content = pointer.pointee.content { body(UnsafeBufferPointer(start: content, count: strlen(content))) }
      return
    }
    var node = next(within: self)
    while let current = node {
      if current.isText, let content = current.pointer.pointee.content {
        body(UnsafeBufferPointer(start: content, count: strlen(content)))
      }
      node = current.next(within: self)
    }
  }

  /// Replaces the content of a text node.
  func setText(_ text: String) {
    xmlNodeSetContentLen(pointer, text, Int32(clamping: text.utf8.count))
  }
}

extension UnsafePointer where Pointee == xmlChar {
  fileprivate subscript(offset: Int) -> UInt8 { self.advanced(by: offset).pointee }
}

/// `strlen` for libxml2's `xmlChar` strings.
func strlen(_ string: UnsafePointer<xmlChar>) -> Int {
  Int(xmlStrlen(string))
}
