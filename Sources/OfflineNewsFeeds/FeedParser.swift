import Foundation
import OfflineNewsModel

/// Reads RSS 0.90/0.91/0.92/2.0, RSS 1.0 (RDF) and Atom 0.3/1.0 documents (with libxml2) and JSON Feed 1.0/1.1
/// documents (with Foundation's JSON parser) into a ``ParsedFeed``: one model, so that every format's items get the
/// same identity, title and date rules.
///
/// For example:
/// ```swift
/// let response = try await transport.get(url, headers: [:])
/// let charset = FeedParser.charset(fromContentType: response.header("Content-Type"))
/// let feed = try FeedParser.parse(response.body, feedURL: url, charset: charset)
/// ```
///
/// - The format comes from the content: the root element and its namespace (`rss`, `rdf:RDF`, Atom's `feed`),
///   never the file name or the `Content-Type` (`DaringFireball.rss` is Atom).
/// - The character encoding: a byte order mark, else the HTTP `charset`, else the XML declaration, else UTF-8
///   (RFC 7303 §3.2), with the WHATWG supersets of common labels (`ISO-8859-1` read as windows-1252, `GB2312` as
///   GB18030, `Shift_JIS` as CP932). Any encoding libxml2 and iconv know works: UTF-8, UTF-16, ISO-8859-*,
///   windows-125*, GB2312/GBK/GB18030, Shift_JIS, EUC-JP, KOI8-R, …
/// - A document that is not well-formed is read in libxml2's recover mode: what it recovers is read, and each
///   error is a ``FeedIssue`` with its line and column. Entities XML does not define but HTML does (`&nbsp;`) are
///   read as HTML's characters. Entities the document declares itself are not expanded into the tree, and never
///   fetched (no network, no external DTD).
/// - A value that cannot be read (a date, a URL) is `nil` and a ``FeedIssue``; the item is kept.
///
/// Parsing is synchronous, allocates one libxml2 tree per call, and may run on many threads at once.
public enum FeedParser {
  /// The largest document read (64 MiB); feeds are rarely more than a few hundred KiB.
  public static let maximumDocumentSize = 64 << 20

  /// Whether the bytes hold `</name`, looked for in their last 64 KiB: as bytes when the encoding is ASCII-compatible
  /// (UTF-8, ISO 8859, windows-125x…), else in the text decoded as UTF-16.
  static func containsEndTag(_ name: String, in data: Data, encoding: String?) -> Bool {
    let tail = data.suffix(65_536)
    let lowered = encoding?.lowercased() ?? "utf-8"
    if lowered.hasPrefix("utf-16") || lowered.hasPrefix("ucs") {
      let units = stride(from: tail.startIndex, to: tail.endIndex - 1, by: 2).map { index in
        lowered.hasSuffix("le")
          ? UInt16(tail[index]) | UInt16(tail[index + 1]) << 8
          : UInt16(tail[index]) << 8 | UInt16(tail[index + 1])
      }
      return String(decoding: units, as: UTF16.self).contains("</" + name)
    }
    return tail.firstRange(of: Data(("</" + name).utf8)) != nil
  }

  /// Parses a feed document.
  ///
  /// - Parameters:
  ///   - data: the document's bytes, as served.
  ///   - feedURL: the URL the document came from (after redirects); relative links are resolved against it when no
  ///     `xml:base` (or, in RSS, channel link) says otherwise. A file's URL works too.
  ///   - charset: the `charset` parameter of the HTTP `Content-Type`, when there was one (see
  ///     `charset(fromContentType:)`).
  /// - Returns: the feed, with its items in document order and the issues met.
  /// - Throws: ``FeedParseError``: `.empty`, `.tooLarge`, `.json` (JSON that is no JSON Feed, or a JSON Feed that
  ///   is not a JSON object: `isJSONFeed` says which), `.notWellFormed` (libxml2
  ///   recovered no root element; with its first error's line, column and message), `.notAFeed` (the root is not
  ///   RSS, RDF or Atom — OPML, HTML, other XML), `.truncated` (the bytes end inside an element).
  public static func parse(_ data: Data, feedURL: URL, charset: String? = nil) throws(FeedParseError) -> ParsedFeed {
    guard data.count <= maximumDocumentSize else { throw .tooLarge(feed: feedURL, bytes: data.count) }
    // White space before the XML declaration (after a byte order mark, or at the very start) is left out, so that
    // the declaration — and its encoding — is read; said as an issue.
    var data = data
    var skippedSpace: Int?
    if let space = XMLPrologue.spaceBeforeDeclaration(data) {
      data.removeSubrange((data.startIndex + space.lowerBound)..<(data.startIndex + space.upperBound))
      skippedSpace = space.count
    }
    let (kind, sniffed) = FeedFormatSniffer.sniff(data)
    switch kind {
    case .json: throw .json(feed: feedURL, isJSONFeed: false)
    case .jsonFeed:
      guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
        throw .json(feed: feedURL, isJSONFeed: true)
      }
      let context = FeedReadingContext(feedURL: feedURL, format: .jsonFeed11)
      var feed = JSONFeedReader(context: context).read(object)
      feed.issues = context.issues
      return feed
    default: break
    }
    guard data.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0) }) else {
      throw .empty(feed: feedURL)
    }
    let prologue = sniffed ?? XMLPrologue.read(data)
    let encoding = CharacterEncoding.choose(for: data, charset: charset, declared: prologue.declaredEncoding)
    let result = XMLReader.read(
      data, url: feedURL.absoluteString, encoding: encoding.name, huge: prologue.allowsHugeRead)
    guard let document = result.document, let root = document.root else {
      let why = result.whyNoDocument
      throw .notWellFormed(feed: feedURL, line: why.line, column: why.column, message: why.message)
    }
    // Cut off: libxml2 met the end of the bytes inside an element ("Premature end of data in tag …", reported for the
    // innermost one) and the root's end tag is nowhere in the bytes. (An inner element left open in a complete
    // document is reported too, but there the root's end tag is present.)
    if let cut = result.cutOff(data, encoding: encoding.name) {
      throw .truncated(feed: feedURL, line: cut.line, column: cut.column, message: cut.message)
    }
    let detected = withExtendedLifetime(document) {
      Self.format(
        root: root.name, namespace: root.namespace, version: root.attribute("version"), children: root.children)
    }
    guard let format = detected else {
      let name = withExtendedLifetime(document) { (root.name, root.namespace) }
      throw .notAFeed(feed: feedURL, root: name.0, namespace: name.1, kind: kind == .xmlFeed ? .unknown : kind)
    }
    let context = FeedReadingContext(feedURL: feedURL, format: format)
    if let skippedSpace {
      context.note(
        .encoding, nil,
        "white space before the XML declaration left out (\(skippedSpace) bytes; XML allows none), so that its "
          + "encoding is read")
    }
    for note in encoding.notes { context.note(.encoding, nil, note) }
    noteDiagnostics(result, in: context)
    var feed = withExtendedLifetime(document) {
      format.isRSS ? RSSReader(context: context).read(root) : AtomReader(context: context).read(root)
    }
    feed.issues = context.issues
    return feed
  }

  /// The `charset` parameter of a `Content-Type` header value (RFC 9110 §8.3), e.g. `ISO-8859-1` for
  /// `text/xml; charset="ISO-8859-1"`; `nil` when there is none.
  package static func charset(fromContentType contentType: String?) -> String? {
    guard let contentType else { return nil }
    for parameter in contentType.split(separator: ";").dropFirst() {
      let parts = parameter.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0].trimmingWhiteSpace.lowercased() == "charset" else { continue }
      let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"' \t"))
      return value.isEmpty ? nil : value
    }
    return nil
  }

  /// The format a root element names: `rss` (by its `version`), `RDF` in the RDF namespace (RSS 1.0, or 0.90 when
  /// its children are in the Netscape namespace), `feed` in Atom 1.0's namespace (or none) or Atom 0.3's.
  static func format(root: String, namespace: String?, version: String?, children: [XMLElement] = []) -> FeedFormat? {
    switch (root, namespace) {
    case ("rss", _):
      let version = version?.trimmingWhiteSpace ?? ""
      if version.hasPrefix("0.91") || version.hasPrefix("0.90") { return .rss091 }
      if version.hasPrefix("0.92") || version.hasPrefix("0.93") || version.hasPrefix("0.94") { return .rss092 }
      return .rss20
    case ("RDF", Namespace.rdf?):
      return children.contains { $0.namespace == Namespace.rss090 } ? .rss090 : .rdf
    case ("feed", Namespace.atom10?), ("feed", nil):
      return .atom10
    case ("feed", Namespace.atom03?):
      return .atom03
    default:
      return nil
    }
  }

  private static func noteDiagnostics(_ result: XMLReadResult, in context: FeedReadingContext) {
    let errors = result.diagnostics.filter(\.isError)
    for error in errors {
      context.note(
        FeedIssue(
          kind: .recoveredXML, feed: context.feedURL, message: "not well-formed XML, recovered: \(error.message)",
          line: error.line, column: error.column))
    }
    let more = result.diagnosticCount - result.diagnostics.count
    if more > 0 {
      context.note(.recoveredXML, nil, "and \(more) more problems libxml2 recovered from")
    }
    if !result.htmlEntities.isEmpty {
      let names = result.htmlEntities.sorted { $0.key < $1.key }.map { "&\($0.key); (\($0.value)×)" }
      context.note(
        .htmlEntity, nil, "entities XML does not define, read as HTML's: " + names.joined(separator: ", "))
    }
  }
}
