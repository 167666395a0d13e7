import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

// NewsAPIDecoder and FileNewsNetwork over the repository's own fixtures (Tests/Fixtures, written for these tests)
// and the sample the product ships (Config/sample/top-headlines.json). Expected instants were computed by hand and
// checked with Python's `datetime`, independently of the decoder.

/// Reads one of the repository's own fixtures.
private func ownData(_ name: String) throws -> Data {
  try Data(contentsOf: Fixtures.own(name))
}

/// The error `decode` throws, or `nil` (after recording an issue) when it decodes.
private func decodeError(
  _ data: Data, httpStatus: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> NewsNetworkError? {
  do {
    let page = try NewsAPIDecoder().decode(data, httpStatus: httpStatus)
    Issue.record("expected an error, decoded \(page.articles.count) articles", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// The error `FileNewsNetwork.fetch` throws, or `nil` (after recording an issue) when it succeeds.
private func fetchError(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async -> NewsNetworkError? {
  do {
    let page = try await FileNewsNetwork(decoder: NewsAPIDecoder()).fetch(NewsQuery(url: url))
    Issue.record("expected an error, fetched \(page.articles.count) articles", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

private func milliseconds(_ article: Article) -> Int64 { Timestamp(article.publishedAt).millisecondsSince1970 }
private func rfc3339(_ article: Article) -> String { Timestamp(article.publishedAt).rfc3339String }

/// The namespace of this file's suites (so that `--filter NewsAPIDecoderTests` selects them all).
@Suite("NewsAPIDecoder and FileNewsNetwork over own fixtures and the bundled sample")
enum NewsAPIDecoderTests {}

extension NewsAPIDecoderTests {
  @Suite("records")
  struct Records {
    let decoder = NewsAPIDecoder()

    @Test("every publishedAt shape is kept to the exact millisecond")
    func mixedDates() throws {
      let page = try decoder.decode(ownData("newsapi-mixed-dates.json"))
      #expect(page.issues == [])
      #expect(page.totalResults == 8)
      let expected: [(path: String, ms: Int64, text: String)] = [
        ("/a/plain-z", 1_630_219_944_000, "2021-08-29T06:52:24.000Z"),  // …24Z
        ("/a/seven-digits", 1_630_219_944_291, "2021-08-29T06:52:24.291Z"),  // …24.2917287Z
        ("/a/three-digits", 1_630_167_133_045, "2021-08-28T16:12:13.045Z"),  // …13.045Z
        ("/a/one-digit", 1_630_167_133_500, "2021-08-28T16:12:13.500Z"),  // …13.5Z
        ("/a/nine-digits", 1_630_167_133_999, "2021-08-28T16:12:13.999Z"),  // …13.999999999Z, truncated
        ("/a/utc-offset", 1_630_167_133_000, "2021-08-28T16:12:13.000Z"),  // …13+00:00
        ("/a/east-offset", 1_630_167_133_120, "2021-08-28T16:12:13.120Z"),  // 21:42:13.120+05:30
        ("/a/west-offset", 1_630_120_920_000, "2021-08-28T03:22:00.000Z"),  // 2021-08-27T23:22:00-04:00
      ]
      #expect(page.articles.count == expected.count)
      for (article, want) in zip(page.articles, expected) {
        #expect(article.url.path == want.path)
        #expect(milliseconds(article) == want.ms, "\(want.path)")
        #expect(rfc3339(article) == want.text, "\(want.path)")
      }
      #expect(page.articles.first?.author == "A. Writer")
      #expect(page.articles.dropFirst().allSatisfy { $0.author == nil })
    }

    // Regression: Timestamp.init(_ date:) once floored `date.timeIntervalSince1970 * 1000`; for about 10% of instants
    // in 2004-2005, after 2038 and before 1984 that product is 1 ulp below the whole millisecond, so Article.init,
    // which re-truncates publishedAt through it, lost 1 ms. The instants below are such cases.
    @Test("instants whose Double round trip falls 1 ulp short keep their millisecond")
    func millisecondEdges() throws {
      let page = try decoder.decode(ownData("newsapi-millisecond-edges.json"))
      #expect(page.issues == [])
      #expect(page.articles.count == 4)
      let expected: [Int64] = [1_087_422_939_807, 1_099_470_600_001, 2_151_057_600_002, -1]
      // The parser itself is exact…
      #expect(
        [
          "2004-06-16T21:55:39.807Z", "2004-11-03T08:30:00.001Z", "2038-03-01T12:00:00.002Z",
          "1969-12-31T23:59:59.999Z",
        ]
        .map { Timestamp(rfc3339: $0)?.millisecondsSince1970 } == expected)
      // …and so is the Date kept in Article: Timestamp(Date) must not truncate a Double 1 ulp short of the ms.
      for (article, want) in zip(page.articles, expected) {
        #expect(milliseconds(article) == want, "\(article.url.path)")
      }
    }

    @Test("null, empty and blank texts are nil; the [Removed] placeholder is skipped with its reason")
    func removedAndEmptyAuthor() throws {
      let page = try decoder.decode(ownData("newsapi-removed-and-empty-author.json"))
      #expect(
        page.articles.map(\.url.path) == ["/b/null-author", "/b/empty-author", "/b/blank-author", "/b/url-author"])
      #expect(
        page.issues == [
          RecordIssue(
            index: 2, url: "https://removed.com", keyPath: "articles[2]", reason: "NewsAPI [Removed] placeholder",
            outcome: .recordSkipped)
        ])
      #expect(page.skippedCount == 1)
      #expect(page.articles.map(\.author) == [nil, nil, nil, "https://www.facebook.com/example.reporter"])

      let full = page.articles[0]
      #expect(full.title == "Null author")
      #expect(full.summary == "Has a summary.")
      #expect(full.imageURL?.absoluteString == "https://img.example.com/b/1.jpg")
      #expect(full.content == "Body text.\r\nMore body… [+1234 chars]")
      #expect(full.sourceID == "example-wire")
      #expect(full.sourceName == "Example Wire")
      #expect(milliseconds(full) == 1_696_558_500_000)

      // "" and blank description, urlToImage and content are nil, and a blank image is not reported.
      for article in page.articles[1...2] {
        #expect(article.summary == nil)
        #expect(article.imageURL == nil)
        #expect(article.content == nil)
      }
      #expect(page.articles[3].sourceID == nil)  // ""
      #expect(page.articles[3].sourceName == nil)  // ""
      #expect(
        page.articles.map(milliseconds) == [1_696_558_500_000, 1_696_556_691_000, 1_696_550_160_000, 1_696_547_700_000])
    }

    @Test("a URL seen twice: the later record wins at the earlier one's place, reported")
    func duplicateURL() throws {
      let page = try decoder.decode(ownData("newsapi-duplicate-url.json"))
      #expect(
        page.articles.map(\.url.absoluteString) == [
          "https://news.example.com/c/story", "https://news.example.com/c/other",
        ])
      let story = page.articles[0]
      #expect(story.title == "Later, updated version of the story")
      #expect(story.author == "Second Desk")
      #expect(rfc3339(story) == "2022-05-01T11:30:00.000Z")
      #expect(page.articles[1].title == "A different story")
      #expect(page.issues.count == 1)
      let issue = try #require(page.issues.first)
      #expect(issue.index == 2)
      #expect(issue.url == "https://news.example.com/c/story")
      #expect(issue.keyPath == "articles[2].url")
      #expect(!issue.skipped)
      #expect(issue.reason.contains("same url"))
      #expect(page.skippedCount == 0)
    }

    @Test("each bad record is reported with its key path; the good records are kept")
    func badRecords() throws {
      let page = try decoder.decode(ownData("newsapi-bad-records.json"))
      #expect(
        page.articles.map(\.url.path) == ["/d/good-first", "/d/bad-image", "/d/good-last"])
      #expect(page.articles.map(milliseconds) == [1_643_803_200_000, 1_643_788_800_000, 1_643_781_600_000])
      #expect(page.articles[1].imageURL == nil)
      #expect(page.totalResults == 13)

      let expected: [(index: Int, keyPath: String, url: String?, skipped: Bool, reason: String)] = [
        (1, "articles[1]", nil, true, "not a JSON object"),  // a string
        (2, "articles[2]", nil, true, "not a JSON object"),  // null
        (3, "articles[3].title", "https://news.example.com/d/numeric-title", true, "found a number"),  // "title": 42
        (4, "articles[4].url", nil, true, "missing url"),
        (5, "articles[5].url", "ftp://files.example.com/d/story.txt", true, "not an http(s) URL"),
        (6, "articles[6].publishedAt", "https://news.example.com/d/bad-date", true, "not an RFC 3339 date-time"),
        (7, "articles[7].urlToImage", "https://news.example.com/d/bad-image", false, "javascript:alert(1)"),
        (8, "articles[8].title", "https://news.example.com/d/no-title", true, "missing title"),
        (9, "articles[9].publishedAt", "https://news.example.com/d/no-date", true, "missing publishedAt"),
        (10, "articles[10].source", "https://news.example.com/d/string-source", true, "expected an object or null"),
        (11, "articles[11].url", "https://", true, "not an http(s) URL"),
      ]
      #expect(page.issues.count == expected.count)
      for (issue, want) in zip(page.issues, expected) {
        #expect(issue.index == want.index, "\(issue)")
        #expect(issue.keyPath == want.keyPath, "\(issue)")
        // A record skipped for a value of the wrong type still names its url.
        #expect(issue.url == want.url, "\(issue)")
        #expect(issue.skipped == want.skipped, "\(issue)")
        #expect(issue.reason.contains(want.reason), "\(issue)")
      }
      #expect(page.skippedCount == 10)
      #expect(page.issues.first { $0.index == 6 }?.reason == #"not an RFC 3339 date-time: "yesterday, 5pm""#)
      #expect(page.issues.first { $0.index == 3 }?.reason == "expected a string or null, found a number")
      #expect(
        page.issues.first { $0.index == 5 }?.reason == #"not an http(s) URL: "ftp://files.example.com/d/story.txt""#)
      #expect(page.issues.first { $0.index == 5 }?.description.hasSuffix("; record skipped") == true)
      #expect(page.issues.first { $0.index == 7 }?.description.hasSuffix("; value dropped") == true)
    }

    @Test("a wrong-type source is reported as what it is")
    func stringSourceReason() throws {
      let page = try decoder.decode(ownData("newsapi-bad-records.json"))
      let issue = try #require(page.issues.first { $0.index == 10 })
      #expect(issue.reason == "expected an object or null, found a string")
    }
  }
}

extension NewsAPIDecoderTests {
  @Suite("the bundled sample (Config/sample/top-headlines.json)")
  struct BundledSample {
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")

    @Test("decodes to 20 articles with exact instants; the [Removed] record is skipped")
    func decodes() throws {
      let page = try NewsAPIDecoder().decode(Data(contentsOf: sample))
      #expect(page.totalResults == 38)
      #expect(page.articles.count == 20)
      #expect(
        page.issues == [
          RecordIssue(
            index: 8, url: "https://removed.com", keyPath: "articles[8]", reason: "NewsAPI [Removed] placeholder",
            outcome: .recordSkipped)
        ])
      let expected: [Int64] = [
        1_710_283_267_000, 1_710_281_131_417, 1_710_280_724_000, 1_710_278_400_000, 1_710_278_400_000,
        1_710_275_835_581, 1_710_273_129_000, 1_710_271_800_000, 1_710_268_212_000, 1_710_265_500_000,
        1_710_261_354_000, 1_710_259_080_000, 1_710_256_368_903, 1_710_252_000_000, 1_710_246_665_000,
        1_710_241_707_000, 1_710_238_500_000, 1_710_233_190_250, 1_710_223_331_000, 1_710_222_243_000,
      ]
      #expect(page.articles.map(milliseconds) == expected)
      // Newest first, all within one day (2024-03-12 UTC), which is not claimed to be today.
      #expect(page.articles.map(milliseconds) == expected.sorted(by: >))
      #expect(page.articles.allSatisfy { rfc3339($0).hasPrefix("2024-03-12T") })
      #expect(rfc3339(page.articles[0]) == "2024-03-12T22:41:07.000Z")
      #expect(rfc3339(page.articles[5]) == "2024-03-12T20:37:15.581Z")  // …15.5817264Z
      #expect(rfc3339(page.articles[2]) == "2024-03-12T21:58:44.000Z")  // …44+00:00
      #expect(rfc3339(page.articles[17]) == "2024-03-12T08:46:30.250Z")  // …30.25Z
      #expect(rfc3339(page.articles[19]) == "2024-03-12T05:44:03.000Z")
    }

    @Test("reproduces the real quirks")
    func quirks() throws {
      let page = try NewsAPIDecoder().decode(Data(contentsOf: sample))
      let articles = page.articles
      // 3 null authors and one "" → 4 nil; one author is a URL.
      #expect(articles.filter { $0.author == nil }.count == 4)
      #expect(articles.filter { $0.author?.hasPrefix("https://") == true }.count == 1)
      // The same syndicated story under two URLs from two sources: two articles.
      let storm = articles.filter { $0.title.hasPrefix("Storm-hit towns brace for second night") }
      #expect(storm.map(\.sourceID) == ["associated-press", "abc-news"])
      #expect(Set(storm.map(\.url)).count == 2)
      // German, French and Arabic text kept as sent.
      #expect(articles.contains { $0.title.contains("Pendlerinnen und Pendler jetzt wissen müssen") })
      #expect(articles.contains { $0.title.hasPrefix("Climat : les glaciers alpins") })
      #expect(articles.contains { $0.title.hasPrefix("ارتفاع تكاليف الشحن") })
      // "\r\n" inside content and "[+N chars]" tails.
      #expect(articles.filter { $0.content?.contains("\r\n") == true }.count == 7)
      #expect(articles.filter { $0.content?.hasSuffix(" chars]") == true }.count == 15)
      // Nulls.
      #expect(articles.filter { $0.summary == nil }.count == 3)
      #expect(articles.filter { $0.imageURL == nil }.count == 4)
      #expect(articles.filter { $0.content == nil }.count == 5)
      #expect(articles.filter { $0.sourceID == nil }.count == 7)
      // One very long URL, kept exactly.
      let long = try #require(articles.max { $0.url.absoluteString.count < $1.url.absoluteString.count })
      #expect(long.url.absoluteString.count > 1000)
      #expect(long.url.host == "news.google.com")
      #expect(!articles.contains { $0.url.host == "removed.com" })
    }

    @Test("FileNewsNetwork reads the sample exactly as the decoder decodes it")
    func throughFileNetwork() async throws {
      let page = try await FileNewsNetwork(decoder: NewsAPIDecoder()).fetch(NewsQuery(url: sample))
      #expect(page == (try NewsAPIDecoder().decode(Data(contentsOf: sample))))
    }
  }
}

extension NewsAPIDecoderTests {
  @Suite("errors")
  struct Errors {
    static let apiKeyInvalidMessage =
      "Your API key is invalid or incorrect. Check your key, or go to https://newsapi.org to create a free API key."

    @Test("a NewsAPI error body is .api, with the HTTP status passed through", arguments: [nil, 200, 401])
    func apiKeyInvalid(httpStatus: Int?) throws {
      let error = decodeError(try ownData("newsapi-error-apiKeyInvalid.json"), httpStatus: httpStatus)
      #expect(
        error == .api(NewsAPIError(code: .apiKeyInvalid, message: Self.apiKeyInvalidMessage, httpStatus: httpStatus)))
    }

    @Test("an unknown error code is kept as it came", arguments: [nil, 426, 500])
    func unknownCode(httpStatus: Int?) throws {
      let error = decodeError(try ownData("newsapi-error-unknown-code.json"), httpStatus: httpStatus)
      guard case .api(let apiError) = error else {
        Issue.record("expected .api, got \(String(describing: error))")
        return
      }
      #expect(apiError.code.rawValue == "quotaSuspendedForReview")
      #expect(apiError.code == NewsAPIError.Code(rawValue: "quotaSuspendedForReview"))
      #expect(apiError.message == "Requests from this key are paused while the account is reviewed.")
      #expect(apiError.httpStatus == httpStatus)
      #expect(apiError.description.contains("quotaSuspendedForReview"))
    }

    @Test("an error body without a code has the code \"unknown\"")
    func missingCode() {
      let error = decodeError(Data(#"{"status":"error","message":"Something went wrong."}"#.utf8), httpStatus: 500)
      #expect(error == .api(NewsAPIError(code: "unknown", message: "Something went wrong.", httpStatus: 500)))
    }

    @Test("a truncated body is .invalidResponse, never a partial page", arguments: [nil, 200])
    func truncated(httpStatus: Int?) throws {
      let data = try ownData("newsapi-truncated.json")
      let error = decodeError(data, httpStatus: httpStatus)
      guard case .invalidResponse(let problem) = error else {
        Issue.record("expected .invalidResponse, got \(String(describing: error))")
        return
      }
      let detail = problem.detail
      #expect(!detail.isEmpty)
      #expect(detail.contains("not valid JSON"))
      #expect(detail.contains("\(data.count) bytes"))
    }

    @Test("an HTML body is .invalidResponse when the status is 2xx or unknown", arguments: [nil, 200])
    func notJSON(httpStatus: Int?) throws {
      let error = decodeError(try ownData("not-json.html"), httpStatus: httpStatus)
      guard case .invalidResponse(let problem) = error else {
        Issue.record("expected .invalidResponse, got \(String(describing: error))")
        return
      }
      let detail = problem.detail
      #expect(!detail.isEmpty)
      #expect(detail.hasPrefix("an HTML page (") && detail.hasSuffix("bytes), not JSON"), "\(detail)")
    }

    @Test("an HTML body with HTTP 500 is .httpStatus with a summary of the body, not its markup")
    func htmlWith500() throws {
      let data = try ownData("not-json.html")
      let error = decodeError(data, httpStatus: 500)
      #expect(error == .httpStatus(500, bodyPrefix: "an HTML page (\(data.count) bytes)"))
      #expect(error?.description.hasPrefix("HTTP 500 ") == true)
      do {
        _ = try NewsAPIDecoder().decode(data, httpStatus: 500, redacting: [], contentType: "text/html; charset=utf-8")
        Issue.record("expected an error")
      } catch {
        #expect(error == .httpStatus(500, bodyPrefix: "an HTML page (text/html; charset=utf-8, \(data.count) bytes)"))
      }
      // A short plain-text body is still quoted: it says something.
      #expect(
        decodeError(Data("Internal error".utf8), httpStatus: 500) == .httpStatus(500, bodyPrefix: "Internal error"))
    }

    @Test("a non-2xx status wins over a valid \"ok\" body and over a truncated one")
    func statusWinsOverBody() throws {
      let okBody = #"{"status":"ok","totalResults":0,"articles":[]}"#
      #expect(decodeError(Data(okBody.utf8), httpStatus: 503) == .httpStatus(503, bodyPrefix: okBody))
      let truncated = try ownData("newsapi-truncated.json")
      guard case .httpStatus(502, let body) = decodeError(truncated, httpStatus: 502) else {
        Issue.record("expected .httpStatus(502, …)")
        return
      }
      #expect(body.hasPrefix(#"{ "status": "ok","#))
      #expect(body.hasSuffix("…"))
    }

    @Test(
      "a body of the wrong shape is .invalidResponse with a detail that says where",
      arguments: [
        (#"{"status":"ok","articles":{}}"#, "articles"),
        (#"{"status":"ok","totalResults":3}"#, "no \"articles\" array"),
        (#"{"status":"maybe","articles":[]}"#, "\"maybe\""),
        (#"{"articles":[]}"#, "missing"),
        (#"[]"#, "top level"),
        ("", "empty (0 bytes)"),
      ])
    func wrongShape(body: String, detailMentions: String) {
      guard case .invalidResponse(let problem) = decodeError(Data(body.utf8)) else {
        Issue.record("expected .invalidResponse for \(body)")
        return
      }
      let detail = problem.detail
      #expect(detail.contains(detailMentions), "\(detail)")
    }

    @Test("an ok body with no records is an empty page, not an error")
    func emptyPage() throws {
      let page = try NewsAPIDecoder().decode(Data(#"{"status":"ok","totalResults":0,"articles":[]}"#.utf8))
      #expect(page == NewsPage(articles: [], issues: [], totalResults: 0))
    }
  }
}

extension NewsAPIDecoderTests {
  @Suite("FileNewsNetwork: unreadable files")
  struct FileNetworkErrors {
    @Test("a missing file is .unreadableFile naming the path")
    func missingFile() async {
      let directory = TemporaryDirectory()
      let path = directory.path("no-such-response.json")
      let error = await fetchError(URL(fileURLWithPath: path))
      #expect(error == .unreadableFile(path: path, reason: "no such file"))
      #expect(error?.description.contains(path) == true)
    }

    @Test("a directory is .unreadableFile saying so")
    func directory() async {
      let directory = TemporaryDirectory()
      let url = URL(fileURLWithPath: directory.url.path, isDirectory: true)
      let error = await fetchError(url)
      guard case .unreadableFile(let path, let reason) = error else {
        Issue.record("expected .unreadableFile, got \(String(describing: error))")
        return
      }
      #expect(path == url.path)
      #expect(path.contains(directory.url.lastPathComponent))
      #expect(reason == "is a directory")
    }

    @Test("a file that is not JSON is decoded like an HTTP body: .invalidResponse")
    func notJSONFile() async {
      let error = await fetchError(Fixtures.own("not-json.html"))
      guard case .invalidResponse(let problem) = error else {
        Issue.record("expected .invalidResponse, got \(String(describing: error))")
        return
      }
      let detail = problem.detail
      #expect(!detail.isEmpty)
    }

    @Test("an http URL is .unsupportedURL, shown without its apiKey")
    func httpURL() async throws {
      let url = try #require(URL(string: "https://newsapi.org/v2/top-headlines?country=us&apiKey=not-a-real-key"))
      let error = await fetchError(url)
      #expect(error == .unsupportedURL("https://newsapi.org/v2/top-headlines?country=us"))
    }
  }
}
