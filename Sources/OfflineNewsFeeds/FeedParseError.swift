import Foundation

/// Why a document could not be read as a feed at all. (A value that cannot be read costs that value: it is a
/// ``FeedIssue`` of a feed that was read.)
public enum FeedParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The document is empty (no bytes, or only white space).
  case empty(feed: URL)
  /// libxml2 could not recover the bytes into an XML document with a root element: the first error it reported,
  /// with its 1-based line and column (0 when unknown).
  case notWellFormed(feed: URL, line: Int, column: Int, message: String)
  /// An XML document, but not a feed: its root element (and namespace) is none of RSS, RSS 1.0/0.90 (RDF) or Atom's,
  /// e.g. an OPML subscription list or an XHTML page. `kind` says what the document looks like.
  case notAFeed(feed: URL, root: String, namespace: String?, kind: FeedDocumentKind)
  /// A JSON document this parser cannot read: other JSON than a JSON Feed (`isJSONFeed` false), or a document that
  /// announces a JSON Feed (its `version`) but does not parse as a JSON object — cut off, or not JSON past its start.
  case json(feed: URL, isJSONFeed: Bool)
  /// The document is larger than ``FeedParser/maximumDocumentSize``.
  case tooLarge(feed: URL, bytes: Int)
  /// The bytes end inside the root element (libxml2's "Premature end of data in tag rss", `XML_ERR_TAG_NOT_FINISHED`
  /// for the root): a cut-off download or file. Nothing of it is read — recovering the items before the cut would pass a part for the
  /// whole, and a fetch would replace the cache with it.
  case truncated(feed: URL, line: Int, column: Int, message: String)

  public var description: String {
    switch self {
    case .empty(let feed):
      return "\(feed.absoluteString): the document is empty"
    case .notWellFormed(let feed, let line, let column, let message):
      let place = line > 0 ? ":\(line):\(column)" : ""
      return "\(feed.absoluteString)\(place): not an XML document libxml2 can recover (\(message))"
    case .notAFeed(let feed, let root, let namespace, let kind):
      let element = namespace.map { "<\(root) xmlns=\"\($0)\">" } ?? "<\(root)>"
      let what: String
      switch kind {
      case .opml: what = "an OPML subscription list"
      case .html: what = "an HTML page"
      default: what = "not RSS, RDF or Atom"
      }
      return "\(feed.absoluteString): the root element is \(element): \(what), not a feed"
    case .json(let feed, let isJSONFeed):
      return "\(feed.absoluteString): "
        + (isJSONFeed
          ? "a JSON Feed whose JSON does not parse: the document is cut off, or is not JSON past its start"
          : "JSON, not a feed")
    case .truncated(let feed, let line, let column, let message):
      let place = line > 0 ? ":\(line):\(column)" : ""
      return "\(feed.absoluteString)\(place): the document is cut off (\(message)); nothing of it is read"
    case .tooLarge(let feed, let bytes):
      return "\(feed.absoluteString): \(bytes) bytes, more than the \(FeedParser.maximumDocumentSize) a feed may have"
    }
  }
}
