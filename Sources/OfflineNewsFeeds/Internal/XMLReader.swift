import CLibXML2
import Foundation
import Synchronization

/// One problem libxml2 reported while reading a document.
struct XMLDiagnostic: Sendable, Hashable {
  /// libxml2's error code (`xmlParserErrors`), e.g. 68 for `XML_ERR_NAME_REQUIRED`.
  var code: Int32
  /// 1-based line and column of the place libxml2 stopped at (0 when unknown).
  var line: Int
  var column: Int
  /// libxml2's message, without its trailing newline.
  var message: String
  /// `true` for a well-formedness error (`XML_ERR_FATAL`, or `XML_ERR_ERROR`); `false` for a warning.
  var isError: Bool
}

/// What reading a document gave: the tree libxml2 built (possibly recovered from errors) and what it reported.
struct XMLReadResult {
  /// The document, or `nil` when libxml2 built none (nothing that looks like XML, an empty input).
  var document: XMLTreeDocument?
  /// The first ``XMLReader/maximumDiagnostics`` problems, in the order libxml2 met them.
  var diagnostics: [XMLDiagnostic]
  /// How many problems there were in all.
  var diagnosticCount: Int
  /// Entity names XML does not define that were read as HTML 4's (`nbsp`, `mdash`, …), with how often each came.
  var htmlEntities: [String: Int]
  /// The problems libxml2 reported for elements still open when the bytes ended (`XML_ERR_TAG_NOT_FINISHED`,
  /// "Premature end of data in tag NAME line N"), at most 64: the root among them means a truncated document,
  /// whatever recover mode made of it (an inner element left open in a complete document is one too).
  var unfinishedElements: [XMLDiagnostic] = []
  /// The error after which libxml2 stopped reading before the end of the bytes (its parser halted: elements nested
  /// deeper than its limit, 256 levels without `XML_PARSE_HUGE`; an entity amplification; no memory), with its
  /// message prefixed by `libxml2 stopped reading here: `; `nil` when it read to the end. Recover mode does not
  /// help there: the tree holds what came before, and everything after is lost.
  var halted: XMLDiagnostic?

  /// Why libxml2 built no document (or one without a root element), as ``FeedParser`` and ``OPML`` report it: the
  /// first error, else the first problem, else `no root element` at line 0, column 0.
  var whyNoDocument: XMLDiagnostic {
    diagnostics.first(where: \.isError) ?? diagnostics.first
      ?? XMLDiagnostic(code: 0, line: 0, column: 0, message: "no root element", isError: true)
  }

  /// Where `data`, read into this result, is cut off: libxml2 stopped reading before its end (``halted``), or met
  /// the end of the bytes inside an element ("Premature end of data in tag …", reported for the innermost one) and
  /// the root's end tag is nowhere in the bytes; `nil` for a complete document (an inner element left open in it is
  /// reported too, but its root's end tag is there). What ``FeedParser`` and ``OPML`` refuse a document for
  /// (`FeedParseError.truncated`, `OPMLError.truncated`): reading the part before the cut would pass it for the
  /// whole.
  func cutOff(_ data: Data, encoding: String?) -> XMLDiagnostic? {
    if let halted { return halted }
    guard let cut = unfinishedElements.first, let document, let root = document.root else { return nil }
    let rootName = withExtendedLifetime(document) { () -> String in
      guard let prefix = root.node.pointee.ns?.pointee.prefix else { return root.name }
      return String(cString: prefix) + ":" + root.name
    }
    return FeedParser.containsEndTag(rootName, in: data, encoding: encoding) ? nil : cut
  }
}

/// Reads XML with libxml2's tree builder (`xmlCtxtReadMemory`), in recover mode, never touching the network and
/// never substituting entities declared by the document (no `XML_PARSE_NOENT`: a document's own DTD cannot make it
/// expand into gigabytes, and libxml2's amplification checks stay on).
///
/// Two callbacks of the SAX2 tree builder are wrapped, because real feeds need them:
/// - `getEntity`: an entity XML does not define but HTML 4 does (`&nbsp;` in an RSS description) is read as that
///   character instead of being an error. Left alone, libxml2 drops it *and*, once the document is not well-formed,
///   every later entity reference too (parser.c, `xmlParseReference`: `if (!ctxt->wellFormed) return;`), so one
///   `&nbsp;` would cost every `&lt;` and `&amp;` after it.
/// - `characters`, `startElementNs` and `endElementNs`: for the same reason, after a recovered error (a stray `&` in
///   `AT&T`) the context's `wellFormed` flag is set back before the builder continues, so that the error costs the
///   broken construct, not the entities of the rest of the document. The errors themselves are kept by a structured
///   error handler (``XMLReadResult/diagnostics``). The flag is not set back after an entity loop or amplification
///   error, where libxml2 relies on it to stop expanding.
enum XMLReader {
  /// The diagnostics kept per document (the count goes on).
  static let maximumDiagnostics = 20

  /// The libxml2 options: recover, no network, CDATA merged into text, no error printing (the handler keeps them).
  static let options: Int32 = Int32(
    XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_NOERROR.rawValue
      | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)

  /// `XML_PARSE_HUGE`, added for a document that declares no entities: libxml2's default limits (a text node of
  /// 10 MB, `XML_MAX_TEXT_LENGTH`) would otherwise cut one large item and drop every item after it (nokogiri#740,
  /// nokogiri#1869). Our own limits stand in for them: the document cap (``FeedParser/maximumDocumentSize``, refused
  /// before parsing, with a message) and the value budget of ``TextCollector``. A document that declares entities
  /// keeps libxml2's limits, because `XML_PARSE_HUGE` also turns off its entity amplification check (parser.c,
  /// `xmlParserEntityCheck`), which is what stops a "billion laughs" document in time.
  static let huge = Int32(XML_PARSE_HUGE.rawValue)

  /// Reads `data`.
  ///
  /// - Parameters:
  ///   - url: the document's URL (libxml2 keeps it as the document's base URI).
  ///   - encoding: a character encoding name that overrides the document's own declaration, or `nil` to let
  ///     libxml2 decide (byte order mark, XML declaration, else UTF-8).
  ///   - huge: whether to add ``huge`` (`XML_PARSE_HUGE`): only for a document that declares no entities.
  static func read(_ data: Data, url: String, encoding: String?, huge: Bool = false) -> XMLReadResult {
    let first = readOnce(data, url: url, encoding: encoding, huge: huge)
    // A bare `&` (`AT&T`, `Q&A`, `Barnes & Noble`), which XML forbids and feeds often hold: recover mode drops it
    // and the name after it ("AT and Barnes Noble"). Read again with each bare one written `&amp;`, and say so.
    guard first.diagnostics.contains(where: { Self.bareAmpersandErrors.contains($0.code) }),
      let (repaired, count, line, column) = BareAmpersands.escaped(data)
    else { return first }
    var second = readOnce(repaired, url: url, encoding: encoding, huge: huge)
    second.diagnostics.insert(
      XMLDiagnostic(
        code: 0, line: line, column: column,
        message: "\(count) bare \"&\" kept as text (XML writes it &amp;), the first at line \(line), column \(column)",
        isError: true),
      at: 0)
    second.diagnosticCount += 1
    return second
  }

  /// libxml2's errors for a `&` that starts no reference: no name after it, or no `;` after the name.
  static let bareAmpersandErrors: Set<Int32> = [
    Int32(XML_ERR_ENTITYREF_SEMICOL_MISSING.rawValue), Int32(XML_ERR_NAME_REQUIRED.rawValue),
    Int32(XML_ERR_ENTITYREF_NO_NAME.rawValue),
  ]

  private static func readOnce(_ data: Data, url: String, encoding: String?, huge: Bool) -> XMLReadResult {
    LibXML2.initialize()
    var result = XMLReadResult(document: nil, diagnostics: [], diagnosticCount: 0, htmlEntities: [:])
    guard !data.isEmpty, data.count < Int32.max, let context = xmlNewParserCtxt() else { return result }
    defer { xmlFreeParserCtxt(context) }
    let state = ReadState()
    let retained = Unmanaged.passRetained(state)
    defer { retained.release() }
    context.pointee._private = retained.toOpaque()
    if let sax = context.pointee.sax {
      sax.pointee.serror = recordError
      sax.pointee.getEntity = entityOrHTMLEntity
      sax.pointee.characters = charactersKeepingEntities
      sax.pointee.startElementNs = startElementKeepingEntities
      sax.pointee.endElementNs = endElementKeepingEntities
    }
    let document = LibXML2.withErrorHandler(recordError, context: UnsafeMutableRawPointer(context)) {
      data.withUnsafeBytes { raw -> xmlDocPtr? in
        guard let base = raw.baseAddress else { return nil }
        return xmlCtxtReadMemory(
          context, base.assumingMemoryBound(to: CChar.self), Int32(raw.count), url, encoding,
          options | (encoding == nil ? 0 : Int32(XML_PARSE_IGNORE_ENC.rawValue)) | (huge ? Self.huge : 0))
      }
    }
    result.document = document.map(XMLTreeDocument.init)
    result.diagnostics = state.diagnostics
    result.diagnosticCount = state.diagnosticCount
    result.htmlEntities = state.htmlEntities
    result.unfinishedElements = state.unfinishedElements
    // `disableSAX` is set only when the parser halts (`xmlHaltParser`); in recover mode an error alone leaves it 0.
    if context.pointee.disableSAX != 0 {
      var last =
        state.lastError
        ?? XMLDiagnostic(code: 0, line: 0, column: 0, message: "stopped before the end", isError: true)
      last.message = "libxml2 stopped reading here: " + last.message
      result.halted = last
    }
    return result
  }

  /// What the callbacks of one read collect, reached through the parser context's `_private`.
  final class ReadState {
    var diagnostics: [XMLDiagnostic] = []
    var diagnosticCount = 0
    var htmlEntities: [String: Int] = [:]
    /// Set after an entity loop or amplification error: `wellFormed` is then left as libxml2 set it.
    var entityExpansionFailed = false
    /// The "Premature end of data in tag" problems (kept whatever the diagnostics limit, up to 64).
    var unfinishedElements: [XMLDiagnostic] = []
    /// The last error reported (kept whatever the diagnostics limit): the one that halted the parser, if it did.
    var lastError: XMLDiagnostic?
  }

  fileprivate static func state(_ context: UnsafeMutableRawPointer?) -> ReadState? {
    guard let context, let raw = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else {
      return nil
    }
    return Unmanaged<ReadState>.fromOpaque(raw).takeUnretainedValue()
  }

  /// Sets `wellFormed` back to 1 before the tree builder goes on (see the type's documentation).
  fileprivate static func keepEntities(_ context: UnsafeMutableRawPointer?) {
    guard let context, let state = state(context), !state.entityExpansionFailed else { return }
    context.assumingMemoryBound(to: xmlParserCtxt.self).pointee.wellFormed = 1
  }
}

/// `XML_ERR_ENTITY_LOOP` and the other errors after which entity expansion must stay stopped.
private let entityExpansionErrors: Set<Int32> = [
  Int32(XML_ERR_ENTITY_LOOP.rawValue), Int32(XML_ERR_ENTITY_BOUNDARY.rawValue),
  Int32(XML_ERR_ENTITY_PE_INTERNAL.rawValue),
]

private let recordError: xmlStructuredErrorFunc = { context, error in
  guard let error, let state = XMLReader.state(context) else { return }
  let value = error.pointee
  if entityExpansionErrors.contains(Int32(value.code)) { state.entityExpansionFailed = true }
  state.diagnosticCount += 1
  let truncation =
    Int32(value.code) == Int32(XML_ERR_TAG_NOT_FINISHED.rawValue) && state.unfinishedElements.count < 64
  let isError = value.level.rawValue >= XML_ERR_ERROR.rawValue
  guard state.diagnostics.count < XMLReader.maximumDiagnostics || truncation || isError else { return }
  var message = value.message.map { String(cString: $0) } ?? "error \(value.code)"
  while message.last?.isWhitespace == true { message.removeLast() }
  let diagnostic = XMLDiagnostic(
    code: Int32(value.code), line: Int(value.line), column: Int(value.int2), message: message, isError: isError)
  if isError { state.lastError = diagnostic }
  if truncation { state.unfinishedElements.append(diagnostic) }
  if state.diagnostics.count < XMLReader.maximumDiagnostics { state.diagnostics.append(diagnostic) }
}

private let entityOrHTMLEntity: getEntitySAXFunc = { context, name in
  if let entity = xmlSAX2GetEntity(context, name) { return entity }
  guard let name, let entity = HTMLEntityTable.entity(named: name) else { return nil }
  if let state = XMLReader.state(context) { state.htmlEntities[String(cString: name), default: 0] += 1 }
  return entity
}

private let charactersKeepingEntities: charactersSAXFunc = { context, characters, length in
  XMLReader.keepEntities(context)
  xmlSAX2Characters(context, characters, length)
}

private let startElementKeepingEntities: startElementNsSAX2Func = {
  context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes in
  XMLReader.keepEntities(context)
  xmlSAX2StartElementNs(
    context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes)
}

private let endElementKeepingEntities: endElementNsSAX2Func = { context, localName, prefix, uri in
  XMLReader.keepEntities(context)
  xmlSAX2EndElementNs(context, localName, prefix, uri)
}

/// libxml2's one-time initialisation, and the thread's error handler around a parse.
enum LibXML2 {
  private static let initialized: Bool = {
    xmlInitParser()
    return true
  }()

  /// `xmlInitParser`, which must run before threads parse concurrently.
  static func initialize() { _ = initialized }

  /// Runs `body` with the calling thread's structured error handler set to `handler` (with `context` as its first
  /// argument), then puts the previous one back.
  ///
  /// libxml2 reports some errors without a parser context — an encoding conversion that fails (`input conversion
  /// failed due to input error`), I/O errors — and prints those on standard error unless the thread has a structured
  /// handler (xmlerror.c, `__xmlRaiseError`). Its error globals are per thread (`LIBXML_THREAD_ENABLED`), and a parse
  /// runs on one thread from start to end, so setting and restoring them here touches nobody else's.
  static func withErrorHandler<Result>(
    _ handler: xmlStructuredErrorFunc?, context: UnsafeMutableRawPointer?, _ body: () -> Result
  ) -> Result {
    let previous = __xmlStructuredError().pointee
    let previousContext = __xmlStructuredErrorContext().pointee
    xmlSetStructuredErrorFunc(context, handler ?? ignoreError)
    defer { xmlSetStructuredErrorFunc(previousContext, previous) }
    return body()
  }

  /// A handler that drops what it is given.
  static let ignoreError: xmlStructuredErrorFunc = { _, _ in }
}

/// The entities HTML 4 defines, as libxml2's HTML parser knows them (`htmlEntityLookup`), made into predefined XML
/// entities on first use and kept for the life of the process (at most the 253 HTML 4 names).
enum HTMLEntityTable {
  /// A libxml2 entity shared by every parse; read-only once made.
  private struct Entity: @unchecked Sendable {
    var pointer: xmlEntityPtr
  }

  private static let entities = Mutex<[String: Entity]>([:])

  /// The predefined entity for an HTML 4 entity name, or `nil` when HTML 4 has no such name.
  static func entity(named name: UnsafePointer<xmlChar>) -> xmlEntityPtr? {
    let key = String(cString: name)
    let entity = entities.withLock { table -> Entity? in
      if let known = table[key] { return known }
      guard let scalar = character(named: key) else { return nil }
      let content = Array(String(Character(scalar)).utf8) + [0]
      guard
        let made = xmlNewEntity(
          nil, name, Int32(XML_INTERNAL_PREDEFINED_ENTITY.rawValue), nil, nil, content)
      else { return nil }
      table[key] = Entity(pointer: made)
      return table[key]
    }
    return entity?.pointer
  }

  /// The character an HTML 4 entity name stands for (`nbsp` → U+00A0), or `nil`.
  static func character(named name: String) -> Unicode.Scalar? {
    guard let description = htmlEntityLookup(Array(name.utf8) + [0]),
      let scalar = Unicode.Scalar(description.pointee.value)
    else {
      return nil
    }
    return scalar
  }
}

/// The one repair made to a document's bytes before libxml2 reads it again: each `&` that starts no reference
/// (XML 1.0 §4.1: `&name;`, `&#digits;`, `&#xhex;`) written `&amp;`. Text inside `<![CDATA[…]]>`, comments and
/// processing instructions is left as it is (a `&` is literal there). Works on bytes, for any ASCII-compatible
/// encoding; a UTF-16 document (no `&` byte alone) is left alone.
enum BareAmpersands {
  /// `data` with its bare ampersands escaped, how many there were, and the line and column (bytes, 1-based) of the
  /// first; `nil` when it has none.
  static func escaped(_ data: Data) -> (Data, count: Int, line: Int, column: Int)? {
    let bytes = [UInt8](data)
    var output: [UInt8] = []
    var count = 0
    var firstLine = 0
    var firstColumn = 0
    var line = 1
    var lineStart = 0
    var index = 0
    var copied = 0
    func starts(_ text: StaticString, at position: Int) -> Bool {
      let length = text.utf8CodeUnitCount
      guard position + length <= bytes.count else { return false }
      return text.withUTF8Buffer { pattern in (0..<length).allSatisfy { bytes[position + $0] == pattern[$0] } }
    }
    func skip(past end: StaticString, from position: Int) -> Int {
      var position = position
      while position < bytes.count, !starts(end, at: position) {
        if bytes[position] == 0x0A {
          line += 1
          lineStart = position + 1
        }
        position += 1
      }
      return min(bytes.count, position + end.utf8CodeUnitCount)
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x0A {
        line += 1
        lineStart = index + 1
      } else if byte == UInt8(ascii: "<") {
        if starts("<![CDATA[", at: index) {
          index = skip(past: "]]>", from: index)
          continue
        } else if starts("<!--", at: index) {
          index = skip(past: "-->", from: index)
          continue
        } else if starts("<?", at: index) {
          index = skip(past: "?>", from: index)
          continue
        }
      } else if byte == UInt8(ascii: "&"), !startsReference(bytes, at: index + 1) {
        if count == 0 { (firstLine, firstColumn) = (line, index - lineStart + 1) }
        count += 1
        output.append(contentsOf: bytes[copied...index])
        output.append(contentsOf: Array("amp;".utf8))
        copied = index + 1
      }
      index += 1
    }
    guard count > 0 else { return nil }
    output.append(contentsOf: bytes[copied...])
    return (Data(output), count, firstLine, firstColumn)
  }

  /// Whether the bytes at `position` (just after a `&`) are a reference's rest: a name then `;`, `#` digits then `;`,
  /// or `#x` hex digits then `;`.
  private static func startsReference(_ bytes: [UInt8], at position: Int) -> Bool {
    var index = position
    guard index < bytes.count else { return false }
    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) }
    func isNameStart(_ byte: UInt8) -> Bool {
      (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        || byte >= 0x80
    }
    if bytes[index] == UInt8(ascii: "#") {
      index += 1
      var digits = 0
      if index < bytes.count, bytes[index] == UInt8(ascii: "x") {
        index += 1
        while index < bytes.count, isHex(bytes[index]) {
          index += 1
          digits += 1
        }
      } else {
        while index < bytes.count, isDigit(bytes[index]) {
          index += 1
          digits += 1
        }
      }
      return digits > 0 && index < bytes.count && bytes[index] == UInt8(ascii: ";")
    }
    guard isNameStart(bytes[index]) else { return false }
    index += 1
    while index < bytes.count,
      isNameStart(bytes[index]) || isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "-")
        || bytes[index] == UInt8(ascii: ".")
    {
      index += 1
    }
    return index < bytes.count && bytes[index] == UInt8(ascii: ";")
  }
}
