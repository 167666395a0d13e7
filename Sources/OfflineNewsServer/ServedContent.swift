import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The HTML the server serves as an article's content: the stored full text (``Article/fullTextHTML``, fetched
/// from the article's page) when there is one, else the feed's content, else its summary, else nothing; a text of
/// white space only counts as none.
///
/// The one place every API and the web reader take content from (``ServedLibrary/sanitizedContent(of:imagePrefix:remoteImages:)``
/// sanitises what it chooses), so that rewriting it (sanitising, pointing image URLs at the server's own copies)
/// is one change.
func servedContent(of article: Article) -> String {
  for candidate in [article.fullTextHTML, article.content, article.summary] {
    if let candidate, candidate.contains(where: { !$0.isWhitespace }) { return candidate }
  }
  return ""
}

extension ServedLibrary {
  /// `articles` as the sync APIs serve them: an article whose stored full text has images kept offline gets that
  /// text sanitised with those images at the server's own URLs (`origin` + `/images/{handle}/{position}`,
  /// ``sanitizedContent(of:imagePrefix:remoteImages:)``; the full text as the store keeps it points at local
  /// `file:` URLs, which no client can load); the others are served as they are (``servedContent(of:)``). Only
  /// articles with a full text are rewritten: one image lookup and one parse each.
  ///
  /// - Parameter origin: the server as the client reached it (`http://127.0.0.1:8080`); `nil` leaves the articles.
  func servingImages(_ articles: [Article], origin: String?) async -> [Article] {
    guard let origin, articles.contains(where: { $0.fullTextHTML?.contains("file:") == true }) else { return articles }
    var served = articles
    for index in served.indices where served[index].fullTextHTML?.contains("file:") == true {
      served[index].fullTextHTML = await sanitizedContent(of: served[index], imagePrefix: origin, remoteImages: .keep)
    }
    return served
  }
}

/// The server as a client reached it, for absolute URLs in what the APIs serve: `http(s)://` and the request's
/// `Host` (checked by the front door), `https` when a TLS proxy says so (`X-Forwarded-Proto: https`); `nil` without
/// a `Host`.
func requestOrigin(_ request: ServerRequest) -> String? {
  guard let host = request.header("host"), !host.isEmpty else { return nil }
  let scheme = request.header("x-forwarded-proto")?.lowercased() == "https" ? "https" : "http"
  return scheme + "://" + host
}

/// The minutes an article takes to read, as Miniflux counts them: its words at 265 a minute, at least 1 when it has
/// any word.
func readingMinutes(of article: Article) -> Int {
  let text = article.fullText ?? article.contentText ?? article.summaryText ?? article.summary ?? ""
  var words = 0
  var inWord = false
  for scalar in text.unicodeScalars {
    let letter = !isWhitespaceOrNewline(scalar)
    if letter && !inWord { words += 1 }
    inWord = letter
  }
  return words == 0 ? 0 : max(1, (words + 264) / 265)
}

/// Whether `scalar` is in `CharacterSet.whitespacesAndNewlines` (Unicode's space separators, Zs, U+200B and the tab; the
/// line and paragraph separators, Zl and Zp, and the controls U+000A–U+000D and U+0085), without its lookup, which
/// cost more than the rest of a Miniflux entry (`ServedContentTests` compares the two over every scalar).
func isWhitespaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar.value {
  case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
  default: false
  }
}
