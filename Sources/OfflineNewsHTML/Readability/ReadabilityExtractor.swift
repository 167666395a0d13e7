import Foundation

/// Finds the readable article in a web page — title, byline, publication time, site name, excerpt, language,
/// direction, and the article itself — as a reader view does.
///
/// For example:
/// ```swift
/// let page = try Data(contentsOf: URL(fileURLWithPath: "story.html"))
/// if let article = try ReadabilityExtractor().extract(
///   from: page, url: URL(string: "https://example.com/2024/05/story")) {
///   print(article.title, article.byline ?? "")
///   print(HTMLTextRenderer(width: 80).render(html: article.content))
/// }
/// ```
///
/// The algorithm is Mozilla Readability's (`Readability.js`, the reader view of Firefox), written here on libxml2's
/// HTML parser:
/// 1. metadata from JSON-LD (schema.org `Article`), then Dublin Core, OpenGraph, Twitter and `<meta>` tags, and the
///    `<title>` with the site name cut off;
/// 2. scripts, styles and hidden elements removed, runs of `<br>` made paragraphs, lazy images made real;
/// 3. elements that look like page furniture by their class or id (`comment`, `sidebar`, `footer`…) removed;
///    paragraphs scored by their length and commas, the score added to their parent and, divided, to their
///    ancestors; each candidate weighted by its class and id and scaled down by its link density;
/// 4. the best candidate (or a better ancestor) joined with the siblings that score well enough, then cleaned of
///    forms, share buttons, fishy tables, lists and divs;
/// 5. when that gives fewer than ``Options/characterThreshold`` characters, it is tried again with each filter
///    turned off in turn (unlikely candidates, class weights, conditional cleaning), keeping the longest result.
///
/// Source: <https://github.com/mozilla/readability> (`Readability.js`, Apache-2.0), whose test pages pin the
/// behaviour. Extraction is CPU-bound and synchronous; the extractor is a value and can be used from any task.
public struct ReadabilityExtractor: Sendable {
  /// The knobs Readability.js has, with its defaults.
  public struct Options: Sendable, Equatable {
    /// Readability.js's `DEFAULT_CHAR_THRESHOLD`.
    package static let defaultCharacterThreshold = 500

    /// The fewest characters (UTF-16 code units, whitespace runs counted once) an article must have before the
    /// filters are turned off one by one to find more.
    public var characterThreshold = defaultCharacterThreshold
    /// How many top candidates are compared when looking for a better container (`nbTopCandidates`).
    public var candidateCount = 5
    /// Classes kept on the article's elements (all others are removed), besides `page`.
    public var classesToPreserve: Set<String> = ["page"]
    /// Whether to keep every `class` attribute.
    public var keepClasses = false
    /// Added to the link-density limits of conditional cleaning (0.2, or 0.5 for a positive class).
    public var linkDensityModifier = 0.0

    /// Readability.js's defaults.
    public init() {}
  }

  /// The settings every extraction uses.
  package var options: Options

  /// An extractor; Readability.js's defaults unless given.
  public init(options: Options = Options()) {
    self.options = options
  }

  /// The article of a page given as bytes.
  ///
  /// - Parameters:
  ///   - data: the page as received (any encoding; see `HTMLDocument/init(data:url:charset:)`).
  ///   - url: the page's address: relative links and images are made absolute against it (or its `<base>`).
  ///   - charset: the `charset` of the HTTP `Content-Type`, when known.
  /// - Returns: the article, or `nil` when the page has no `<body>` or no text at all.
  /// - Throws: ``HTMLDocument/ParseError`` for an input of 2 GiB or more.
  public func extract(from data: Data, url: URL? = nil, charset: String? = nil) throws(HTMLDocument.ParseError)
    -> ReadableArticle?
  {
    let document = try HTMLDocument(data: data, url: url, charset: charset)
    return Readability(document: document, options: options, restart: .reparsing(data, url: url, charset: charset))
      .parse()
  }

  /// The article of a parsed page. The document is changed (scripts, styles and hidden elements are removed first);
  /// parse it again to read the original.
  package func extract(from document: HTMLDocument) -> ReadableArticle? {
    Readability(document: document, options: options).parse()
  }
}
