import Foundation

/// Titles for items that have none (RSS 2.0 makes `title` optional; microblog posts and many JSON Feed items have
/// only text): the one rule for every source format, so that the same untitled post read as RSS, Atom or JSON Feed
/// gets the same title (the feed readers, `ItemDraft`, and the article writer for mapped records, JSON Feed's
/// included, all call it).
package enum ArticleTitle {
  /// The most characters (grapheme clusters) a derived title has before its `…`.
  package static let maximumLength = 80

  /// The title an item gives, as every source's is kept: without leading and trailing white space (spaces, tabs,
  /// line breaks), the rest as given; `nil` when it is `nil` or nothing but white space (the item then has no title:
  /// a reader that requires one skips it, the others derive one, ``derived(from:)``).
  ///
  /// The NewsAPI decoder and the article writer of mapped records (every mapping's `title`) both call it, so that
  /// `news import FILE` and `news import FILE --mapping newsapi` store the same title.
  ///
  /// For example:
  /// ```swift
  /// ArticleTitle.given("  Storm Isolde\n")  // "Storm Isolde"
  /// ArticleTitle.given(" \t ")             // nil
  /// ```
  package static func given(_ text: String?) -> String? {
    guard let text else { return nil }
    let scalars = text.unicodeScalars
    // Almost every title has no white space at either end: returned as it is, uncopied.
    guard let first = scalars.first, let last = scalars.last else { return nil }
    guard first.isWhiteSpace || last.isWhiteSpace else { return text }
    guard let start = scalars.firstIndex(where: { !$0.isWhiteSpace }),
      let end = scalars.lastIndex(where: { !$0.isWhiteSpace })
    else { return nil }
    return String(scalars[start...end])
  }

  /// The title an item without one gets from its plain text (render HTML to text first; any markup left is kept as
  /// text).
  ///
  /// For example:
  /// ```swift
  /// ArticleTitle.derived(from: "Went to the beach. The water was cold.")  // "Went to the beach."
  /// ```
  ///
  /// The rule: the text's first paragraph (up to the first blank line), white space collapsed and trimmed; then its
  /// first sentence — up to the first `.`, `!`, `?` or `…` that is followed by a space — when it has at most
  /// ``maximumLength`` characters; else the whole paragraph when it is that short; else its first ``maximumLength``
  /// characters, cut back to the last space (when that leaves more than half of them) and without a trailing `,`,
  /// `;` or `:`, followed by `…`.
  ///
  /// - Returns: the title; `nil` when `text` is `nil` or has nothing but white space.
  package static func derived(from text: String?) -> String? {
    guard let text else { return nil }
    let paragraph = firstParagraph(text).split(whereSeparator: { $0.isWhitespace || $0.isNewline })
      .joined(separator: " ")
    guard !paragraph.isEmpty else { return nil }
    let characters = Array(paragraph)
    let limit = maximumLength
    for index in characters.indices.prefix(limit) where index > 0 && ".!?…".contains(characters[index]) {
      let next = index + 1
      if next == characters.count || characters[next] == " " {
        return String(characters[...index])
      }
    }
    if characters.count <= limit { return paragraph }
    var cut = limit
    if let space = characters[..<limit].lastIndex(of: " "), space > limit / 2 { cut = space }
    var head = String(characters[..<cut])
    while let last = head.last, last == " " || last == "," || last == ";" || last == ":" { head.removeLast() }
    return head + "…"
  }

  /// The title of an item with no title and no text: its link's host and path (`example.org/posts/7`), else
  /// `Untitled`.
  package static func fallback(link: URL?) -> String {
    guard let link, let host = link.host else { return "Untitled" }
    return host + (link.path == "/" ? "" : link.path)
  }

  /// The lines of `text` up to its first blank line (one with nothing but white space) after some text.
  private static func firstParagraph(_ text: String) -> Substring {
    var start: String.Index?
    var lineStart = text.startIndex
    var index = text.startIndex
    while index < text.endIndex {
      if text[index].isNewline {
        let line = text[lineStart..<index]
        if line.allSatisfy(\.isWhitespace) {
          if let start { return text[start..<lineStart] }
        } else if start == nil {
          start = lineStart
        }
        lineStart = text.index(after: index)
      }
      index = text.index(after: index)
    }
    return text[(start ?? lineStart)...]
  }
}
