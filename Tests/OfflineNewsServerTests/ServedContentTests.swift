import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import Testing

@testable import OfflineNewsServer

/// The sync APIs serve an article's stored full text with its offline images at the server's own URLs: the store's
/// full text points at local `file:` URLs, which no client can load.
@Suite struct ServedContentTests {
  @Test func minifluxAndReaderServeTheFullTextWithTheServersOwnImageURLs() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    #expect(fixture.story.fullTextHTML?.contains("file:") == true, "the stored full text points at the file")
    let headers = [(name: "Host", value: "127.0.0.1:8080")]
    let miniflux = await MinifluxAPI(library: fixture.library).handle(
      ServerRequest(method: "GET", target: "/v1/entries?limit=100", headers: headers))
    #expect(miniflux.status == 200)
    let object = try #require(try JSONSerialization.jsonObject(with: miniflux.data ?? Data()) as? [String: Any])
    let entries = try #require(object["entries"] as? [[String: Any]])
    let story = try #require(entries.first { ($0["hash"] as? String) == handle })
    let content = try #require(story["content"] as? String)
    #expect(content.contains("http://127.0.0.1:8080/images/\(handle)/0"), "\(content)")
    #expect(!content.contains("file:"), "\(content)")
    let reader = await ReaderAPI(library: fixture.library, user: "news").handle(
      ServerRequest(
        method: "GET", target: "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=50",
        headers: headers))
    let text = String(decoding: reader.data ?? Data(), as: UTF8.self)
    #expect(text.contains("http://127.0.0.1:8080/images/\(handle)/0"))
    #expect(!text.contains("file:"))
  }

  @Test(
    "the APIs and the web reader choose one HTML: full text, else content, else summary, white space counting as none")
  func oneChooserOfTheServedHTML() async throws {
    let served = try ServedTestLibrary(configured: [])
    let url = try #require(URL(string: "https://example.org/story"))
    var article = Article(
      url: url, title: "Story", summary: "<p>The summary</p>", publishedAt: ServedTestLibrary.start,
      content: " \n\t ")
    article.fullTextHTML = ""
    #expect(servedContent(of: article) == "<p>The summary</p>", "empty full text, white-space content")
    #expect(await served.library.sanitizedContent(of: article) == "<p>The summary</p>")
    article.content = "<p>The content</p>"
    #expect(servedContent(of: article) == "<p>The content</p>")
    #expect(await served.library.sanitizedContent(of: article) == "<p>The content</p>")
    article.fullTextHTML = "<p>The full text<script>x()</script></p>"
    #expect(servedContent(of: article) == article.fullTextHTML, "the APIs' content as stored")
    #expect(await served.library.sanitizedContent(of: article) == "<p>The full text</p>", "the web reader's, sanitised")
    article.fullTextHTML = nil
    article.content = nil
    article.summary = "\n"
    #expect(servedContent(of: article).isEmpty)
    #expect(await served.library.sanitizedContent(of: article).isEmpty)
  }

  @Test("reading time: words split where CharacterSet.whitespacesAndNewlines splits them, for every scalar")
  func readingMinutesSplitAsCharacterSet() throws {
    let spaces = CharacterSet.whitespacesAndNewlines
    var differing: [String] = []
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      if isWhitespaceOrNewline(scalar) != spaces.contains(scalar) { differing.append(String(value, radix: 16)) }
    }
    #expect(differing.isEmpty, "U+\(differing.prefix(20))")
    var article = Article(url: try #require(URL(string: "https://example.org/a")), title: "T", publishedAt: Date())
    article.summary = String(repeating: "word\u{3000}", count: 265) + "one\u{2028}more"
    #expect(readingMinutes(of: article) == 2)
    article.summary = " \t\u{A0}\n"
    #expect(readingMinutes(of: article) == 0)
    article.summary = "\u{200B}"
    #expect(readingMinutes(of: article) == 0, "a zero-width space is white space for CharacterSet")
  }
}
