import Foundation
import OfflineNews
import OfflineNewsModel

/// The HTML the sync APIs serve as an article's content: the stored full text (``Article/fullTextHTML``, fetched
/// from the article's page) when there is one, else the feed's content, else its summary, else nothing.
///
/// The one place every API takes content from, so that rewriting it (sanitising, pointing image URLs at the
/// server's own copies) is one change.
func servedContent(of article: Article) -> String {
  for candidate in [article.fullTextHTML, article.content, article.summary] {
    if let candidate, !candidate.isEmpty { return candidate }
  }
  return ""
}

/// The minutes an article takes to read, as Miniflux counts them: its words at 265 a minute, at least 1 when it has
/// any word.
func readingMinutes(of article: Article) -> Int {
  let text = article.fullText ?? article.contentText ?? article.summaryText ?? article.summary ?? ""
  var words = 0
  var inWord = false
  for scalar in text.unicodeScalars {
    let letter = !CharacterSet.whitespacesAndNewlines.contains(scalar)
    if letter && !inWord { words += 1 }
    inWord = letter
  }
  return words == 0 ? 0 : max(1, (words + 264) / 265)
}
