import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

/// Point 5: the shipped `jsonfeed` mapping reads JSON Feed 1.0 and 1.1 files completely. Expected values come from
/// each file read with JSONSerialization and dates with Foundation's ISO8601DateFormatter, not from our reader.
@Suite("The shipped jsonfeed mapping reads JSON Feed 1.0 and 1.1 files completely")
struct JSONFeedMappingTests {
  /// Item key → feed_item attribute, for every item field of JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/).
  static let fields: [(String, String)] = [
    ("id", "id"), ("url", "url"), ("external_url", "externalUrl"), ("title", "title"), ("content_html", "contentHtml"),
    ("content_text", "contentText"), ("summary", "summary"), ("image", "image"), ("banner_image", "bannerImage"),
    ("date_published", "datePublished"), ("date_modified", "dateModified"), ("authors", "authors"),
    ("author", "author"), ("tags", "tags"), ("language", "language"), ("attachments", "attachments"),
  ]
  static let urls: Set<String> = ["url", "external_url", "image", "banner_image"]
  static let dates: Set<String> = ["date_published", "date_modified"]
  static let json: Set<String> = ["authors", "author", "tags", "attachments"]

  struct Feed: Sendable, CustomTestStringConvertible {
    var path: String
    var shared: Bool
    var testDescription: String { path }
    var url: URL? { shared ? Fixtures.sharedReal(path) : Fixtures.own(path) }
  }

  static let feeds = [
    Feed(path: "feeds/inessential.json", shared: true), Feed(path: "feeds/3960.json", shared: true),
    Feed(path: "jsonfeed-1.1-extension-offsets.json", shared: true),
  ]

  /// The instant of an ISO 8601 date-time with an offset, by Foundation (the oracle).
  static func milliseconds(_ text: String) -> Int64? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
  }

  /// Whether a stored json attribute holds the same JSON as the file's value.
  static func sameJSON(_ stored: DatabaseValue?, _ value: Any) -> Bool {
    guard case .text(let text)? = stored,
      let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    else { return false }
    return (parsed as? NSObject)?.isEqual(value) == true
  }

  @Test(
    "every item and every item field of real 1.0 and 1.1 feeds", .enabled(if: Fixtures.hasSharedReal), arguments: feeds)
  func realFeeds(_ feed: Feed) async throws {
    let url = try #require(feed.url)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: url)
    #expect(counts(report) == expectedCounts(inserted: items.count))
    #expect(report.failures == [])
    #expect(report.warnings == [])
    let rows = try await store.rows("feed_item")
    #expect(rows.count == items.count)
    let byID = Dictionary(rows.map { ($0["id"] ?? .null, $0) }, uniquingKeysWith: { first, _ in first })
    for item in items {
      let id = try #require(item["id"] as? String)
      let row = try #require(byID[.text(id)], "\(id)")
      #expect(row["feed"] == .text(url.path))
      for (key, attribute) in Self.fields {
        let stored = row[attribute]
        guard let value = item[key] else {
          #expect(stored == .null, "\(id).\(key)")
          continue
        }
        if Self.dates.contains(key) {
          #expect(stored == Self.milliseconds(value as? String ?? "").map(DatabaseValue.integer), "\(id).\(key)")
        } else if Self.json.contains(key) {
          #expect(Self.sameJSON(stored, value), "\(id).\(key): \(stored ?? .null)")
        } else {
          #expect(stored == .text(value as? String ?? "not text"), "\(id).\(key)")
        }
      }
    }
  }

  @Test("JSON Feed 1.0 as small blogs write it: no offsets, no seconds, relative links, items without id")
  func zonelessRelative() async throws {
    let url = Fixtures.own("jsonfeed-1.0-zoneless-relative.json")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    let home = try #require(document["home_page_url"] as? String)
    #expect(items.count == 26)
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: url)
    // Every item imported (the issue saw 0 of 26); each date read as UTC is reported.
    #expect(counts(report) == expectedCounts(inserted: 26))
    #expect(report.failures == [])
    let dated = items.reduce(0) { $0 + ($1["date_published"] == nil ? 0 : 1) + ($1["date_modified"] == nil ? 0 : 1) }
    #expect(report.warnings.count == dated)
    #expect(report.warnings.allSatisfy { $0.reason.contains("read as UTC") })
    let rows = try await store.rows("feed_item")
    #expect(rows.count == 26)
    /// `home` joined with a relative reference that is root-relative (`/x`) or path-relative (`x`) to a home page
    /// whose path is `/`: both are `home` + `x` (RFC 3986 §5.2.2 with an empty base path segment).
    func resolved(_ reference: String) -> String {
      reference.hasPrefix("http")
        ? reference : home + (reference.hasPrefix("/") ? String(reference.dropFirst()) : reference)
    }
    /// `2018-01-06T08:05` or `2018-01-06T20:15:04` as UTC milliseconds, from its digits.
    func utc(_ text: String) -> Int64 {
      let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
      return utcMilliseconds(
        numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers.count > 5 ? numbers[5] : 0)
    }
    for item in items {
      let link = resolved(try #require(item["url"] as? String))
      // An item without id is identified by its url, as feed readers do.
      let id = item["id"] as? String ?? link
      let row = try #require(rows.first { $0["id"] == .text(id) }, "\(id)")
      #expect(row["url"] == .text(link))
      #expect(row["image"] == (item["image"] as? String).map { .text(resolved($0)) } ?? .null)
      #expect(row["datePublished"] == .integer(utc(try #require(item["date_published"] as? String))))
      #expect(row["dateModified"] == (item["date_modified"] as? String).map { .integer(utc($0)) } ?? .null)
      #expect(row["title"] == .text(try #require(item["title"] as? String)))
      if let author = item["author"] { #expect(Self.sameJSON(row["author"], author)) }
    }
    let identifiedByURL = rows.filter { row in
      if case .text(let id)? = row["id"] { return id.hasPrefix("https://") }
      return false
    }
    #expect(identifiedByURL.count == items.filter { $0["id"] == nil }.count)
    #expect(identifiedByURL.count == 3)
    // Again: unchanged, the same warnings (the dates are still read as UTC).
    let again = try await store.run(mapping, file: url)
    #expect(counts(again) == expectedCounts(unchanged: 26))
  }
}
