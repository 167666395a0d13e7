extension FeedItem {
  /// The most characters a derived title has (before its `…`).
  package static let derivedTitleLength = 80

  /// The title an item without one gets, from its text (39 of the 50 items of Scripting News have no `<title>`, and
  /// a microblog's posts never do).
  ///
  /// For example:
  /// ```swift
  /// FeedItem.derivedTitle(from: "Went to the beach. The water was cold.")  // "Went to the beach."
  /// ```
  ///
  /// The rule: white space collapsed and trimmed; then the first sentence — up to the first `.`, `!`, `?` or `…`
  /// that is followed by a space — when it has at most ``derivedTitleLength`` characters (grapheme clusters); else the
  /// whole text when it is that short; else its first ``derivedTitleLength`` characters, cut back to the last space
  /// (when that leaves more than half of them) and without a trailing `,`, `;` or `:`, followed by `…`.
  ///
  /// ``FeedParser`` calls it with the plain text (``FeedText/plainText``) of the item's summary, else its content.
  /// An item with no text at all is titled by its link (host and path), else `Untitled`.
  ///
  /// - Returns: the title; `nil` when `text` has nothing but white space.
  package static func derivedTitle(from text: String) -> String? {
    let text = text.collapsingWhiteSpace
    guard !text.isEmpty else { return nil }
    let characters = Array(text)
    let limit = derivedTitleLength
    for index in characters.indices.prefix(limit) where index > 0 && ".!?…".contains(characters[index]) {
      let next = index + 1
      if next == characters.count || characters[next] == " " {
        return String(characters[...index])
      }
    }
    if characters.count <= limit { return text }
    var cut = limit
    if let space = characters[..<limit].lastIndex(of: " "), space > limit / 2 { cut = space }
    var head = String(characters[..<cut])
    while let last = head.last, last == " " || last == "," || last == ";" || last == ":" { head.removeLast() }
    return head + "…"
  }
}
