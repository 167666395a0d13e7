import OfflineNews
import OfflineNewsImport
import OfflineNewsNetwork

// Messages about the records a command skipped or could not import: counted by reason on standard error, listed
// with `--verbose` (every command that reads records tells them this one way).

extension OutputFormat {
  /// Problems with records, counted by reason and by what became of them (``RecordIssue/Outcome``), for one message
  /// on standard error: `1 skipped: NewsAPI [Removed] placeholder (--verbose lists it)`, or
  /// `3 skipped: 2 missing url, 1 not an RFC 3339 date-time; 1 value dropped: not an http(s) URL; 1 repeated url:
  /// the later record kept; 1 note: no encoding declared and the bytes are not UTF-8 (--verbose lists
  /// them)`. `nil` when there is none.
  ///
  /// A reason is counted by its words before the first `: ` (what was wrong, without the value: `not an RFC 3339
  /// date-time: "yesterday"` counts as `not an RFC 3339 date-time`); reasons come most frequent first, then in the
  /// order met.
  static func issueSummary(_ issues: [RecordIssue], verbose: Bool) -> String? {
    func reasons(_ outcome: RecordIssue.Outcome) -> [String] { issues.filter { $0.outcome == outcome }.map(\.reason) }
    var parts: [String] = []
    let skipped = reasons(.recordSkipped)
    if !skipped.isEmpty { parts.append("\(skipped.count) skipped: " + reasonCounts(skipped)) }
    let dropped = reasons(.valueDropped)
    if !dropped.isEmpty {
      let noun = dropped.count == 1 ? "value" : "values"
      parts.append("\(dropped.count) \(noun) dropped: " + reasonCounts(dropped))
    }
    let repeated = reasons(.replacedEarlier)
    if !repeated.isEmpty {
      parts.append("\(repeated.count) repeated url\(repeated.count == 1 ? "" : "s"): the later record kept")
    }
    let noted = reasons(.noted)
    if !noted.isEmpty {
      parts.append("\(noted.count) note\(noted.count == 1 ? "" : "s"): " + reasonCounts(noted))
    }
    guard !parts.isEmpty else { return nil }
    let listed = verbose ? "" : " (--verbose lists \(issues.count == 1 ? "it" : "them"))"
    return parts.joined(separator: "; ") + listed
  }

  /// `2 missing url, 1 not an RFC 3339 date-time`: each reason's words before `: ` (without a closing `; value
  /// dropped` or `; record skipped`, which the count's noun says), with its count when several reasons differ or a
  /// reason repeats.
  static func reasonCounts(_ reasons: [String]) -> String {
    var order: [String] = []
    var counts: [String: Int] = [:]
    for reason in reasons {
      var head = reason.range(of: ": ").map { String(reason[..<$0.lowerBound]) } ?? reason
      // What became of the value is the count's noun ("1 value dropped: …"): a reason that says it too (a feed's
      // "…; value dropped") does not say it twice.
      for outcome in ["; value dropped", "; record skipped"] where head.hasSuffix(outcome) {
        head.removeLast(outcome.count)
      }
      if counts[head] == nil { order.append(head) }
      counts[head, default: 0] += 1
    }
    let sorted = order.enumerated().sorted { a, b in
      let (countA, countB) = (counts[a.element] ?? 0, counts[b.element] ?? 0)
      return countA != countB ? countA > countB : a.offset < b.offset
    }.map(\.element)
    if sorted.count == 1 { return sorted[0] }
    return sorted.map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
  }
}

extension CommandContext {
  /// The problems with a response's records, on standard error: their summary by reason, then with `--verbose`
  /// one line each (`articles[4].url: missing url; record skipped`). Nothing when there is none.
  func reportIssues(_ issues: [RecordIssue], _ arguments: CommonArguments) {
    let verbose = arguments.verbose
    guard let summary = OutputFormat.issueSummary(issues, verbose: verbose) else { return }
    console.printNote(summary)
    if verbose { for issue in issues { console.printNote("  \(issue)") } }
  }
}

extension CommandContext {
  /// The records an import through a mapping could not take, on standard error: `2 records not imported: …` by
  /// reason (``OutputFormat/reasonCounts(_:)``), then with `--verbose` one line each (key path, entity, identity,
  /// reason), each line prefixed by `label` when given (`demo/Article: `). Nothing when there is none.
  func reportRecordErrors(_ errors: [RecordError], label: String = "", _ arguments: CommonArguments) {
    guard !errors.isEmpty else { return }
    let verbose = arguments.verbose
    let noun = errors.count == 1 ? "record" : "records"
    let listed = verbose ? "" : " (--verbose lists \(errors.count == 1 ? "it" : "them"))"
    console.printNote(
      "\(label)\(errors.count) \(noun) not imported: \(OutputFormat.reasonCounts(errors.map(\.reason)))\(listed)")
    if verbose { for error in errors { console.printNote("  \(label)\(error)") } }
  }
}
