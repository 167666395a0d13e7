import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("The JSON reader: exact, tolerant of repairable text, precise about where a document breaks")
struct JSONReaderTests {
  static func document(_ text: String) throws -> JSONDocument {
    try JSONValue.parseDocument(Data(text.utf8))
  }

  /// The message of the `invalidJSON` error `text` throws, or `nil` when it parses.
  static func syntaxError(_ bytes: [UInt8]) -> String? {
    do {
      _ = try JSONValue.parseDocument(Data(bytes))
      return nil
    } catch {
      guard case .invalidJSON(let message) = error else { return "\(error)" }
      return message
    }
  }

  /// A JSONSerialization value (an independent reader) as a JSONValue, for comparison.
  static func oracle(_ value: Any) -> JSONValue {
    switch value {
    case is NSNull: return .null
    case let number as NSNumber:
      // The type JSONSerialization chose: "c" a boolean, "d" a number with a fraction or exponent, else an integer.
      switch String(cString: number.objCType) {
      case "c": return .bool(number.boolValue)
      case "d", "f": return .number(number.doubleValue)
      default: return .integer(number.int64Value)
      }
    case let text as String: return .string(text)
    case let array as [Any]: return .array(array.map(oracle))
    case let object as [String: Any]: return .object(object.mapValues(oracle))
    default: return .string("unexpected \(type(of: value))")
    }
  }

  @Test("every real JSON file reads as JSONSerialization reads it", .enabled(if: Fixtures.hasSharedReal))
  func realFilesAgreeWithFoundation() throws {
    let folder = Fixtures.sharedRealDirectory
    let files =
      try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.map {
        folder.appendingPathComponent($0)
      }
      + ["inessential.json", "3960.json"].map { folder.appendingPathComponent("feeds/\($0)") }
    #expect(files.count >= 13)
    for url in files {
      let data = try Data(contentsOf: url)
      let ours = try JSONValue.parseDocument(data)
      #expect(ours.repairs == [], "\(url.lastPathComponent)")
      let theirs = Self.oracle(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
      #expect(ours.value == theirs, "\(url.lastPathComponent)")
    }
  }

  @Test("integers stay exact to 64 bits; fractions and exponents are doubles; booleans are not numbers")
  func numbers() throws {
    let value = try Self.document(
      #"[9007199254740993, -9223372036854775808, 9223372036854775808, 1.0, 2.5e3, -0, 0, true, false, null]"#
    ).value
    #expect(
      value
        == .array([
          .integer(9_007_199_254_740_993), .integer(Int64.min), .number(9_223_372_036_854_775_808), .number(1),
          .number(2500), .integer(0), .integer(0), .bool(true), .bool(false), .null,
        ]))
  }

  @Test("a lone surrogate becomes U+FFFD and is reported with its key path, line and column; pairs are joined")
  func loneSurrogates() throws {
    let document = try Self.document(
      """
      {"items": [
        {"title": "ok \\ud83c\\udf0a"},
        {"title": "cut \\ud83d", "note": "low \\udc00 alone", "twice": "\\ud83d\\ud83d\\ude00"}]}
      """)
    #expect(document.value[path: "items.0.title"] == .string("ok \u{1F30A}"))
    #expect(document.value[path: "items.1.title"] == .string("cut \u{FFFD}"))
    #expect(document.value[path: "items.1.note"] == .string("low \u{FFFD} alone"))
    #expect(document.value[path: "items.1.twice"] == .string("\u{FFFD}\u{1F600}"))
    #expect(document.repairs.map(\.keyPath) == ["items[1].title", "items[1].note", "items[1].twice"])
    #expect(document.repairs.map(\.line) == [3, 3, 3])
    // Line 3 is `  {"title": "cut \ud83d", …`: the escape starts at column 18.
    #expect(document.repairs.first?.column == 18)
    #expect(document.repairs.allSatisfy { $0.problem.contains("lone UTF-16 surrogate") })
    #expect(document.repairs.first?.problem.contains("\\ud83d") == true)
  }

  @Test("invalid UTF-8, raw control characters and unknown escapes are repaired and reported, not fatal")
  func otherRepairs() throws {
    var bytes = Array(#"{"a": "caf"#.utf8) + [0xC3] + Array(#"", "b": "tab"#.utf8) + [0x09]
    bytes += Array(#"here", "c": "\q"}"#.utf8)
    let document = try JSONValue.parseDocument(Data(bytes))
    #expect(document.value[path: "a"] == .string("caf\u{FFFD}"))
    #expect(document.value[path: "b"] == .string("tab\there"))
    #expect(document.value[path: "c"] == .string("q"))
    #expect(document.repairs.map(\.keyPath) == ["a", "b", "c"])
    #expect(document.repairs.map(\.problem).map { $0.prefix(12) } == ["invalid UTF-", "a raw contro", "an unknown e"])
  }

  @Test("a UTF-8 byte order mark is skipped; a UTF-16 document is refused by name")
  func byteOrderMarks() throws {
    let value = try JSONValue.parseDocument(Data([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8))).value
    #expect(value == .object(["a": .integer(1)]))
    #expect(Self.syntaxError([0xFF, 0xFE, 0x7B, 0x00])?.contains("UTF-16") == true)
  }

  @Test("a hand-written file's trailing comma is skipped; data stays strict, and a comma with nothing before it fails")
  func trailingCommas() throws {
    let text = "{\"sources\": {\"a\": [1, 2, ],\r\n \"b\": {\"c\": true,},\n},\n}"
    let value = try JSONValue.parseHandWritten(Data(text.utf8))
    #expect(
      value
        == .object(["sources": .object(["a": .array([.integer(1), .integer(2)]), "b": .object(["c": .bool(true)])])]))
    #expect(throws: ImportError.self) { try JSONValue.parse(Data(text.utf8)) }
    for broken in ["[,]", "{,}", "[1,,]", "{\"a\": 1,,}", "[1,"] {
      #expect(throws: ImportError.self, "\(broken)") { try JSONValue.parseHandWritten(Data(broken.utf8)) }
    }
  }

  static let syntaxCases: [(String, String)] = [
    ("", "the document is empty"),
    ("   \n ", "only whitespace"),
    (#"{"a": 1,}"#, #"byte 8 (line 1, column 9): expected a member name in double quotes, found "}""#),
    ("[1, 2\n, 3\n", "byte 10 (line 3, column 1"),
    (
      "{\"a\":\n  [1 2]}",
      #"byte 11 (line 2, column 6, in a): expected "," or "]" after an element of an array, found "2""#
    ),
    (#"{"a": tru}"#, "expected true"),
    (#"[01]"#, "leading zeros"),
    (#"[1.]"#, "after the decimal point"),
    (#"[NaN]"#, "expected a value"),
    (
      #"{"a": "unterminated}"#,
      "byte 20 (line 1, column 21, in a): the document ends inside a string (it starts at line 1, column 7)"
    ),
    (#"{"a": 1} {"b": 2}"#, "after the end of the top-level value"),
    (#"["\u12"]"#, "four hex digits"),
  ]

  @Test("a syntax error names the byte offset, line and column, and never a decoder's type names")
  func syntaxErrors() {
    for (text, expected) in Self.syntaxCases {
      let message = Self.syntaxError(Array(text.utf8))
      #expect(message?.contains(expected) == true, "\(text): \(message ?? "parsed")")
      for internalName in ["DecodingError", "typeMismatch", "dataCorrupted", "Swift.", "CodingKeys", "Double"] {
        #expect(message?.contains(internalName) != true, "\(text): \(message ?? "")")
      }
    }
  }

  @Test("deep nesting is refused at 512 levels, not a crash")
  func depth() {
    #expect(Self.syntaxError(Array(repeating: UInt8(ascii: "["), count: 100_000))?.contains("512") == true)
    #expect(
      (try? JSONValue.parseDocument(
        Data((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8))) != nil)
  }

  @Test("the truncated NewsAPI fixture names where it stops")
  func truncatedFixture() throws {
    let data = try Data(contentsOf: Fixtures.own("newsapi-truncated.json"))
    let message = Self.syntaxError(Array(data))
    #expect(message?.hasPrefix("byte \(data.count) (line ") == true, "\(message ?? "parsed")")
    // Offsets computed with Python over the file's bytes.
    #expect(
      message
        == "byte 606 (line 25, column 67, in articles[1].description): the document ends inside a string "
        + "(it starts at line 25, column 22)")
  }

  @Test("a lone surrogate costs nothing through a mapping: every record imported, the repair a warning of its record")
  func loneSurrogateThroughMapping() async throws {
    let mapping = try shippedMapping("newsapi")
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: Fixtures.own("newsapi-lone-surrogate.json"))
    #expect(counts(report) == expectedCounts(inserted: 3))
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["articles[1].title", "articles[2].description"])
    #expect(report.warnings.map(\.identity) == ["https://wire.example.com/launch", "https://wire.example.com/markets"])
    #expect(report.warnings.allSatisfy { $0.entity == "article" && $0.reason.contains("U+FFFD") })
    #expect(report.warnings.first?.reason.hasSuffix("(byte 493, line 3, column 79)") == true)
    let titles = try await store.rows("article").map { $0["title"] }
    #expect(titles.contains(.text("Launch day \u{FFFD}")))
    #expect(titles.contains(.text("Storm Isolde: ferries cancelled \u{1F30A}")))
  }
}
