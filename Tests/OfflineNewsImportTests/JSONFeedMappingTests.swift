import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

/// Point 5: the shipped `jsonfeed` mapping reads JSON Feed 1.0 and 1.1 files completely, into the built-in article.
/// Expected values come from each file read with JSONSerialization and dates with Foundation's
/// ISO8601DateFormatter, not from our reader.
@Suite("The shipped jsonfeed mapping reads JSON Feed 1.0 and 1.1 files completely")
struct JSONFeedMappingTests {
  /// Item key → article attribute, for the item fields of JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/)
  /// stored as they are. (`id` and `url` make the key and the link; `authors`/`author` the author's name.)
  static let fields: [(String, String)] = [
    ("external_url", "feedExternalURL"), ("content_html", "content"), ("content_text", "feedContentText"),
    ("summary", "summary"), ("date_published", "publishedAt"), ("date_modified", "feedDateModified"),
    ("tags", "tags"), ("language", "feedLanguage"), ("attachments", "feedAttachments"),
  ]
  static let dates: Set<String> = ["date_published", "date_modified"]
  static let json: Set<String> = ["tags", "attachments"]

  struct Feed: Sendable, CustomTestStringConvertible {
    var path: String
    var testDescription: String { path }
  }

  static let feeds = [
    Feed(path: "feeds/inessential.json"), Feed(path: "feeds/3960.json"),
    Feed(path: "jsonfeed-1.1-extension-offsets.json"),
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

  /// The key an item gets: its url's canonical form, else its id scoped to the feed (by RFC 3986 rules written out
  /// here in the test: only the forms these files use).
  static func key(_ item: [String: Any], feed: String) -> String {
    if let url = item["url"] as? String, url.hasPrefix("http") { return CanonicalURL.canonical(url) ?? url }
    return ArticleIdentity.scoped(feed, id: item["id"] as? String ?? "").absoluteString
  }

  @Test(
    "every item and every item field of real 1.0 and 1.1 feeds", .enabled(if: Fixtures.hasSharedReal),
    arguments: feeds)
  func realFeeds(_ feed: Feed) async throws {
    let url = try Fixtures.sharedReal(feed.path)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let items = try #require(document["items"] as? [[String: Any]])
    let mapping = try shippedMapping("jsonfeed")
    let store = try TestStore(mapping)
    let report = try await store.run(mapping, file: url)
    #expect(counts(report) == expectedCounts(inserted: items.count))
    #expect(report.failures == [])
    #expect(report.warnings == [])
    let rows = try await store.rows("article")
    #expect(rows.count == items.count)
    let byKey = Dictionary(rows.map { ($0["url"] ?? .null, $0) }, uniquingKeysWith: { first, _ in first })
    for item in items {
      let key = Self.key(item, feed: url.path)
      let row = try #require(byKey[.text(key)], "\(key)")
      #expect(row["source"] == .text(url.path))
      if let link = item["url"] as? String, link != key { #expect(row["link"] == .text(link)) }
      if let title = item["title"] as? String { #expect(row["title"] == .text(title), "\(key).title") }
      let name =
        ((item["authors"] as? [[String: Any]])?.first?["name"] as? String)
        ?? ((item["author"] as? [String: Any])?["name"] as? String)
      #expect(row["author"] == name.map { .text($0) } ?? .null, "\(key).author")
      let image = (item["image"] as? String) ?? (item["banner_image"] as? String)
      #expect(row["imageURL"] == image.map { .text($0) } ?? .null, "\(key).image")
      for (field, attribute) in Self.fields {
        let stored = row[attribute]
        guard let value = item[field] else {
          #expect(stored == .null, "\(key).\(field)")
          continue
        }
        if Self.dates.contains(field) {
          #expect(stored == Self.milliseconds(value as? String ?? "").map(DatabaseValue.integer), "\(key).\(field)")
        } else if Self.json.contains(field) {
          #expect(Self.sameJSON(stored, value), "\(key).\(field): \(stored ?? .null)")
        } else {
          // An empty summary or content is no summary or content (the mapping's emptyIsNull).
          let text = value as? String ?? "not text"
          #expect(stored == (text.isEmpty && attribute != "feedContentText" ? .null : .text(text)), "\(key).\(field)")
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
    let rows = try await store.rows("article")
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
      // Every item here has a url: its resolved form is its link, and its canonical form its key.
      let link = resolved(try #require(item["url"] as? String))
      let key = CanonicalURL.canonical(link) ?? link
      let row = try #require(rows.first { $0["url"] == .text(key) }, "\(key)")
      #expect(row["link"] == (link == key ? .null : .text(link)))
      #expect(row["imageURL"] == (item["image"] as? String).map { .text(resolved($0)) } ?? .null)
      #expect(row["publishedAt"] == .integer(utc(try #require(item["date_published"] as? String))))
      #expect(row["feedDateModified"] == (item["date_modified"] as? String).map { .integer(utc($0)) } ?? .null)
      #expect(row["title"] == .text(try #require(item["title"] as? String)))
      let name = (item["author"] as? [String: Any])?["name"] as? String
      #expect(row["author"] == name.map { .text($0) } ?? .null)
    }
    #expect(items.filter { $0["id"] == nil }.count == 3)  // identified by their url, as every item with one
    // Again: unchanged, the same warnings (the dates are still read as UTC).
    let again = try await store.run(mapping, file: url)
    #expect(counts(again) == expectedCounts(unchanged: 26))
  }
}
