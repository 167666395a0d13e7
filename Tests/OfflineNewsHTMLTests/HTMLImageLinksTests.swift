import Foundation
import OfflineNewsHTML
import Testing

@Suite("HTMLImageLinks: the images of a fragment, relinked to local files")
struct HTMLImageLinksTests {
  static let html = """
    <div><p>One</p><img src="/a.png" srcset="/a-2x.png 2x" alt="A"><img src="https://cdn.example/b.jpg">\
    <img src="data:image/png;base64,AAAA"><img src="/a.png"><img><img src="javascript:alert(1)"></div>
    """

  @Test("sources: absolute http(s) addresses in document order, each once; relinking keeps the remote address")
  func relinking() throws {
    let base = try #require(URL(string: "https://news.example/story/1"))
    let a = try #require(URL(string: "https://news.example/a.png"))
    let b = try #require(URL(string: "https://cdn.example/b.jpg"))
    #expect(HTMLImageLinks.sources(inHTML: Self.html, base: base) == [a, b])

    let local = URL(fileURLWithPath: "/tmp/images/0123-a.png")
    let once = HTMLImageLinks.relinking(Self.html, to: [a: local], base: base)
    let image = try #require(HTMLDocument(html: once).root?.descendants(named: "img").first)
    #expect(image["src"] == local.absoluteString)
    #expect(image["data-remote-src"] == a.absoluteString)
    #expect(image["srcset"] == nil && image["data-remote-srcset"] == "/a-2x.png 2x")
    #expect(image["alt"] == "A")
    #expect(once.contains(#"src="https://cdn.example/b.jpg""#), "an image without a file stays remote")
    // Read again (a later fetch), the relinked fragment still names the remote images, and relinks the same way.
    #expect(HTMLImageLinks.sources(inHTML: once) == [a, b])
    let localB = URL(fileURLWithPath: "/tmp/images/4567-b.jpg")
    let twice = HTMLImageLinks.relinking(once, to: [a: local, b: localB])
    let images = HTMLDocument(html: twice).root?.descendants(named: "img") ?? []
    #expect(images.compactMap { $0["data-remote-src"] } == [a.absoluteString, b.absoluteString, a.absoluteString])
    #expect(images.prefix(2).map { $0["src"] } == [local.absoluteString, localB.absoluteString])
    #expect(images[0]["data-remote-srcset"] == "/a-2x.png 2x")
  }
}
