import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An XML tree read by Foundation's `XMLParser`: the independent reading the tests check ``FeedParser`` against.
/// It knows nothing of feeds; the expectations are computed from it in the tests themselves.
///
/// Built once by ``XMLOracle/read(_:)`` and only read afterwards.
public final class OracleElement {
  public let name: String
  public let namespace: String?
  public let attributes: [String: String]
  public internal(set) var text = ""
  public internal(set) var children: [OracleElement] = []

  init(name: String, namespace: String?, attributes: [String: String]) {
    self.name = name
    self.namespace = namespace
    self.attributes = attributes
  }

  /// Child elements with this local name (in any namespace when `namespace` is `.any`).
  public func all(_ name: String, _ namespace: OracleNamespace = .none) -> [OracleElement] {
    children.filter { $0.name == name && namespace.matches($0.namespace) }
  }

  public func first(_ name: String, _ namespace: OracleNamespace = .none) -> OracleElement? {
    all(name, namespace).first
  }

  /// Every descendant with this local name, depth first.
  public func descendants(_ name: String, _ namespace: OracleNamespace = .none) -> [OracleElement] {
    var found: [OracleElement] = []
    for child in children {
      if child.name == name && namespace.matches(child.namespace) { found.append(child) }
      found += child.descendants(name, namespace)
    }
    return found
  }

  /// The text with every run of white space one space, trimmed.
  public var collapsedText: String {
    text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
  }

  public var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

public enum OracleNamespace: Sendable {
  case none
  case any
  case uri(String)

  public func matches(_ namespace: String?) -> Bool {
    switch self {
    case .none: return namespace == nil || namespace == ""
    case .any: return true
    case .uri(let uri): return namespace == uri
    }
  }
}

public enum XMLOracle {
  /// The root element of the XML file at `url`, read by `XMLParser` with namespaces.
  public static func read(_ url: URL) throws -> OracleElement {
    let data = try Data(contentsOf: url)
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    let builder = Builder()
    parser.delegate = builder
    guard parser.parse(), let root = builder.root else {
      throw OracleError.unreadable(url.lastPathComponent, parser.parserError.map { "\($0)" } ?? "no root")
    }
    return root
  }

  public enum OracleError: Error { case unreadable(String, String) }

  private final class Builder: NSObject, XMLParserDelegate {
    var root: OracleElement?
    var stack: [OracleElement] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      let element = OracleElement(
        name: elementName, namespace: namespaceURI?.isEmpty == true ? nil : namespaceURI, attributes: attributes)
      if let parent = stack.last { parent.children.append(element) } else { root = element }
      stack.append(element)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
      let element = stack.removeLast()
      // Mixed content: a child's text belongs to its parent's text too (as the feed parser reads an element's text).
      stack.last?.text += element.text
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      // XMLParser hands CDATA over as the raw bytes; XML 1.0 §2.11 says a parser reads every CR LF and lone CR as LF.
      let raw = String(decoding: block, as: UTF8.self)
      stack.last?.text += raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
  }
}

/// The XML feeds of `../shared/fixtures/real/feeds/` (every file that is not JSON, HTML or OPML).
public enum RealFeeds {
  public static var folder: URL { Fixtures.sharedRealDirectory.appendingPathComponent("feeds") }

  public static var xmlFeeds: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".html") && !$0.hasSuffix(".opml") }.sorted()
  }

  public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

/// Where two texts first differ, with a little context, for readable failures of long values.
public func firstDifference(_ a: String?, _ b: String?) -> String {
  guard let a, let b else { return "one is nil: \(a == nil ? "ours" : "expected")" }
  let x = Array(a)
  let y = Array(b)
  let common = zip(x, y).prefix { $0 == $1 }.count
  if common == x.count && common == y.count { return "equal" }
  let from = max(0, common - 40)
  return "at character \(common): ours …\(String(x[from..<min(x.count, common + 40)]).debugDescription)… expected …"
    + "\(String(y[from..<min(y.count, common + 40)]).debugDescription)… (lengths \(x.count), \(y.count))"
}
