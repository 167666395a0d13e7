/// How every issue about a document's records or values is written for a person, in one place: `PLACE: MESSAGE`,
/// where the place is a key path (`articles[3].publishedAt`, `item[2].link`) with what else names the record, or the
/// message alone for an issue that belongs to the whole document (no key path): never a dangling `: MESSAGE`.
/// `RecordIssue` (a response's records), `RecordError` (a mapping's) and `FeedIssue` (a feed's or a subscription
/// list's) describe themselves with it.
package enum IssuePlace {
  /// `message` after `parts` (the place's parts that are not empty, joined by a space) and `: `; `message` alone
  /// when every part is empty.
  package static func text(_ message: String, at parts: String?...) -> String {
    let place = parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    return place.isEmpty ? message : "\(place): \(message)"
  }

  /// The key path `child` below `parent` (`pages[2].articles[3].url`); `parent` alone when `child` is empty (an
  /// issue of the whole of page 2 is at `pages[2]`).
  package static func path(_ parent: String, _ child: String) -> String {
    child.isEmpty ? parent : parent.isEmpty ? child : "\(parent).\(child)"
  }
}
