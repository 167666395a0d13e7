import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("Dates: one offset rule per mapping, Unix time in four units and range-checked, date patterns")
struct DateRuleTests {
  /// One record `{"id": 1, "at": JSON}` through a `date` attribute declared as `spec`; the mapping's top level
  /// gets `top`.
  static func importOne(_ json: String, spec: String = "", top: String = "") async throws -> (
    ImportReport, DatabaseValue?
  ) {
    let mapping = try mapping(
      """
      {"name": "d", "records": "", "root": "e", \(top) "entities": [
        {"entity": "e", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "at": {"type": "date"\(spec.isEmpty ? "" : ", " + spec)}}}]}
      """)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"[{"id": 1, "at": \#(json)}]"#)
    return (report, try await store.rows("e").first?["at"])
  }

  @Test("a time without an offset: the mapping's assumeOffset, reported; the attribute's own, silent; else refused")
  func zonelessRule() async throws {
    let eight = utcMilliseconds(2018, 1, 6, 8, 0)
    var (report, stored) = try await Self.importOne(#""2018-01-06T08:00""#, top: #""assumeOffset": "Z","#)
    #expect(stored == .integer(eight))
    #expect(report.warnings.map(\.keyPath) == ["[0].at"])
    #expect(report.warnings.first?.reason.contains("read as UTC") == true)
    (report, stored) = try await Self.importOne(#""2018-01-06T09:00:00""#, top: #""assumeOffset": "+01:00","#)
    #expect(stored == .integer(eight))
    #expect(report.warnings.first?.reason.contains("+01:00") == true)
    // The attribute's own offset wins over the mapping's and is a statement, not a guess: no warning.
    (report, stored) = try await Self.importOne(
      #""2018-01-06T10:00""#, spec: #""assumeOffset": "+02:00""#, top: #""assumeOffset": "Z","#)
    #expect(stored == .integer(eight))
    #expect(report.warnings == [])
    // An offset in the text wins over both.
    (report, stored) = try await Self.importOne(#""2018-01-06T08:00Z""#, top: #""assumeOffset": "+05:00","#)
    #expect(stored == .integer(eight))
    #expect(report.warnings == [])
    // No rule: the value is lost (a warning) and the message says what to declare.
    (report, stored) = try await Self.importOne(#""2018-01-06T08:00""#)
    #expect(stored == .null)
    #expect(report.warnings.first?.reason.contains("assumeOffset") == true)
  }

  @Test("Unix time in seconds, milliseconds, microseconds and nanoseconds, exact for integers")
  func unixUnits() async throws {
    let instant: Int64 = 1_573_504_106_123  // 2019-11-11T20:28:26.123Z
    let cases: [(String, String, Int64)] = [
      ("seconds", "1573504106.123", instant), ("milliseconds", "1573504106123", instant),
      ("microseconds", "1573504106123456", instant), ("nanoseconds", "1573504106123456789", instant),
      ("nanoseconds", #""1573504106123456789""#, instant), ("microseconds", "-1", -1), ("nanoseconds", "-1", -1),
    ]
    for (unit, json, expected) in cases {
      let (report, stored) = try await Self.importOne(json, spec: #""unixTime": "\#(unit)""#)
      #expect(stored == .integer(expected), "\(json) \(unit)")
      #expect(report.warnings == [], "\(json) \(unit)")
    }
  }

  @Test("every Unix time is range-checked: after 9999 or before 0000 is an error (with the likely unit), not a date")
  func unixRange() async throws {
    // 9999-12-31T23:59:59Z is the last second that RFC 3339 can write.
    var (report, stored) = try await Self.importOne("253402300799", spec: #""unixTime": "seconds""#)
    #expect(stored == .integer(253_402_300_799_000))
    (report, stored) = try await Self.importOne("253402300800", spec: #""unixTime": "seconds""#)
    #expect(stored == .null)
    #expect(report.warnings.first?.reason.contains("after the year 9999") == true)
    // Milliseconds given as seconds: the message names the unit that fits.
    (report, stored) = try await Self.importOne("1573504106123", spec: #""unixTime": "seconds""#)
    #expect(stored == .null)
    #expect(report.warnings.first?.reason.contains(#""unixTime": "milliseconds""#) == true)
    (report, stored) = try await Self.importOne("-1e300", spec: #""unixTime": "milliseconds""#)
    #expect(report.warnings.first?.reason.contains("before the year 0000") == true)
    (report, stored) = try await Self.importOne("9223372036854775807", spec: #""unixTime": "seconds""#)
    #expect(stored == .null)
  }

  @Test("format: a Unicode date pattern read in its time zone (daylight saving included), strictly")
  func patterns() async throws {
    let spec = #""format": "M/d/yyyy H-mm-ss", "timeZone": "America/New_York""#
    // Oracle: the same wall-clock time through Calendar in that zone (EST −5 in January, EDT −4 in July).
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "America/New_York"))
    func newYork(_ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) throws -> Int64 {
      let date = try #require(
        calendar.date(
          from: DateComponents(year: 2024, month: month, day: day, hour: hour, minute: minute, second: second)))
      return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
    var (report, stored) = try await Self.importOne(#""1/2/2024 3-04-05""#, spec: spec)
    #expect(stored == .integer(try newYork(1, 2, 3, 4, 5)))
    #expect(stored == .integer(utcMilliseconds(2024, 1, 2, 8, 4, 5)))
    (report, stored) = try await Self.importOne(#""7/4/2024 23-59-00""#, spec: spec)
    #expect(stored == .integer(try newYork(7, 4, 23, 59, 0)))
    #expect(stored == .integer(utcMilliseconds(2024, 7, 5, 3, 59, 0)))
    #expect(report.warnings == [])
    for bad in [#""13/2/2024 3-04-05""#, #""1/2/2024""#, #""2024-01-02T03:04:05Z""#] {
      (report, stored) = try await Self.importOne(bad, spec: spec)
      #expect(stored == .null, "\(bad)")
      #expect(report.warnings.first?.reason.contains("M/d/yyyy H-mm-ss") == true, "\(bad)")
    }
    // A zone field in the pattern needs no timeZone.
    (report, stored) = try await Self.importOne(
      #""06.01.2018 08:00 +0100""#, spec: #""format": "dd.MM.yyyy HH:mm Z""#)
    #expect(stored == .integer(utcMilliseconds(2018, 1, 6, 7, 0)))
  }

  @Test("a pattern without a zone and no timeZone is refused when the mapping is read, saying what to add")
  func patternNeedsZone() {
    let problem = mappingProblem(
      """
      {"name": "d", "records": "", "root": "e", "entities": [
        {"entity": "e", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "at": {"type": "date", "format": "M/d/yyyy H-mm-ss"}}}]}
      """)
    #expect(problem?.contains(#"add "timeZone": "UTC""#) == true, "\(problem ?? "accepted")")
    let badZone = mappingProblem(
      """
      {"name": "d", "records": "", "root": "e", "entities": [
        {"entity": "e", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "at": {"type": "date", "format": "M/d/yyyy", "timeZone": "Mars/Olympus"}}}]}
      """)
    #expect(badZone?.contains("IANA") == true, "\(badZone ?? "accepted")")
  }
}
