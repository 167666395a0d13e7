import CLibXML2
import Foundation

/// What a document says before its first element: the XML declaration's encoding, the document type's name, and
/// the root element's name and namespace. Read by libxml2's push parser, stopped at the first start tag, so that
/// telling a feed from a page costs the prologue, not the document.
struct XMLPrologue {
  /// The root element's local name (`rss`, `RDF`, `feed`, `opml`, `html`), or `nil` when none was reached.
  var rootName: String?
  /// The root element's namespace name, or `nil` for none.
  var rootNamespace: String?
  /// The name in `<!DOCTYPE name …>`, when there is one.
  var doctypeName: String?
  /// The `encoding` of the XML declaration, as written.
  var declaredEncoding: String?
  /// Whether the document type declares entities (`<!ENTITY …>`): such a document is read with libxml2's default
  /// limits and amplification checks, never with `XML_PARSE_HUGE` (``XMLReader/read(_:url:encoding:huge:)``).
  var declaresEntities = false

  /// Whether the document may be read with libxml2's limits (256 levels of nesting, 10 MB of text) lifted
  /// (``XMLReader/read(_:url:encoding:huge:)``'s `huge`): only when this prologue was read to the root element and
  /// declares no entity. A document that declares entities, or whose document type is too long to be seen whole,
  /// keeps the limits, and with them libxml2's entity amplification check. The rule of ``FeedParser`` and ``OPML``.
  var allowsHugeRead: Bool { !declaresEntities && rootName != nil }

  /// How much of a document is looked at: the prologue of any real feed fits.
  static let maximumPrefix = 64 << 10

  /// Reads the prologue of `data` (its first ``maximumPrefix`` bytes).
  static func read(_ data: Data) -> XMLPrologue {
    LibXML2.initialize()
    let box = Box()
    let retained = Unmanaged.passRetained(box)
    defer { retained.release() }
    var handler = xmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElementNs = { user, localName, _, uri, _, _, _, _, _ in
      guard let user else { return }
      let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
      box.prologue.rootName = localName.map { String(cString: $0) }
      box.prologue.rootNamespace = uri.map { String(cString: $0) }
      if let context = box.context { xmlStopParser(context) }
    }
    handler.internalSubset = { user, name, _, _ in
      guard let user else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().prologue.doctypeName = name.map { String(cString: $0) }
    }
    handler.entityDecl = { user, _, _, _, _, _ in
      guard let user else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().prologue.declaresEntities = true
    }
    handler.serror = { _, _ in }
    let prefix = data.prefix(maximumPrefix)
    guard
      let context = xmlCreatePushParserCtxt(&handler, retained.toOpaque(), nil, 0, nil)
    else { return XMLPrologue() }
    defer { xmlFreeParserCtxt(context) }
    box.context = context
    xmlCtxtUseOptions(context, XMLReader.options)
    LibXML2.withErrorHandler(nil, context: nil) {
      prefix.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        _ = xmlParseChunk(context, base.assumingMemoryBound(to: CChar.self), Int32(raw.count), 0)
      }
    }
    // libxml2 keeps the declared name in the context (UTF-8 and UTF-16) or in its input (any other).
    if let declared = context.pointee.input?.pointee.encoding ?? context.pointee.encoding {
      box.prologue.declaredEncoding = String(cString: declared)
    }
    return box.prologue
  }

  /// The white space between the start of `data` (after a UTF-8 byte order mark) and an XML declaration (`<?xml`
  /// and a space), or `nil` when the declaration comes first or there is none. XML 1.0 allows nothing before the
  /// declaration, and libxml2 then ignores it — its `encoding` with it — so a feed whose generator wrote a blank line
  /// first (r-lib/xml2#181, a WordPress feed) would be read in the wrong encoding.
  static func spaceBeforeDeclaration(_ data: Data) -> Range<Int>? {
    let bytes = data.prefix(4096)
    var index = bytes.startIndex
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
    let start = index
    while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    guard index > start, bytes[index...].starts(with: Array("<?xml".utf8)), index + 5 < bytes.endIndex,
      [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5])
    else { return nil }
    return (start - data.startIndex)..<(index - data.startIndex)
  }

  private final class Box {
    var prologue = XMLPrologue()
    var context: xmlParserCtxtPtr?
  }
}
