import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsHTML
import OfflineNewsModel

/// `news extract FILE.html [--url URL] [--json]`: the readable article of a saved web page, as a reader view shows
/// it. Reads only the file: no database, no configuration, no network.
struct ExtractCommand: NewsCommand {
  static let name = "extract"
  static let summary = "Show the readable article of a saved web page: title, byline, metadata and text."
  static let positionals = [
    PositionalSpec(
      name: "FILE.html", help: "A web page as saved from the network (its <meta> charset is read; UTF-8 else).")
  ]
  static let details = """
    Finds the article as Firefox's reader view does (Mozilla Readability's algorithm), and prints its title,
    byline, publication time, site name, excerpt, language and direction, then its text, wrapped to the terminal.
    With --json, content is the article's cleaned HTML and text its plain text; absent values are null.
    Reads only the file: no database, no configuration, no network.
    Exit status: 0 shown, 64 usage error, 65 not a page with an article, 66 no such file.
    """
  /// Reads only its file: no configuration to load.
  static let configurationUse = ConfigurationUse.none

  static let storeOptions = StoreOptions<Option>(
    database: false, configuration: false,
    json: "{title, byline, publishedTime, siteName, excerpt, lang, dir, content, text}")

  enum Option: CommandOption {
    case url
    var spec: OptionSpec {
      switch self {
      case .url:
        OptionSpec(
          name: "url", valueName: "URL",
          help: "The page's address: relative links and images become absolute against it (after <base>).")
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() throws -> ExitCode {
    let console = context.console
    guard let typed = arguments.positionals.first, !typed.isEmpty else {
      throw CommandFailure(.usage, "which page? usage: news extract FILE.html [--url URL]")
    }
    var pageURL: URL?
    if let text = arguments.value(.url) {
      guard let url = URL(string: text), url.isWebURL || url.isFileURL else {
        throw arguments.badValue(
          "--url needs an absolute http(s) or file URL, got \"\(text)\"",
          hint: "for example --url https://example.com/2024/05/story.html")
      }
      pageURL = url
    }
    let path = context.resolvedPath(typed)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      // The hint every read of a missing file gets (FailureHint): check the name, or the folder that is missing.
      throw CommandFailure(
        .noInput, "no such file: \(path)",
        hint: FailureHint.reading(
          NewsQuery(url: URL(fileURLWithPath: path)), .unreadableFile(path: path, reason: "no such file"),
          currentDirectory: context.currentDirectory))
    }
    guard !isDirectory.boolValue else { throw CommandFailure(.badInput, "\(path) is a folder, not a page") }
    // libxml2 parses one buffer of less than 2 GiB: a larger file is refused before it is read.
    let size = try? LocalFile.size(path)
    if let size, size >= Int(Int32.max) {
      throw CommandFailure(.badInput, "\(path) is \(size) bytes, more than a page can be (2 GiB)")
    }
    let data: Data
    do {
      data = try LocalFile.read(path)
    } catch {
      throw CommandFailure(.badInput, "cannot read \(path): \(error.reason)")
    }
    try Self.refuseIfNotHTML(data, path: path, typed: typed)
    let article: ReadableArticle?
    do {
      article = try ReadabilityExtractor().extract(from: data, url: pageURL ?? URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure(.badInput, "\(path): \(error.description)")
    }
    guard let article else {
      throw CommandFailure(
        .badInput, "\(path): no readable article (the page has no <body>, or no text in it)",
        hint: "is it an HTML page? 'file \(typed)' tells what it is")
    }
    if arguments.json {
      console.out(OutputFormat.json(article))  // ``ReadableArticle``'s own fields, absent ones `null`)
    } else {
      console.out(Self.render(article, width: OutputFormat.readingWidth(console.width), color: console.color))
    }
    return .success
  }

  /// Refuses a file that is not an HTML page, told by its first bytes (``FeedFormatSniffer``, as `news import` tells
  /// formats): an empty file, compressed or binary data (``ArticleDecoder/nonTextSummary(_:)``, as `news import`
  /// says them), JSON, a feed, an OPML list, or text that does not start with markup — the HTML parser would read
  /// any of them as a page and print it as an article.
  ///
  /// - Throws: ``CommandFailure`` 65 naming the file and what it is, with the command that reads it.
  static func refuseIfNotHTML(_ data: Data, path: String, typed: String) throws(CommandFailure) {
    // Empty, compressed or binary: said as 'news import' says it (one rule), before any format is guessed.
    if let nonText = ArticleDecoder.nonTextSummary(data) {
      throw CommandFailure(
        .badInput, "\(path) is \(nonText), not an HTML page",
        hint: "give a web page as saved from the browser or with curl")
    }
    let what: String
    let hint: String
    switch FeedFormatSniffer.kind(of: data) {
    case .html: return
    case .json, .jsonFeed:
      what = "JSON"
      hint = "'news import \(typed)' reads a NewsAPI response or a JSON Feed; --mapping any other JSON"
    case .xmlFeed:
      what = "a feed (RSS, Atom or RDF)"
      hint = "'news import \(typed)' saves its items"
    case .opml:
      what = "an OPML subscription list"
      hint = "'news import \(typed)' adds its feeds as sources"
    case .unknown:
      // Markup that is neither a feed nor recognisably HTML (a fragment, XHTML in another root) is left to the
      // HTML parser; text that does not start with `<` is not a page.
      let first = data.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
      guard first != UInt8(ascii: "<") else { return }
      what = "text that does not start with markup"
      hint = "give a web page as saved from the browser or with curl"
    }
    throw CommandFailure(.badInput, "\(path) is \(what), not an HTML page", hint: hint)
  }

  /// The article as text: its metadata as labelled lines (absent ones left out), a blank line, the article.
  static func render(_ article: ReadableArticle, width: Int?, color: Bool) -> String {
    let style = TextStyle(enabled: color)
    let fields: [(String, String?)] = [
      ("title", article.title), ("byline", article.byline), ("published", article.publishedTime),
      ("site", article.siteName), ("excerpt", article.excerpt), ("language", article.lang),
      ("direction", article.dir),
    ]
    var text = ""
    for (label, value) in fields {
      guard let value = value.map({ OutputFormat.sanitized($0, collapsingWhitespace: true) }), !value.isEmpty
      else { continue }
      text +=
        OutputFormat.labelled(
          style.apply(.dim, pad(label, 11)), value, indent: 11, width: width,
          attribute: label == "title" ? .bold : nil, color: color) + "\n"
    }
    let body = HTMLTextRenderer(width: width).render(html: article.content)
    if !body.isEmpty { text += "\n" + OutputFormat.sanitizedLines(body) }
    return text
  }
}
