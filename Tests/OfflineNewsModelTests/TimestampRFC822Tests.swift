import Foundation
import OfflineNewsModel
import TestSupport
import Testing

/// Seconds since 1970 of `text` read as RFC 822, or `nil` when the parser rejects it.
private func seconds(_ text: String) -> Int64? {
  Timestamp(rfc822: text).map { $0.millisecondsSince1970 / 1000 }
}

/// 2021-01-17T22:46:22Z (`date -u -d 2021-01-17T22:46:22Z +%s`).
private let reference: Int64 = 1_610_923_582

@Suite("Timestamp: RFC 822 / RFC 5322 parsing")
struct TimestampRFC822Tests {
  @Test(
    "every zone form real feeds write names the same instant",
    arguments: [
      "Sun, 17 Jan 2021 23:46:22 +0100",
      "Sun, 17 Jan 2021 22:46:22 +0000",
      "Sun, 17 Jan 2021 22:46:22 -0000",
      "Sun, 17 Jan 2021 22:46:22 GMT",
      "Sun, 17 Jan 2021 22:46:22 UT",
      "Sun, 17 Jan 2021 22:46:22 UTC",
      "Sun, 17 Jan 2021 22:46:22 Z",
      "Sun, 17 Jan 2021 17:46:22 EST",
      "Sun, 17 Jan 2021 18:46:22 EDT",
      "Sun, 17 Jan 2021 16:46:22 CST",
      "Sun, 17 Jan 2021 17:46:22 CDT",
      "Sun, 17 Jan 2021 15:46:22 MST",
      "Sun, 17 Jan 2021 16:46:22 MDT",
      "Sun, 17 Jan 2021 14:46:22 PST",
      "Sun, 17 Jan 2021 15:46:22 PDT",
      "Sun, 17 Jan 2021 23:46:22 CET",
      "Sun, 17 Jan 2021 23:46:22 +01:00",
      "Sun, 17 Jan 2021 23:46:22 +01",
      "Sun, 17 Jan 2021 23:46:22 GMT+0100",
      "Sun, 17 Jan 2021 17:16:22 -0530",
      "Mon, 18 Jan 2021 04:16:22 +0530",
      "Sun, 17 Jan 2021 14:46:22 -0800 (PST)",
      "Sun, 17 Jan 2021 22:46:22",
    ])
  func zones(text: String) {
    #expect(seconds(text) == reference, "\(text)")
  }

  @Test(
    "military letters are read as -0000 (RFC 5322 §4.3: RFC 822 gave them the wrong signs)",
    arguments: ["A", "M", "N", "Y", "z"])
  func militaryZones(letter: String) {
    #expect(seconds("Sun, 17 Jan 2021 22:46:22 \(letter)") == reference)
  }

  @Test(
    "the variants: no day name, no comma, one-digit day and hour, no seconds, full names, extra spaces, case",
    arguments: [
      ("17 Jan 2021 22:46:22 GMT", reference),
      ("Sun 17 Jan 2021 22:46:22 GMT", reference),
      ("Sunday, 17 January 2021 22:46:22 GMT", reference),
      ("  Sun,   17  Jan   2021   22:46:22   GMT  ", reference),
      ("sun, 17 JAN 2021 22:46:22 gmt", reference),
      ("Sun,17 Jan 2021 22:46:22 GMT", reference),
      ("17-Jan-2021 22:46:22 GMT", reference),
      ("Sun, 17 Jan 21 22:46:22 GMT", reference),
      ("Sun, 17 Jan 2021 22:46 GMT", reference - 22),
      ("Wed, 5 Jul 2017 9:05 PDT", 1_499_270_700),
      ("5 Jul 17 9:05:00 -0700", 1_499_270_700),
      ("Fri, 31 Dec 99 23:59 GMT", 946_684_740),
      ("Mon, 1 Mar 49 00:00:00 GMT", 2_498_169_600),
      ("Mon, 26 Sept 2017 19:40:58 GMT", 1_506_454_858),
    ] as [(String, Int64)])
  func variants(text: String, expected: Int64) {
    #expect(seconds(text) == expected, "\(text)")
  }

  @Test("a fraction of a second is kept to the millisecond; a leap second is the next second")
  func fractionsAndLeapSeconds() {
    #expect(Timestamp(rfc822: "Sun, 17 Jan 2021 22:46:22.2917 GMT")?.millisecondsSince1970 == reference * 1000 + 291)
    #expect(seconds("Sat, 31 Dec 2016 23:59:60 GMT") == 1_483_228_800)
  }

  @Test(
    "what is not a date is nil, never a trap",
    arguments: [
      "", "   ", "Sun, 17 Jan", "Sun, 32 Jan 2021 22:46:22 GMT", "Sun, 29 Feb 2021 22:46:22 GMT",
      "Sun, 17 Foo 2021 22:46:22 GMT", "Sun, 17 Jan 2021 24:00:00 GMT", "Sun, 17 Jan 2021 22:60:00 GMT",
      "Sun, 17 Jan 2021 22:46:22 +2500", "Sun, 17 Jan 2021 22:46:22 XYZ", "Sun, 17 Jan 2021 22:46:22 IST",
      "Sun, 17 Jan 2021 22:46:22 GMT trailing", "2021-01-17T22:46:22Z", "Someday, 17 Jan 2021 22:46:22 GMT",
      "Sun, 17 Jan 2021 22:4:22 GMT", "Sun, 17 Jan 2021 22:46:22 +013", "Sun, 17 Jan 2 22:46:22 GMT",
      "Sun, 17 Jan 2021 22:46:22 (unclosed", "Sun, 123 Jan 2021 22:46:22 GMT", "Sun, 17 Jan 20211 22:46:22 GMT",
      "Sun, 17 Jan 2021 22:46:22 J",
    ])
  func rejects(text: String) {
    #expect(seconds(text) == nil, "\(text)")
  }

  @Test("seeded random instants: RFC 822 text made by Foundation's DateFormatter reads back to the same second")
  func differentialAgainstDateFormatter() {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    var generator = SplitMix64(seed: 822)
    let offsets = [0, 3600, -18_000, 19_800, -34_200, 46_800, -43_200]
    for _ in 0..<2000 {
      let instant = Int64(generator.next() % 4_102_444_800)  // 1970 … 2100
      let offset = offsets[Int(generator.next() % UInt64(offsets.count))]
      formatter.timeZone = TimeZone(secondsFromGMT: offset)
      let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant)))
      #expect(seconds(text) == instant, "\(text)")
    }
  }
}

@Suite("Timestamp: W3C-DTF parsing")
struct TimestampW3CDTFTests {
  @Test(
    "reduced forms: a year, a year and month, a date, a time without seconds",
    arguments: [
      ("2019", "2019-01-01T00:00:00.000Z"),
      ("2019-08", "2019-08-01T00:00:00.000Z"),
      ("2019-08-27", "2019-08-27T00:00:00.000Z"),
      ("1997-07-16T19:20+01:00", "1997-07-16T18:20:00.000Z"),
      ("1997-07-16T19:20Z", "1997-07-16T19:20:00.000Z"),
      ("1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30.000Z"),
      ("1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.450Z"),
      ("2014-10-05T01:28:05.849-07:00", "2014-10-05T08:28:05.849Z"),
    ])
  func forms(text: String, expected: String) {
    #expect(Timestamp(w3cdtf: text)?.rfc3339String == expected, "\(text)")
  }

  @Test("a time without a zone needs an assumed offset")
  func assumedOffset() {
    #expect(Timestamp(w3cdtf: "1997-07-16T19:20") == nil)
    #expect(Timestamp(w3cdtf: "1997-07-16T19:20", assumingOffset: 0)?.rfc3339String == "1997-07-16T19:20:00.000Z")
    #expect(Timestamp(w3cdtf: "1997-07-16T19:20:30", assumingOffset: 0)?.rfc3339String == "1997-07-16T19:20:30.000Z")
  }

  @Test("not W3C-DTF", arguments: ["", "19", "2019-8", "2019-13", "2019-08-27T19", "2019-08-27T19:2Z", "20190827"])
  func rejects(text: String) {
    #expect(Timestamp(w3cdtf: text) == nil, "\(text)")
  }
}
