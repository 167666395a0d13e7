import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

/// Every XML feed of `../shared/fixtures/real/feeds/`, read by ``FeedParser`` and checked against what Foundation's
/// `XMLParser` reads out of the same file, with dates parsed by `DateFormatter` / `ISO8601DateFormatter` — expected
/// values never copied from our own output.
@Suite("Feeds: every real XML feed against an independent reading", .enabled(if: Fixtures.hasSharedReal))
struct RealFeedTests {
  /// What the oracle says the format is, from the root element alone.
  private static func kind(_ root: OracleElement) -> String {
    switch (root.name, root.namespace) {
    case ("rss", _): return "rss"
    case ("RDF", _): return "rdf"
    default: return "atom"
    }
  }

  private static let atom = OracleNamespace.uri("http://www.w3.org/2005/Atom")
  private static let rss10 = OracleNamespace.uri("http://purl.org/rss/1.0/")
  private static let dc = OracleNamespace.uri("http://purl.org/dc/elements/1.1/")
  private static let content = OracleNamespace.uri("http://purl.org/rss/1.0/modules/content/")

  private static func items(_ root: OracleElement) -> [OracleElement] {
    switch kind(root) {
    case "rss": return (root.first("channel")?.all("item") ?? []) + root.all("item")
    case "rdf": return root.all("item", rss10)
    default: return root.all("entry", .uri(root.namespace ?? ""))
    }
  }

  /// RFC 822 dates by DateFormatter, with the patterns real feeds need (numeric zones and zone names).
  private static func rfc822(_ text: String) -> Date? {
    let patterns = ["EEE, dd MMM yyyy HH:mm:ss Z", "EEE, dd MMM yyyy HH:mm:ss zzz", "dd MMM yyyy HH:mm:ss Z"]
    for pattern in patterns {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = pattern
      if let date = formatter.date(from: text.trimmingCharacters(in: .whitespacesAndNewlines)) { return date }
    }
    return nil
  }

  /// RFC 3339 and date-only values by ISO8601DateFormatter.
  private static func iso8601(_ text: String) -> Date? {
    let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let withFraction = ISO8601DateFormatter()
    withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    let dateOnly = ISO8601DateFormatter()
    dateOnly.formatOptions = [.withFullDate]
    return withFraction.date(from: text) ?? plain.date(from: text) ?? dateOnly.date(from: text)
  }

  private static func seconds(_ date: Date?) -> Int64? {
    date.map { Int64(($0.timeIntervalSince1970).rounded(.down)) }
  }

  private static func parse(_ name: String) throws -> ParsedFeed {
    let url = RealFeeds.url(name)
    let feedURL = try #require(URL(string: "https://feeds.example/\(name)"))
    return try FeedParser.parse(Data(contentsOf: url), feedURL: feedURL)
  }

  @Test("the format comes from the content: DaringFireball.rss is Atom, allthis.atom is RSS 2.0")
  func formatFromContent() throws {
    #expect(try Self.parse("DaringFireball.rss").format == .atom10)
    #expect(try Self.parse("allthis.atom").format == .rss20)
    #expect(try Self.parse("bio.rdf").format == .rdf)
    #expect(try Self.parse("natasha.xml").format == .rss20)
  }

  @Test("every feed: item count, titles, links, guids and dates to the second", arguments: RealFeeds.xmlFeeds)
  func itemsMatch(name: String) throws {
    let root = try XMLOracle.read(RealFeeds.url(name))
    let feed = try Self.parse(name)
    let expected = Self.items(root)
    #expect(feed.items.count == expected.count, "\(name)")
    #expect(!feed.issues.contains { $0.kind == .unreadableDate || $0.kind == .recoveredXML }, "\(feed.issues)")
    let kind = Self.kind(root)
    for (item, element) in zip(feed.items, expected) {
      let place = "\(name) item \(item.index)"
      // Titles: plain text, white space collapsed; a missing title is derived.
      let titleElement =
        kind == "rdf" ? element.first("title", Self.rss10) : element.first("title", kind == "atom" ? Self.atom : .none)
      let title = titleElement?.collapsedText ?? ""
      if title.isEmpty {
        #expect(item.titleIsDerived, "\(place)")
        #expect(!item.title.isEmpty, "\(place)")
      } else if titleElement?.attributes["type"] ?? "text" == "text" {
        #expect(item.title == title, "\(place)")
        #expect(!item.titleIsDerived, "\(place)")
      }
      // Links.
      switch kind {
      case "atom":
        let alternates = element.all("link", Self.atom).filter { ($0.attributes["rel"] ?? "alternate") == "alternate" }
        #expect(item.link?.absoluteString == alternates.first?.attributes["href"], "\(place)")
        #expect(item.guid == element.first("id", Self.atom)?.trimmedText, "\(place)")
      case "rdf":
        #expect(item.link?.absoluteString == element.first("link", Self.rss10)?.trimmedText, "\(place)")
        #expect(item.guid == element.attributes["rdf:about"], "\(place)")
      default:
        let guid = element.first("guid")
        if let link = element.first("link")?.trimmedText {
          #expect(item.link?.absoluteString == link, "\(place)")
        } else if let guid, guid.attributes["isPermaLink"] != "false" {
          #expect(item.link?.absoluteString == guid.trimmedText, "\(place)")
        }
        #expect(item.guid == guid?.trimmedText, "\(place)")
        #expect(item.guidIsPermaLink == (guid.map { $0.attributes["isPermaLink"] != "false" } ?? false), "\(place)")
      }
      // Dates, to the second, offsets applied.
      switch kind {
      case "atom":
        let published = element.first("published", Self.atom)?.text
        let updated = element.first("updated", Self.atom)?.text
        #expect(Self.seconds(item.published) == published.flatMap(Self.iso8601).flatMap(Self.seconds), "\(place)")
        #expect(Self.seconds(item.updated) == updated.flatMap(Self.iso8601).flatMap(Self.seconds), "\(place)")
      case "rdf":
        let date = element.first("date", Self.dc)?.text
        #expect(Self.seconds(item.published) == date.flatMap(Self.iso8601).flatMap(Self.seconds), "\(place)")
      default:
        if let pubDate = element.first("pubDate")?.text {
          let expected = try #require(Self.rfc822(pubDate), "DateFormatter cannot read \(pubDate)")
          #expect(Self.seconds(item.published) == Self.seconds(expected), "\(place): \(pubDate)")
        } else {
          #expect(item.published == nil, "\(place)")
        }
      }
    }
  }

  @Test("every feed: authors, summaries, content and enclosures", arguments: RealFeeds.xmlFeeds)
  func textsMatch(name: String) throws {
    let root = try XMLOracle.read(RealFeeds.url(name))
    let feed = try Self.parse(name)
    let kind = Self.kind(root)
    for (item, element) in zip(feed.items, Self.items(root)) {
      let place = "\(name) item \(item.index)"
      switch kind {
      case "atom":
        let names = element.all("author", Self.atom).compactMap { $0.first("name", Self.atom)?.collapsedText }
        let feedNames = root.all("author", Self.atom).compactMap { $0.first("name", Self.atom)?.collapsedText }
        let expected = (names.isEmpty ? feedNames : names).joined(separator: ", ")
        #expect(item.author ?? "" == expected, "\(place)")
        if let content = element.first("content", Self.atom) {
          #expect(
            item.content?.value == content.trimmedText,
            "\(place): \(firstDifference(item.content?.value, content.trimmedText))")
          #expect(item.content?.kind == (content.attributes["type"] == "html" ? .html : .text), "\(place)")
          #expect(
            item.content?.baseURL?.absoluteString
              == (content.attributes["xml:base"] ?? item.content?.baseURL?.absoluteString), "\(place)")
        }
        if let summary = element.first("summary", Self.atom) {
          #expect(item.summary?.value == summary.trimmedText, "\(place)")
        }
      default:
        let namespace = kind == "rdf" ? Self.rss10 : OracleNamespace.none
        let creators = element.all("creator", Self.dc).map(\.collapsedText)
        if !creators.isEmpty {
          #expect(item.author == creators.joined(separator: ", "), "\(place)")
        }
        if let description = element.first("description", namespace)?.trimmedText, !description.isEmpty {
          #expect(item.summary?.value == description, "\(place): \(firstDifference(item.summary?.value, description))")
          #expect(item.summary?.kind == .html, "\(place)")
        }
        if let encoded = element.first("encoded", Self.content)?.trimmedText, !encoded.isEmpty {
          #expect(item.content?.value == encoded, "\(place): \(firstDifference(item.content?.value, encoded))")
        } else {
          #expect(item.content == nil, "\(place)")
        }
        let enclosures = element.all("enclosure").map {
          [$0.attributes["url"] ?? "", $0.attributes["type"] ?? "", $0.attributes["length"] ?? ""]
        }
        let parsed = item.enclosures.map { [$0.url.absoluteString, $0.type ?? "", $0.length.map(String.init) ?? ""] }
        #expect(parsed == enclosures, "\(place)")
      }
    }
  }

  @Test("identity needs no guid: aktuality.rss has none, and every item has a link")
  func aktualityHasLinks() throws {
    let feed = try Self.parse("aktuality.rss")
    #expect(feed.items.count == 30)
    #expect(feed.items.allSatisfy { $0.guid == nil && $0.link != nil })
    #expect(Set(feed.items.compactMap(\.link)).count == 30)
  }

  @Test("scriptingNews.rss: 39 of 50 items have no title and get one derived from their text")
  func scriptingNewsDerivedTitles() throws {
    let feed = try Self.parse("scriptingNews.rss")
    let derived = feed.items.filter(\.titleIsDerived)
    #expect(derived.count == 39)
    for item in derived {
      let text = try #require(item.summary?.plainText)
      let head = item.title.hasSuffix("…") ? String(item.title.dropLast()) : item.title
      #expect(item.title.count <= FeedItem.derivedTitleLength + 1, "\(item.title)")
      #expect(HTMLWords.words(of: text).joined(separator: " ").hasPrefix(head), "\(item.title) ← \(text.prefix(120))")
    }
  }

  @Test("a podcast: enclosures with url, type and length; the episode image from itunes:image")
  func podcast() throws {
    let feed = try Self.parse("theomnishow.rss")
    #expect(feed.items.count == 4)
    #expect(feed.items.allSatisfy { $0.enclosures.count == 1 && $0.enclosures[0].type == "audio/mpeg" })
    #expect(feed.items.allSatisfy { $0.imageURL != nil })
  }

  @Test("DaringFireball.atom: the alternate link (the linked article), never the related one (the post)")
  func atomAlternateNotRelated() throws {
    let root = try XMLOracle.read(RealFeeds.url("DaringFireball.atom"))
    let feed = try Self.parse("DaringFireball.atom")
    var withRelated = 0
    for (item, entry) in zip(feed.items, Self.items(root)) {
      let links = entry.all("link", Self.atom)
      let alternate = links.first { $0.attributes["rel"] == "alternate" }?.attributes["href"]
      guard let related = links.first(where: { $0.attributes["rel"] == "related" })?.attributes["href"] else {
        continue
      }
      withRelated += 1
      #expect(item.link?.absoluteString == alternate)
      #expect(item.link?.absoluteString != related)
    }
    #expect(withRelated > 30)
  }

  @Test("the same bytes give the same fingerprints; fingerprints differ between items")
  func fingerprintsAreStable() throws {
    for name in RealFeeds.xmlFeeds {
      let first = try Self.parse(name).items.map(\.contentFingerprint)
      let second = try Self.parse(name).items.map(\.contentFingerprint)
      #expect(first == second, "\(name)")
      #expect(Set(first).count == first.count, "\(name)")
      #expect(first.allSatisfy { $0.count == 32 }, "\(name)")
    }
  }
}

/// Words of a text, the way a reader would count them (for comparing a derived title with its source text).
enum HTMLWords {
  static func words(of text: String) -> [String] {
    text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
  }
}
