/// The article title from a document's `<title>`, by Readability.js's rules (`_getArticleTitle`): a site name
/// after or before a separator is cut off, a `"Site: Story"` prefix is dropped, and a title too short or too long is
/// replaced by the page's only `<h1>`.
///
/// For example: `"Just-released Minecraft exploit makes it easy to crash game servers | Ars Technica"` →
/// `"Just-released Minecraft exploit makes it easy to crash game servers"`.
enum ArticleTitle {
  /// The separators Readability.js looks for between a title and a site name.
  private static let separators: Set<Unicode.Scalar> = ["|", "-", "\\", "/", ">", "»"]
  private static let hierarchical: Set<Unicode.Scalar> = ["\\", "/", ">", "»"]

  static func from(_ document: HTMLDocument) -> String {
    let original = JSString.trim(document.title)
    var title = original
    var hadHierarchicalSeparators = false
    let scalars = Array(original.unicodeScalars)

    if let last = lastSeparatorFollowedBySpace(scalars, requiringSpaceBefore: true) {
      // `/ [\|\-\\\/>»] /`: a separator with a space on both sides.
      hadHierarchicalSeparators = hasSpacedSeparator(scalars, in: hierarchical)
      // `(.*)[\|\-\\\/>»] .*` → `$1`: everything before the last separator followed by a space.
      title = string(scalars[..<(lastSeparatorFollowedBySpace(scalars, requiringSpaceBefore: false) ?? last)])
      if JSString.wordCount(title) < 3 {
        // `[^\|\-\\\/>»]*[\|\-\\\/>»](.*)` → `$1`: everything after the first separator.
        if let first = scalars.firstIndex(where: { separators.contains($0) }) {
          title = string(scalars[(first + 1)...])
        }
      }
    } else if original.contains(": ") {
      let headings = document.rawRoot.map { $0.descendants(["h1", "h2"]) } ?? []
      let trimmed = JSString.trim(title)
      let match = headings.contains { JSString.trim($0.textContent) == trimmed }
      if !match, let lastColon = scalars.lastIndex(of: ":"), let firstColon = scalars.firstIndex(of: ":") {
        title = string(scalars[(lastColon + 1)...])
        if JSString.wordCount(title) < 3 {
          title = string(scalars[(firstColon + 1)...])
        } else if JSString.wordCount(string(scalars[..<firstColon])) > 5 {
          title = original
        }
      }
    } else if JSString.length(title) > 150 || JSString.length(title) < 15 {
      let headings = document.rawRoot.map { $0.descendants("h1") } ?? []
      if headings.count == 1 { title = JSString.normalize(headings[0].textContent) }
    }

    title = JSString.normalize(title)
    let words = JSString.wordCount(title)
    if words <= 4 {
      let withoutSeparators = string(scalars.filter { !separators.contains($0) })
      if !hadHierarchicalSeparators || words != JSString.wordCount(withoutSeparators) - 1 {
        title = original
      }
    }
    return title
  }

  /// The index of the last separator that is followed by a space (and, when asked, preceded by one).
  private static func lastSeparatorFollowedBySpace(_ scalars: [Unicode.Scalar], requiringSpaceBefore: Bool) -> Int? {
    guard scalars.count >= 2 else { return nil }
    for index in stride(from: scalars.count - 2, through: 0, by: -1)
    where separators.contains(scalars[index]) && scalars[index + 1] == " " {
      if !requiringSpaceBefore || (index > 0 && scalars[index - 1] == " ") { return index }
    }
    return nil
  }

  private static func hasSpacedSeparator(_ scalars: [Unicode.Scalar], in set: Set<Unicode.Scalar>) -> Bool {
    guard scalars.count >= 3 else { return false }
    for index in 1..<(scalars.count - 1)
    where set.contains(scalars[index]) && scalars[index - 1] == " " && scalars[index + 1] == " " {
      return true
    }
    return false
  }

  private static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars)
    return String(view)
  }
}
