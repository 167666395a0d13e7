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

    let spaced = spacedSeparators(scalars)
    if let last = spaced.last {
      // `/ [\|\-\\\/>»] /`: a separator with a space on both sides; everything before the last one.
      hadHierarchicalSeparators = spaced.contains { hierarchical.contains(scalars[$0 + 1]) }
      title = string(scalars[..<last])
      if JSString.wordCount(title) < 3 {
        // `/^[^\|\-\\\/>»]*[\|\-\\\/>»]/` removed: everything after the first separator.
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

  /// The start (the first space) of each match of `/ [\|\-\\\/>»] /g`, left to right, matches not overlapping.
  private static func spacedSeparators(_ scalars: [Unicode.Scalar]) -> [Int] {
    var starts: [Int] = []
    var index = 0
    while index + 2 < scalars.count {
      if scalars[index] == " " && separators.contains(scalars[index + 1]) && scalars[index + 2] == " " {
        starts.append(index)
        index += 3
      } else {
        index += 1
      }
    }
    return starts
  }

  private static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars)
    return String(view)
  }
}
