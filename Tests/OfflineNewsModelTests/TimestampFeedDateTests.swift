import Foundation
import OfflineNewsModel
import Testing

/// Seconds since 1970 of `text` read by the feed date rule, or `nil`.
private func seconds(_ text: String) -> Int64? {
  Timestamp(feedDate: text).map { $0.millisecondsSince1970 / 1000 }
}

/// 2016-10-04T08:00:00Z (`date -u -d 2016-10-04T08:00:00Z +%s`).
private let october4: Int64 = 1_475_568_000

/// Every date a feed writes (issue 29, item 3), read by the one date rule, `Timestamp(feedDate:)`.
@Suite("Timestamp: every date a feed writes")
struct TimestampFeedDateTests {
  @Test(
    "European day and month names, abbreviated or in full, with their dots",
    arguments: [
      // fabarea/rss_display#43 (SimplePie misses German abbreviations), scrapinghub/dateparser#395 ("Mrz"),
      // jocmp/capyreader#328 (tagesspiegel.de writes "Sept").
      "Di, 04 Okt 2016 10:00:00 +0200",
      "Dienstag, 4. Oktober 2016 10:00:00 MESZ",
      "Di., 04. Okt. 2016 10:00:00 CEST",
      "mar., 04 oct. 2016 10:00:00 +0200",
      "mardi 4 octobre 2016 10:00:00 +0200",
      "mar, 04 ott 2016 10:00:00 +0200",
      "martedì, 4 ottobre 2016 10:00:00 +0200",
      "mar, 04 oct 2016 10:00:00 +0200",
      "di, 04 okt 2016 10:00:00 +0200",
      "ter, 04 out 2016 09:00:00 +0100",
      "tis, 04 okt 2016 10:00:00 +0200",
      "út, 04 říj 2016 10:00:00 +0200",
      "wt, 04 paź 2016 10:00:00 +0200",
      "Tue, 04 Oct 2016 08:00:00 GMT",
    ])
  func europeanNames(text: String) {
    #expect(seconds(text) == october4, "\(text)")
  }

  @Test(
    "months of every language that have a name of their own",
    arguments: [
      ("1 Mär 2021 00:00 GMT", 3), ("1 Mrz 2021 00:00 GMT", 3), ("1 mrt 2021 00:00 GMT", 3),
      ("1 gen 2021 00:00 GMT", 1),
      ("1 ene 2021 00:00 GMT", 1), ("1 févr. 2021 00:00 GMT", 2), ("1 mag 2021 00:00 GMT", 5),
      ("1 mei 2021 00:00 GMT", 5),
      ("1 maj 2021 00:00 GMT", 5), ("1 juin 2021 00:00 GMT", 6), ("1 juil. 2021 00:00 GMT", 7),
      ("1 lug 2021 00:00 GMT", 7),
      ("1 août 2021 00:00 GMT", 8), ("1 ago 2021 00:00 GMT", 8), ("1 set 2021 00:00 GMT", 9),
      ("1 Sept 2021 00:00 GMT", 9),
      ("1 dic 2021 00:00 GMT", 12), ("1 Dez 2021 00:00 GMT", 12), ("1 déc. 2021 00:00 GMT", 12),
    ] as [(String, Int)])
  func months(text: String, month: Int) throws {
    let timestamp = try #require(Timestamp(feedDate: text), "\(text)")
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    #expect(calendar.component(.month, from: timestamp.date) == month, "\(text)")
  }

  @Test(
    "zone names of North America and Europe, half-hour zones, military letters as -0000",
    arguments: [
      ("Tue, 04 Oct 2016 05:00:00 ADT", october4), ("Tue, 04 Oct 2016 04:00:00 AST", october4),
      ("Tue, 04 Oct 2016 05:30:00 NDT", october4), ("Tue, 04 Oct 2016 04:00:00 EDT", october4),
      ("Tue, 04 Oct 2016 03:00:00 ET", october4), ("Tue, 04 Oct 2016 00:00:00 PT", october4),
      ("Tue, 04 Oct 2016 00:00:00 AKDT", october4), ("Mon, 03 Oct 2016 22:00:00 HST", october4),
      ("Tue, 04 Oct 2016 09:00:00 MEZ", october4), ("Tue, 04 Oct 2016 10:00:00 MEST", october4),
      ("Tue, 04 Oct 2016 11:00:00 EEST", october4), ("Tue, 04 Oct 2016 09:00:00 BST", october4),
      ("Tue, 04 Oct 2016 17:30:00 ACST", october4), ("Tue, 04 Oct 2016 08:00:00 Q", october4),
    ] as [(String, Int64)])
  func zoneNames(text: String, expected: Int64) {
    #expect(seconds(text) == expected, "\(text)")
  }

  @Test(
    "other orders and numeric forms real feeds carry; a date without a zone is UTC",
    arguments: [
      // feed-rs#289: "Fri, Oct 7 2022 10:15:00 -0400" (the month before the day); asctime's order.
      ("Fri, Oct 7 2022 10:15:00 -0400", 1_665_152_100),
      ("Oct 7 2022 14:15:00 GMT", 1_665_152_100),
      ("Fri Oct  7 14:15:00 2022", 1_665_152_100),
      ("2022/10/7 14:15:00", 1_665_152_100),
      ("2022/10/07 14:15", 1_665_152_100),
      ("2022-10-07 14:15:00", 1_665_152_100),
      ("2022-10-07 16:15:00 +02:00", 1_665_152_100),
      ("07.10.2022 14:15", 1_665_152_100),
      ("7.10.2022 16:15:00 MESZ", 1_665_152_100),
      ("2022/10/07", 1_665_100_800),
      ("2022-10-07T14:15:00Z", 1_665_152_100),
      ("07 Oct 22 14:15 GMT", 1_665_152_100),
    ] as [(String, Int64)])
  func otherForms(text: String, expected: Int64) {
    #expect(seconds(text) == expected, "\(text)")
  }

  @Test(
    "what no rule reads is nil: a month-day order with slashes (10/7 or 7/10?), words, impossible dates",
    arguments: [
      "10/07/2022", "yesterday", "2022/13/01", "31.02.2022", "Fri, 07 Foo 2022 10:00 GMT", "2022/10/07 25:00",
      "Someday, 17 Jan 2021 22:46:22 GMT", "mar 17 janv 2021", "2022/10/07 14:15 XYZ",
    ])
  func rejects(text: String) {
    #expect(seconds(text) == nil, "\(text)")
  }
}
