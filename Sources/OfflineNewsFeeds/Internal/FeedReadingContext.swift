import Foundation
import OfflineNewsModel

/// What reading one feed document shares across its items: the feed URL, the format, the base for relative links,
/// and the issues noted so far.
final class FeedReadingContext {
  let feedURL: URL
  let format: FeedFormat
  /// RSS: the channel's link, the base of relative links where no `xml:base` is in scope.
  var channelLink: URL?
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
      if let resolved = Self.resolve(reference, against: base) { base = resolved }
    }
    return base
  }

  /// `reference` resolved against `base` (RFC 3986 §5.2): surrounding white space trimmed, characters URLs cannot hold
  /// (spaces, non-ASCII) percent-encoded.
  static func resolve(_ reference: String, against base: URL) -> URL? {
    let trimmed = reference.trimmedXMLSpace
    guard !trimmed.isEmpty else { return nil }
    let url =
      URL(string: trimmed, relativeTo: base)
      ?? trimmed.addingPercentEncoding(withAllowedCharacters: Self.referenceCharacters).flatMap {
        URL(string: $0, relativeTo: base)
      }
    return url?.absoluteURL
  }

  /// Characters left as they are when a reference has to be percent-encoded: RFC 3986's unreserved and reserved
  /// characters, and `%` (already-encoded octets stay).
  private static let referenceCharacters = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")

  /// An absolute `http(s)` URL for `reference` found in `element` (or its attribute), or `nil` with an issue.
  func httpURL(_ reference: String?, in element: XMLElement, name: String) -> URL? {
    guard let reference, !reference.trimmedXMLSpace.isEmpty else { return nil }
    guard let url = Self.resolve(reference, against: baseURL(for: element)),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false
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

  /// The instant in `element`'s text, or `nil` (with an issue when there was text that no form reads). A time
  /// without a zone is read as UTC.
  func date(_ element: XMLElement?, _ form: DateForm) -> Date? {
    guard let element else { return nil }
    let text = element.text.trimmedXMLSpace
    guard !text.isEmpty else { return nil }
    let rfc822 = { Timestamp(rfc822: text) }
    let w3cdtf = { Timestamp(w3cdtf: text, assumingOffset: 0) }
    guard let timestamp = form == .rfc822 ? rfc822() ?? w3cdtf() : w3cdtf() ?? rfc822() else {
      let expected = form == .rfc822 ? "RFC 822" : "RFC 3339 / W3C-DTF"
      note(
        .unreadableDate, qualifiedName(element), text: text, "not an \(expected) date (nor the other); value dropped",
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

  /// An HTML value (RSS `description`, `content:encoded`): the element's text, trimmed; `nil` when empty.
  func html(_ element: XMLElement?) -> FeedText? {
    guard let element else { return nil }
    let value = element.text.trimmedXMLSpace
    return value.isEmpty ? nil : FeedText(value: value, kind: .html, baseURL: baseURL(for: element))
  }

  /// An Atom text construct (RFC 4287 §3.1; Atom 0.3's `mode` and MIME `type`), or `nil` when empty or binary.
  func textConstruct(_ element: XMLElement?) -> FeedText? {
    guard let element else { return nil }
    let type = element.attribute("type")?.lowercased().trimmingCharacters(in: .whitespaces) ?? "text"
    let mode = format == .atom03 ? element.attribute("mode")?.lowercased() ?? "xml" : "xml"
    let isHTML = type == "html" || type.contains("html")
    let isXHTML = type == "xhtml" || type == "application/xhtml+xml"
    let isText = type == "text" || type.hasPrefix("text/")
    let value: String
    let kind: FeedText.Kind
    switch mode {
    case "escaped":
      value = element.text
      kind = isHTML ? .html : .text
    case "base64":
      guard isHTML || isText,
        let data = Data(base64Encoded: element.text, options: .ignoreUnknownCharacters),
        let decoded = String(data: data, encoding: .utf8)
      else { return nil }
      value = decoded
      kind = isHTML ? .html : .text
    default:
      if isXHTML || (format == .atom03 && isHTML && element.children.count > 0) {
        value = (element.child("div", in: [Namespace.xhtml]) ?? element).innerXML
        kind = .html
      } else if isHTML {
        value = element.text
        kind = .html
      } else if isText {
        value = element.text
        kind = .text
      } else {
        return nil  // another media type (RFC 4287 §4.1.3.3): not text a reader shows
      }
    }
    let trimmed = value.trimmedXMLSpace
    return trimmed.isEmpty ? nil : FeedText(value: trimmed, kind: kind, baseURL: baseURL(for: element))
  }

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
