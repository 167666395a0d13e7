import CLibXML2
import Foundation
import OfflineNewsModel

/// One feed of a subscription list: an OPML `outline` with an `xmlUrl`.
public struct OPMLSubscription: Sendable, Hashable {
  /// The name to show: the outline's `title`, else its `text`, else the feed URL as people are shown it (no
  /// password: `NewsQuery.shown`). Never empty.
  public var title: String
  /// The feed (`xmlUrl`), absolute `http(s)`.
  public var feedURL: URL
  /// The site (`htmlUrl`), when given and absolute `http(s)`.
  public var homePageURL: URL?
  /// The folders the outline is in, outermost first (`[]` at the top level): each an enclosing outline without an
  /// `xmlUrl`, named by its `title`, else its `text`.
  public var folder: [String]

  /// A subscription to `feedURL`, in the folder path `folder` (outermost first; empty for the top level).
  public init(title: String, feedURL: URL, homePageURL: URL? = nil, folder: [String] = []) {
    self.title = title
    self.feedURL = feedURL
    self.homePageURL = homePageURL
    self.folder = folder
  }
}

/// A subscription list read from OPML.
public struct OPMLDocument: Sendable, Hashable {
  /// `head/title`, when there is one.
  public var title: String?
  /// The feeds, in document order.
  public var subscriptions: [OPMLSubscription]
  /// Outlines that could not be read (an `xmlUrl` that is not an `http(s)` URL) and recovered XML errors.
  public var issues: [FeedIssue]
}

/// Why a document could not be read as OPML.
public enum OPMLError: Error, Sendable, Hashable, CustomStringConvertible {
  /// libxml2 recovered no root element: its first error, 1-based line and column.
  case notWellFormed(file: URL, line: Int, column: Int, message: String)
  /// The root element is not `opml`.
  case notOPML(file: URL, root: String)
  /// The bytes end inside the root element: a cut-off download or file, refused whole as a cut feed is
  /// (``FeedParseError/truncated(feed:line:column:message:)``) — importing the outlines before the cut would pass a
  /// part of the list for the whole.
  case truncated(file: URL, line: Int, column: Int, message: String)

  public var description: String {
    switch self {
    case .notWellFormed(let file, let line, let column, let message):
      return "\(NewsQuery.shown(file)):\(line):\(column): not an XML document libxml2 can recover (\(message))"
    case .notOPML(let file, let root):
      return "\(NewsQuery.shown(file)): the root element is <\(root)>, not <opml>"
    case .truncated(let file, let line, let column, let message):
      let place = line > 0 ? ":\(line):\(column)" : ""
      return "\(NewsQuery.shown(file))\(place): the document is cut off (\(message)); nothing of it is read"
    }
  }
}

/// OPML subscription lists (OPML 2.0, <https://opml.org/spec2.opml>; 1.0 and 1.1 read the same): what NetNewsWire,
/// newsboat, Feedly and every feed reader import and export.
///
/// For example:
/// ```swift
/// let list = try OPML.read(try Data(contentsOf: file), url: file)
/// for subscription in list.subscriptions { print(subscription.folder, subscription.title, subscription.feedURL) }
/// let exported = OPML.write(list.subscriptions, title: "My feeds")   // the same feeds and folders
/// ```
public enum OPML {
  /// Reads a subscription list: every `outline` with an `xmlUrl`, at any depth, with the folder path of the outlines
  /// around it.
  ///
  /// - Parameters:
  ///   - url: where the document is (for messages, and the base of relative `xmlUrl`s).
  /// - Throws: ``OPMLError``.
  public static func read(_ data: Data, url: URL) throws(OPMLError) -> OPMLDocument {
    let prologue = XMLPrologue.read(data)
    let encoding = CharacterEncoding.choose(for: data, charset: nil, declared: prologue.declaredEncoding)
    // As a feed (``FeedParser``): libxml2's limits lifted as ``XMLPrologue/allowsHugeRead`` says. Deeper than
    // libxml2 goes even so, the list is refused (``XMLReadResult/cutOff(_:encoding:)``), never read in part.
    let result = XMLReader.read(data, url: url.absoluteString, encoding: encoding.name, huge: prologue.allowsHugeRead)
    guard let document = result.document, let root = document.root else {
      let why = result.whyNoDocument
      throw .notWellFormed(file: url, line: why.line, column: why.column, message: why.message)
    }
    if let cut = result.cutOff(data, encoding: encoding.name) {
      throw .truncated(file: url, line: cut.line, column: cut.column, message: cut.message)
    }
    return try withExtendedLifetime(document) { () throws(OPMLError) -> OPMLDocument in
      guard root.name.lowercased() == "opml" else { throw .notOPML(file: url, root: root.name) }
      let context = FeedReadingContext(feedURL: url, format: .rss20)
      for error in result.diagnostics where error.isError {
        context.note(
          FeedIssue(
            kind: .recoveredXML, feed: url, message: "not well-formed XML, recovered: \(error.message)",
            line: error.line, column: error.column))
      }
      var subscriptions: [OPMLSubscription] = []
      let head = root.children.first { $0.name == "head" }
      let title = head?.children.first { $0.name == "title" }.map { $0.text.collapsingWhiteSpace }
      if let body = root.children.first(where: { $0.name == "body" }) {
        collect(body, folder: [], context: context, into: &subscriptions)
      }
      return OPMLDocument(
        title: title?.isEmpty == false ? title : nil, subscriptions: subscriptions, issues: context.issues)
    }
  }

  private static func collect(
    _ parent: XMLElement, folder: [String], context: FeedReadingContext, into subscriptions: inout [OPMLSubscription]
  ) {
    for outline in parent.children where outline.name == "outline" {
      let name = [outline.attribute(caseInsensitive: "title"), outline.attribute(caseInsensitive: "text")]
        .compactMap { $0?.collapsingWhiteSpace }.first { !$0.isEmpty }
      if let reference = outline.attribute(caseInsensitive: "xmlUrl") {
        let type = outline.attribute(caseInsensitive: "type") ?? ""
        if type.contains("XPath") || type.contains("DotNotation") {
          // FreshRSS's scraped sources (`HTML+XPath`, `JSON+DotNotation`, …): `xmlUrl` is a page, not a feed.
          context.note(
            .unreadableURL, "outline@type", text: type, "a source FreshRSS scrapes from a page, not a feed; not added",
            line: outline.line)
        } else if reference.trimmingWhiteSpace.isEmpty {
          context.note(
            .unreadableURL, "outline@xmlUrl", text: name, "empty: no feed to subscribe to; outline skipped",
            line: outline.line)
        } else if let feedURL = context.httpURL(reference, in: outline, name: "outline@xmlUrl") {
          let home = outline.attribute(caseInsensitive: "htmlUrl").flatMap { reference -> URL? in
            guard !reference.trimmingWhiteSpace.isEmpty else { return nil }
            return context.httpURL(reference, in: outline, name: "outline@htmlUrl")
          }
          subscriptions.append(
            OPMLSubscription(
              title: name ?? NewsQuery.shown(feedURL), feedURL: feedURL, homePageURL: home, folder: folder))
        }
        collect(outline, folder: folder, context: context, into: &subscriptions)
      } else {
        collect(outline, folder: name.map { folder + [$0] } ?? folder, context: context, into: &subscriptions)
      }
    }
  }

  /// Writes an OPML 2.0 subscription list: one `outline type="rss"` per subscription (`text` and `title` its title,
  /// `xmlUrl`, `htmlUrl` when known), inside nested folder outlines (`text` and `title` the folder's name), folders
  /// and feeds in the order they first appear. libxml2 writes it (attribute values escaped by its serialiser).
  ///
  /// - Parameter title: the list's `head/title`.
  /// - Returns: the document, UTF-8, with an XML declaration, indented.
  public static func write(_ subscriptions: [OPMLSubscription], title: String? = nil) -> Data {
    LibXML2.initialize()
    guard let document = xmlNewDoc("1.0") else { return Data() }
    defer { xmlFreeDoc(document) }
    let root = xmlNewNode(nil, "opml")
    xmlDocSetRootElement(document, root)
    xmlNewProp(root, "version", "2.0")
    let head = xmlNewChild(root, nil, "head", nil)
    if let title { xmlNewTextChild(head, nil, "title", title) }
    let body = xmlNewChild(root, nil, "body", nil)
    var folders: [[String]: xmlNodePtr] = [[]: body].compactMapValues { $0 }
    func folderNode(_ path: [String]) -> xmlNodePtr? {
      if let known = folders[path] { return known }
      guard let name = path.last, let parent = folderNode(Array(path.dropLast())) else { return nil }
      let outline = xmlNewChild(parent, nil, "outline", nil)
      xmlNewProp(outline, "text", name)
      xmlNewProp(outline, "title", name)
      folders[path] = outline
      return outline
    }
    for subscription in subscriptions {
      let outline = xmlNewChild(folderNode(subscription.folder), nil, "outline", nil)
      xmlNewProp(outline, "type", "rss")
      xmlNewProp(outline, "text", subscription.title)
      xmlNewProp(outline, "title", subscription.title)
      xmlNewProp(outline, "xmlUrl", subscription.feedURL.absoluteString)
      if let home = subscription.homePageURL { xmlNewProp(outline, "htmlUrl", home.absoluteString) }
    }
    guard let buffer = xmlBufferCreate() else { return Data() }
    defer { xmlBufferFree(buffer) }
    guard let saver = xmlSaveToBuffer(buffer, "UTF-8", Int32(XML_SAVE_FORMAT.rawValue)) else { return Data() }
    xmlSaveDoc(saver, document)
    xmlSaveClose(saver)
    guard let content = xmlBufferContent(buffer) else { return Data() }
    return Data(bytes: content, count: Int(xmlBufferLength(buffer)))
  }
}

extension XMLElement {
  /// The value of an unprefixed attribute whose name matches `name` in any letter case (OPML files write `xmlUrl`,
  /// `xmlurl` and `XMLURL`).
  func attribute(caseInsensitive name: String) -> String? {
    if let exact = attribute(name) { return exact }
    let lowered = name.lowercased()
    var property = node.pointee.properties
    while let current = property {
      if current.pointee.ns == nil, let raw = current.pointee.name, String(cString: raw).lowercased() == lowered {
        return attribute(String(cString: raw))
      }
      property = current.pointee.next
    }
    return nil
  }
}
