import Foundation
import OfflineNews
import OfflineNewsModel

/// Dates as the sync APIs write them.
enum ServedDates {
  /// RFC 3339 in UTC to the second (`2024-01-01T04:00:00Z`), as Miniflux (Go's `time.RFC3339`) and Google Reader's
  /// Atom write them; clients such as newsboat parse no fraction of a second. The fraction is dropped (rounded down).
  static func rfc3339(_ date: Date) -> String {
    // `rfc3339String` always ends in `.mmmZ`.
    let text = Timestamp(date).rfc3339String
    guard text.hasSuffix("Z"), let dot = text.lastIndex(of: ".") else { return text }
    return text[..<dot] + "Z"
  }
}
