import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// Reads `date` attributes: ISO 8601 / RFC 3339 text, Unix time in four units, or text in a declared pattern.
/// Every result is an instant in UTC milliseconds within the years 0000–9999 (what RFC 3339 can write back).
enum DateConversion {
  /// The first and last instants a date may be: 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (ms since 1970).
  static let range: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

  static func convert(_ value: JSONValue, _ options: ConversionOptions) -> Result<Converted, ValueConverter.Problem> {
    let mapping = options.mapping
    switch value {
    case .string(let text):
      if let unit = mapping.unixTime {
        let trimmed = text.trimmingWhiteSpace
        if let exact = Int64(trimmed) { return unix(exact: exact, Double(exact), unit, text: trimmed) }
        if let number = Double(trimmed) { return unix(exact: nil, number, unit, text: trimmed) }
      }
      if let formatter = options.formatter, let format = mapping.dateFormat {
        guard let date = formatter.date(from: text) else {
          return .failure(.init("not a date in the pattern \"\(format.pattern)\": \(value)"))
        }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds >= Double(range.lowerBound), milliseconds <= Double(range.upperBound) else {
          return .failure(.init("\(value) is outside the years 0000–9999"))
        }
        return .success(Converted(value: .integer(Int64(milliseconds))))
      }
      return iso8601(text, options)
    case .integer(let number):
      guard let unit = mapping.unixTime else {
        return .failure(.init("a number for a date: declare \"unixTime\": \"seconds\" (or milliseconds, …)"))
      }
      return unix(exact: number, Double(number), unit, text: String(number))
    case .number(let number):
      guard let unit = mapping.unixTime else {
        return .failure(.init("a number for a date: declare \"unixTime\": \"seconds\" (or milliseconds, …)"))
      }
      return unix(exact: nil, number, unit, text: String(number))
    default: return .failure(.init("expected a date, found \(ValueConverter.kind(value))"))
    }
  }

  /// ISO 8601 through ``Timestamp/init(iso8601:assumingOffset:)`` (RFC 3339, and `hh:mm` without seconds: the rule
  /// the NewsAPI decoder reads by too); a time without an offset takes the attribute's `assumeOffset`, else the
  /// mapping's (with a caveat), else is refused.
  static func iso8601(_ text: String, _ options: ConversionOptions) -> Result<Converted, ValueConverter.Problem> {
    if let timestamp = Timestamp(iso8601: text, assumingOffset: options.mapping.assumedOffset) {
      return .success(Converted(value: .integer(timestamp.millisecondsSince1970)))
    }
    if options.mapping.assumedOffset == nil, let offset = options.defaultOffset,
      let timestamp = Timestamp(iso8601: text, assumingOffset: offset)
    {
      return .success(
        Converted(
          value: .integer(timestamp.millisecondsSince1970),
          caveat:
            "no UTC offset in \(JSONValue.string(text)): read as \(offsetText(offset)) (the mapping's assumeOffset)"))
    }
    var hint = ""
    if Timestamp(iso8601: text, assumingOffset: 0) != nil {
      hint = " (no UTC offset: declare \"assumeOffset\", e.g. \"Z\")"
    } else if text.contains("/") || text.contains(where: \.isLetter) && !text.contains("T") {
      hint = " (for another pattern declare \"format\", e.g. \"M/d/yyyy H:mm\")"
    }
    return .failure(.init("not an RFC 3339 date-time: \(JSONValue.string(text))\(hint)"))
  }

  static func offsetText(_ seconds: Int) -> String {
    if seconds == 0 { return "UTC" }
    let minutes = abs(seconds) / 60
    let hours = String(minutes / 60)
    let rest = String(minutes % 60)
    return (seconds < 0 ? "-" : "+") + (hours.count < 2 ? "0" + hours : hours) + ":"
      + (rest.count < 2 ? "0" + rest : rest)
  }

  /// Milliseconds since 1970 of a Unix time, range-checked. Integers are exact; fractions of a second are
  /// truncated to the millisecond (toward earlier instants).
  static func unix(exact: Int64?, _ number: Double, _ unit: UnixTime, text: String) -> Result<
    Converted, ValueConverter.Problem
  > {
    guard number.isFinite else { return .failure(.init("Unix time \(text) is not a number")) }
    let perMillisecond: Double
    switch unit {
    case .seconds: perMillisecond = 0.001
    case .milliseconds: perMillisecond = 1
    case .microseconds: perMillisecond = 1000
    case .nanoseconds: perMillisecond = 1_000_000
    }
    let approximate = number / perMillisecond
    guard approximate >= Double(range.lowerBound), approximate <= Double(range.upperBound) else {
      var hint = ""
      for smaller in UnixTime.allCases.drop(while: { $0 != unit }).dropFirst() {
        if case .success = Self.unix(exact: nil, number, smaller, text: text) {
          hint = ": if it is in \(smaller.rawValue), declare \"unixTime\": \"\(smaller.rawValue)\""
          break
        }
      }
      let side = approximate > 0 ? "after the year 9999" : "before the year 0000"
      return .failure(.init("Unix time \(text) (\(unit.rawValue)) is \(side)\(hint)"))
    }
    let milliseconds: Int64
    if let exact {
      switch unit {
      case .seconds: milliseconds = exact * 1000
      case .milliseconds: milliseconds = exact
      case .microseconds: milliseconds = floorDivide(exact, 1000)
      case .nanoseconds: milliseconds = floorDivide(exact, 1_000_000)
      }
    } else if unit == .seconds {
      // 1.001 s × 1000 is 1000.9999… in binary: take the nearest millisecond when within a microsecond of it.
      let product = number * 1000
      let nearest = product.rounded()
      milliseconds = Int64(abs(product - nearest) < 1e-3 ? nearest : product.rounded(.down))
    } else {
      milliseconds = Int64(approximate.rounded(.down))
    }
    return .success(Converted(value: .integer(milliseconds)))
  }

  static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
  }

  /// A formatter for a `format` pattern: the `en_US_POSIX` locale (fixed month names, Gregorian calendar), strict.
  static func formatter(_ format: DateFormat) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.timeZone = format.timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")
    formatter.isLenient = false
    formatter.dateFormat = format.pattern
    return formatter
  }
}
