import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsNetwork

/// A file read in batches must give exactly what the whole-body decode gives: the same articles (once "the later
/// record wins, at the earlier one's place" is applied, as the save applies it), the same issues, the same errors.
@Suite("NewsAPIFileStream: streaming a large file in batches")
struct NewsAPIFileStreamTests {
  struct Streamed: Equatable {
    var articles: [Article]
    var issues: [RecordIssue]
    var totalResults: Int?
  }

  /// Streams `data` (through a file) in batches of `batchSize`, reading `readSize` bytes at a time; `nil` when the
  /// stream declines the file.
  static func stream(_ data: Data, batchSize: Int, readSize: Int = NewsAPIFileStream.defaultReadSize) throws
    -> Result<Streamed, NewsNetworkError>?
  {
    let directory = TemporaryDirectory("news-stream")
    let path = directory.path("body.json")
    try data.write(to: URL(fileURLWithPath: path))
    guard
      let stream = try NewsAPIFileStream(path: path, minimumSize: 0, batchSize: batchSize, readSize: readSize)
    else { return nil }
    defer { stream.cancel() }
    var articles: [Article] = []
    var positionByURL: [URL: Int] = [:]
    do {
      while let batch = try stream.next() {
        for article in batch {
          if let earlier = positionByURL[article.url] {
            articles[earlier] = article
          } else {
            positionByURL[article.url] = articles.count
            articles.append(article)
          }
        }
      }
    } catch {
      return .failure(error)
    }
    return .success(Streamed(articles: articles, issues: stream.issues, totalResults: stream.totalResults))
  }

  static func whole(_ data: Data) -> Result<Streamed, NewsNetworkError> {
    do {
      let page = try NewsAPIDecoder().decode(data)
      return .success(Streamed(articles: page.articles, issues: page.issues, totalResults: page.totalResults))
    } catch {
      return .failure(error)
    }
  }

  /// Checks that streaming `data` agrees with decoding it whole: equal results, or both fail (with the same error
  /// when `sameError`). A stream that declines the file is fine only when the whole decode fails too.
  static func checkSame(_ data: Data, _ label: String, sameError: Bool = false) throws {
    let expected = whole(data)
    // Small reads put window boundaries inside keys, strings, escapes and separators.
    for (batchSize, readSize) in [(1, 7), (3, 61), (64, 4096), (100_000, NewsAPIFileStream.defaultReadSize)] {
      guard let got = try stream(data, batchSize: batchSize, readSize: readSize) else {
        if case .success = expected { Issue.record("\(label): a valid body was declined by the stream") }
        continue
      }
      switch (expected, got) {
      case (.success(let a), .success(let b)):
        #expect(a == b, "\(label), batches of \(batchSize), reads of \(readSize)")
      case (.failure(let a), .failure(let b)):
        if sameError { #expect(a == b, "\(label), batches of \(batchSize), reads of \(readSize)") }
      default:
        Issue.record("\(label), batches of \(batchSize), reads of \(readSize): whole \(expected), streamed \(got)")
      }
    }
  }

  @Test("every quirk of the parallel-decode body: the same articles, issues and totalResults")
  func sameAsWholeOnQuirks() throws {
    try Self.checkSame(ParallelDecodeTests.body(1500), "quirks")
  }

  @Test("the repository's own NewsAPI fixtures, valid or not, stream as they decode")
  func ownFixtures() throws {
    let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.hasSuffix(".json") || $0.hasSuffix(".html")
    }
    #expect(!names.isEmpty)
    for name in names.sorted() {
      try Self.checkSame(try Data(contentsOf: folder.appendingPathComponent(name)), name)
    }
    try Self.checkSame(
      try Data(contentsOf: Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")), "sample")
  }

  @Test(
    "the real captures in ../shared/fixtures/real stream as they decode",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func realCaptures() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path).filter {
      $0.hasSuffix(".json")
    }
    for name in names.sorted() {
      try Self.checkSame(try Data(contentsOf: Fixtures.sharedRealDirectory.appendingPathComponent(name)), name)
    }
  }

  @Test("seeded generated bodies (escapes, surrogates, wrong types, unknown keys, cuts) stream as they decode")
  func seededBodies() throws {
    for seed in UInt64(1)...40 {
      var random = SplitMix64(seed: seed)
      let body = Self.generatedBody(&random)
      try Self.checkSame(body, "seed \(seed)")
      // The same body cut short, or with one byte changed: both must fail, or both agree.
      let cut = Int(random.next() % UInt64(body.count))
      try Self.checkSame(body.prefix(cut), "seed \(seed) cut at \(cut)")
      var damaged = body
      let at = Int(random.next() % UInt64(body.count))
      damaged[at] = [0x2C, 0x5D, 0x7D, 0x22, 0x5C, 0x20][Int(random.next() % 6)]
      try Self.checkSame(damaged, "seed \(seed) byte \(at) changed")
    }
  }

  @Test("a truncated body fails with the whole decode's error; an error body with its API error")
  func errors() throws {
    let body = ParallelDecodeTests.body(400)
    try Self.checkSame(body.prefix(body.count - 40), "truncated", sameError: true)
    try Self.checkSame(body.prefix(body.count / 2), "half", sameError: true)
    let errorAfterArticles = Data(
      #"{"articles":[{"title":"t","url":"https://e.com/a","publishedAt":"2024-01-01T00:00:00Z"}],"status":"error","code":"rateLimited","message":"slow down"}"#
        .utf8)
    try Self.checkSame(errorAfterArticles, "status error after the array", sameError: true)
    let noStatus = Data(#"{"articles":[]}"#.utf8)
    try Self.checkSame(noStatus, "no status", sameError: true)
  }

  @Test("a small file is left to the whole decode; a cancelled stream throws instead of ending")
  func declineAndCancel() throws {
    let directory = TemporaryDirectory("news-stream")
    let path = directory.path("body.json")
    try ParallelDecodeTests.body(300).write(to: URL(fileURLWithPath: path))
    #expect(try NewsAPIFileStream(path: path) == nil, "below the default minimum size")
    let stream = try #require(try NewsAPIFileStream(path: path, minimumSize: 0, batchSize: 10))
    #expect(try stream.next()?.isEmpty == false)
    stream.cancel()
    #expect(throws: NewsNetworkError.self) { try stream.next() }
    #expect(throws: NewsNetworkError.self) { try NewsAPIFileStream(path: directory.path("missing.json")) }
  }

  /// The reason `NewsAPIFileStream` gives for `path`, and the one a whole-file read (`LocalFile.read`, the oracle:
  /// every other file read of the package words `errno` so) gives.
  static func reasons(_ path: String) -> (stream: String?, whole: String?) {
    var stream: String?
    do { _ = try NewsAPIFileStream(path: path, minimumSize: 0) } catch {
      if case .unreadableFile(_, let reason) = error { stream = reason }
    }
    var whole: String?
    do { _ = try LocalFile.read(path) } catch { whole = error.reason }
    return (stream, whole)
  }

  @Test("a file it cannot open is worded as every file read words errno: no such file, is a directory, a folder a file")
  func unreadableWording() throws {
    let directory = TemporaryDirectory("news-stream")
    let file = directory.path("plain.json")
    try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
    for (path, expected) in [
      (directory.path("missing.json"), "no such file"), (directory.url.path, "is a directory"),
      (file + "/inside.json", "a folder on its path is a file"),
    ] {
      let (stream, whole) = Self.reasons(path)
      #expect(whole == expected, "the oracle: \(path)")
      #expect(stream == whole, "\(path)")
    }
  }

  @Test(
    "a file it may not read says permission denied, as every file read does",
    .enabled(if: !FaultCapabilities.isRoot, "root ignores permission bits"))
  func permissionWording() throws {
    let directory = TemporaryDirectory("news-stream")
    let locked = directory.path("locked.json")
    try Data("{}".utf8).write(to: URL(fileURLWithPath: locked))
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked)
    let (stream, whole) = Self.reasons(locked)
    #expect(whole == "permission denied")
    #expect(stream == whole)
  }

  @Test("a file cut short while it is read fails with an error (it is read, not mapped: no SIGBUS)")
  func fileTruncatedWhileRead() throws {
    let directory = TemporaryDirectory("news-stream")
    let path = directory.path("body.json")
    let body = ParallelDecodeTests.body(3000)
    try body.write(to: URL(fileURLWithPath: path))
    let stream = try #require(
      try NewsAPIFileStream(path: path, minimumSize: 0, batchSize: 10, readSize: 4096))
    defer { stream.cancel() }
    #expect(try stream.next()?.isEmpty == false)
    // The decoding thread is at most two batches and one read ahead of this point: far from the cut.
    #expect(truncate(path, off_t(body.count / 2)) == 0)
    var failure: NewsNetworkError?
    do {
      while try stream.next() != nil {}
    } catch {
      failure = error
    }
    guard case .invalidResponse(let problem) = failure else {
      Issue.record("expected an invalid response, got \(failure.map { "\($0)" } ?? "the end of the stream")")
      return
    }
    let detail = problem.detail
    #expect(problem.kind == .truncated)
    #expect(detail.contains("cut short"), "\(detail)")
    #expect(detail.contains("\(body.count / 2) of its \(body.count) bytes"), "\(detail)")
  }

  // MARK: - The byte-level record parser

  /// The fields of a record as text, for comparing the two parsers.
  static func fields(_ raw: RawArticle) -> [String] {
    [
      "\(raw.isObject)", "\(raw.author as Any)", "\(raw.title as Any)", "\(raw.description as Any)",
      "\(raw.url as Any)", "\(raw.urlToImage as Any)", "\(raw.publishedAt as Any)", "\(raw.content as Any)",
      "\(raw.sourceID as Any)", "\(raw.sourceName as Any)", "\(raw.wrongTypes.map { "\($0) \($1)" })",
    ]
  }

  /// Parses `element` with RawArticleScanner; when it accepts, JSONDecoder must give the same record.
  static func checkRecord(_ element: String) throws -> Bool {
    let bytes = Array(element.utf8)
    let fast = bytes.withUnsafeBufferPointer { RawArticleScanner.parse($0, 0..<$0.count) }
    guard let fast else { return false }
    let slow = try JSONDecoder().decode([RawArticle].self, from: Data(("[" + element + "]").utf8))
    #expect(slow.count == 1)
    #expect(fields(fast) == slow.first.map(fields), "\(element)")
    return true
  }

  @Test("the byte-level parser takes the usual records and gives JSONDecoder's result; it declines the rest")
  func recordParser() throws {
    let usual = [
      #"{"source":{"id":null,"name":"BBC"},"author":null,"title":"A \"quoted\" title","description":"","url":"https://e.com/a","urlToImage":null,"publishedAt":"2024-01-01T00:00:00Z","content":"x\r\n\u00e9\ud83d\ude80\/\\\b\f\t\u0000"}"#,
      #" { "title" : "t" , "source" : null } "#, "{}", #"{"source":{}}"#, #"{"source":{"name":"only"}}"#,
      #"{"title":"Ünïcödé 日本語 🚀 عربي"}"#,
    ]
    for element in usual { #expect(try Self.checkRecord(element), "\(element) should take the fast path") }
    let declined = [
      #""text""#, "7", "null", "[1]", #"{"title":7}"#, #"{"title":"a","title":"b"}"#, #"{"extra":1}"#,
      #"{"t\u0069tle":"x"}"#, #"{"title":"\ud800"}"#, #"{"title":"\udc00"}"#, #"{"title":"\ud83d\u0041"}"#,
      #"{"title":"\x"}"#, "{\"title\":\"a\u{1}b\"}", #"{"source":"s"}"#, #"{"source":{"id":1}}"#,
      #"{"source":{"id":"a","id":"b"}}"#, #"{"title":"a"} x"#, #"{"title":"a",}"#, #"{"title":nul}"#,
      #"{"title":"unterminated}"#,
    ]
    for element in declined {
      #expect(try !Self.checkRecord(element), "\(element) should be left to JSONDecoder")
    }
    // Invalid UTF-8 is declined too.
    let invalid: [UInt8] = Array(#"{"title":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
    #expect(invalid.withUnsafeBufferPointer { RawArticleScanner.parse($0, 0..<$0.count) } == nil)
    // Every record of the seeded bodies: whenever the parser accepts, it agrees.
    var accepted = 0
    for seed in UInt64(100)...130 {
      var random = SplitMix64(seed: seed)
      for index in 0..<50 where try Self.checkRecord(Self.record(index, &random)) { accepted += 1 }
    }
    #expect(accepted > 0)
  }

  // MARK: - Generated bodies

  static func generatedBody(_ random: inout SplitMix64) -> Data {
    let count = 20 + Int(random.next() % 60)
    var records: [String] = []
    for index in 0..<count {
      records.append(record(index, &random))
    }
    let extra = random.next() % 2 == 0 ? #","extra":{"a":[1,2,{"b":"]}"}],"c":null}"# : ""
    let text =
      #"{"status":"ok","totalResults":\#(count)\#(extra),"articles":[ "# + records.joined(separator: ", ")
      + #" ],"tail":true}"#
    return Data(text.utf8)
  }

  static let pieces = [
    "plain", "Ünïcödé", "عربي", "日本語", "🚀", #"\""#, #"\\"#, #"\/"#, #"\b\f\n\r\t"#, #"\u00e9"#, #"\u0000"#,
    #"\ud83d\ude80"#, #"\ud800"#, #"\udc00x"#, #"\uD83D"#, "  ", "[Removed]", "{", "]", ",",
  ]

  static func text(_ random: inout SplitMix64) -> String {
    (0..<Int(random.next() % 4)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
  }

  static func value(_ random: inout SplitMix64, stringy: String) -> String {
    switch random.next() % 12 {
    case 0: return "null"
    case 1: return #""""#
    case 2: return "42"
    case 3: return "true"
    case 4: return #"["a",{"b":1}]"#
    case 5: return #"{"x":"y"}"#
    default: return "\"\(stringy)\""
    }
  }

  static func record(_ index: Int, _ random: inout SplitMix64) -> String {
    if random.next() % 25 == 0 { return ["7", "null", #""text""#, "[1]"][Int(random.next() % 4)] }
    let url = "https://example.com/\(random.next() % 30 == 0 ? 0 : index)/\(text(&random))"
    let dates = ["2024-03-01T12:00:00Z", "2024-03-01T12:00:00.1234567+02:00", "yesterday", "2024-02-30T00:00:00Z"]
    var fields = [
      #""url":\#(value(&random, stringy: url))"#,
      #""title":\#(value(&random, stringy: "T " + text(&random)))"#,
      #""publishedAt":\#(value(&random, stringy: dates[Int(random.next() % 4)]))"#,
      #""author":\#(value(&random, stringy: text(&random)))"#,
      #""description":\#(value(&random, stringy: text(&random)))"#,
      #""content":\#(value(&random, stringy: text(&random)))"#,
      #""urlToImage":\#(value(&random, stringy: random.next() % 2 == 0 ? "https://img.example.com/x.jpg" : text(&random)))"#,
      #""source":\#(random.next() % 5 == 0 ? value(&random, stringy: "s") : #"{"id":\#(value(&random, stringy: "id")),"name":\#(value(&random, stringy: text(&random)))}"#)"#,
      #""unknown\#(index)":{"deep":[[{"x":"\#(text(&random))"}]]}"#,
    ]
    for i in stride(from: fields.count - 1, to: 0, by: -1) {
      fields.swapAt(i, Int(random.next() % UInt64(i + 1)))
    }
    if random.next() % 10 == 0 { fields.removeLast() }
    return "{" + fields.joined(separator: ",") + "}"
  }
}
