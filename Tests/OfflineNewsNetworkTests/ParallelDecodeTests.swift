import Foundation
import TestSupport
import Testing

@testable import OfflineNewsNetwork

/// Large bodies are decoded in chunks on every core; the result must be exactly the whole-body decode's.
@Suite("NewsAPIDecoder: chunked parallel decoding")
struct ParallelDecodeTests {
  /// A body of `count` records with every quirk: nulls, "", unicode, escapes, nested braces in strings, a removed
  /// placeholder, a duplicate URL, a record of the wrong type, and a bad date.
  static func body(_ count: Int) -> Data {
    var records: [String] = []
    for index in 0..<count {
      switch index % 97 {
      case 13:
        records.append(#""not an object""#)
      case 14:
        records.append(
          #"{"source":{"id":null,"name":"[Removed]"},"author":null,"title":"[Removed]","description":"[Removed]","url":"https://removed.com","urlToImage":null,"publishedAt":"1970-01-01T00:00:00Z","content":"[Removed]"}"#
        )
      case 15:
        records.append(
          #"{"source":{"id":null,"name":"Dup"},"title":"Duplicate of 0","url":"https://example.com/a/0","publishedAt":"2024-01-01T00:00:00Z"}"#
        )
      case 16:
        records.append(
          #"{"source":{"id":null,"name":"X"},"title":"Bad date","url":"https://example.com/bad/\#(index)","publishedAt":"yesterday"}"#
        )
      default:
        let minute = String(format: "%02d", index % 60)
        records.append(
          """
          {"source":{"id":\(index % 3 == 0 ? "null" : "\"wire\""),"name":"Wire \\"\(index % 7)\\" {x}"},\
          "author":\(index % 5 == 0 ? "null" : index % 11 == 0 ? "\"\"" : "\"Reporter ü \(index)\""),\
          "title":"Title \(index) — عربي [brackets] {braces} \\\\ back\\nslash","description":null,\
          "url":"https://example.com/a/\(index)","urlToImage":"https://img.example.com/\(index).jpg",\
          "publishedAt":"2024-03-0\(1 + index % 9)T12:\(minute):00.\(index % 10)123456Z","content":"Body \(index)"}
          """)
      }
    }
    let text =
      #"{"status":"ok","totalResults":\#(count),"articles":[\#n  "# + records.joined(separator: ",\n  ")
      + #"],"note":{"nested":[1,2,{"a":"]"}]}}"#
    return Data(text.utf8)
  }

  @Test("a large body decodes in parallel to exactly the whole-body result")
  func sameAsSequential() throws {
    let data = Self.body(9000)
    #expect(data.count >= NewsAPIDecoder.parallelThreshold)
    let parallel = try #require(try NewsAPIDecoder.decodeInParallel(data), "the body is shaped for chunking")
    let whole = try JSONDecoder().decode(Envelope.self, from: data)
    let records = try #require(whole.articles)
    let expected = records.enumerated().map { index, record in
      var issues: [RecordIssue] = []
      return (NewsAPIDecoder.article(from: record, index: index, issues: &issues), issues)
    }
    let got = try #require(parallel.articles)
    #expect(got.count == expected.count)
    #expect(got.map(\.0) == expected.map(\.0))
    #expect(got.map(\.1) == expected.map(\.1))
    #expect(parallel.totalResults == 9000)

    let page = try NewsAPIDecoder().decode(data)
    #expect(page.articles.count == 9000 - 4 * 93 + 0)  // every 97: a string, a placeholder, a duplicate, a bad date
    #expect(page.issues.filter(\.skipped).count == 3 * 93 - 0 + 0)
    #expect(page.articles.first?.title.hasPrefix("Duplicate of 0") == true, "the later duplicate wins at index 0")
  }

  @Test("records parsed from their bytes decode as JSONDecoder decodes them: seeded bodies")
  func byteParserSameAsJSONDecoder() throws {
    var bodies: [(String, Data)] = [("quirks", Self.body(1500))]
    for seed in UInt64(1)...60 {
      var random = SplitMix64(seed: seed)
      bodies.append(("seed \(seed)", NewsAPIFileStreamTests.generatedBody(&random)))
    }
    #expect(Self.compareWithJSONDecoder(bodies) > 20)
  }

  @Test(
    "records parsed from their bytes decode as JSONDecoder decodes them: the real captures",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func byteParserSameAsJSONDecoderOnRealCaptures() throws {
    var bodies: [(String, Data)] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path).sorted()
    where name.hasSuffix(".json") {
      bodies.append((name, try Data(contentsOf: Fixtures.sharedRealDirectory.appendingPathComponent(name))))
    }
    #expect(!bodies.isEmpty)
    _ = Self.compareWithJSONDecoder(bodies)
  }

  /// Decodes each body in parallel and with `JSONDecoder`, expecting the same articles and issues; returns how
  /// many bodies were compared (a body the parallel path declines is not).
  static func compareWithJSONDecoder(_ bodies: [(String, Data)]) -> Int {
    var compared = 0
    for (label, body) in bodies {
      let parallel = try? NewsAPIDecoder.decodeInParallel(body)
      guard let records = (try? JSONDecoder().decode(Envelope.self, from: body))?.articles else {
        // Not a valid body: the parallel path must not produce articles (the whole decode reports the error).
        #expect(parallel?.articles == nil, "\(label)")
        continue
      }
      guard let got = parallel?.articles else { continue }  // declined (one element, or not shaped for chunks)
      let expected = records.enumerated().map { index, record in
        var issues: [RecordIssue] = []
        return (NewsAPIDecoder.article(from: record, index: index, issues: &issues), issues)
      }
      #expect(got.map(\.0) == expected.map(\.0), "\(label)")
      #expect(got.map(\.1) == expected.map(\.1), "\(label)")
      compared += 1
    }
    return compared
  }

  @Test("a truncated large body is an error, never a partial page")
  func truncated() throws {
    let data = Self.body(9000)
    for cut in [data.count / 3, data.count - 2, data.count / 2 + 7] {
      #expect(throws: NewsNetworkError.self) { try NewsAPIDecoder().decode(data.prefix(cut)) }
    }
  }

  @Test("an invalid value inside one chunk is reported at its place in the whole body")
  func invalidInsideChunk() throws {
    var text = String(decoding: Self.body(9000), as: UTF8.self)
    // Break one record in the middle: a title that is not a string, and JSON that is not valid.
    text = text.replacingOccurrences(of: #""title":"Title 5000 "#, with: #""title":tru"#)
    do {
      _ = try NewsAPIDecoder().decode(Data(text.utf8))
      Issue.record("expected an error")
    } catch {
      guard case .invalidResponse(let problem) = error else {
        Issue.record("expected invalidResponse, got \(error)")
        return
      }
      let detail = problem.detail
      #expect(!detail.isEmpty)
    }
  }
}
