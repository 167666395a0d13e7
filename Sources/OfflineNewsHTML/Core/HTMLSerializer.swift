import CLibXML2

/// HTML text of a node through libxml2's serialiser (`htmlNodeDumpFormatOutput`, unformatted).
///
/// Text and attribute values are escaped (`&amp;`, `&lt;`, `&quot;`); characters beyond ASCII are written as UTF-8,
/// except in URL attributes (`href`, `src`, `action`), which libxml2 percent-encodes (RFC 3986 §2.1).
enum HTMLSerializer {
  static func html(of node: RawNode, in document: HTMLDocument) -> String {
    guard let output = xmlAllocOutputBuffer(nil) else { return "" }
    defer { xmlOutputBufferClose(output) }
    htmlNodeDumpFormatOutput(output, document.pointer, node.pointer, nil, 0)
    xmlOutputBufferFlush(output)
    guard let content = xmlOutputBufferGetContent(output) else { return "" }
    let size = Int(xmlOutputBufferGetSize(output))
    return String(decoding: UnsafeBufferPointer(start: content, count: size), as: UTF8.self)
  }
}
