import Foundation
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

// Hostile and broken response bodies through NewsAPIDecoder, and the crashers the fuzzers found (Fuzz/, docs/
// RELIABILITY.md). Every body is written here by hand; none comes from ../shared.
//
// Tests marked "regression:" pin bugs this suite found (docs/RELIABILITY.md); each failed before its fix.
// Those that would trap run in a child process (an exit test), so a trap fails the test
// instead of ending the test run.

/// A NewsAPI body with `records` (JSON text of each record) as its `articles`.
private func body(_ records: String...) -> Data {
  Data((#"{"status":"ok","totalResults":\#(records.count),"articles":["# + records.joined(separator: ",") + "]}").utf8)
}

/// A record with a valid url and date, and the given extra fields (JSON text, e.g. `"title":"x"`).
private func record(_ fields: String, path: String = "1") -> String {
  #"{"url":"https://hostile.example/\#(path)","publishedAt":"2021-08-29T06:52:24Z",\#(fields)}"#
}

/// A well-formed record that must survive whatever its neighbour does.
private let goodRecord = record(#""title":"Good neighbour""#, path: "good")

/// `data` with the first occurrence of the ASCII `marker` replaced by raw `bytes`.
private func replacing(_ marker: String, with bytes: [UInt8], in data: Data) -> Data {
  var data = data
  guard let range = data.range(of: Data(marker.utf8)) else { return data }
  data.replaceSubrange(range, with: bytes)
  return data
}

private func decode(_ data: Data) throws -> NewsPage { try NewsAPIDecoder().decode(data) }

/// The error `decode` throws, or `nil` (after recording an issue) when it decodes.
private func decodeError(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> NewsNetworkError? {
  do {
    let page = try NewsAPIDecoder().decode(data)
    Issue.record("expected an error, decoded \(page.articles.count) articles", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// The namespace of this file's suites (`--filter HostileInputTests` selects them all).
@Suite("Hostile input: response bodies and dates")
enum HostileInputTests {}

// MARK: - Text that is not text

extension HostileInputTests {
  @Suite("lone UTF-16 surrogates and invalid UTF-8")
  struct BrokenText {
    /// Titles that are not valid Unicode text, as JSON escapes or as raw bytes.
    static let cases: [(label: String, body: Data)] = [
      ("lone high surrogate \\ud800", body(record(#""title":"A\ud800B""#), goodRecord)),
      ("lone low surrogate \\udc00", body(record(#""title":"A\udc00B""#), goodRecord)),
      ("reversed pair \\udc00\\ud800", body(record(#""title":"A\udc00\ud800B""#), goodRecord)),
      ("raw bytes FF FE", replacing("@@", with: [0xFF, 0xFE], in: body(record(#""title":"A@@B""#), goodRecord))),
      (
        "CESU-8 surrogate ED A0 80",
        replacing("@@@", with: [0xED, 0xA0, 0x80], in: body(record(#""title":"A@@@B""#), goodRecord))
      ),
      ("overlong C0 AF", replacing("@@", with: [0xC0, 0xAF], in: body(record(#""title":"A@@B""#), goodRecord))),
    ]

    @Test("a title that is not valid text skips its record only, naming the key", arguments: 0..<6)
    func skippedAlone(_ index: Int) throws {
      let page = try decode(Self.cases[index].body)
      #expect(page.articles.map(\.title) == ["Good neighbour"], "\(Self.cases[index].label)")
      #expect(page.issues.map(\.keyPath) == ["articles[0].title"], "\(Self.cases[index].label)")
      #expect(page.issues.first?.skipped == true)
    }

    // Was a bug (NewsAPIDecoder.swift, RawArticle.kind(of:_:)): a string JSONDecoder cannot turn into a Swift
    // String (a lone surrogate, invalid UTF-8) fails every probe, and the fallback reports "found an object".
    @Test("regression: the reason says what was wrong, not \"found an object\"", arguments: 0..<6)
    func reasonIsTrue(_ index: Int) throws {
      let page = try decode(Self.cases[index].body)
      let reason = try #require(page.issues.first?.reason)
      #expect(!reason.contains("an object"), "\(Self.cases[index].label): \(reason)")
    }

    @Test("a valid surrogate pair is one character")
    func validPair() throws {
      let page = try decode(body(record(#""title":"A\ud83d\ude00B""#)))
      #expect(page.articles.map(\.title) == ["A😀B"])
    }

    @Test("invalid UTF-8 outside a string fails the whole body")
    func invalidBetweenTokens() {
      let data = replacing("@@", with: [0xFF, 0xFE], in: body(goodRecord, "@@"))
      guard case .invalidResponse? = decodeError(data) else {
        Issue.record("expected invalidResponse")
        return
      }
    }

    @Test("a NUL character in a title is kept, not cut")
    func nulKept() throws {
      let page = try decode(body(record(#""title":"before\u0000after""#)))
      #expect(page.articles.first.map { Array($0.title.utf8) } == Array("before\u{0}after".utf8))
    }
  }
}

// MARK: - Size and depth

extension HostileInputTests {
  @Suite("deep nesting, huge strings, huge numbers")
  struct Size {
    @Test("100,000 nested arrays: an invalid body, quickly, no stack overflow", arguments: [false, true])
    func deepNesting(closed: Bool) {
      let open = String(repeating: "[", count: 100_000)
      let text = closed ? open + String(repeating: "]", count: 100_000) : open
      let start = ContinuousClock.now
      guard case .invalidResponse? = decodeError(Data(text.utf8)) else {
        Issue.record("expected invalidResponse")
        return
      }
      #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("100,000 nested arrays inside one record fail the whole body (it is not valid JSON for us)")
    func deepNestingInRecord() {
      let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
      let data = body(record(#""title":"t","content":\#(deep)"#), goodRecord)
      guard case .invalidResponse? = decodeError(data) else {
        Issue.record("expected invalidResponse")
        return
      }
    }

    @Test("a 10 MB title is kept whole")
    func hugeTitle() throws {
      let title = String(repeating: "x", count: 10_000_000)
      let page = try decode(body(record(#""title":"\#(title)""#)))
      #expect(page.articles.first?.title.utf8.count == 10_000_000)
    }

    @Test(
      "totalResults that no Int holds (1e999, 2^70) is nil; the page still decodes",
      arguments: [
        "1e999", "1180591620717411303424", "-1e999", "1.5",
      ])
    func hugeTotal(_ number: String) throws {
      let data = Data(#"{"status":"ok","totalResults":\#(number),"articles":[\#(goodRecord)]}"#.utf8)
      let page = try decode(data)
      #expect(page.totalResults == nil)
      #expect(page.articles.count == 1)
    }

    @Test(
      "a number where a string belongs (1e999, 2^70) skips the record with the key path",
      arguments: [
        "1e999", "1180591620717411303424", "1e99999999999999999999",
      ])
    func hugeNumberInText(_ number: String) throws {
      let page = try decode(body(record(#""title":\#(number)"#), goodRecord))
      #expect(page.articles.map(\.title) == ["Good neighbour"])
      #expect(page.issues.map(\.keyPath) == ["articles[0].title"])
    }
  }
}

// MARK: - Shape

extension HostileInputTests {
  @Suite("duplicate keys and wrong types")
  struct Shape {
    @Test("duplicate keys in an article: one article, with one of the values (JSONDecoder keeps the first)")
    func duplicateKeys() throws {
      let data = body(
        #"{"url":"https://hostile.example/a","url":"https://hostile.example/b","title":"first","title":"second","#
          + #""publishedAt":"2021-08-29T06:52:24Z","publishedAt":"1999-01-01T00:00:00Z"}"#)
      let page = try decode(data)
      #expect(page.articles.count == 1)
      let article = try #require(page.articles.first)
      #expect(["first", "second"].contains(article.title))
      #expect(["/a", "/b"].contains(article.url.path))
    }

    @Test("duplicate \"status\": decoded as one of them, never both")
    func duplicateStatus() {
      let data = Data(#"{"status":"error","status":"ok","articles":[]}"#.utf8)
      do {
        let page = try NewsAPIDecoder().decode(data)
        #expect(page.articles.isEmpty)
      } catch {
        guard case .api = error else {
          Issue.record("expected a NewsAPI error or an empty page, got \(error)")
          return
        }
      }
    }

    static let fields = ["author", "title", "description", "url", "urlToImage", "publishedAt", "content"]
    static let wrongValues = ["5", "true", "[]", "{}", "-0.0", "[[\"x\"]]"]

    @Test("a wrong type in any field skips that record only, naming the field", arguments: fields, wrongValues)
    func wrongType(field: String, value: String) throws {
      var fields = ["url": #""https://hostile.example/1""#, "title": #""t""#, "publishedAt": #""2021-08-29""#]
      fields[field] = value
      let text =
        "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
      let page = try decode(body(text, goodRecord))
      #expect(page.articles.map(\.title) == ["Good neighbour"], "\(field)=\(value)")
      #expect(page.issues.map(\.keyPath) == ["articles[0].\(field)"], "\(field)=\(value)")
      #expect(page.issues.allSatisfy { $0.skipped })
    }

    @Test(
      "a wrong type in source, source.id or source.name skips that record only",
      arguments: [
        (#""source":5"#, "articles[0].source"), (#""source":"wire""#, "articles[0].source"),
        (#""source":[]"#, "articles[0].source"), (#""source":{"id":5}"#, "articles[0].source.id"),
        (#""source":{"name":{}}"#, "articles[0].source.name"),
      ])
    func wrongSource(fields: String, keyPath: String) throws {
      let page = try decode(body(record(#""title":"t",\#(fields)"#), goodRecord))
      #expect(page.articles.map(\.title) == ["Good neighbour"])
      #expect(page.issues.map(\.keyPath) == [keyPath])
    }

    // Was a bug (NewsAPIDecoder.swift, RawArticle.init(from:), the `source` branch): a `source` that is not an
    // object is reported as "expected a string or null", but `source` must be an object or null.
    @Test("regression: a source that is not an object says an object was expected")
    func wrongSourceReason() throws {
      let page = try decode(body(record(#""title":"t","source":5"#)))
      let reason = try #require(page.issues.first?.reason)
      #expect(reason.contains("an object or null"), "\(reason)")
    }

    @Test(
      "a body whose articles is not an array, or whose top level is not an object, is invalid",
      arguments: [
        #"{"status":"ok","articles":{}}"#, #"{"status":"ok","articles":"x"}"#, "[]", "null", "\"ok\"", "",
      ])
    func wrongEnvelope(_ text: String) {
      guard case .invalidResponse? = decodeError(Data(text.utf8)) else {
        Issue.record("expected invalidResponse")
        return
      }
    }
  }
}

// MARK: - Large bodies (the parallel path)

extension HostileInputTests {
  @Suite("large bodies: the parallel path reads JSON as strictly as the whole-body path")
  struct LargeBodies {
    /// A body of `count` records of about 1 KB each, separated by `separator` at the `broken` position and by a comma
    /// everywhere else. 600 records make it larger than the 512 KB from which the decoder splits it in chunks.
    static func body(_ count: Int, broken: Int, separator: String) -> Data {
      let padding = String(repeating: "p", count: 900)
      var text = #"{"status":"ok","totalResults":\#(count),"articles":["#
      for index in 0..<count {
        if index > 0 { text += index == broken ? separator : "," }
        text += #"{"url":"https://hostile.example/\#(index)","title":"Title \#(index)","#
        text += #""publishedAt":"2021-08-29T06:52:24Z","content":"\#(padding)"}"#
      }
      return Data((text + "]}").utf8)
    }

    // Was a bug (ArticleArrayScanner.swift, scanArray(): separators were skipped, not checked): from 512 KB on, the
    // decoder delimits the records with ArticleArrayScanner and decodes them in chunks, and the scanner accepts
    // records with no comma between them, two commas, or a comma before the first or after the last. The same
    // body under 512 KB is refused as not valid JSON. Found by Fuzz/ParallelDecodeFuzz.swift (known bug
    // parallel-accepts-invalid-json).
    @Test(
      "regression: a body with broken separators between records is invalid, whatever its size",
      arguments: [" ", ",,", "\n"], [20, 600])
    func brokenSeparators(separator: String, count: Int) {
      let data = Self.body(count, broken: count / 2, separator: separator)
      do {
        let page = try NewsAPIDecoder().decode(data)
        Issue.record(
          "\(data.count) bytes with \(separator.debugDescription) between records: decoded \(page.articles.count)")
      } catch {
        guard case .invalidResponse = error else {
          Issue.record("expected invalidResponse, got \(error)")
          return
        }
      }
    }

    @Test("a large valid body decodes to every record, in order")
    func largeValid() throws {
      let data = Self.body(600, broken: -1, separator: ",")
      #expect(data.count > 512 * 1024)
      let page = try NewsAPIDecoder().decode(data)
      #expect(page.articles.count == 600)
      #expect(page.articles.map(\.title) == (0..<600).map { "Title \($0)" })
    }
  }
}

// MARK: - The network's own limits

extension HostileInputTests {
  @Suite("HTTPNewsNetwork with absurd settings")
  struct NetworkSettings {
    // Regression: FoundationNetworking converts the timeout to integer milliseconds for libcurl and traps above
    // ~9.2e15 s; the timeout was rounded, not bounded (the CLI bounded it, a library user could pass more). It is
    // capped at one day now. Run in a child process, where the trap was a SIGILL.
    // The timeout travels to the child process as text: an exit test's captured values are encoded as JSON, which
    // has no infinity (capturing Double.infinity fails the test with "a system failure occurred", and leaves Swift
    // Testing 6.3's exit-test monitor spinning on the unclaimed child until the run is killed).
    @Test(
      "regression: an enormous or infinite timeout fails the request like any other, without a trap",
      arguments: ["1e16", "inf"])
    func hugeTimeout(_ timeout: String) async {
      await #expect(processExitsWith: .success) { [timeout] in
        let port = try LoopbackHTTPServer.refusedPort()
        let network = HTTPNewsNetwork(apiKey: nil, timeout: try #require(Double(timeout)))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/v2/top-headlines"))
        _ = try? await network.fetch(NewsQuery(url: url))
      }
    }
  }
}

// MARK: - Text that is valid but hostile

extension HostileInputTests {
  @Suite("control characters and SQL metacharacters are data")
  struct HostileText {
    @Test("control characters and escape sequences in a title are kept as sent (the CLI must render them safely)")
    func controlCharacters() throws {
      let page = try decode(body(record(#""title":"\u001b[2J\u001b]0;pwned\u0007Clear\r\u0008\u009b31m""#)))
      #expect(page.articles.first?.title == "\u{1B}[2J\u{1B}]0;pwned\u{07}Clear\r\u{08}\u{9B}31m")
    }

    @Test("SQL metacharacters in url and title are kept; the url's space is percent-encoded")
    func sqlMetacharacters() throws {
      let evil = "'); DROP TABLE article;--"
      let page = try decode(
        body(#"{"url":"https://hostile.example/x?q=\#(evil)","title":"\#(evil)","publishedAt":"2021-08-29"}"#))
      let article = try #require(page.articles.first)
      #expect(article.title == evil)
      #expect(article.url.absoluteString == "https://hostile.example/x?q=');%20DROP%20TABLE%20article;--")
    }

    @Test("an HTTP error body that echoes the secret is redacted before it is cut to 200 characters")
    func secretEchoed() {
      let secret = "hostile0secret0key0123456789abcdef"
      for padding in [0, 150, 190, 199, 60_000, 65_530] {
        let data = Data((String(repeating: "x", count: padding) + "X-Api-Key: \(secret)\n").utf8)
        do {
          _ = try NewsAPIDecoder().decode(data, httpStatus: 502, redacting: secret)
          Issue.record("HTTP 502 decoded as a page")
        } catch {
          #expect(!error.description.contains(secret), "padding \(padding)")
          #expect(!error.description.contains(secret.prefix(12)), "padding \(padding): a part of the key")
        }
      }
    }
  }
}

// MARK: - Dates (the fuzzers' findings)

extension HostileInputTests {
  @Suite("RFC 3339 dates at the edges")
  struct Dates {
    // Was a bug (Timestamp+RFC3339.swift, parse(_:assumingOffset:), the final `seconds` arithmetic): a year-0000
    // text with a positive offset, a year-9999 text with a negative one, or a leap second at the end of 9999 is
    // parsed to an instant outside the four-digit years; `rfc3339String` then prints "-0001-…" or "10000-…", which
    // is not RFC 3339 and does not parse back. Found by Fuzz/TimestampFuzz.swift (known bug
    // round-trip-outside-0000-9999). The CLI prints such a date in `--json` ("publishedAt":"10000-01-01T…").
    @Test(
      "regression: every parsed instant prints as RFC 3339 that parses back to it",
      arguments: [
        "0000-01-01T00:00:00+01:00", "0000-01-01T00:30:00+00:31", "9999-12-31T23:59:59-01:00",
        "9999-12-31T23:59:60Z", "9999-12-31T23:59:59.999-00:01",
      ])
    func roundTripAtTheEdges(_ text: String) {
      guard let value = Timestamp(rfc3339: text) else { return }  // refusing the text is a fix too
      let printed = value.rfc3339String
      #expect(Timestamp(rfc3339: printed) == value, "\(text) → \(printed)")
    }

    @Test("the first and last instants of the four-digit years round-trip")
    func roundTripInside() throws {
      for text in ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00-23:59"] {
        let value = try #require(Timestamp(rfc3339: text))
        #expect(Timestamp(rfc3339: value.rfc3339String) == value, "\(text)")
      }
    }

    @Test("a decoded article never carries a date that does not print as a four-digit year")
    func decodedDatePrints() throws {
      let page = try decode(
        body(#"{"url":"https://hostile.example/leap","title":"t","publishedAt":"2016-12-31T23:59:60Z"}"#))
      let printed = try #require(page.articles.first.map { Timestamp($0.publishedAt).rfc3339String })
      #expect(printed == "2017-01-01T00:00:00.000Z")
    }

    // Was a bug (Timestamp+RFC3339.swift, parse(_:assumingOffset:), `seconds * 1000` and `… - offsetSeconds`): an
    // `assumingOffset` near Int.max or Int.min overflows and traps, though the initializer is documented never to
    // trap. Run in a child process: today it dies with "arithmetic overflow".
    @Test("regression: an absurd assumingOffset returns nil instead of trapping", arguments: [Int.max, Int.min])
    func hugeAssumedOffset(_ offset: Int) async {
      await #expect(processExitsWith: .success) { [offset] in
        _ = Timestamp(rfc3339: "2021-08-29T06:52:24", assumingOffset: offset)
      }
    }

    @Test("assumingOffset applies only to text without an offset")
    func assumedOffsetOnlyWhenMissing() {
      #expect(
        Timestamp(rfc3339: "2021-08-29T06:52:24Z", assumingOffset: 3600) == Timestamp(rfc3339: "2021-08-29T06:52:24Z"))
      #expect(
        Timestamp(rfc3339: "2021-08-29T06:52:24", assumingOffset: 3600)
          == Timestamp(rfc3339: "2021-08-29T05:52:24Z"))
    }
  }
}
