import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("Values: dates, numbers, booleans, URLs, HTML entities, transforms, invalid values")
struct ValueConversionTests {
  static let columns = [
    "id", "at", "local", "secs", "millis", "big", "label", "flag", "ratio", "link", "html", "blob", "meta",
  ]

  static func values(onInvalidValue: String = "skipRecord") throws -> ImportMapping {
    try mapping(
      """
      {"name": "values", "records": "", "root": "v", "entities": [
        {"entity": "v", "identity": ["id"], "onInvalidValue": "\(onInvalidValue)", "attributes": {
          "id": {"type": "integer"},
          "at": {"type": "date"},
          "local": {"type": "date", "assumeOffset": "+02:00"},
          "secs": {"type": "date", "unixTime": "seconds"},
          "millis": {"type": "date", "unixTime": "milliseconds"},
          "big": {"type": "integer"},
          "label": {"type": "text"},
          "flag": {"type": "bool"},
          "ratio": {"type": "real"},
          "link": {"type": "url"},
          "html": {"type": "text", "transforms": ["decodeHTMLEntities"]},
          "blob": {"type": "data"},
          "meta": {"type": "json"}}}]}
      """)
  }

  /// A full row of `v`: the given values, NULL elsewhere.
  static func row(_ id: Int64, _ values: TableRow = [:]) -> TableRow {
    var row = Dictionary(uniqueKeysWithValues: columns.map { ($0, DatabaseValue.null) })
    row["id"] = .integer(id)
    row.merge(values) { $1 }
    return row
  }

  /// Imports one record `{"id": 1, key: json}` into a fresh store; returns the report and the table.
  static func importOne(_ key: String, _ json: String, onInvalidValue: String = "skipRecord") async throws -> (
    ImportReport, [TableRow]
  ) {
    let mapping = try values(onInvalidValue: onInvalidValue)
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, #"[{"id": 1, "\#(key)": \#(json)}]"#)
    return (report, try await store.rows("v"))
  }

  /// The value accepted and stored, and nothing reported.
  static func expectStored(
    _ key: String, _ json: String, _ stored: DatabaseValue, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let (report, rows) = try await importOne(key, json)
    #expect(counts(report) == expectedCounts(inserted: 1), "\(json)", sourceLocation: sourceLocation)
    #expect(report.failures == [] && report.warnings == [], "\(json)", sourceLocation: sourceLocation)
    #expect(rows == [row(1, [key: stored])], "\(json)", sourceLocation: sourceLocation)
  }

  /// The value refused: the record skipped, the error reported with identity and key path, nothing stored.
  static func expectRefused(
    _ key: String, _ json: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let (report, rows) = try await importOne(key, json)
    #expect(counts(report) == expectedCounts(failed: 1), "\(json)", sourceLocation: sourceLocation)
    #expect(report.failures.count == 1, "\(json)", sourceLocation: sourceLocation)
    let error = report.failures.first
    #expect(error?.entity == "v", sourceLocation: sourceLocation)
    #expect(error?.identity == "1", sourceLocation: sourceLocation)
    #expect(error?.keyPath == "[0].\(key)", sourceLocation: sourceLocation)
    #expect(
      error?.reason.contains(reason) == true, "\(json): \(error?.reason ?? "no error")", sourceLocation: sourceLocation)
    #expect(rows == [], "\(json)", sourceLocation: sourceLocation)
  }

  static let base = utcMilliseconds(2021, 8, 29, 6, 52, 24)

  static let dateCases: [(String, Int64)] = [
    ("2021-08-29T06:52:24Z", base),
    ("2021-08-29T06:52:24.2Z", base + 200),
    ("2021-08-29T06:52:24.29Z", base + 290),
    ("2021-08-29T06:52:24.291Z", base + 291),
    ("2021-08-29T06:52:24.2917Z", base + 291),
    ("2021-08-29T06:52:24.29172Z", base + 291),
    ("2021-08-29T06:52:24.291728Z", base + 291),
    ("2021-08-29T06:52:24.2917287Z", base + 291),
    ("2021-08-29T06:52:24.29172871Z", base + 291),
    ("2021-08-29T06:52:24.999999999Z", base + 999),
    ("2021-08-29T08:52:24+02:00", base),
    ("2021-08-29T01:22:24-05:30", base),
    ("2021-08-29T08:52:24+0200", base),
    ("2021-08-29T01:22:24.5-0530", base + 500),
    ("2021-08-29T06:52:24z", base),
    ("2021-08-29", utcMilliseconds(2021, 8, 29)),
    ("1969-12-31T23:59:59.999Z", -1),
  ]

  @Test("RFC 3339: 0–9 fraction digits, Z, ±HH:MM, ±HHMM, date-only", arguments: dateCases)
  func rfc3339(_ text: String, _ milliseconds: Int64) async throws {
    try await Self.expectStored("at", "\"\(text)\"", .integer(milliseconds))
  }

  @Test(
    "RFC 3339: malformed text is refused",
    arguments: [
      "2021-08-29T06:52:24.2917287123Z", "2021-08-29T06:52:24.Z", "2021-02-30T00:00:00Z", "2021-08-29T24:00:00Z",
      "yesterday", "", "2021-08-29T06:52:24+2:00",
    ])
  func rfc3339Refused(_ text: String) async throws {
    try await Self.expectRefused("at", "\"\(text)\"", reason: "RFC 3339")
  }

  @Test("zone-less local time: with assumeOffset it is that offset's instant; without, an error")
  func zoneless() async throws {
    try await Self.expectStored("local", #""2021-08-29T08:52:24""#, .integer(Self.base))
    try await Self.expectStored("local", #""2021-08-29T08:52:24.25""#, .integer(Self.base + 250))
    // An explicit offset wins over the assumed one.
    try await Self.expectStored("local", #""2021-08-29T06:52:24Z""#, .integer(Self.base))
    try await Self.expectRefused("at", #""2021-08-29T08:52:24""#, reason: "assumeOffset")
  }

  @Test("Unix time in seconds and milliseconds, as numbers or text")
  func unixTime() async throws {
    try await Self.expectStored("secs", "1573504106", .integer(1_573_504_106_000))
    try await Self.expectStored("secs", #""1573504106""#, .integer(1_573_504_106_000))
    try await Self.expectStored("secs", "1573504106.789", .integer(1_573_504_106_789))
    try await Self.expectStored("secs", "-1", .integer(-1000))
    try await Self.expectStored("millis", "1573504106123", .integer(1_573_504_106_123))
    try await Self.expectStored("millis", #""1573504106123""#, .integer(1_573_504_106_123))
    // A number for a date with no unixTime declared is not guessed.
    try await Self.expectRefused("at", "1573504106", reason: "unixTime")
  }

  @Test("fractional Unix seconds are exact to the millisecond written")
  func fractionalUnixSeconds() async throws {
    // 1.001 s is 1001 ms; 1.001 * 1000 in binary floating point is 1000.9999999999999.
    try await Self.expectStored("secs", "1.001", .integer(1001))
    try await Self.expectStored("secs", #""1.001""#, .integer(1001))
    try await Self.expectStored("secs", "-1.5", .integer(-1500))
  }

  @Test("integers: text and JSON numbers stay exact past 2^53; out of range and fractions are errors")
  func integers() async throws {
    try await Self.expectStored("big", #""9007199254740993""#, .integer(9_007_199_254_740_993))
    try await Self.expectStored("big", "9007199254740993", .integer(9_007_199_254_740_993))
    try await Self.expectStored("big", "9223372036854775807", .integer(Int64.max))
    try await Self.expectStored("big", #""-9223372036854775808""#, .integer(Int64.min))
    try await Self.expectStored("big", "-42", .integer(-42))
    try await Self.expectStored("label", "9007199254740993", .text("9007199254740993"))
    try await Self.expectStored("label", #""9007199254740993""#, .text("9007199254740993"))
    try await Self.expectStored("ratio", "1", .real(1))
    try await Self.expectStored("ratio", #""2.5""#, .real(2.5))
    try await Self.expectRefused("big", #""9223372036854775808""#, reason: "integer")
    try await Self.expectRefused("big", "1.5", reason: "integer")
    try await Self.expectRefused("big", #""12abc""#, reason: "integer")
    try await Self.expectRefused("big", "true", reason: "integer")
  }

  @Test("booleans are told apart from numbers")
  func booleans() async throws {
    try await Self.expectStored("flag", "true", .integer(1))
    try await Self.expectStored("flag", "false", .integer(0))
    try await Self.expectRefused("flag", "1", reason: "boolean")
    try await Self.expectRefused("flag", "0", reason: "boolean")
    try await Self.expectRefused("flag", #""yes""#, reason: "true or false")
  }

  @Test("URLs are validated: absolute with a host (or mailto/file)")
  func urls() async throws {
    try await Self.expectStored("link", #""https://example.com/a?b=c#d""#, .text("https://example.com/a?b=c#d"))
    try await Self.expectStored("link", #""mailto:ann@example.com""#, .text("mailto:ann@example.com"))
    try await Self.expectRefused("link", #""not a url""#, reason: "URL")
    try await Self.expectRefused("link", #""http://""#, reason: "URL")
    try await Self.expectRefused("link", #""/relative/path""#, reason: "URL")
    try await Self.expectRefused("link", #""javascript:alert(1)""#, reason: "URL")
    try await Self.expectRefused("link", "42", reason: "URL")
  }

  @Test("HTML entities are decoded exactly once")
  func htmlEntities() async throws {
    try await Self.expectStored("html", #""&amp;lt;b&amp;gt;""#, .text("&lt;b&gt;"))
    try await Self.expectStored(
      "html", #""Tom &amp; Jerry&#39;s &#x27;show&#x27; &hellip; &quot;x&quot;""#,
      .text("Tom & Jerry's 'show' \u{2026} \"x\""))
    try await Self.expectStored("html", #""https:&#x2F;&#x2F;a.b&#x2F;c""#, .text("https://a.b/c"))
    try await Self.expectStored("html", #""AT&T; &unknown; a &amp b &""#, .text("AT&T; &unknown; a &amp b &"))
    // Attributes without the transform are stored as given.
    try await Self.expectStored("label", #""&amp;lt;""#, .text("&amp;lt;"))

    // Importing the same text again does not decode the stored value a second time.
    let mapping = try Self.values()
    let store = try TestStore(mapping)
    let payload = #"[{"id": 1, "html": "&amp;amp;"}]"#
    #expect(try await counts(store.run(mapping, payload)) == expectedCounts(inserted: 1))
    #expect(try await counts(store.run(mapping, payload)) == expectedCounts(unchanged: 1))
    #expect(try await store.rows("v") == [Self.row(1, ["html": .text("&amp;")])])
  }

  @Test("data from base64; json kept as canonical JSON text")
  func dataAndJSON() async throws {
    try await Self.expectStored("blob", #""AQID""#, .blob([1, 2, 3]))
    try await Self.expectRefused("blob", #""%%%""#, reason: "base64")
    try await Self.expectStored(
      "meta", #"{"b": 1, "a": [true, null, "x/y"]}"#, .text(#"{"a":[true,null,"x/y"],"b":1}"#))
    try await Self.expectStored("meta", "[]", .text("[]"))
  }

  @Test("transforms: trim, emptyIsNull, lowercase — on attributes and on the identity")
  func transforms() async throws {
    let mapping = try mapping(
      """
      {"name": "tags", "records": "tags", "root": "tag", "entities": [
        {"entity": "tag", "identity": ["slug"], "attributes": {
          "slug": {"type": "text", "transforms": ["trim", "lowercase"]},
          "label": {"type": "text", "transforms": ["trim", "emptyIsNull"]},
          "note": {"type": "text", "transforms": ["emptyIsNull"]}}}]}
      """)
    let store = try TestStore(mapping)
    try await store.run(mapping, #"{"tags": [{"slug": "  Swift ", "label": "  Swift  ", "note": "  "}]}"#)
    #expect(try await store.rows("tag") == [["slug": .text("swift"), "label": .text("Swift"), "note": .text("  ")]])
    let report = try await store.run(mapping, #"{"tags": [{"slug": "SWIFT", "label": "   ", "note": ""}]}"#)
    #expect(counts(report) == expectedCounts(updated: 1))
    #expect(try await store.rows("tag") == [["slug": .text("swift"), "label": .null, "note": .null]])
  }

  @Test("an unconvertible value with skipRecord: the record is skipped, its row keeps every old value")
  func invalidValueSkipsRecord() async throws {
    let mapping = try Self.values()
    let store = try TestStore(mapping)
    try await store.run(mapping, #"[{"id": 1, "at": "2020-01-01T00:00:00Z", "label": "old"}]"#)
    let old = Self.row(1, ["at": .integer(utcMilliseconds(2020, 1, 1)), "label": .text("old")])
    #expect(try await store.rows("v") == [old])
    let report = try await store.run(
      mapping, #"[{"id": 1, "at": "yesterday", "label": "new"}, {"id": 2, "at": "2020-01-02"}]"#)
    #expect(counts(report) == expectedCounts(inserted: 1, failed: 1))
    #expect(report.failures.count == 1)
    #expect(report.failures.first?.entity == "v")
    #expect(report.failures.first?.identity == "1")
    #expect(report.failures.first?.keyPath == "[0].at")
    #expect(report.failures.first?.reason.contains("\"yesterday\"") == true)
    #expect(try await store.rows("v") == [old, Self.row(2, ["at": .integer(utcMilliseconds(2020, 1, 2))])])
  }

  @Test("an unconvertible value with keepOldValue: reported, the old value kept, the rest of the record saved")
  func invalidValueKeepsOldValue() async throws {
    let mapping = try Self.values(onInvalidValue: "keepOldValue")
    let store = try TestStore(mapping)
    try await store.run(mapping, #"[{"id": 1, "at": "2020-01-01T00:00:00Z", "label": "old", "flag": true}]"#)
    let report = try await store.run(mapping, #"[{"id": 1, "at": "yesterday", "label": "new", "flag": 1}]"#)
    #expect(counts(report) == expectedCounts(updated: 1))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["[0].at", "[0].flag"])
    #expect(report.warnings.allSatisfy { $0.entity == "v" && $0.identity == "1" })
    #expect(
      try await store.rows("v") == [
        Self.row(1, ["at": .integer(utcMilliseconds(2020, 1, 1)), "label": .text("new"), "flag": .integer(1)])
      ])
    // A new record: the bad value is not stored (NULL, never a made-up value); the rest is.
    let fresh = try await store.run(mapping, #"[{"id": 2, "at": "soon", "label": "two"}]"#)
    #expect(counts(fresh) == expectedCounts(inserted: 1))
    #expect(fresh.warnings.map(\.keyPath) == ["[0].at"])
    #expect(try await store.rows("v").last == Self.row(2, ["label": .text("two")]))
  }
}
