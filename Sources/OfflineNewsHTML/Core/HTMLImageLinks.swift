import Foundation
import OfflineNewsModel

/// The images of an HTML fragment (an article's stored full text), and the fragment with its images linked to local
/// copies, on libxml2's HTML parser.
///
/// For example:
/// ```swift
/// let html = #"<div><p>Text</p><img src="https://example.com/a.png"></div>"#
/// HTMLImageLinks.sources(inHTML: html)   // [https://example.com/a.png]
/// HTMLImageLinks.relinking(html, to: [URL(string: "https://example.com/a.png")!: URL(fileURLWithPath: "/i/a.png")])
/// // <div><p>Text</p><img src="file:///i/a.png" data-remote-src="https://example.com/a.png"></div>
/// ```
///
/// A relinked image keeps its remote address in `data-remote-src` (and its `srcset`, which a browser would prefer
/// to `src`, in `data-remote-srcset`), so that relinking again — after a failed image is fetched later, or after a
/// file was removed — starts from the original address.
package enum HTMLImageLinks {
  /// The attribute that keeps a relinked image's remote address.
  package static let remoteSourceAttribute = "data-remote-src"

  /// The remote address of every `<img>` in document order, each once: its `data-remote-src` when it was relinked,
  /// else its `src`, else the first candidate of its `srcset`, resolved against `base` (RFC 3986 §5); only `http`
  /// and `https` addresses.
  package static func sources(inHTML html: String, base: URL? = nil) -> [URL] {
    let document = HTMLDocument(html: html, url: base)
    var seen = Set<String>()
    var urls: [URL] = []
    for image in document.root?.descendants(named: "img") ?? [] {
      guard let url = remote(of: image, base: base), seen.insert(url.absoluteString).inserted else { continue }
      urls.append(url)
    }
    return urls
  }

  /// `html` with each `<img>` whose remote address is a key of `files` pointing at its value (`src`), the remote
  /// address kept in `data-remote-src` and `srcset` moved to `data-remote-srcset`; an image whose address is not a
  /// key is left as it is. Returns the fragment's body as HTML (libxml2's serialiser).
  package static func relinking(_ html: String, to files: [URL: URL], base: URL? = nil) -> String {
    let document = HTMLDocument(html: html, url: base)
    let byText = Dictionary(files.map { ($0.key.absoluteString, $0.value) }, uniquingKeysWith: { first, _ in first })
    for image in document.root?.descendants(named: "img") ?? [] {
      guard let url = remote(of: image, base: base), let local = byText[url.absoluteString] else { continue }
      image.setAttribute(remoteSourceAttribute, to: url.absoluteString)
      image.setAttribute("src", to: local.absoluteString)
      if let srcset = image["srcset"] {
        image.setAttribute("data-remote-srcset", to: srcset)
        image.removeAttribute("srcset")
      }
    }
    return document.body?.innerHTML ?? html
  }

  /// The image's remote address: its `data-remote-src`, else its `src`, else — when `src` is absent, empty or no
  /// `http(s)` address (a `data:` placeholder left by a lazy loader) — the first candidate of its `srcset` (an
  /// image a `<picture>` gives only by `srcset`), each resolved against `base`.
  private static func remote(of image: HTMLNode, base: URL?) -> URL? {
    if let kept = image[remoteSourceAttribute] { return webURL(kept, base: base) }
    if let src = image["src"].flatMap({ webURL($0, base: base) }) { return src }
    guard let srcset = image["srcset"],
      let first = srcset.split(separator: ",").first?.split(whereSeparator: \.isWhitespace).first
    else { return nil }
    return webURL(String(first), base: base)
  }

  /// `text` resolved against `base` (``URLReference``) when that is a web address (``Foundation/URL/isWebURL``),
  /// else `nil`.
  private static func webURL(_ text: String, base: URL?) -> URL? {
    guard let url = URLReference.resolve(text, against: base), url.isWebURL else { return nil }
    return url
  }
}
