/// The one rule for a hint that names what could have been meant: at most ``shown`` names, the nearest to what was
/// typed first, then how many there are in all — never a list of hundreds on one line.
///
/// For example, `sources: Swift, Swiftly, ATP, … (206 in all; 'news sources' lists them)` for `--source swfit`.
enum NameHint {
  /// How many names a hint shows.
  static let shown = 8

  /// `label: a, b, … (N in all; more)` (`(N in all)` without `more`, for a hint that goes on to say where to see
  /// them); `names` in their sorted order when nothing was typed, else the nearest to `typed` first
  /// (``distance(_:_:)`` without regard to case, ties in sorted order). Empty `names` give `""`.
  static func text(_ label: String, _ names: some Collection<String>, typed: String? = nil, more: String? = nil)
    -> String
  {
    guard !names.isEmpty else { return "" }
    var ordered = names.sorted()
    if let typed {
      let key = Array(typed.lowercased().unicodeScalars)
      let distances = Dictionary(
        ordered.map { ($0, distance(key, Array($0.lowercased().unicodeScalars))) }, uniquingKeysWith: { a, _ in a })
      ordered.sort { (distances[$0] ?? 0, $0) < (distances[$1] ?? 0, $1) }
    }
    var text = label + ": " + ordered.prefix(shown).joined(separator: ", ")
    if ordered.count > shown { text += ", … (\(ordered.count) in all" + (more.map { "; " + $0 } ?? "") + ")" }
    return text
  }

  /// The one of `names` nearest to `typed` (``distance(_:_:)`` without regard to case), when it is near enough to be
  /// what was meant: at most one edit in four characters of the name, at least one (`lsit` is `list`, `--unred`
  /// `unread`); ties in sorted order. `nil` when none is.
  static func closest(to typed: String, among names: some Collection<String>) -> String? {
    let key = Array(typed.lowercased().unicodeScalars)
    let near = names.sorted().map { ($0, distance(key, Array($0.lowercased().unicodeScalars))) }
      .filter { $0.1 <= max(1, $0.0.unicodeScalars.count / 4) }
    return near.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
  }

  /// The edit distance of two texts: the fewest insertions, deletions, substitutions of one character (Unicode
  /// scalar) and swaps of two neighbours (the commonest typo: `lsit`) that make one the other (the optimal string
  /// alignment distance, Damerau's variant of Levenshtein's).
  static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], beforePrevious[j - 2] + 1)
        }
      }
      (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
  }
}
