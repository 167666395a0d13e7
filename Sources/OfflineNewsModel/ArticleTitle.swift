import Foundation

/// Titles for items that have none (RSS 2.0 makes `title` optional; microblog posts and many JSON Feed items have
/// only text).
package enum ArticleTitle {
  /// The most characters a derived title keeps before it is cut at a word and ends with `…`.
  package static let maximumLength = 80

  /// A title derived from an item's text: its first sentence (up to `.`, `!`, `?` or a line break, the mark kept),
  /// whitespace collapsed, cut at the last word boundary within ``maximumLength`` characters with `…` appended;
  /// `nil` when the text is empty. The text should be plain (render HTML to text first); any markup left is kept
  /// as text.
  package static func derived(from text: String?) -> String? {
    guard let text else { return nil }
    let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
    guard !words.isEmpty else { return nil }
    // The first line's first sentence.
    let firstLine =
      text.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? text
    var sentence = firstLine.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    if let end = sentence.firstIndex(where: { ".!?".contains($0) }), end < sentence.index(before: sentence.endIndex) {
      let next = sentence.index(after: end)
      if sentence[next] == " " { sentence = String(sentence[...end]) }
    }
    guard sentence.count > maximumLength else { return sentence }
    let cut = sentence.prefix(maximumLength)
    let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
    return atWord.trimmingCharacters(in: .whitespaces) + "…"
  }
}
