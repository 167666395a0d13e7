// libFuzzer target: the readable-article extractor, `ReadabilityExtractor().extract(from:url:)` on the input as a
// page's bytes (any encoding), against a fixed page URL.
//
// Built by scripts/fuzz.sh together with Sources/OfflineNewsHTML and the system libxml2 (see Fuzz/README.md).
// Properties checked on every input, each a crash when broken:
// - extraction never traps or hangs, whatever the bytes (libxml2 repairs any HTML; every walk is iterative);
// - it is deterministic: the same bytes give the same article twice (no state leaks between runs);
// - an article's `content` holds no <script>, <style>, <noscript>, form control or `javascript:` link, and
//   begins with Readability's page <div>; its `text` holds no control character but line feeds and tabs;
// - `title` and the other metadata hold no NUL.
import Foundation
import OfflineNewsHTML

private let pageURL = URL(string: "https://fuzz.example/news/2024/story.html")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(bytes: data, count: size)
  let extractor = ReadabilityExtractor()
  let article: ReadableArticle?
  do {
    article = try extractor.extract(from: bytes, url: pageURL)
  } catch {
    fatalError("extraction threw for \(size) bytes: \(error)")
  }
  guard let article else {
    if (try? extractor.extract(from: bytes, url: pageURL)) ?? nil != nil {
      fatalError("no article the first time, an article the second")
    }
    return 0
  }
  guard let again = try? extractor.extract(from: bytes, url: pageURL), again == article else {
    fatalError("the same bytes gave two different articles")
  }
  guard article.content.hasPrefix("<div id=\"readability-page-1\" class=\"page\">") else {
    fatalError("content does not start with the page div: \(article.content.prefix(200))")
  }
  let content = HTMLDocument(html: article.content)
  for name in ["script", "style", "noscript", "input", "button", "textarea", "select"]
  where !(content.body?.descendants(named: name).isEmpty ?? true) {
    fatalError("content keeps a <\(name)>: \(article.content.prefix(500))")
  }
  for link in content.body?.descendants(named: "a") ?? [] where isJavaScript(link["href"] ?? "") {
    fatalError("content keeps a javascript: link: \(String(reflecting: link["href"] ?? ""))")
  }
  if let bad = article.text.unicodeScalars.first(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }) {
    fatalError("text holds the control character U+\(String(bad.value, radix: 16))")
  }
  let metadata = [article.title, article.byline, article.excerpt, article.siteName, article.publishedTime]
  if metadata.contains(where: { $0?.contains("\u{0}") ?? false }) {
    fatalError("metadata holds a NUL")
  }
  return 0
}

/// The oracle for `javascript:` links, as the WHATWG URL Standard reads a URL: tabs and line breaks removed,
/// leading C0 controls and spaces stripped, the scheme case-insensitive.
private func isJavaScript(_ href: String) -> Bool {
  let kept = href.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }.drop { $0.value <= 0x20 }
  return String(String.UnicodeScalarView(kept.prefix(11))).lowercased() == "javascript:"
}
