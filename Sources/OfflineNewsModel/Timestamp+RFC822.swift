extension Timestamp {
  /// Parses an RFC 822 / RFC 5322 date-time as real feeds write it (RSS `pubDate`, HTTP-era dates) into an instant.
  ///
  /// For example:
  /// ```swift
  /// Timestamp(rfc822: "Sun, 17 Jan 2021 23:46:22 +0100")?.rfc3339String  // "2021-01-17T22:46:22.000Z"
  /// Timestamp(rfc822: "5 Jul 17 9:05 PDT")?.rfc3339String             // "2017-07-05T16:05:00.000Z"
  /// ```
  ///
  /// The grammar is RFC 5322 §3.3 (<https://www.rfc-editor.org/rfc/rfc5322#section-3.3>) with its obsolete forms
  /// (§4.3) and the variants feeds are known to send:
  /// - an optional day name (`Sun`, `Sunday`), with or without its comma; it is not checked against the date;
  /// - a day of one or two digits; a month name of three letters or in full (`Jan`, `January`, also `Sept`), in any
  ///   letter case;
  /// - a four-digit year, or a two-digit one (`00`–`49` → 2000–2049, `50`–`99` → 1950–1999) or three-digit one
  ///   (+ 1900), per RFC 5322 §4.3;
  /// - a time `hh:mm` or `hh:mm:ss` (the hour may have one digit), optionally with a fraction of a second (kept to
  ///   the millisecond, the rest truncated);
  /// - a zone: `+hhmm`/`-hhmm` (also `+hh:mm` and `+hh`), `-0000` (UTC, "no information"), `GMT`, `UT`, `UTC`, `Z`, the US
  ///   names `EST` `EDT` `CST` `CDT` `MST` `MDT` `PST` `PDT`, a few other unambiguous names seen in feeds (`CET`,
  ///   `CEST`, `EET`, `EEST`, `WET`, `WEST`, `BST`, `MSK`, `JST`, `KST`, `HST`, `AKST`, `AKDT`, `AEST`, `AEDT`,
  ///   `NZST`, `NZDT`), `GMT+hhmm`/`UTC-hh:mm`, and the single military letters, which RFC 5322 §4.3 says to read
  ///   as `-0000` because RFC 822 gave them the wrong signs (so every letter but `Z` is UTC here too);
  /// - no zone at all, read as UTC;
  /// - any amount of white space between the parts, and a trailing comment in parentheses (`… -0700 (PDT)`).
  ///
  /// Fields are range-checked (day within the month, hour 0–23, minute 0–59, second 0–60, where 60 is a leap second
  /// counted as the next second). Anything else returns `nil`; this initializer never traps. The arithmetic is exact
  /// integer milliseconds, as in ``init(rfc3339:assumingOffset:)``.
  package init?(rfc822 text: some StringProtocol) {
    var text = String(text)
    guard
      let ms = text.withUTF8({ bytes in
        var parser = RFC822Parser(bytes: bytes)
        return parser.parse()
      })
    else { return nil }
    self.init(millisecondsSince1970: ms)
  }
}

/// The scanner behind ``Timestamp/init(rfc822:)``: one pass over the UTF-8 bytes, no allocation.
private struct RFC822Parser {
  let bytes: UnsafeBufferPointer<UInt8>
  var i = 0

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
  private static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
  private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }

  private mutating func skipSpaces() {
    while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
  }

  /// A run of letters, lowercased, at most 16 of them (longer runs are not a name this grammar knows).
  private mutating func word() -> [UInt8]? {
    let start = i
    while i < bytes.count, Self.isLetter(bytes[i]) { i += 1 }
    guard i > start, i - start <= 16 else { return nil }
    return bytes[start..<i].map { $0 | 0x20 }
  }

  /// A run of 1 to `maximum` digits and how many there were.
  private mutating func number(maximum: Int) -> (value: Int64, count: Int)? {
    let start = i
    var value: Int64 = 0
    while i < bytes.count, Self.isDigit(bytes[i]), i - start < maximum {
      value = value * 10 + Int64(bytes[i] &- 0x30)
      i += 1
    }
    guard i > start else { return nil }
    if i < bytes.count, Self.isDigit(bytes[i]) { return nil }  // more digits than the field has
    return (value, i - start)
  }

  private mutating func expect(_ byte: UInt8) -> Bool {
    guard i < bytes.count, bytes[i] == byte else { return false }
    i += 1
    return true
  }

  mutating func parse() -> Int64? {
    skipSpaces()
    // [day-of-week ","]
    if i < bytes.count, Self.isLetter(bytes[i]) {
      guard let name = word(), Self.dayNames.contains(where: { name == $0 || name[...] == $0.prefix(3) }) else {
        return nil
      }
      skipSpaces()
      _ = expect(0x2C)  // ','
      skipSpaces()
    }
    guard let day = number(maximum: 2)?.value else { return nil }
    skipSpaces()
    _ = expect(0x2D)  // "17-Jan-2021", seen in old feeds
    skipSpaces()
    guard let monthName = word(), let month = Self.month(monthName) else { return nil }
    skipSpaces()
    _ = expect(0x2D)
    skipSpaces()
    guard let years = number(maximum: 4), years.count >= 2 else { return nil }
    let year: Int64
    switch years.count {
    case 2: year = years.value < 50 ? 2000 + years.value : 1900 + years.value
    case 3: year = 1900 + years.value
    default: year = years.value
    }
    guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month) else {
      return nil
    }
    skipSpaces()
    guard let hour = number(maximum: 2)?.value, expect(0x3A), let minutes = number(maximum: 2), minutes.count == 2
    else { return nil }
    let minute = minutes.value
    var second: Int64 = 0
    var milli: Int64 = 0
    if expect(0x3A) {
      guard let seconds = number(maximum: 2), seconds.count == 2 else { return nil }
      second = seconds.value
      if expect(0x2E) || expect(0x2C) {
        var count = 0
        while i < bytes.count, Self.isDigit(bytes[i]) {
          if count < 3 { milli = milli * 10 + Int64(bytes[i] &- 0x30) }
          count += 1
          i += 1
        }
        guard (1...9).contains(count) else { return nil }
        if count < 3 { for _ in count..<3 { milli *= 10 } }
      }
    }
    guard hour <= 23, minute <= 59, second <= 60 else { return nil }
    skipSpaces()
    guard let offset = zone() else { return nil }
    skipSpaces()
    if expect(0x28) {  // a trailing comment: "(PDT)"
      while i < bytes.count, bytes[i] != 0x29 { i += 1 }
      guard expect(0x29) else { return nil }
      skipSpaces()
    }
    guard i == bytes.count else { return nil }

    let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
    let milliseconds = (days * 86_400 + hour * 3600 + minute * 60 + second - offset) * 1000 + milli
    // The instants that print back as four-digit years, as for RFC 3339.
    guard milliseconds >= -62_167_219_200_000, milliseconds <= 253_402_300_799_999 else { return nil }
    return milliseconds
  }

  /// The zone's offset east of UTC in seconds; 0 when there is none.
  private mutating func zone() -> Int64? {
    guard i < bytes.count, bytes[i] != 0x28 else { return 0 }  // none, or only a comment
    if bytes[i] == 0x2B || bytes[i] == 0x2D { return numericOffset() }
    guard let name = word() else { return nil }
    let offset: Int64
    if let hours = Self.zoneHours[String(decoding: name, as: UTF8.self)] {
      offset = hours * 3600
    } else if name.count == 1, name[0] != 0x6A {  // military letters A–I, K–Z (RFC 5322 §4.3: read as -0000)
      offset = 0
    } else {
      return nil
    }
    // "GMT+0100", "UTC-05:00"
    if offset == 0, i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D, name.count > 1 {
      return numericOffset()
    }
    return offset
  }

  /// `+hhmm`, `-hhmm`, `+hh:mm` (also `+hh` alone) in seconds east of UTC.
  private mutating func numericOffset() -> Int64? {
    let sign: Int64 = bytes[i] == 0x2D ? -1 : 1
    i += 1
    let start = i
    var digits: [Int64] = []
    while i < bytes.count, Self.isDigit(bytes[i]) || (bytes[i] == 0x3A && i - start == 2) {
      if bytes[i] != 0x3A { digits.append(Int64(bytes[i] &- 0x30)) }
      i += 1
    }
    let hours: Int64
    let minutes: Int64
    switch digits.count {
    case 2:
      hours = digits[0] * 10 + digits[1]
      minutes = 0
    case 4:
      hours = digits[0] * 10 + digits[1]
      minutes = digits[2] * 10 + digits[3]
    default: return nil
    }
    guard hours <= 23, minutes <= 59 else { return nil }
    return sign * (hours * 3600 + minutes * 60)
  }

  private static let dayNames: [[UInt8]] = [
    "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
  ].map { Array($0.utf8) }

  private static let monthNames: [[UInt8]] = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december",
  ].map { Array($0.utf8) }

  /// 1–12 for a month's name in full or its first three letters (and `sept`).
  private static func month(_ name: [UInt8]) -> Int64? {
    if name == Array("sept".utf8) { return 9 }
    guard
      let index = monthNames.firstIndex(where: { name == $0 || (name.count == 3 && $0.prefix(3).elementsEqual(name)) })
    else { return nil }
    return Int64(index + 1)
  }

  /// Zone names and their offsets in hours: RFC 5322 §4.3's, and the unambiguous ones feeds use (IST, which is
  /// India, Ireland or Israel, is not among them).
  private static let zoneHours: [String: Int64] = [
    "ut": 0, "gmt": 0, "utc": 0, "z": 0,
    "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
    "akst": -9, "akdt": -8, "hst": -10,
    "wet": 0, "west": 1, "bst": 1, "cet": 1, "cest": 2, "eet": 2, "eest": 3, "msk": 3,
    "jst": 9, "kst": 9, "aest": 10, "aedt": 11, "nzst": 12, "nzdt": 13,
  ]
}
