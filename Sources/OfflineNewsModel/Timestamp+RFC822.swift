extension Timestamp {
  /// Parses an HTTP-date (`Retry-After`, `Last-Modified`, `Expires`) in any of the three forms of RFC 9110 §5.6.7,
  /// all UTC: the IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete RFC 850 form
  /// `Sunday, 06-Nov-94 08:49:37 GMT`, and asctime's `Sun Nov  6 08:49:37 1994` — through the one RFC 822 reader
  /// (``init(rfc822:)``, which reads the first and the last; the RFC 850 date's dashes are read as spaces).
  /// Anything else is `nil`.
  package init?(httpDate text: some StringProtocol) {
    let trimmed = text.trimmingWhiteSpace
    if let parsed = Timestamp(rfc822: trimmed) {
      self = parsed
      return
    }
    // RFC 850: `Weekday, DD-Mon-YY HH:MM:SS GMT`, the date's dashes between day, month and year.
    let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 4, parts[0].hasSuffix(","), parts[1].split(separator: "-").count == 3,
      let parsed = Timestamp(rfc822: ([parts[0]] + parts[1].split(separator: "-") + parts[2...]).joined(separator: " "))
    else { return nil }
    self = parsed
  }

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
    self.init(String(text), parsedBy: { $0.parse() })
  }

  /// The instant `rule` reads from `text`'s UTF-8 with an ``RFC822Parser``, or `nil` when it reads none.
  private init?(_ text: String, parsedBy rule: (inout RFC822Parser) -> Int64?) {
    var text = text
    guard
      let ms = text.withUTF8({ bytes in
        var parser = RFC822Parser(bytes: bytes)
        return rule(&parser)
      })
    else { return nil }
    self.init(millisecondsSince1970: ms)
  }
}

extension Timestamp {
  /// Parses a date as feeds write it, in any element (`pubDate`, `dc:date`, Atom's dates): the one date rule of the
  /// feed reader.
  ///
  /// For example:
  /// ```swift
  /// Timestamp(feedDate: "Di, 04 Okt 2016 10:00:00 MESZ")?.rfc3339String  // "2016-10-04T08:00:00.000Z"
  /// Timestamp(feedDate: "2016/10/4 9:05:00")?.rfc3339String             // "2016-10-04T09:05:00.000Z"
  /// ```
  ///
  /// Tried in order (`preferW3CDTF` puts the second first, for elements that are W3C-DTF by definition):
  /// 1. RFC 822 / RFC 5322 as real feeds write it (``init(rfc822:)``): day and month names in English, German,
  ///    French, Italian, Spanish, Dutch, Portuguese, Scandinavian, Czech and Polish, the month before the day
  ///    (`Oct 7 2022`) and asctime's order, two-digit years, zone names;
  /// 2. RFC 3339 / W3C-DTF (``init(w3cdtf:assumingOffset:)``), a space allowed for the `T`;
  /// 3. numeric dates: `yyyy/M/d`, `yyyy-M-d` and `yyyy.M.d`, or `d.M.yyyy` (the European order, with dots only),
  ///    each optionally followed by a time `H:mm`, `H:mm:ss` or `H:mm:ss.fff` and a zone (`Z`, `+hh:mm`, `+hhmm`,
  ///    a zone name).
  ///
  /// A date with no zone is read as UTC: feeds give no other clue, and the same text then always names the same
  /// instant (an hour or a few off for a zoneless feed, never a different day order). Anything else is `nil`.
  package init?(feedDate text: some StringProtocol, preferW3CDTF: Bool = false) {
    let trimmed = text.trimmingWhiteSpace
    guard !trimmed.isEmpty else { return nil }
    let rfc822 = { Timestamp(rfc822: trimmed) }
    let w3cdtf = { Timestamp(w3cdtf: trimmed, assumingOffset: 0) }
    if let timestamp = preferW3CDTF ? w3cdtf() ?? rfc822() : rfc822() ?? w3cdtf() {
      self = timestamp
      return
    }
    guard let timestamp = Timestamp(trimmed, parsedBy: { $0.parseNumeric() }) else { return nil }
    self = timestamp
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

  /// A run of letters, lowercased, at most 24 bytes of them (longer runs are not a name this grammar knows). Letters
  /// beyond ASCII (`Mär`, `déc`, `sáb`) are part of the word, lowercased as Unicode lowercases them.
  private mutating func word() -> [UInt8]? {
    let start = i
    var ascii = true
    while i < bytes.count, Self.isLetter(bytes[i]) || bytes[i] >= 0x80 {
      if bytes[i] >= 0x80 { ascii = false }
      i += 1
    }
    guard i > start, i - start <= 24 else { return nil }
    if ascii { return bytes[start..<i].map { $0 | 0x20 } }
    return Array(String(decoding: bytes[start..<i], as: UTF8.self).lowercased().utf8)
  }

  /// Skips a `.` that ends an abbreviation (`Okt.`, `janv.`, `Di.`) or a day number (`4. Okt`).
  private mutating func skipAbbreviationDot() { _ = expect(0x2E) }

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

  /// RFC 822 as feeds write it (``Timestamp/init(rfc822:)``).
  mutating func parse() -> Int64? {
    skipSpaces()
    // [day-of-week ("," / ".")]: any language's, not checked against the date.
    var monthFirst: Int64?
    if i < bytes.count, Self.isLetter(bytes[i]) || bytes[i] >= 0x80 {
      guard let name = word() else { return nil }
      var next = i
      while next < bytes.count, Self.isSpace(bytes[next]) { next += 1 }
      if next < bytes.count, Self.isDigit(bytes[next]), let month = Self.month(name) {
        monthFirst = month  // "Oct 7 2022 …", "Jan 17 23:46:22 2021" (asctime)
      } else {
        guard Self.isDayName(name) else { return nil }
        skipAbbreviationDot()
        skipSpaces()
        _ = expect(0x2C)  // ','
        skipSpaces()
        if i < bytes.count, Self.isLetter(bytes[i]) || bytes[i] >= 0x80 {
          guard let second = word(), let month = Self.month(second) else { return nil }
          monthFirst = month
        }
      }
    }
    let day: Int64
    let month: Int64
    var asctimeYear = false
    if let monthFirst {
      skipAbbreviationDot()
      skipSpaces()
      guard let number = number(maximum: 2)?.value else { return nil }
      day = number
      month = monthFirst
      skipSpaces()
      _ = expect(0x2C)
      skipSpaces()
      // asctime puts the time before the year: "Jan 17 23:46:22 2021".
      var probe = i
      while probe < bytes.count, Self.isDigit(bytes[probe]) { probe += 1 }
      asctimeYear = probe < bytes.count && bytes[probe] == 0x3A
    } else {
      guard let number = number(maximum: 2)?.value else { return nil }
      day = number
      skipAbbreviationDot()
      skipSpaces()
      _ = expect(0x2D)  // "17-Jan-2021", seen in old feeds
      skipSpaces()
      guard let monthName = word(), let named = Self.month(monthName) else { return nil }
      month = named
      skipAbbreviationDot()
      skipSpaces()
      _ = expect(0x2D)
      skipSpaces()
    }
    var year: Int64 = 0
    if !asctimeYear {
      guard let value = readYear() else { return nil }
      year = value
      skipSpaces()
      _ = expect(0x2C)  // "17 Jan 2021, 22:46"
      skipSpaces()
    }
    guard let hour = number(maximum: 2)?.value, expect(0x3A), let minutes = number(maximum: 2), minutes.count == 2
    else { return nil }
    let minute = minutes.value
    var second: Int64 = 0
    var milli: Int64 = 0
    if expect(0x3A) {
      guard let seconds = number(maximum: 2), seconds.count == 2 else { return nil }
      second = seconds.value
      if expect(0x2E) || expect(0x2C) {
        guard let fraction = Timestamp.fractionMilliseconds(bytes, at: &i) else { return nil }
        milli = fraction
      }
    }
    if asctimeYear {
      skipSpaces()
      // asctime's year comes last, after the zone when there is one ("Jan 17 23:46:22 UTC 2021" is not read).
      guard let value = readYear() else { return nil }
      year = value
    }
    guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month) else {
      return nil
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
    return Timestamp.milliseconds(
      days: Timestamp.daysFromCivil(year: year, month: month, day: day), hour: hour, minute: minute, second: second,
      milli: milli, offset: offset)
  }

  /// `yyyy/M/d`, `yyyy-M-d`, `yyyy.M.d` or `d.M.yyyy`, then an optional time and zone (``Timestamp/init(feedDate:)``).
  mutating func parseNumeric() -> Int64? {
    skipSpaces()
    guard let first = number(maximum: 4), i < bytes.count else { return nil }
    let separator = bytes[i]
    guard separator == 0x2F || separator == 0x2D || separator == 0x2E else { return nil }
    i += 1
    guard let middle = number(maximum: 2), expect(separator), let last = number(maximum: 4) else { return nil }
    let year: Int64
    let month = middle.value
    let day: Int64
    if first.count == 4, last.count <= 2 {
      (year, day) = (first.value, last.value)
    } else if separator == 0x2E, first.count <= 2, last.count == 4 {
      (year, day) = (last.value, first.value)
    } else {
      return nil
    }
    guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month) else {
      return nil
    }
    var hour: Int64 = 0
    var minute: Int64 = 0
    var second: Int64 = 0
    var milli: Int64 = 0
    if i < bytes.count, Self.isSpace(bytes[i]) || bytes[i] == 0x54 || bytes[i] == 0x2C {  // ' ', 'T', ','
      if bytes[i] == 0x2C { i += 1 }
      if i < bytes.count, bytes[i] == 0x54 { i += 1 }
      skipSpaces()
      if i < bytes.count, Self.isDigit(bytes[i]) {
        guard let hours = number(maximum: 2), expect(0x3A), let minutes = number(maximum: 2), minutes.count == 2
        else { return nil }
        (hour, minute) = (hours.value, minutes.value)
        if expect(0x3A) {
          guard let seconds = number(maximum: 2), seconds.count == 2 else { return nil }
          second = seconds.value
          if expect(0x2E) {
            guard let fraction = Timestamp.fractionMilliseconds(bytes, at: &i) else { return nil }
            milli = fraction
          }
        }
      }
    }
    guard hour <= 23, minute <= 59, second <= 60 else { return nil }
    skipSpaces()
    guard let offset = zone() else { return nil }
    skipSpaces()
    guard i == bytes.count else { return nil }
    return Timestamp.milliseconds(
      days: Timestamp.daysFromCivil(year: year, month: month, day: day), hour: hour, minute: minute, second: second,
      milli: milli, offset: offset)
  }

  /// A year of four digits, or two (`00`–`49` → 2000–2049, `50`–`99` → 1950–1999) or three (+ 1900), RFC 5322 §4.3.
  private mutating func readYear() -> Int64? {
    guard let years = number(maximum: 4), years.count >= 2 else { return nil }
    switch years.count {
    case 2: return years.value < 50 ? 2000 + years.value : 1900 + years.value
    case 3: return 1900 + years.value
    default: return years.value
    }
  }

  /// The zone's offset east of UTC in seconds; 0 when there is none.
  private mutating func zone() -> Int64? {
    guard i < bytes.count, bytes[i] != 0x28 else { return 0 }  // none, or only a comment
    if bytes[i] == 0x2B || bytes[i] == 0x2D { return numericOffset() }
    guard let name = word() else { return nil }
    let offset: Int64
    if let minutes = Self.zoneMinutes[String(decoding: name, as: UTF8.self)] {
      offset = minutes * 60
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

  /// Day names in full, in the languages feeds are written in: English, German, French, Italian, Spanish, Dutch,
  /// Portuguese, Swedish/Danish/Norwegian, Czech and Polish. A word is a day name when it is one of these or the
  /// start of one (at least two letters: `Sun`, `Di`, `mer`, `sáb`).
  private static let dayNames: [[UInt8]] = [
    "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sonntag", "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonnabend",
    "dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi",
    "domenica", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato",
    "domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado",
    "zondag", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag",
    "segunda", "terça", "quarta", "quinta", "sexta",
    "söndag", "måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "søndag", "mandag", "tirsdag", "lørdag",
    "neděle", "pondělí", "úterý", "středa", "čtvrtek", "pátek", "sobota",
    "niedziela", "poniedziałek", "wtorek", "środa", "czwartek", "piątek",
  ].map { Array($0.utf8) }

  static func isDayName(_ name: [UInt8]) -> Bool {
    name.count >= 2 && dayNames.contains { $0.starts(with: name) }
  }

  /// Month names in full (1–12), in the languages of ``dayNames``. A word is a month when it is one of these, an
  /// abbreviation listed in ``monthAbbreviations``, or the start (three letters at least) of names of one month only:
  /// `Jan`, `Sept`, `janv`, `févr`, `Mär`, `Okt`, `gen`, `ago`, `dic`.
  private static let monthNames: [(name: [UInt8], month: Int64)] = [
    "january february march april may june july august september october november december",
    "januar februar märz april mai juni juli august september oktober november dezember",
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "januari februari maart april mei juni juli augustus september oktober november december",
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "januari februari mars april maj juni juli augusti september oktober november december",
    "januar februar marts april maj juni juli august september oktober november desember",
    "leden únor březen duben květen červen červenec srpen září říjen listopad prosinec",
    "styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik listopad grudzień",
  ].flatMap { line in
    line.split(separator: " ").enumerated().map { (Array($0.element.utf8), Int64($0.offset + 1)) }
  }

  /// Abbreviations that are not the start of their month's name: German `Mrz` (DIN 5008), Dutch `mrt`, Spanish
  /// `setiembre`.
  private static let monthAbbreviations: [String: Int64] = ["mrz": 3, "mrt": 3, "setiembre": 9, "sep": 9]

  /// 1–12 for a month's name (see ``monthNames``), or `nil`.
  private static func month(_ name: [UInt8]) -> Int64? {
    if let exact = monthNames.first(where: { $0.name == name }) { return exact.month }
    if let abbreviation = monthAbbreviations[String(decoding: name, as: UTF8.self)] { return abbreviation }
    guard name.count >= 3 else { return nil }
    var found: Int64?
    for entry in monthNames where entry.name.starts(with: name) {
      if let found, found != entry.month { return nil }
      found = entry.month
    }
    return found
  }

  /// Zone names and their offsets in minutes east of UTC: RFC 5322 §4.3's; North American ones (with Atlantic,
  /// Newfoundland, Alaska and Hawaii, and the DST-less `ET` `CT` `MT` `PT` feedparser reads as standard time);
  /// European ones in English and German (`MEZ`/`MESZ`), `MET`/`MEST`; and unambiguous others feeds use. `IST`
  /// (India, Ireland or Israel) and other ambiguous names are not among them.
  private static let zoneMinutes: [String: Int64] = [
    "ut": 0, "gmt": 0, "utc": 0, "z": 0,
    "est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
    "et": -300, "ct": -360, "mt": -420, "pt": -480,
    "ast": -240, "adt": -180, "nst": -210, "ndt": -150, "akst": -540, "akdt": -480, "hst": -600, "hast": -600,
    "hadt": -540,
    "wet": 0, "west": 60, "bst": 60, "cet": 60, "cest": 120, "met": 60, "mest": 120, "mez": 60, "mesz": 120,
    "eet": 120, "eest": 180, "msk": 180, "msd": 240,
    "jst": 540, "kst": 540, "hkt": 480, "sgt": 480, "awst": 480, "acst": 570, "acdt": 630, "aest": 600,
    "aedt": 660, "nzst": 720, "nzdt": 780,
  ]
}
