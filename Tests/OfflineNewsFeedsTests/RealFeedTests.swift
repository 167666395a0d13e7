import Foundation
import OfflineNewsFeeds
import OfflineNewsHTML
import OfflineNewsModel
import TestSupport
import Testing

/// Every XML feed of `../shared/fixtures/real/feeds/`, read by ``FeedParser`` and checked against what Foundation's
/// `XMLParser` reads out of the same file, with dates parsed by `DateFormatter` / `ISO8601DateFormatter` — expected
/// values never copied from our own output.
@Suite("Feeds: every real XML feed against an independent reading", .enabled(if: Fixtures.hasSharedReal))
struct RealFeedTests {
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

  @Test(
    "every feed cut off at a third, a half and 9/10 of its bytes is refused as truncated, never read in part",
    arguments: RealFeeds.xmlFeeds)
  func cutOffRefused(name: String) throws {
    let data = try Data(contentsOf: RealFeeds.url(name))
    let feedURL = try #require(URL(string: "https://feeds.example/\(name)"))
    for fraction in [3, 2] as [Int] {
      let cut = data.prefix(data.count / fraction)
      #expect(throws: FeedParseError.self, "\(name) cut at 1/\(fraction)") {
        try FeedParser.parse(Data(cut), feedURL: feedURL)
      }
    }
    do {
      _ = try FeedParser.parse(Data(data.prefix(data.count * 9 / 10)), feedURL: feedURL)
      Issue.record("\(name) cut at 9/10 was read")
    } catch {
      guard case .truncated(let feed, _, _, let message) = error else {
        Issue.record("\(name): \(error)")
        return
      }
      #expect(feed == feedURL)
      #expect(message.contains("Premature end of data"), "\(message)")
    }
  }

  @Test("every feed: item count, titles, links, guids and dates to the second", arguments: RealFeeds.xmlFeeds)
  func itemsMatch(name: String) throws {
    let root = try XMLOracle.read(RealFeeds.url(name))
    let feed = try Self.parse(name)
    let expected = FeedOracle.items(root)
    #expect(feed.items.count == expected.count, "\(name)")
    #expect(!feed.issues.contains { $0.kind == .unreadableDate || $0.kind == .recoveredXML }, "\(feed.issues)")
    let kind = FeedOracle.kind(root)
    for (item, element) in zip(feed.items, expected) {
      let place = "\(name) item \(item.index)"
      // Titles: plain text, white space collapsed; a missing title is derived.
      let titleElement =
        kind == "rdf"
        ? element.first("title", FeedOracle.rss10) : element.first("title", kind == "atom" ? FeedOracle.atom : .none)
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
        let alternates = element.all("link", FeedOracle.atom).filter {
          ($0.attributes["rel"] ?? "alternate") == "alternate"
        }
        #expect(item.link?.absoluteString == alternates.first?.attributes["href"], "\(place)")
        #expect(item.guid == element.first("id", FeedOracle.atom)?.trimmedText, "\(place)")
      case "rdf":
        #expect(item.link?.absoluteString == element.first("link", FeedOracle.rss10)?.trimmedText, "\(place)")
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
        let published = element.first("published", FeedOracle.atom)?.text
        let updated = element.first("updated", FeedOracle.atom)?.text
        #expect(
          FeedOracle.seconds(item.published) == published.flatMap(FeedOracle.iso8601).flatMap(FeedOracle.seconds),
          "\(place)")
        #expect(
          FeedOracle.seconds(item.updated) == updated.flatMap(FeedOracle.iso8601).flatMap(FeedOracle.seconds),
          "\(place)")
      case "rdf":
        let date = element.first("date", FeedOracle.dc)?.text
        #expect(
          FeedOracle.seconds(item.published) == date.flatMap(FeedOracle.iso8601).flatMap(FeedOracle.seconds), "\(place)"
        )
      default:
        if let pubDate = element.first("pubDate")?.text {
          let expected = try #require(FeedOracle.rfc822(pubDate), "DateFormatter cannot read \(pubDate)")
          #expect(FeedOracle.seconds(item.published) == FeedOracle.seconds(expected), "\(place): \(pubDate)")
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
    let kind = FeedOracle.kind(root)
    for (item, element) in zip(feed.items, FeedOracle.items(root)) {
      let place = "\(name) item \(item.index)"
      switch kind {
      case "atom":
        let names = element.all("author", FeedOracle.atom).compactMap {
          $0.first("name", FeedOracle.atom)?.collapsedText
        }
        let feedNames = root.all("author", FeedOracle.atom).compactMap {
          $0.first("name", FeedOracle.atom)?.collapsedText
        }
        let expected = (names.isEmpty ? feedNames : names).joined(separator: ", ")
        #expect(item.author ?? "" == expected, "\(place)")
        if let content = element.first("content", FeedOracle.atom) {
          let expected = resolved(content.trimmedText, item.content)
          #expect(item.content?.value == expected, "\(place): \(firstDifference(item.content?.value, expected))")
          #expect(item.content?.kind == (content.attributes["type"] == "html" ? .html : .text), "\(place)")
          #expect(
            item.content?.baseURL?.absoluteString
              == (content.attributes["xml:base"] ?? item.content?.baseURL?.absoluteString), "\(place)")
        }
        if let summary = element.first("summary", FeedOracle.atom) {
          #expect(item.summary?.value == resolved(summary.trimmedText, item.summary), "\(place)")
        }
      default:
        let namespace = kind == "rdf" ? FeedOracle.rss10 : OracleNamespace.none
        let creators = element.all("creator", FeedOracle.dc).map(\.collapsedText)
        if !creators.isEmpty {
          #expect(item.author == creators.joined(separator: ", "), "\(place)")
        }
        if let description = element.first("description", namespace)?.trimmedText, !description.isEmpty {
          let expected = resolved(description, item.summary)
          #expect(item.summary?.value == expected, "\(place): \(firstDifference(item.summary?.value, expected))")
          #expect(item.summary?.kind == .html, "\(place)")
        }
        if let encoded = element.first("encoded", FeedOracle.content)?.trimmedText, !encoded.isEmpty {
          let expected = resolved(encoded, item.content)
          #expect(item.content?.value == expected, "\(place): \(firstDifference(item.content?.value, expected))")
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
      #expect(item.title.count <= ArticleTitle.maximumLength + 1, "\(item.title)")
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
    for (item, entry) in zip(feed.items, FeedOracle.items(root)) {
      let links = entry.all("link", FeedOracle.atom)
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

/// What the parser makes of an HTML text the oracle read: its relative references resolved against the base the
/// parser found for it (the rule is tested on its own in FeedValueTests and HTMLRelativeLinksTests; here the XML
/// reading is what is checked).
func resolved(_ oracleText: String, _ text: FeedText?) -> String {
  guard let text, text.kind == .html, let base = text.baseURL else { return oracleText }
  return HTMLRelativeLinks.resolving(oracleText, against: base)
}
