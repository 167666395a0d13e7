import Foundation

/// An instant in UTC with millisecond precision, the unit every date is stored in.
///
/// The store keeps dates as a 64-bit count of milliseconds since 1970-01-01T00:00:00Z (Unix time), so that
/// comparisons and sorting are integer operations and no precision is lost or invented by floating point.
///
/// For example:
/// ```swift
/// let t = Timestamp(rfc3339: "2021-08-29T06:52:24.2917287Z")  // 1630219944291 ms
/// t?.rfc3339String  // "2021-08-29T06:52:24.291Z"
/// ```
package struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z.
  package var millisecondsSince1970: Int64

  /// Creates a timestamp from milliseconds since 1970-01-01T00:00:00Z.
  package init(millisecondsSince1970: Int64) {
    self.millisecondsSince1970 = millisecondsSince1970
  }

  /// Creates a timestamp from a `Date`, truncating toward the earlier whole millisecond.
  ///
  /// A `Date` made from whole milliseconds (as ``date`` makes them) comes back exactly: `Double` seconds cannot hold
  /// most millisecond values exactly, so the product `seconds × 1000` may fall just short of the whole millisecond;
  /// the next millisecond is taken when its own `Date` is this very `Date`.
  package init(_ date: Date) {
    let product = (date.timeIntervalSince1970 * 1000).rounded(.down)
    // Dates beyond ±292 million years do not fit; clamp rather than trap.
    guard product < 9.2e18, product > -9.2e18 else {
      millisecondsSince1970 = product > 0 ? .max : .min
      return
    }
    let floor = Int64(product)
    millisecondsSince1970 = Timestamp(millisecondsSince1970: floor + 1).date == date ? floor + 1 : floor
  }

  /// The current time, truncated to milliseconds.
  package static func now() -> Timestamp { Timestamp(Date()) }

  /// The same instant as a `Date`.
  package var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

  package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.millisecondsSince1970 < rhs.millisecondsSince1970
  }

  package var description: String { rfc3339String }
}
