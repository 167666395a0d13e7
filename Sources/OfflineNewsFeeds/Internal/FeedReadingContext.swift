import Foundation
import OfflineNewsHTML
import OfflineNewsModel

/// What reading one feed document shares across its items: the feed URL, the format, the base for relative links,
/// and the issues noted so far.
final class FeedReadingContext {
  let feedURL: URL
  let format: FeedFormat
  /// RSS: the channel's link, the base of relative links where no `xml:base` is in scope.
  var channelLink: URL?
  /// The feed's home page (RSS channel link, Atom alternate link), for the linkblog rule.
  var homePage: URL?
  /// The item being read (0-based), for issues; `nil` while reading the feed's own elements.
  var itemIndex: Int?
  private(set) var issues: [FeedIssue] = []

  init(feedURL: URL, format: FeedFormat) {
    self.feedURL = feedURL
    self.format = format
  }

  func note(_ kind: FeedIssue.Kind, _ element: String?, text: String? = nil, _ message: String, line: Int? = nil) {
    issues.append(
      FeedIssue(
        kind: kind, feed: feedURL, itemIndex: itemIndex, element: element, text: text, message: message, line: line))
  }

  func note(_ issue: FeedIssue) { issues.append(issue) }

  // MARK: URLs

  /// The base URI for references in `element`: its `xml:base` values resolved outward-in against the feed URL (XML
  /// Base §4.2); with none in scope, the channel's link (RSS) or the feed URL.
  func baseURL(for element: XMLElement) -> URL {
    let bases = element.xmlBases
    guard !bases.isEmpty else { return (format.isRSS ? channelLink : nil) ?? feedURL }
    var base = feedURL
    for reference in bases.reversed() {
      if let resolved = URLReference.resolve(reference, against: base) { base = resolved }
    }
    return base
  }

  /// An absolute `http(s)` URL for `reference` found in `element` (or its attribute), or `nil` with an issue.
  func httpURL(_ reference: String?, in element: XMLElement, name: String) -> URL? {
    guard let reference, !reference.trimmedXMLSpace.isEmpty else { return nil }
    guard let url = URLReference.resolve(reference, against: baseURL(for: element)),
      url.isWebURL
    else {
      note(
        .unreadableURL, name, text: reference, "not an http(s) URL after resolving against the base; value dropped",
        line: element.line)
      return nil
    }
    return url
  }

  // MARK: Dates

  /// Which grammar a date element is written in first (the other is tried next, since feeds mix them).
  enum DateForm {
    /// RFC 822 / RFC 5322 (`pubDate`).
    case rfc822
    /// RFC 3339 / W3C-DTF (Atom, `dc:date`).
    case w3cdtf
  }

  /// The instant in `element`'s text (``Timestamp/init(feedDate:preferW3CDTF:)``, the one date rule: every form real
  /// feeds write, a time without a zone read as UTC), or `nil` — with an issue (a warning: the item is kept, dated
  /// when it was first seen) when there was text that no form reads.
  func date(_ element: XMLElement?, _ form: DateForm) -> Date? {
    guard let element else { return nil }
    let text = element.text.trimmedXMLSpace
    guard !text.isEmpty else { return nil }
    guard let timestamp = Timestamp(feedDate: text, preferW3CDTF: form == .w3cdtf) else {
      let expected = form == .rfc822 ? "RFC 822" : "RFC 3339 / W3C-DTF"
      note(
        .unreadableDate, qualifiedName(element), text: text,
        "not an \(expected) date (nor any other form feeds write); value dropped",
        line: element.line)
      return nil
    }
    return timestamp.date
  }

  // MARK: Text

  /// The element's text with white space collapsed; `nil` when empty.
  func collapsedText(_ element: XMLElement?) -> String? {
    guard let element else { return nil }
    let text = element.text.collapsingWhiteSpace
    return text.isEmpty ? nil : text
  }

  /// The element's text; when it reached the value budget (entity expansion), cut there and said as an issue.
  func fullText(_ element: XMLElement) -> String {
    let (text, cut) = element.textWithinBudget
    if cut {
      note(
        .recoveredXML, qualifiedName(element),
        "a value that entities expand beyond \(TextCollector.budget >> 20) MiB, cut there; the rest of the item is kept",
        line: element.line)
    }
    return text
  }

  /// An HTML value (RSS `description`, `content:encoded`): the element's text, trimmed, its relative references
  /// resolved (``htmlText(_:kind:base:)``); `nil` when empty.
  func html(_ element: XMLElement?) -> FeedText? {
    guard let element else { return nil }
    return htmlText(fullText(element), kind: .html, base: baseURL(for: element))
  }

  /// Markup inside a feed element (`xhtml:body` in RSS): its children serialised, as HTML.
  func markup(_ element: XMLElement?) -> FeedText? {
    guard let element else { return nil }
    return htmlText(element.innerXHTMLAsHTML, kind: .html, base: baseURL(for: element))
  }

  /// A text trimmed; for HTML, with its relative references (`href`, `src`, …) resolved against `base`, the
  /// `xml:base` in scope where the text was (else the channel link or feed URL), as feedparser does: the text is
  /// stored without its base, so a relative link would otherwise point nowhere. Only an `http(s)` base is applied
  /// (a file read from disk with no web base keeps its references as written). `nil` when empty.
  func htmlText(_ value: String, kind: FeedText.Kind, base: URL) -> FeedText? {
    let trimmed = value.trimmedXMLSpace
    guard !trimmed.isEmpty else { return nil }
    // Against a web base only: a saved file's own path is no base for a link of the feed's site.
    let text = kind == .html && base.isWebURL ? HTMLRelativeLinks.resolving(trimmed, against: base) : trimmed
    return FeedText(value: text, kind: kind, baseURL: base)
  }

  /// An Atom text construct (RFC 4287 §3.1 and §4.1.3; Atom 0.3's `mode` and MIME `type`), or `nil` when empty or
  /// not text:
  /// - `text` (the default, also an empty `type`) and other `text/` types: plain text; `html` and types with `html`:
  ///   the unescaped markup; `xhtml`: the children of its XHTML `div`, serialised;
  /// - Atom 0.3: `mode="escaped"` is escaped markup, `mode="base64"` Base64; `application/xhtml+xml` (or any type,
  ///   with child elements, in `xml` mode) is the inline markup as written;
  /// - any other media type (RFC 4287 §4.1.3.3, 5: Base64 of that type): decoded, and kept as plain text when it is
  ///   UTF-8 text (feedparser does the same); binary content is left out.
  func textConstruct(_ element: XMLElement?) -> FeedText? {
    guard let element else { return nil }
    var type = element.attribute("type")?.lowercased().trimmingWhiteSpace ?? "text"
    if type.isEmpty { type = "text" }
    let mode = format == .atom03 ? element.attribute("mode")?.lowercased() ?? "xml" : "xml"
    let isHTML = type == "html" || type.contains("html")
    let isXHTML = type == "xhtml" || type == "application/xhtml+xml"
    let isText = type == "text" || type.hasPrefix("text/")
    let isXML = type.hasSuffix("/xml") || type.hasSuffix("+xml")
    let base = baseURL(for: element)
    let text = fullText(element)
    switch mode {
    case "escaped":
      return htmlText(text, kind: isHTML ? .html : .text, base: base)
    case "base64":
      guard let decoded = Self.base64Text(text) else { return nil }
      return htmlText(decoded, kind: isHTML ? .html : .text, base: base)
    default:
      if format == .atom03, isXHTML || !element.children.isEmpty {
        return htmlText(element.innerXHTMLAsHTML, kind: .html, base: base)
      }
      if isXHTML {
        return htmlText(
          (element.child("div", in: [Namespace.xhtml]) ?? element).innerXHTMLAsHTML, kind: .html, base: base)
      }
      if isHTML { return htmlText(text, kind: .html, base: base) }
      if isText || isXML { return htmlText(text, kind: .text, base: base) }
      // Another media type: Base64 (RFC 4287 §4.1.3.3, 5).
      guard let decoded = Self.base64Text(text) else { return nil }
      return htmlText(decoded, kind: .text, base: base)
    }
  }

  /// Base64 text decoded as UTF-8, or `nil` when it is not Base64 or not UTF-8 text (binary content).
  static func base64Text(_ text: String) -> String? {
    guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
      let decoded = String(data: data, encoding: .utf8), !decoded.contains("\u{0}")
    else { return nil }
    return decoded
  }

  /// A language tag as BCP 47 writes it: `en_US` (a POSIX locale name, as some feeds write it) is `en-US`.
  static func languageTag(_ text: String) -> String { text.replacingOccurrences(of: "_", with: "-") }

  /// An Atom text construct as one line of plain text (a title); `nil` when empty.
  func plainTextConstruct(_ element: XMLElement?) -> String? {
    guard let text = textConstruct(element) else { return nil }
    let line = text.plainText.collapsingWhiteSpace
    return line.isEmpty ? nil : line
  }

  /// `prefix:name` as the feed wrote it, e.g. `pubDate`, `dc:date`.
  func qualifiedName(_ element: XMLElement) -> String {
    guard let prefix = element.node.pointee.ns?.pointee.prefix else { return element.name }
    return String(cString: prefix) + ":" + element.name
  }
}
