import Foundation
import OfflineNews
import OfflineNewsModel

/// Dates as the sync APIs write them.
enum ServedDates {
  /// RFC 3339 in UTC to the second (`2024-01-01T04:00:00Z`), as Miniflux (Go's `time.RFC3339`) and Google Reader's
  /// Atom write them; clients such as newsboat parse no fraction of a second. The fraction is dropped (rounded down).
  static func rfc3339(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20)
    Timestamp(date).appendRFC3339(to: &bytes, fraction: false)
    return String(decoding: bytes, as: UTF8.self)
  }
}
