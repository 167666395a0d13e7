import Foundation

/// What a document is, as far as reading news goes.
public enum FeedDocumentKind: String, Sendable, Hashable {
  /// RSS (0.9x, 2.0), RSS 1.0 / 0.90 (RDF) or Atom: read it with ``FeedParser``.
  case xmlFeed
  /// An OPML document (a subscription list): read it with ``OPML/read(_:url:)``.
  case opml
  /// A JSON Feed (<https://www.jsonfeed.org/version/1.1/>): its `version` is a `https://jsonfeed.org/version/…` URL.
  case jsonFeed
  /// Other JSON (a NewsAPI response, an export read through a mapping).
  case json
  /// An HTML page: look for the feeds it announces with ``FeedDiscovery``.
  case html
  /// None of these, or not enough bytes to tell.
  case unknown
}

/// Tells an XML feed, OPML, JSON (Feed) and HTML apart from a document's first bytes, never from a file name or a
/// `Content-Type`.
///
/// For example (what `news import FILE` does to choose its reader):
/// ```swift
/// switch FeedFormatSniffer.kind(of: try Data(contentsOf: file)) {
/// case .opml: …       // subscriptions
/// case .xmlFeed: …    // FeedParser.parse
/// default: …
/// }
/// ```
///
/// JSON is recognised by its first character after a byte order mark and white space (`{` or `[`, RFC 8259), and a
/// JSON Feed by its version URL in the first 64 KiB. Anything that starts with `<` is handed to libxml2's push parser,
/// which stops at the first start tag (RSParser's `FeedType` idea, done with a real parser): its name and namespace
/// decide — `rss`, `rdf:RDF` and `feed` are feeds, `opml` is OPML, `html` (or a `<!DOCTYPE html>`) is HTML; other
/// names of HTML's (`head`, `body`, `div`, …) are HTML too. A prologue the parser cannot get through (a DOCTYPE,
/// comment or processing instruction never closed) reaches no element: then a feed's start tag before any of
/// `html`, `head` and `body` makes the document a feed, so that ``FeedParser`` reports libxml2's error there.
package enum FeedFormatSniffer {
  /// How many bytes are looked at.
  package static let prefixLength = 64 << 10

  /// The kind of the document that starts with `data` (only its first ``prefixLength`` bytes are read).
  package static func kind(of data: Data) -> FeedDocumentKind { sniff(data).kind }

  /// The kind, and the prologue when the document starts like XML (so that ``FeedParser`` reads it once).
  static func sniff(_ data: Data) -> (kind: FeedDocumentKind, prologue: XMLPrologue?) {
    let prefix = data.prefix(prefixLength)
    var bytes = Array(prefix.prefix(4096))
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
      // UTF-16: the first non-zero byte stands for the first character of ASCII text.
      bytes = bytes.dropFirst(2).filter { $0 != 0 }
    }
    guard let first = bytes.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
      return (.unknown, nil)
    }
    if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
      let text = String(decoding: prefix, as: UTF8.self)
      let isJSONFeed =
        text.contains("://jsonfeed.org/version/") || text.contains(#":\/\/jsonfeed.org\/version\/"#)
      return (isJSONFeed ? .jsonFeed : .json, nil)
    }
    guard first == UInt8(ascii: "<") else { return (.unknown, nil) }
    let prologue = XMLPrologue.read(Data(prefix))
    let kind = kind(of: prologue)
    // A prologue libxml2 could not get through (a DOCTYPE, comment or processing instruction never closed) reaches
    // no element: a feed's start tag after it still makes the document a feed, so that reading it says what is
    // wrong (libxml2's error and place, or the items it recovers) rather than "a web page" or "no feed".
    if kind == .unknown, prologue.rootName == nil, startTagsAFeed(prefix) { return (.xmlFeed, prologue) }
    if kind == .unknown, startsWithHTMLSignature(bytes.drop { $0 != UInt8(ascii: "<") }) { return (.html, prologue) }
    return (kind, prologue)
  }

  /// Whether the first root-like start tag in `prefix` is a feed's — `<rss`, `<feed` or `<rdf:RDF` (any case),
  /// then white space, `>` or `/` — and comes before any `<html`, `<head` or `<body`: a feed whose prologue is
  /// broken (no element was reached by libxml2), told from a page whose is.
  private static func startTagsAFeed(_ prefix: Data) -> Bool {
    let feeds = ["rss", "feed", "rdf:rdf"].map { Array($0.utf8) }
    let pages = ["html", "head", "body"].map { Array($0.utf8) }
    let bytes = [UInt8](prefix)
    var index = 0
    while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
      index = open + 1
      func isTag(_ name: [UInt8]) -> Bool {
        let end = index + name.count
        guard end < bytes.count else { return false }
        for (offset, byte) in name.enumerated() where bytes[index + offset] | 0x20 != byte { return false }
        return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[end])
      }
      if feeds.contains(where: isTag) { return true }
      if pages.contains(where: isTag) { return false }
    }
    return false
  }

  /// The HTML signatures of the WHATWG MIME Sniffing Standard §7.1 (<https://mimesniff.spec.whatwg.org/#rules-for-
  /// identifying-an-unknown-mime-type>): `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<BODY`, `<SCRIPT`, … in any case,
  /// followed by a space or `>`. For pages that are not XML enough for libxml2's XML parser to reach an element.
  private static func startsWithHTMLSignature(_ bytes: ArraySlice<UInt8>) -> Bool {
    let signatures = [
      "<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font", "<table", "<a", "<style",
      "<title", "<b", "<body", "<br", "<p", "<!--",
    ]
    let lowered = bytes.prefix(16).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    return signatures.contains { signature in
      let pattern = Array(signature.utf8)
      guard lowered.count > pattern.count, lowered.starts(with: pattern) else { return false }
      let next = lowered[pattern.count]
      return next == 0x20 || next == 0x3E || next == 0x09 || next == 0x0A || next == 0x0D
    }
  }

  /// Root elements that make a document HTML: `html`, and what an HTML fragment starts with.
  private static let htmlRoots: Set<String> = [
    "html", "head", "body", "meta", "link", "span", "a", "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4",
    "h5", "h6", "blockquote", "pre", "tr", "table", "section", "article", "header", "footer", "aside", "figure",
    "figcaption", "hr", "dd", "dt", "dl", "nav", "address",
  ]

  static func kind(of prologue: XMLPrologue) -> FeedDocumentKind {
    if prologue.doctypeName?.lowercased() == "html" { return .html }
    guard let root = prologue.rootName else { return .unknown }
    if FeedParser.format(root: root, namespace: prologue.rootNamespace, version: nil) != nil { return .xmlFeed }
    let name = root.lowercased()
    if name == "opml" { return .opml }
    if name == "html" || htmlRoots.contains(name) {
      return .html
    }
    return .unknown
  }
}
