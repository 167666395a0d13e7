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

  private final class Box {
    var prologue = XMLPrologue()
    var context: xmlParserCtxtPtr?
  }
}
