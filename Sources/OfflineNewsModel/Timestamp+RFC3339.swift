extension Timestamp {
  /// Parses an RFC 3339 / ISO 8601 date-time into an instant, keeping whole milliseconds (extra digits truncated).
  ///
  /// Accepted shapes (RFC 3339 §5.6, <https://www.rfc-editor.org/rfc/rfc3339#section-5.6>, plus the ISO 8601
  /// variants real APIs send):
  /// - `2021-08-29T06:52:24Z`, with `T`, `t` or a space between date and time;
  /// - a fraction of 1 to 9 digits: `…24.2917287Z` is `…24.291Z`;
  /// - offsets `Z`, `z`, `+00:00`, `-05:30` and `+0200` (no colon);
  /// - a date alone, `2021-08-29`, meaning midnight UTC;
  /// - a time with no offset only when `assumingOffset` is given (seconds east of UTC).
  ///
  /// Fields are range-checked (month 1–12, day within the month, hour 0–23, minute 0–59, second 0–60 where 60 is a
  /// leap second counted as the next second). Anything else returns `nil`; this initializer never traps.
  ///
  /// Foundation's `Date.ISO8601FormatStyle` parses the same instants (the tests use it as an oracle), but goes
  /// through `Double` seconds, which cannot say whether `.123` is 123 or 122.999… ms; this parser is exact.
  ///
  /// - Parameters:
  ///   - text: the date-time text.
  ///   - assumingOffset: the UTC offset in seconds for a date-time that has none; `nil` rejects such text.
  package init?(rfc3339 text: some StringProtocol, assumingOffset: Int? = nil) {
    var text = String(text)
    guard
      let ms = text.withUTF8({ bytes in
        Timestamp.parse(bytes, assumingOffset: assumingOffset)
      })
    else { return nil }
    self.init(millisecondsSince1970: ms)
  }

  /// Parses ISO 8601 date-time text as JSON APIs send it: every form of ``init(rfc3339:assumingOffset:)``, and a
  /// time without seconds (ISO 8601's reduced precision, W3C-DTF's `hh:mm`): `2018-01-06T08:00`,
  /// `2018-01-06T08:00+02:00`, read as `…T08:00:00`.
  ///
  /// The one date-time rule of the JSON readers — the NewsAPI decoder and every mapped `date` attribute — and of
  /// W3C-DTF's times (``init(w3cdtf:assumingOffset:)``), so that the same text is the same instant whichever path
  /// reads it.
  ///
  /// - Parameters:
  ///   - text: the date-time text.
  ///   - assumingOffset: the UTC offset in seconds for a date-time that has none; `nil` rejects such text.
  package init?(iso8601 text: some StringProtocol, assumingOffset: Int? = nil) {
    if let timestamp = Timestamp(rfc3339: text, assumingOffset: assumingOffset) {
      self = timestamp
      return
    }
    let utf8 = Array(text.utf8)
    func isDigit(_ index: Int) -> Bool { index < utf8.count && utf8[index] &- 0x30 < 10 }
    // "YYYY-MM-DDThh:mm" followed by a zone designator (or nothing): insert ":00" for the seconds.
    guard utf8.count >= 16, utf8[10] == 0x54 || utf8[10] == 0x74 || utf8[10] == 0x20, isDigit(11), isDigit(12),
      utf8[13] == 0x3A, isDigit(14), isDigit(15),
      utf8.count == 16 || utf8[16] == 0x5A || utf8[16] == 0x7A || utf8[16] == 0x2B || utf8[16] == 0x2D
    else { return nil }
    let withSeconds =
      String(decoding: utf8[0..<16], as: UTF8.self) + ":00" + String(decoding: utf8[16...], as: UTF8.self)
    guard let timestamp = Timestamp(rfc3339: withSeconds, assumingOffset: assumingOffset) else { return nil }
    self = timestamp
  }

  /// The instant as RFC 3339 text in UTC with exactly three fraction digits, e.g. `2021-08-29T06:52:24.291Z`.
  package var rfc3339String: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    appendRFC3339(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the instant as RFC 3339 text in UTC to `bytes` (UTF-8): ``rfc3339String``'s text, or with `fraction`
  /// `false` the same without its fraction, rounded down to the second (`2021-08-29T06:52:24Z`, what the sync APIs
  /// of `news serve` write). The year has four digits at least, and a `-` before it when negative.
  package func appendRFC3339(to bytes: inout [UInt8], fraction: Bool = true) {
    let (days, msOfDay) = millisecondsSince1970.floorDivided(by: 86_400_000)
    let (year, month, day) = Timestamp.civil(fromDays: days)
    /// `value` (≥ 0) in decimal, zero-padded to `width` digits.
    func digits(_ value: Int64, _ width: Int) {
      var divisor: Int64 = 1
      var count = 1
      while value / divisor >= 10 {
        divisor *= 10
        count += 1
      }
      if count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
      while divisor > 0 {
        bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
        divisor /= 10
      }
    }
    if year < 0 { bytes.append(UInt8(ascii: "-")) }
    digits(abs(year), 4)
    bytes.append(UInt8(ascii: "-"))
    digits(month, 2)
    bytes.append(UInt8(ascii: "-"))
    digits(day, 2)
    bytes.append(UInt8(ascii: "T"))
    digits(msOfDay / 3_600_000, 2)
    bytes.append(UInt8(ascii: ":"))
    digits(msOfDay / 60_000 % 60, 2)
    bytes.append(UInt8(ascii: ":"))
    digits(msOfDay / 1000 % 60, 2)
    if fraction {
      bytes.append(UInt8(ascii: "."))
      digits(msOfDay % 1000, 3)
    }
    bytes.append(UInt8(ascii: "Z"))
  }

  // MARK: - Parsing

  private static func parse(_ s: UnsafeBufferPointer<UInt8>, assumingOffset: Int?) -> Int64? {
    var i = 0
    let n = s.count

    func digits(_ count: Int) -> Int64? {
      guard i + count <= n else { return nil }
      var value: Int64 = 0
      for k in i..<(i + count) {
        let d = s[k] &- 0x30
        guard d < 10 else { return nil }
        value = value * 10 + Int64(d)
      }
      i += count
      return value
    }
    func expect(_ byte: UInt8) -> Bool {
      guard i < n, s[i] == byte else { return false }
      i += 1
      return true
    }

    guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else {
      return nil
    }
    guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    if i == n { return days * 86_400_000 }  // date only: midnight UTC

    guard i < n, s[i] == 0x54 || s[i] == 0x74 || s[i] == 0x20 else { return nil }  // T, t or space
    i += 1
    guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else {
      return nil
    }
    guard hour <= 23, minute <= 59, second <= 60 else { return nil }

    var milli: Int64 = 0
    if i < n, s[i] == 0x2E || s[i] == 0x2C {  // '.' (or ',' which ISO 8601 allows)
      i += 1
      guard let fraction = fractionMilliseconds(s, at: &i) else { return nil }
      milli = fraction
    }

    var offsetSeconds: Int64
    if i == n {
      // An offset beyond ±24 h is not an offset (and must not overflow the arithmetic below).
      guard let assumed = assumingOffset, assumed > -86_400, assumed < 86_400 else { return nil }
      offsetSeconds = Int64(assumed)
    } else if s[i] == 0x5A || s[i] == 0x7A {  // Z or z
      i += 1
      offsetSeconds = 0
    } else if s[i] == 0x2B || s[i] == 0x2D {  // + or -
      let sign: Int64 = s[i] == 0x2D ? -1 : 1
      i += 1
      guard let oh = digits(2) else { return nil }
      _ = expect(0x3A)  // ±HH:MM or ±HHMM
      guard let om = digits(2), oh <= 23, om <= 59 else { return nil }
      offsetSeconds = sign * (oh * 3600 + om * 60)
    } else {
      return nil
    }
    guard i == n else { return nil }
    return milliseconds(days: days, hour: hour, minute: minute, second: second, milli: milli, offset: offsetSeconds)
  }

  /// The fraction of a second whose digits start at `i` in `bytes`, in whole milliseconds (digits past the third
  /// are read and dropped), `i` moved past them; `nil` without a digit or with more than 9 (nanoseconds).
  static func fractionMilliseconds(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> Int64? {
    var milli: Int64 = 0
    var count = 0
    while i < bytes.count, bytes[i] &- 0x30 < 10 {
      if count < 3 { milli = milli * 10 + Int64(bytes[i] &- 0x30) }
      count += 1
      i += 1
    }
    guard (1...9).contains(count) else { return nil }
    if count < 3 { for _ in count..<3 { milli *= 10 } }
    return milli
  }

  /// Milliseconds since 1970 of the civil time `hour:minute:second.milli` of day `days` (``daysFromCivil(year:month:day:)``)
  /// at `offset` seconds east of UTC; `nil` outside the instants that print back as four-digit years
  /// (0000-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z), so that every parsed value round-trips through
  /// `rfc3339String`. The one computation of RFC 3339, RFC 822 and the numeric feed dates.
  static func milliseconds(days: Int64, hour: Int64, minute: Int64, second: Int64, milli: Int64, offset: Int64)
    -> Int64?
  {
    let milliseconds = (days * 86_400 + hour * 3600 + minute * 60 + second - offset) * 1000 + milli
    guard milliseconds >= -62_167_219_200_000, milliseconds <= 253_402_300_799_999 else { return nil }
    return milliseconds
  }

  // MARK: - Calendar arithmetic (proleptic Gregorian)
  // Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms", <https://howardhinnant.github.io/date_algorithms.html>

  static func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// Year, month (1–12) and day (1–31) of day `z0` counted from 1970-01-01 (proleptic Gregorian; Howard Hinnant's
  /// `civil_from_days`, <https://howardhinnant.github.io/date_algorithms.html>).
  package static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
  }
}

extension Int64 {
  /// Division rounding toward negative infinity, with a remainder in `0..<divisor`.
  fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    let (q, r) = quotientAndRemainder(dividingBy: divisor)
    return r < 0 ? (q - 1, r + divisor) : (q, r)
  }
}
