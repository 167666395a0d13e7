import Foundation
import OfflineNewsHTML
import Testing

/// Reader view (issue 29, item 7): lazy-loaded images in every form the reader-view trackers report end up as real
/// images of the extracted article, and `HTMLImageLinks` (which images `news fetch --full-text` keeps offline)
/// finds them.
///
/// - `data-src` with an address without an image extension (WeChat's `…/640?wx_fmt=gif`):
///   andreskrey/readability.php#69; placeholders left blank on a reload (Los Angeles Times): mozilla/readability#748;
/// - `data-lazy-src`, `data-original`, `data-actualsrc`, a 1×1 GIF `data:` placeholder: karakeep-app/karakeep#2556,
///   kepano/defuddle#327;
/// - a `<noscript>` image whose placeholder had nothing to keep: adbar/trafilatura#89;
/// - `<picture><source data-srcset>`: the `srcset` a loader fills in.
@Suite("reader view: lazy-loaded images become real images")
struct LazyImageTests {
  static let words = String(repeating: "The harbour wall held through the night, the wardens said. ", count: 12)

  /// The images of the article extracted from a page whose story holds `images` between two paragraphs.
  static func extracted(_ images: String) throws -> (content: String, images: [HTMLNode], sources: [URL]) {
    let html = """
      <html><head><title>Storm</title></head><body><nav><a href="/">Home</a></nav>
      <article><h1>Storm</h1><p>\(words)</p>\(images)<p>\(words)</p></article></body></html>
      """
    let base = try #require(URL(string: "https://news.example/2026/12/storm.html"))
    let article = try #require(ReadabilityExtractor().extract(from: HTMLDocument(html: html, url: base)))
    let nodes = HTMLDocument(html: article.content).root?.descendants(named: "img") ?? []
    return (article.content, nodes, HTMLImageLinks.sources(inHTML: article.content, base: base))
  }

  static let gifPixel = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"

  @Test(
    "a named lazy attribute fills a missing or placeholder src, whatever the address's extension",
    arguments: [
      #"<img data-src="https://cdn.example/mmbiz/640?wx_fmt=gif" alt="a">"#,
      #"<img src="\#(gifPixel)" data-lazy-src="https://cdn.example/mmbiz/640?wx_fmt=gif">"#,
      #"<img src="/img/blank.gif" data-original="https://cdn.example/mmbiz/640?wx_fmt=gif">"#,
      #"<img src="https://news.example/s.gif" width="1" height="1" data-actualsrc="https://cdn.example/mmbiz/640?wx_fmt=gif">"#,
      #"<img src="" data-lazyload="https://cdn.example/mmbiz/640?wx_fmt=gif">"#,
    ])
  func namedAttributes(_ image: String) throws {
    let result = try Self.extracted(image)
    #expect(result.images.map { $0["src"] } == ["https://cdn.example/mmbiz/640?wx_fmt=gif"])
    #expect(result.sources.map(\.absoluteString) == ["https://cdn.example/mmbiz/640?wx_fmt=gif"])
  }

  @Test("an image with its own src keeps it: a lazy attribute is not preferred to a real image")
  func realSourceKept() throws {
    let result = try Self.extracted(
      #"<img src="https://cdn.example/photo.jpg" data-src="https://cdn.example/other/640?x=1">"#)
    #expect(result.images.map { $0["src"] } == ["https://cdn.example/photo.jpg"])
  }

  @Test("data-srcset fills an empty srcset; a <picture>'s <source data-srcset> gets its srcset")
  func srcsets() throws {
    let result = try Self.extracted(
      """
      <picture><source type="image/webp" data-srcset="https://cdn.example/w/800 800w, https://cdn.example/w/1600 1600w">\
      <img data-src="https://cdn.example/j/800" data-srcset="https://cdn.example/j/800 800w" alt="wall"></picture>
      """)
    #expect(result.content.contains(#"srcset="https://cdn.example/w/800 800w, https://cdn.example/w/1600 1600w""#))
    #expect(result.images.first?["srcset"] == "https://cdn.example/j/800 800w")
    #expect(result.sources.map(\.absoluteString) == ["https://cdn.example/j/800"])
  }

  @Test("a <noscript> image beside a placeholder, or alone, is the image; a tracking pixel is not")
  func noscriptFallbacks() throws {
    // The placeholder has no address at all: removed, and the <noscript> image stands in for it.
    let lone = try Self.extracted(
      #"<figure><img class="lazy" data-lazy-type="image"><noscript><img src="https://cdn.example/wall.jpeg?w=1200" alt="wall"></noscript></figure>"#
    )
    #expect(lone.sources.map(\.absoluteString) == ["https://cdn.example/wall.jpeg?w=1200"])
    // Beside a 1×1 placeholder (Medium's shape): replaced, once.
    let beside = try Self.extracted(
      #"<div><img src="\#(Self.gifPixel)" class="lazy"></div><noscript><img src="https://cdn.example/wall.png"></noscript>"#
    )
    #expect(beside.sources.map(\.absoluteString) == ["https://cdn.example/wall.png"])
    // A tracking pixel in a <noscript> does not become an image of the story.
    let pixel = try Self.extracted(
      #"<noscript><img height="1" width="1" src="https://tracker.example/tr?id=1&amp;ev=PageView"></noscript>"#)
    #expect(pixel.images.isEmpty)
    // A lazy image and its <noscript> copy: one image, not two.
    let both = try Self.extracted(
      #"<p><img data-src="https://cdn.example/w/9"></p><noscript><img src="https://cdn.example/w/9"></noscript>"#)
    #expect(both.sources.map(\.absoluteString) == ["https://cdn.example/w/9"])
  }

  @Test("HTMLImageLinks reads an image given only by srcset, and relinks it")
  func srcsetOnly() throws {
    let html = #"<p><img srcset="https://cdn.example/a-1x.jpg 1x, https://cdn.example/a-2x.jpg 2x"></p>"#
    let remote = try #require(URL(string: "https://cdn.example/a-1x.jpg"))
    #expect(HTMLImageLinks.sources(inHTML: html) == [remote])
    let local = URL(fileURLWithPath: "/tmp/images/a.jpg")
    let relinked = HTMLImageLinks.relinking(html, to: [remote: local])
    let image = try #require(HTMLDocument(html: relinked).root?.descendants(named: "img").first)
    #expect(image["src"] == local.absoluteString)
    #expect(image["data-remote-src"] == remote.absoluteString)
    #expect(image["srcset"] == nil)
  }
}
