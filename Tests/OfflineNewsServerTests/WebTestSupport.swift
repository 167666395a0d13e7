import Foundation
import OfflineNews
import OfflineNewsHTML
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// A store with two sources in folders (their feeds at a loopback port where nothing listens: everything is served
/// from the store), a few articles, one with a stored full text and a stored image, and the web reader over it.
struct WebFixture {
  let directory = TemporaryDirectory("web-reader")
  let storage: StorageContext
  let repository: NewsRepository
  let library: ServedLibrary
  let reader: WebReader
  let imageFolder: URL
  let session = WebSession(csrfToken: "csrf-test-token", user: nil)
  let sources: [NewsSource]
  /// The article with a stored full text and image.
  let story: Article
  /// The stored image's bytes.
  let png = TestImages.png(width: 8, height: 6, seed: 7)

  static let now = Date(timeIntervalSince1970: 1_764_000_000)

  init() async throws {
    storage = try StorageContext(path: directory.path("news.sqlite"))
    imageFolder = directory.url.appendingPathComponent("images", isDirectory: true)
    try FileManager.default.createDirectory(at: imageFolder, withIntermediateDirectories: true)
    let now = Self.now
    repository = NewsRepository(
      storage: storage, network: FileNewsNetwork(), clock: { Timestamp(now) }, imageFolder: imageFolder)
    let harbour = NewsSource(
      name: "harbour", url: webURL("http://127.0.0.1:9/harbour.xml"), title: "Harbour Gazette",
      folder: ["Local"])
    let tech = NewsSource(
      name: "Tech <Wire> & Co", url: webURL("http://127.0.0.1:9/tech.xml"), title: "Tech Wire (the feed's title)",
      folder: ["Tech", "Web"])
    sources = [harbour, tech]
    let sources = sources
    library = ServedLibrary(repository: repository, sources: { sources }, now: { now })
    reader = WebReader(library: library)

    let harbourArticles = (0..<3).map { index in
      Article(
        url: webURL("https://harbour.example/story-\(index)"),
        title: index == 0 ? "Council opens the ferry terminal" : "Harbour note \(index)",
        summary: "<p>Summary \(index) about the <b>ferry</b>.</p>",
        publishedAt: now.addingTimeInterval(-3600 * Double(index + 1)), sourceName: "Harbour Gazette")
    }
    let techArticles = [
      Article(
        url: webURL("https://tech.example/xss"), title: "<script>alert('title')</script> & friends",
        author: "Eve \"<img src=x onerror=alert(1)>\"",
        summary: #"<p onclick="alert(1)">Hostile <a href="javascript:alert(2)">link</a></p><script>alert(3)</script>"#,
        publishedAt: now.addingTimeInterval(-60), sourceName: "Tech Wire")
    ]
    try await repository.save(harbourArticles, for: harbour.query)
    try await repository.save(techArticles, for: tech.query)

    // The first harbour story: a stored full text whose image is stored (relinked to its file, as keepImages does).
    let key = harbourArticles[0].url.absoluteString
    let remote = webURL("https://cdn.harbour.example/terminal.png")
    let file = imageFolder.appendingPathComponent("terminal-0001.png")
    try png.write(to: file)
    let fullText =
      "<h2>The new terminal</h2><p>The ferry terminal opened on Tuesday with a ribbon.</p>"
      + "<figure><img src=\"\(remote.absoluteString)\" alt=\"The terminal\"><figcaption>Opening day</figcaption></figure>"
      + "<p><img src=\"https://elsewhere.example/tracker.gif\" alt=\"\">More text.</p>"
    try await storage.saveFullText(
      FullText(html: fullText, text: "The new terminal. The ferry terminal opened on Tuesday with a ribbon."),
      forKey: key, at: Timestamp(now))
    let row = ArticleImage(
      url: remote, position: 0, file: file.lastPathComponent, byteCount: png.count, format: "png",
      storedAt: Timestamp(now))
    try await storage.saveArticleImages(
      [row], forKey: key, fullTextHTML: HTMLImageLinks.relinking(fullText, to: [remote: file]))
    story = try #require(try await repository.article(url: key))
  }

  /// `GET target` through the reader.
  func get(_ target: String, headers: [(name: String, value: String)] = []) async -> ServerResponse {
    await reader.handle(ServerRequest(method: "GET", target: target, headers: headers), session: session)
  }

  /// A form `POST` through the reader.
  func post(_ target: String, fields: [(String, String)], json: Bool = false) async -> ServerResponse {
    let body = fields.map { "\($0.0)=\(WebPage.query($0.1))" }.joined(separator: "&")
    var headers = [(name: "Content-Type", value: "application/x-www-form-urlencoded")]
    if json { headers.append((name: "Accept", value: "application/json")) }
    return await reader.handle(
      ServerRequest(method: "POST", target: target, headers: headers, body: Data(body.utf8)), session: session)
  }

  /// The page of a response, parsed.
  static func page(_ response: ServerResponse) -> HTMLDocument {
    HTMLDocument(html: String(decoding: response.data ?? Data(), as: UTF8.self))
  }

  static func handle(_ article: Article) -> String { ArticleIdentity.handle(forKey: article.url.absoluteString) }
}

/// A URL of a test's own text (`about:blank` for one that does not parse, which no test writes).
func webURL(_ text: String) -> URL {
  URL(string: text) ?? URL(fileURLWithPath: "/")
}

extension HTMLDocument {
  /// Every element of the page with this class.
  func elements(classed name: String) -> [HTMLNode] {
    (root?.descendants ?? []).filter {
      $0.kind == .element && ($0["class"] ?? "").split(separator: " ").contains(Substring(name))
    }
  }

  /// Every element named `name`.
  func elements(named name: String) -> [HTMLNode] { root?.descendants(named: name) ?? [] }
}
