import Foundation
import OfflineNewsModel
import TestSupport
import Testing

/// Milliseconds since 1970 of `text`, or `nil` when the parser rejects it.
private func ms(_ text: String, assumingOffset: Int? = nil) -> Int64? {
  Timestamp(rfc3339: text, assumingOffset: assumingOffset)?.millisecondsSince1970
}

/// 2021-08-29T06:52:24Z (`date -u -d 2021-08-29T06:52:24Z +%s`), in milliseconds.
private let reference: Int64 = 1_630_219_944_000

@Suite("Timestamp: RFC 3339 parsing")
struct TimestampParsingTests {
  @Test(
    "UTC designators and numeric offsets name the same instant",
    arguments: [
      "2021-08-29T06:52:24Z",
      "2021-08-29T06:52:24z",
      "2021-08-29t06:52:24Z",
      "2021-08-29 06:52:24Z",
      "2021-08-29T06:52:24+00:00",
      "2021-08-29T06:52:24-00:00",
      "2021-08-29T06:52:24+0000",
      "2021-08-29T01:22:24-05:30",
      "2021-08-29T01:22:24-0530",
      "2021-08-29T08:52:24+0200",
      "2021-08-29T08:52:24+02:00",
      "2021-08-29T12:22:24+05:30",
      "2021-08-30T00:52:24+18:00",
      "2021-08-28T18:52:24-12:00",
    ])
  func offsets(text: String) {
    #expect(ms(text) == reference, "\(text)")
  }

  @Test(
    "fraction digits are kept to the millisecond and the rest truncated",
    arguments: [
      ("2021-08-29T06:52:24Z", 0),
      ("2021-08-29T06:52:24.2Z", 200),
      ("2021-08-29T06:52:24.29Z", 290),
      ("2021-08-29T06:52:24.291Z", 291),
      ("2021-08-29T06:52:24.2917Z", 291),
      ("2021-08-29T06:52:24.2917287Z", 291),
      ("2021-08-29T06:52:24.291999999Z", 291),
      ("2021-08-29T06:52:24.000000001Z", 0),
      ("2021-08-29T06:52:24.9999999Z", 999),
      ("2021-08-29T06:52:24.999999999Z", 999),
      ("2021-08-29T06:52:24.007Z", 7),
      ("2021-08-29T06:52:24,5Z", 500),
      ("2021-08-29T08:52:24.2917287+02:00", 291),
    ] as [(String, Int64)])
  func fractions(text: String, milliseconds: Int64) {
    #expect(ms(text) == reference + milliseconds, "\(text)")
  }

  @Test("a fraction just below the next second stays in the same second, minute, day and year")
  func fractionDoesNotRoundUp() throws {
    let t = try #require(Timestamp(rfc3339: "2021-12-31T23:59:59.9999999Z"))
    #expect(t.millisecondsSince1970 == 1_640_995_199_999)
    #expect(t.rfc3339String == "2021-12-31T23:59:59.999Z")
    // Before 1970 truncating the digits still means the earlier millisecond of the instant's own second.
    #expect(ms("1969-12-31T23:59:59.9999Z") == -1)
    #expect(ms("1969-12-31T23:59:59.0001Z") == -1000)
  }

  @Test("a date alone is midnight UTC, whatever offset is assumed")
  func dateOnly() {
    #expect(ms("2021-08-29") == 1_630_195_200_000)
    #expect(ms("1970-01-01") == 0)
    #expect(ms("1900-01-01") == -2_208_988_800_000)
    #expect(ms("2021-08-29", assumingOffset: 3600) == 1_630_195_200_000)
  }

  @Test("a time without an offset is rejected unless an offset is assumed")
  func zoneless() {
    #expect(ms("2021-08-29T06:52:24") == nil)
    #expect(ms("2021-08-29T06:52:24.291") == nil)
    #expect(ms("2021-08-29 06:52:24") == nil)
    #expect(ms("2021-08-29T06:52:24", assumingOffset: 0) == reference)
    #expect(ms("2021-08-29T06:52:24.291", assumingOffset: 0) == reference + 291)
    // +05:30 is 19 800 s east of UTC: local 12:22:24 is 06:52:24Z.
    #expect(ms("2021-08-29T12:22:24", assumingOffset: 19_800) == reference)
    #expect(ms("2021-08-29T01:52:24", assumingOffset: -18_000) == reference)
    // An explicit offset wins over the assumed one.
    #expect(ms("2021-08-29T06:52:24Z", assumingOffset: 7200) == reference)
    #expect(ms("2021-08-29T08:52:24+02:00", assumingOffset: -3600) == reference)
  }

  @Test("a leap second (second 60) counts as the first second of the next minute")
  func leapSecond() {
    #expect(ms("2016-12-31T23:59:60Z") == 1_483_228_800_000)
    #expect(ms("2016-12-31T23:59:60Z") == ms("2017-01-01T00:00:00Z"))
    #expect(ms("2016-12-31T23:59:60.5Z") == 1_483_228_800_500)
    #expect(ms("2016-12-31T23:59:61Z") == nil)
  }

  @Test("leap years: 29 February exists in 2024 and 2000, not in 2023 or 1900")
  func leapYears() {
    #expect(ms("2023-02-29T00:00:00Z") == nil)
    #expect(ms("2023-02-29") == nil)
    #expect(ms("1900-02-29T00:00:00Z") == nil)
    #expect(ms("2024-02-29T12:00:00Z") == 1_709_208_000_000)
    #expect(ms("2000-02-29T00:00:00Z") == 951_782_400_000)
    #expect(ms("2024-03-01T12:00:00Z") == 1_709_294_400_000)  // one day after 29 February
    #expect(ms("2023-02-28T00:00:00Z") != nil)
  }

  @Test(
    "malformed or out-of-range text is rejected",
    arguments: [
      "",
      " ",
      "2021-13-01T00:00:00Z",  // month 13
      "2021-00-10T00:00:00Z",  // month 0
      "2021-02-30T00:00:00Z",  // 30 February
      "2021-04-31T00:00:00Z",  // 31 April
      "2021-08-00T00:00:00Z",  // day 0
      "2021-08-32",
      "2021-08-29T24:00:00Z",  // hour 24
      "2021-08-29T23:60:00Z",  // minute 60
      "2021-08-29T06:52Z",  // missing seconds
      "2021-08-29T06:52",
      "2021-08-29T06Z",
      "2021-08-29T",
      "2021-08-29X06:52:24Z",
      "2021-08-29T06:52:24Zjunk",  // trailing junk
      "2021-08-29T06:52:24Z ",
      " 2021-08-29T06:52:24Z",
      "2021-08-29T06:52:24ZZ",
      "2021-08-29T06:52:24+05:30Z",
      "2021-08-29junk",
      "2021-08-29T06:52:24.1234567890Z",  // 10 fraction digits
      "2021-08-29T06:52:24.Z",  // a point with no digits
      "2021-08-29T06:52:24.",
      "2021-08-29T06:52:24+",  // lone offset sign
      "2021-08-29T06:52:24-",
      "2021-08-29T06:52:24+05",
      "2021-08-29T06:52:24+05:",
      "2021-08-29T06:52:24+05:3",
      "2021-08-29T06:52:24+5:30",
      "2021-08-29T06:52:24+24:00",
      "2021-08-29T06:52:24+05:60",
      "2021-08-29T06:52:24 +02:00",
      "٢٠٢١-٠٨-٢٩T06:52:24Z",  // Arabic-Indic digits
      "2021-08-29T٠٦:٥٢:٢٤Z",
      "２０２１-08-29T06:52:24Z",  // full-width digits
      "21-08-29T06:52:24Z",
      "2021-8-29T06:52:24Z",
      "2021/08/29T06:52:24Z",
      "20210829T065224Z",
      "-2021-08-29T06:52:24Z",
      "+2021-08-29T06:52:24Z",
      "2021-08-29T06:52:24.291\u{0}Z",
      "Sun, 29 Aug 2021 06:52:24 GMT",
    ])
  func rejects(text: String) {
    #expect(ms(text) == nil, "\(text.debugDescription) was accepted")
    // Assuming an offset only fills in a missing one; it never makes malformed text valid.
    #expect(ms(text, assumingOffset: 0) == nil, "\(text.debugDescription) was accepted with an assumed offset")
  }

  @Test("any StringProtocol is accepted, e.g. a Substring")
  func substring() {
    let text = "<2021-08-29T06:52:24.291Z>"
    #expect(Timestamp(rfc3339: text.dropFirst().dropLast())?.millisecondsSince1970 == reference + 291)
  }
}

@Suite("Timestamp: differential test against Foundation's ISO8601FormatStyle")
struct TimestampDifferentialTests {
  /// Seeded pseudo-random valid timestamps in 1900–2100 with random offsets and 0, 3 or 7 fraction digits. Each is
  /// built from a known whole-millisecond instant (plus extra sub-millisecond digits), so the parser must return that
  /// instant exactly; Foundation, which goes through `Double`, must agree within one millisecond.
  @Test("seeded random timestamps: exact here, within 1 ms of Foundation")
  func agreesWithFoundation() throws {
    var random = SplitMix64(seed: 0x0FF1_14E5_2021_0829)
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = try #require(TimeZone(secondsFromGMT: 0))
    let low: Int64 = -2_208_988_800_000  // 1900-01-01T00:00:00Z
    let high: Int64 = 4_133_980_799_999  // 2100-12-31T23:59:59.999Z
    let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    let withoutFraction = Date.ISO8601FormatStyle()
    var checked = 0

    for _ in 0..<3000 {
      let fractionDigits = [0, 3, 7][Int.random(in: 0..<3, using: &random)]
      var instant = Int64.random(in: low...high, using: &random)
      if fractionDigits == 0 { instant -= ((instant % 1000) + 1000) % 1000 }  // whole seconds
      // The offset: Z one time in five, otherwise ±HH:MM within ±18 hours.
      let offsetMinutes =
        Int.random(in: 0..<5, using: &random) == 0 ? nil : Int.random(in: -1080...1080, using: &random)
      let localMs = instant + Int64(offsetMinutes ?? 0) * 60_000
      let (localSeconds, milli) = (localMs.floorDiv(1000), localMs.floorMod(1000))
      let parts = utc.dateComponents(
        [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(localSeconds)))
      var text =
        "\(pad(parts.year!, 4))-\(pad(parts.month!, 2))-\(pad(parts.day!, 2))T"
        + "\(pad(parts.hour!, 2)):\(pad(parts.minute!, 2)):\(pad(parts.second!, 2))"
      if fractionDigits > 0 { text += "." + pad(Int(milli), 3) }
      if fractionDigits == 7 { text += pad(Int.random(in: 0...9999, using: &random), 4) }
      if let offsetMinutes {
        text +=
          (offsetMinutes < 0 ? "-" : "+") + pad(abs(offsetMinutes) / 60, 2) + ":" + pad(abs(offsetMinutes) % 60, 2)
      } else {
        text += "Z"
      }

      let ours = Timestamp(rfc3339: text)
      #expect(ours?.millisecondsSince1970 == instant, "\(text)")

      let style = fractionDigits > 0 ? withFraction : withoutFraction
      let theirs = try style.parse(text)
      let theirMs = theirs.timeIntervalSince1970 * 1000
      #expect(
        theirMs > Double(instant) - 0.01 && theirMs < Double(instant) + 1,
        "\(text): Foundation says \(theirMs) ms, expected \(instant)")
      checked += 1
    }
    #expect(checked == 3000)
  }

  private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}

@Suite("Timestamp: formatting and Date conversion")
struct TimestampFormattingTests {
  @Test(
    "rfc3339String is UTC with exactly three fraction digits",
    arguments: [
      (1_630_219_944_291, "2021-08-29T06:52:24.291Z"),
      (1_630_219_944_000, "2021-08-29T06:52:24.000Z"),
      (1_630_219_944_007, "2021-08-29T06:52:24.007Z"),
      (0, "1970-01-01T00:00:00.000Z"),
      (-1, "1969-12-31T23:59:59.999Z"),
      (-1000, "1969-12-31T23:59:59.000Z"),
      (-14_182_940_000, "1969-07-20T20:17:40.000Z"),
      (951_782_400_000, "2000-02-29T00:00:00.000Z"),
      (1_483_228_799_999, "2016-12-31T23:59:59.999Z"),
      (1_483_228_800_000, "2017-01-01T00:00:00.000Z"),
      (-2_208_988_800_000, "1900-01-01T00:00:00.000Z"),
      (4_133_980_799_999, "2100-12-31T23:59:59.999Z"),
      (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
      (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ] as [(Int64, String)])
  func knownStrings(milliseconds: Int64, text: String) {
    let t = Timestamp(millisecondsSince1970: milliseconds)
    #expect(t.rfc3339String == text)
    #expect(t.description == text)
    #expect(Timestamp(rfc3339: text) == t)
  }

  @Test("parsing rfc3339String gives the same timestamp back, for years 0001–9999")
  func roundTrip() {
    var values: [Int64] = [0, -1, 1, 999, -999, 1000, -1000, 86_399_999, -86_400_000, -86_400_001]
    // Midnight of every 1 January and 1 March from 1896 to 2104, and one millisecond either side.
    for year in 1896...2104 {
      for text in ["\(year)-01-01", "\(year)-03-01"] {
        guard let midnight = Timestamp(rfc3339: text)?.millisecondsSince1970 else {
          Issue.record("\(text) did not parse")
          continue
        }
        values += [midnight - 1, midnight, midnight + 1]
      }
    }
    var random = SplitMix64(seed: 42)
    for _ in 0..<5000 {
      values.append(Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random))
    }
    var failures = 0
    for value in values {
      let t = Timestamp(millisecondsSince1970: value)
      if Timestamp(rfc3339: t.rfc3339String) != t {
        failures += 1
        if failures <= 10 {
          Issue.record("\(value) → \(t.rfc3339String) → \(String(describing: Timestamp(rfc3339: t.rfc3339String)))")
        }
      }
    }
    #expect(failures == 0)
  }

  @Test(
    "Timestamp(Date) truncates toward the earlier millisecond, before 1970 too",
    arguments: [
      (0.0, 0),
      (0.0004, 0),
      (0.0009, 0),
      (1.0005, 1000),
      (1.9996, 1999),
      (-0.0004, -1),
      (-0.0009, -1),
      (-1.0005, -1001),
      (-1.9996, -2000),
      (1_630_219_944.2917, 1_630_219_944_291),
      (1_630_219_944.2913, 1_630_219_944_291),
      (-14_182_939.9996, -14_182_940_000),
    ] as [(Double, Int64)])
  func truncatesDates(seconds: Double, milliseconds: Int64) {
    #expect(Timestamp(Date(timeIntervalSince1970: seconds)).millisecondsSince1970 == milliseconds)
  }

  /// Every instant `Timestamp(rfc3339:)` can produce (years 0001–9999) must survive `date` and back, not only the
  /// years news is published in: a `Double` product's error grows with the magnitude of the instant.
  @Test(
    "Timestamp(t.date) == t: converting to Date and back keeps the millisecond",
    arguments: [
      ("1900-2100", -2_208_988_800_000, 4_133_980_799_999),
      ("2101-3000", 4_133_980_800_000, 32_503_679_999_999),
      ("0001-9999", -62_135_596_800_000, 253_402_300_799_999),
    ] as [(String, Int64, Int64)])
  func dateRoundTrip(years: String, low: Int64, high: Int64) {
    var random = SplitMix64(seed: 7)
    var values: [Int64] = [low, low + 1, high, high - 1]
    if years == "1900-2100" { values += [1_630_219_944_291, 414_093_621_550, 8_409_073_798, -1, -14_182_939_999] }
    for _ in 0..<20_000 { values.append(Int64.random(in: low...high, using: &random)) }
    var failures: [String] = []
    for value in values {
      let back = Timestamp(Timestamp(millisecondsSince1970: value).date).millisecondsSince1970
      if back != value { failures.append("\(value) → \(back)") }
    }
    #expect(
      failures.count == 0, "years \(years): \(failures.count) of \(values.count) changed, e.g. \(failures.prefix(5))")
  }

  @Test("Article keeps a whole-millisecond publishedAt unchanged")
  func articleKeepsMilliseconds() throws {
    for value: Int64 in [1_630_219_944_291, 414_093_621_550, 8_409_073_798, -1] {
      let date = Timestamp(millisecondsSince1970: value).date
      let article = Article(url: try #require(URL(string: "https://example.com/a")), title: "A", publishedAt: date)
      #expect(Timestamp(article.publishedAt).millisecondsSince1970 == value, "\(value)")
    }
  }

  @Test("comparison follows the instant")
  func ordering() throws {
    let early = try #require(Timestamp(rfc3339: "2021-08-29T08:52:24+02:00"))
    let late = try #require(Timestamp(rfc3339: "2021-08-29T06:52:24.001Z"))
    #expect(early < late)
    #expect([late, early].sorted() == [early, late])
  }
}

extension Int64 {
  fileprivate func floorDiv(_ d: Int64) -> Int64 { (self - floorMod(d)) / d }
  fileprivate func floorMod(_ d: Int64) -> Int64 { ((self % d) + d) % d }
}
