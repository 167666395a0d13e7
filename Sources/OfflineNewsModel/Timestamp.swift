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
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z.
  public var millisecondsSince1970: Int64

  /// Creates a timestamp from milliseconds since 1970-01-01T00:00:00Z.
  public init(millisecondsSince1970: Int64) {
    self.millisecondsSince1970 = millisecondsSince1970
  }

  /// Creates a timestamp from a `Date`, truncating toward the earlier whole millisecond.
  ///
  /// A `Date` made from whole milliseconds (as ``date`` makes them) comes back exactly: `Double` seconds cannot hold
  /// most millisecond values exactly, so a product within a microsecond of a whole millisecond is taken as that
  /// millisecond rather than truncated to the one before.
  public init(_ date: Date) {
    let exact = date.timeIntervalSince1970 * 1000
    let nearest = exact.rounded()
    let ms = abs(exact - nearest) < 1e-3 ? nearest : exact.rounded(.down)
    // Dates beyond ±292 million years do not fit; clamp rather than trap.
    millisecondsSince1970 = ms >= 9.2e18 ? .max : ms <= -9.2e18 ? .min : Int64(ms)
  }

  /// The current time, truncated to milliseconds.
  public static func now() -> Timestamp { Timestamp(Date()) }

  /// The same instant as a `Date`.
  public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.millisecondsSince1970 < rhs.millisecondsSince1970
  }

  public var description: String { rfc3339String }
}
