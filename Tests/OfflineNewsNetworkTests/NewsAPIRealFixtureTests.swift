import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import TestSupport
import Testing

// Decoding the real NewsAPI captures in ../shared/fixtures/real (see SOURCES.md there). They may not be copied into
// this repository; every test reads them in place and skips, with a printed notice, where the folder is absent.
//
// The expectations below were computed independently of the decoder, with Python over the raw files: a record
// counts when it has a non-blank http(s) `url` with a host, a non-blank `title` and a `publishedAt`, and is not the
// `[Removed]` placeholder; a repeated URL counts once. Each `publishedAt` was turned into milliseconds since
// 1970 with `datetime` (the offset subtracted, the fraction truncated to three digits, never rounded).

/// What one real capture must decode to.
struct RealExpectation: Sendable, CustomTestStringConvertible {
  /// The file name in ../shared/fixtures/real.
  var file: String
  /// The number of records in `articles`.
  var records: Int
  var totalResults: Int
  /// The number of articles decoded.
  var count: Int
  /// The `index` of every skipped record, in order.
  var skippedIndices: [Int]
  /// The number of decoded articles whose author is `nil` (`null`, `""` or blank in the file).
  var nilAuthors: Int
  var firstURL: String
  var firstPublishedAt: String
  var lastURL: String
  var lastPublishedAt: String
  /// Every article's `publishedAt` in milliseconds since 1970, in response order.
  var milliseconds: [Int64]
  /// A checksum of the above, computed separately.
  var millisecondsSum: Int64
  /// The three earliest instants, ascending.
  var earliestThree: [Int64]

  var testDescription: String { file }

  static let all: [RealExpectation] = [
    RealExpectation(
      file: "newsapi-top-headlines-2020-empty-author-malformed-url.json",
      records: 20, totalResults: 38, count: 20, skippedIndices: [],
      nilAuthors: 1,
      firstURL: "https://www.cnn.com/2020/11/15/weather/iota-storm-sunday/index.html",
      firstPublishedAt: "2020-11-15T07:05:00.000Z",
      lastURL: "https://www.macrumors.com/2020/11/14/apple-to-fix-iphone-12-hearing-device-sound-issues/",
      lastPublishedAt: "2020-11-15T00:45:00.000Z",
      milliseconds: [
        1_605_423_900_000, 1_605_421_980_000, 1_605_421_740_000, 1_605_417_157_000, 1_605_416_460_000,
        1_605_414_540_000, 1_605_414_425_000, 1_605_414_300_000, 1_605_414_000_000, 1_605_413_880_000,
        1_605_413_497_000, 1_605_412_020_000, 1_605_411_227_000, 1_605_407_405_000, 1_605_407_340_000,
        1_605_406_110_000, 1_605_405_000_000, 1_605_403_860_000, 1_605_402_184_000, 1_605_401_100_000,
      ],
      millisecondsSum: 32_108_242_125_000, earliestThree: [1_605_401_100_000, 1_605_402_184_000, 1_605_403_860_000]
    ),
    RealExpectation(
      file: "newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json",
      records: 20, totalResults: 27, count: 20, skippedIndices: [],
      nilAuthors: 3,
      firstURL: "https://www.ft.com/content/c89594c1-1d85-4dda-9e67-55c775bd6c9a",
      firstPublishedAt: "2021-08-29T06:52:24.291Z",
      lastURL: "https://www.nbcnews.com/news/world/china-upholds-canadian-s-death-sentence-huawei-case-looms-n1276392",
      lastPublishedAt: "2021-08-10T09:39:49.000Z",
      milliseconds: [
        1_630_219_944_291, 1_630_211_519_000, 1_630_176_527_000, 1_630_173_927_000, 1_630_171_804_000,
        1_630_170_015_000, 1_630_167_480_000, 1_630_167_133_000, 1_630_165_260_000, 1_630_162_836_000,
        1_630_159_237_000, 1_630_157_174_000, 1_630_133_100_000, 1_630_106_520_000, 1_630_087_429_000,
        1_630_087_429_000, 1_630_079_541_289, 1_629_621_708_000, 1_629_244_800_000, 1_628_588_389_000,
      ],
      millisecondsSum: 32_600_051_772_580, earliestThree: [1_628_588_389_000, 1_629_244_800_000, 1_629_621_708_000]
    ),
    RealExpectation(
      file: "newsapi-top-headlines-2023-arabic-google-news.json",
      records: 20, totalResults: 34, count: 20, skippedIndices: [],
      nilAuthors: 0,
      firstURL: """
        https://news.google.com/rss/articles/CBMi9QJodHRwczovL3d3dy55YWxsYWtvcmEuY29tL2Nhbi1xdWFsaWZpZXJzLzI\
        3NDUvbmV3cy80NDI2NzQvJUQ4JUFBJUQ4JUIwJUQ5JTgzJUQ4JUIxJUQ4JUFBJUQ5JThBLSVEOCVBQSVEOCVCOSVEOSU4NCVEOSU\
        4Ni0lRDglQjclRDglQjElRDglQUQtJUQ4JUFBJUQ4JUIwJUQ4JUE3JUQ5JTgzJUQ4JUIxLSVEOSU4NSVEOCVBOCVEOCVBNyVEOCV\
        CMSVEOCVBNyVEOCVBOS0lRDklODUlRDglQjUlRDglQjEtJUQ5JTg4JUQ5JTg1JUQ4JUE3JUQ5JTg0JUQ4JUE3JUQ5JTg4JUQ5JTh\
        BLSVEOCVBOCVEOCVBQSVEOCVCNSVEOSU4MSVEOSU4QSVEOCVBNyVEOCVBQS0lRDglQTMlRDklODUlRDklODUtJUQ4JUEzJUQ5JTg\
        xJUQ4JUIxJUQ5JThBJUQ5JTgyJUQ5JThBJUQ4JUE30gH5Amh0dHBzOi8vd3d3LnlhbGxha29yYS5jb20vY2FuLXF1YWxpZmllcnM\
        vMjc0NS9uZXdzLzQ0MjY3NC8lRDglQUElRDglQjAlRDklODMlRDglQjElRDglQUElRDklOEEtJUQ4JUFBJUQ4JUI5JUQ5JTg0JUQ\
        5JTg2LSVEOCVCNyVEOCVCMSVEOCVBRC0lRDglQUElRDglQjAlRDglQTclRDklODMlRDglQjEtJUQ5JTg1JUQ4JUE4JUQ4JUE3JUQ\
        4JUIxJUQ4JUE3JUQ4JUE5LSVEOSU4NSVEOCVCNSVEOCVCMS0lRDklODglRDklODUlRDglQTclRDklODQlRDglQTclRDklODglRDk\
        lOEEtJUQ4JUE4JUQ4JUFBJUQ4JUI1JUQ5JTgxJUQ5JThBJUQ4JUE3JUQ4JUFBLSVEOCVBMyVEOSU4NSVEOSU4NS0lRDglQTMlRDk\
        lODElRDglQjElRDklOEElRDklODIlRDklOEElRDglQTc_YW1w?oc=5
        """,
      firstPublishedAt: "2023-03-22T13:49:00.000Z",
      lastURL: """
        https://news.google.com/rss/articles/CBMioAJodHRwczovL3d3dy5hbGFyYWJpeWEubmV0L2FyYWItYW5kLXdvcmxkL2V\
        neXB0LzIwMjMvMDMvMjIvJUQ5JTgxJUQ5JThBJUQ4JUFGJUQ5JThBJUQ5JTg4LSVEOCVBQyVEOCVBRiVEOSU4QSVEOCVBRi0lRDk\
        lODQlRDklODQlRDklODUlRDglQjUlRDglQjElRDklOEElRDglQTktJUQ4JUIzJUQ4JUE3JUQ4JUIxJUQ4JUE5LSVEOSU4NSVEOCV\
        BRCVEOSU4NSVEOCVBRi0lRDklODclRDglQjAlRDglQTctJUQ5JTg1JUQ4JUE3LSVEOCVBRCVEOCVBRiVEOCVBQi0lRDklODQlRDg\
        lQjklRDklOEElRDklODYlRDklOEHSAaQCaHR0cHM6Ly93d3cuYWxhcmFiaXlhLm5ldC9hbXAvYXJhYi1hbmQtd29ybGQvZWd5cHQ\
        vMjAyMy8wMy8yMi8lRDklODElRDklOEElRDglQUYlRDklOEElRDklODgtJUQ4JUFDJUQ4JUFGJUQ5JThBJUQ4JUFGLSVEOSU4NCV\
        EOSU4NCVEOSU4NSVEOCVCNSVEOCVCMSVEOSU4QSVEOCVBOS0lRDglQjMlRDglQTclRDglQjElRDglQTktJUQ5JTg1JUQ4JUFEJUQ\
        5JTg1JUQ4JUFGLSVEOSU4NyVEOCVCMCVEOCVBNy0lRDklODUlRDglQTctJUQ4JUFEJUQ4JUFGJUQ4JUFCLSVEOSU4NCVEOCVCOSV\
        EOSU4QSVEOSU4NiVEOSU4QQ?oc=5
        """,
      lastPublishedAt: "2023-03-22T04:55:00.000Z",
      milliseconds: [
        1_679_492_940_000, 1_679_488_288_000, 1_679_487_300_000, 1_679_485_980_000, 1_679_485_500_000,
        1_679_485_140_000, 1_679_484_600_000, 1_679_482_936_000, 1_679_480_940_000, 1_679_479_380_000,
        1_679_479_233_000, 1_679_474_460_000, 1_679_473_740_000, 1_679_473_200_000, 1_679_472_960_000,
        1_679_471_760_000, 1_679_463_180_000, 1_679_461_980_000, 1_679_461_377_000, 1_679_460_900_000,
      ],
      millisecondsSum: 33_589_545_794_000, earliestThree: [1_679_460_900_000, 1_679_461_377_000, 1_679_461_980_000]
    ),
    RealExpectation(
      file: "newsapi-top-headlines-2023-removed-article.json",
      records: 20, totalResults: 36, count: 19, skippedIndices: [12],
      nilAuthors: 4,
      firstURL: """
        https://www.usatoday.com/story/news/politics/2023/10/05/trump-says-hell-travel-to-d-c-next-week-as-h\
        ouse-decides-on-new-speaker/71074434007/
        """,
      firstPublishedAt: "2023-10-06T02:15:00.000Z",
      lastURL: "https://www.washingtonpost.com/science/2023/10/05/oldest-human-footprint-americas-white-sands/",
      lastPublishedAt: "2023-10-05T21:00:00.000Z",
      milliseconds: [
        1_696_558_500_000, 1_696_556_691_000, 1_696_556_340_000, 1_696_554_334_000, 1_696_551_480_000,
        1_696_551_200_000, 1_696_551_000_000, 1_696_550_160_000, 1_696_547_700_000, 1_696_547_176_000,
        1_696_546_920_000, 1_696_546_554_000, 1_696_545_180_000, 1_696_544_872_000, 1_696_542_540_000,
        1_696_541_716_000, 1_696_540_654_000, 1_696_540_353_000, 1_696_539_600_000,
      ],
      millisecondsSum: 32_234_412_970_000, earliestThree: [1_696_539_600_000, 1_696_540_353_000, 1_696_540_654_000]
    ),
  ]
}

@Suite(
  "NewsAPI real captures (../shared/fixtures/real)",
  .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
struct NewsAPIRealFixtureTests {
  let decoder = NewsAPIDecoder()

  /// The decoded page of a real capture.
  func page(_ file: String) throws -> NewsPage {
    try decoder.decode(Data(contentsOf: Fixtures.sharedReal(file)))
  }

  func milliseconds(_ article: Article) -> Int64 { Timestamp(article.publishedAt).millisecondsSince1970 }
  func rfc3339(_ article: Article) -> String { Timestamp(article.publishedAt).rfc3339String }

  @Test(
    "every newsapi-*.json capture has expectations here and decodes",
  )
  func everyCaptureIsCovered() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path)
      .filter { $0.hasPrefix("newsapi-") && $0.hasSuffix(".json") }
    #expect(Set(names) == Set(RealExpectation.all.map(\.file)))
    for name in names.sorted() {
      let page = try decoder.decode(Data(contentsOf: Fixtures.sharedRealDirectory.appendingPathComponent(name)))
      #expect(!page.articles.isEmpty, "\(name)")
    }
  }

  @Test("decodes with the exact count, dates and authors", arguments: RealExpectation.all)
  func decodesExactly(_ expected: RealExpectation) throws {
    let page = try page(expected.file)
    #expect(page.articles.count == expected.count)
    #expect(page.totalResults == expected.totalResults)
    #expect(page.issues.filter(\.skipped).map(\.index) == expected.skippedIndices)
    #expect(page.skippedCount + page.articles.count == expected.records)
    #expect(page.issues.allSatisfy { $0.skipped }, "no value is set aside in these captures: \(page.issues)")

    let first = try #require(page.articles.first)
    let last = try #require(page.articles.last)
    #expect(first.url.absoluteString == expected.firstURL)
    #expect(rfc3339(first) == expected.firstPublishedAt)
    #expect(last.url.absoluteString == expected.lastURL)
    #expect(rfc3339(last) == expected.lastPublishedAt)

    let all = page.articles.map(milliseconds)
    #expect(all == expected.milliseconds)
    #expect(all.reduce(0, +) == expected.millisecondsSum)
    #expect(Array(all.sorted().prefix(3)) == expected.earliestThree)
    #expect(page.articles.filter { $0.author == nil }.count == expected.nilAuthors)

    // One article per URL; every article has a title.
    #expect(Set(page.articles.map(\.url)).count == page.articles.count)
    #expect(page.articles.allSatisfy { !$0.title.isEmpty })
  }

  @Test("a 7-digit fraction is truncated to the millisecond, not rounded")
  func sevenDigitFraction() throws {
    let page = try page("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    // "2021-08-29T06:52:24.2917287Z"
    let ft = try #require(page.articles.first { $0.url.host == "www.ft.com" })
    #expect(rfc3339(ft) == "2021-08-29T06:52:24.291Z")
    #expect(milliseconds(ft) == 1_630_219_944_291)
    // "2021-08-27T15:52:21.2890436Z": .2890436 → .289 (rounding would give .289 too, so check the instant exactly)
    let engadget = try #require(page.articles.first { $0.url.host == "www.engadget.com" })
    #expect(rfc3339(engadget) == "2021-08-27T15:52:21.289Z")
    #expect(milliseconds(engadget) == 1_630_079_541_289)
  }

  @Test("a +00:00 offset is the same instant as Z")
  func plusZeroOffset() throws {
    let page = try page("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    // "2021-08-28T16:12:13+00:00"
    let wiwo = try #require(page.articles.first { $0.url.host == "www.wiwo.de" })
    #expect(rfc3339(wiwo) == "2021-08-28T16:12:13.000Z")
    #expect(milliseconds(wiwo) == 1_630_167_133_000)
    #expect(Timestamp(wiwo.publishedAt) == Timestamp(rfc3339: "2021-08-28T16:12:13Z"))
    // "2021-08-27T23:22:00+00:00"
    let gruenderszene = try #require(page.articles.first { $0.sourceID == "gruenderszene" })
    #expect(rfc3339(gruenderszene) == "2021-08-27T23:22:00.000Z")
    #expect(milliseconds(gruenderszene) == 1_630_106_520_000)
  }

  @Test("the same story from two sources under two URLs stays two articles; text is kept as sent")
  func crossSourceDuplicatesAndText() throws {
    let page = try page("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json")
    let capitol = page.articles.filter { $0.title.hasPrefix("Capitol siege committee seeks 15 tech firm") }
    #expect(capitol.map(\.url.host) == ["www.businessinsider.com", "uk.businessinsider.com"])
    #expect(capitol.map(\.sourceID) == ["business-insider", "business-insider-uk"])
    #expect(capitol.map(milliseconds) == [1_630_087_429_000, 1_630_087_429_000])

    #expect(page.articles.contains { $0.title == "Siemens Gamesa: „Das Geschäft in China geben wir auf“" })
    #expect(page.articles.contains { $0.author == "https://www.facebook.com/atila.franca.73" })
    #expect(page.articles.filter { $0.content?.contains("\r\n") == true }.count == 7)
    #expect(page.articles.filter { $0.content?.hasSuffix(" chars]") == true }.count == 18)
    // A non-ASCII image URL (…/Özkan-Akkilic.jpg, "O" + U+0308 in the file) is kept, percent-encoded, not reported.
    let image = page.articles.first { $0.sourceID == "gruenderszene" }?.imageURL
    #expect(
      image?.absoluteString == "https://cdn.businessinsider.de/wp-content/uploads/2021/08/O%CC%88zkan-Akkilic.jpg")
  }

  @Test("the [Removed] placeholder is skipped with its reason; an empty author is nil")
  func removedPlaceholder() throws {
    let page = try page("newsapi-top-headlines-2023-removed-article.json")
    let issue = try #require(page.issues.first)
    #expect(page.issues.count == 1)
    #expect(issue.index == 12)
    #expect(issue.keyPath == "articles[12]")
    #expect(issue.url == "https://removed.com")
    #expect(issue.skipped)
    #expect(issue.reason.contains("[Removed]"))
    #expect(!page.articles.contains { $0.url.host == "removed.com" || $0.title == "[Removed]" })
    #expect(!page.articles.contains { Timestamp($0.publishedAt).millisecondsSince1970 == 0 })

    let cbs = try #require(page.articles.first { $0.url.host == "www.cbssports.com" })
    #expect(cbs.author == nil)  // "" in the file
    #expect(page.articles.filter { $0.imageURL == nil }.count == 1)
    #expect(page.articles.filter { $0.content == nil }.count == 3)
  }

  @Test("empty author, null source ids and a malformed-but-parseable URL (2020)")
  func emptyAuthorMalformedURL() throws {
    let page = try page("newsapi-top-headlines-2020-empty-author-malformed-url.json")
    let northwest = try #require(page.articles.first { $0.url.host == "mynorthwest.com" })
    #expect(northwest.author == nil)  // "" in the file
    // The key is the canonical URL (an empty query dropped, RFC 3986 6.2.3); the link stays as NewsAPI sent it.
    #expect(
      northwest.url.absoluteString
        == "https://mynorthwest.com/2311307/gov-inslee-update-washingtonians-covid-19-sunday/")
    #expect(
      northwest.link?.absoluteString
        == "https://mynorthwest.com/2311307/gov-inslee-update-washingtonians-covid-19-sunday/?")
    #expect(page.articles.filter { $0.sourceID == nil }.count == 16)
    // NewsAPI's own malformed URL has a host ("amp.theguardian.comworld"), so it cannot be told from a real one.
    let guardian = try #require(page.articles.first { $0.sourceName == "Theguardian.comworld" })
    #expect(guardian.url.host == "amp.theguardian.comworld")
    #expect(rfc3339(guardian) == "2020-11-15T06:29:00.000Z")
    // Content starting with a stray "v\\\r\n" is kept as sent.
    let comicbook = try #require(page.articles.first { $0.sourceName == "ComicBook.com" })
    #expect(comicbook.content?.hasPrefix("v\\\r\nXbox Live Gold") == true)
    #expect(page.articles.first { $0.url.host == "www.bbc.com" }?.author == "https://www.facebook.com/bbcnews")
  }

  @Test("Arabic text, Google News redirect URLs up to 1,148 characters, null description/image/content (2023)")
  func arabicGoogleNews() throws {
    let page = try page("newsapi-top-headlines-2023-arabic-google-news.json")
    #expect(page.articles.allSatisfy { $0.summary == nil && $0.imageURL == nil && $0.content == nil })
    #expect(page.articles.allSatisfy { $0.sourceID == "google-news" && $0.sourceName == "Google News" })
    #expect(page.articles.map(\.url.absoluteString.count).max() == 1148)
    #expect(page.articles[5].url.absoluteString.count == 1148)
    #expect(page.articles[5].author == "العربية")
    #expect(page.articles[0].author == "Yallakora - يلاكورة")
    #expect(page.articles.allSatisfy { $0.url.host == "news.google.com" })
  }
}
