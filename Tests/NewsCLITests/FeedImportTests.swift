import Foundation
import OfflineNewsHTML
import TestSupport
import Testing

/// `news import FILE` of every real XML feed, no mapping, then `news list --json --source FILE`: the items the file
/// holds, each with its title, link, date (to the second, offset applied), author, summary, content, enclosures
/// and categories — expected values read out of the file by Foundation's `XMLParser` and date formatters
/// (``FeedOracle``), never copied from our output.
@Suite("news import of every real feed, against an independent reading")
struct FeedImportTests {
  /// One item as the file states it, by the rules of RSS 2.0, RSS 1.0 and RFC 4287.
  struct ExpectedItem {
    var link: String?
    var guid: String?
    /// `nil` when the item has none (a title is then derived from its text).
    var title: String?
    var published: Int64?
    var author: String?
    var summary: String?
    var content: String?
    /// The web base of the item's HTML (`xml:base` in scope, else the RSS channel link), when it has one: relative
    /// references inside HTML are resolved against it (FeedElementTests, "relative links and images").
    var base: URL?
    var enclosures: [[String]]
    var categories: [String]

    /// Two items with the same link and guid are one article only when they are the same post: a guid and link two
    /// different posts share identify neither (Scripting News gives two posts one anchor and one guid), so the
    /// title, date and text count too; a true repeat folds into one (the later in the file wins).
    var identity: String {
      [link ?? "-", guid ?? "-", title ?? "-", published.map(String.init) ?? "-", summary ?? "-", content ?? "-"]
        .joined(separator: "\u{1F}")
    }
  }

  /// The feed's title and its items, the repeats of an identity folded into the last one, in file order.
  static func expected(_ name: String) throws -> (title: String?, items: [ExpectedItem]) {
    let root = try XMLOracle.read(RealFeeds.url(name))
    let kind = FeedOracle.kind(root)
    let all: [ExpectedItem]
    let title: String?
    switch kind {
    case "atom":
      let atom = OracleNamespace.uri(root.namespace ?? "")
      let feedAuthors = authors(root.all("author", atom), atom)
      title = root.first("title", atom)?.collapsedText
      all = FeedOracle.items(root).map { atomEntry($0, atom, feedAuthors: feedAuthors) }.map { item in
        resolved(item)
      }
    default:
      let channel = root.first("channel", kind == "rdf" ? FeedOracle.rss10 : .none)
      let feedAuthor =
        channel?.first("creator", FeedOracle.dc)?.collapsedText
        ?? channel?.first("author", FeedOracle.itunes)?.collapsedText
        ?? channel?.first("managingEditor")?.collapsedText
      title = channel?.first("title", kind == "rdf" ? FeedOracle.rss10 : .none)?.collapsedText
      let channelLink = channel?.first("link", kind == "rdf" ? FeedOracle.rss10 : .none)?.trimmedText
      all = FeedOracle.items(root).map { rssItem($0, rdf: kind == "rdf", feedAuthor: feedAuthor) }.map { item in
        var item = item
        item.base = item.base ?? channelLink.flatMap { URL(string: $0) }
        return resolved(item)
      }
    }
    var order: [String] = []
    var latest: [String: ExpectedItem] = [:]
    for item in all {
      if latest[item.identity] == nil { order.append(item.identity) }
      latest[item.identity] = item
    }
    return (title, order.compactMap { latest[$0] })
  }

  /// `item` with the relative references of its summary and content resolved against its web base.
  private static func resolved(_ item: ExpectedItem) -> ExpectedItem {
    guard let base = item.base, base.scheme?.hasPrefix("http") == true else { return item }
    var item = item
    item.summary = item.summary.map { HTMLRelativeLinks.resolving($0, against: base) }
    item.content = item.content.map { HTMLRelativeLinks.resolving($0, against: base) }
    return item
  }

  private static func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
  }

  private static func authors(_ elements: [OracleElement], _ atom: OracleNamespace) -> [String] {
    elements.compactMap { nonEmpty($0.first("name", atom)?.collapsedText ?? $0.first("email", atom)?.collapsedText) }
  }

  private static func joined(_ names: [String]) -> String? {
    var unique: [String] = []
    for name in names where !name.isEmpty && !unique.contains(name) { unique.append(name) }
    return unique.isEmpty ? nil : unique.joined(separator: ", ")
  }

  private static func categories(_ texts: [String]) -> [String] {
    var unique: [String] = []
    for text in texts {
      let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
      if !collapsed.isEmpty && !unique.contains(collapsed) { unique.append(collapsed) }
    }
    return unique
  }

  /// An Atom entry (RFC 4287): the alternate link (§4.2.7.2), `id`, `published` else `updated`, the entry's
  /// authors else the feed's, `link rel="enclosure"`, `category@term`.
  private static func atomEntry(_ entry: OracleElement, _ atom: OracleNamespace, feedAuthors: [String])
    -> ExpectedItem
  {
    let links = entry.all("link", atom)
    let alternates = links.filter { ($0.attributes["rel"] ?? "alternate") == "alternate" }
    let alternate = alternates.first { ($0.attributes["type"] ?? "text/html").contains("html") } ?? alternates.first
    let date =
      entry.first("published", atom).flatMap { FeedOracle.iso8601($0.text) }
      ?? entry.first("updated", atom).flatMap { FeedOracle.iso8601($0.text) }
    let names = authors(entry.all("author", atom), atom)
    return ExpectedItem(
      link: alternate?.attributes["href"], guid: nonEmpty(entry.first("id", atom)?.trimmedText),
      title: nonEmpty(entry.first("title", atom)?.collapsedText), published: FeedOracle.seconds(date),
      author: joined(names.isEmpty ? feedAuthors : names),
      summary: nonEmpty(entry.first("summary", atom)?.trimmedText),
      content: nonEmpty(entry.first("content", atom)?.trimmedText),
      base: (entry.first("content", atom)?.attributes["xml:base"] ?? entry.attributes["xml:base"]).flatMap {
        URL(string: $0)
      },
      enclosures: links.filter { $0.attributes["rel"] == "enclosure" }.map {
        [$0.attributes["href"] ?? "", $0.attributes["type"] ?? "", $0.attributes["length"] ?? ""]
      },
      categories: categories(entry.all("category", atom).map { $0.attributes["term"] ?? $0.text }))
  }

  /// An RSS 2.0 item (or RSS 1.0, `rdf`): `link`, else a permalink `guid` (RSS 2.0: `isPermaLink` defaults to
  /// true), else `rdf:about`; `pubDate` (RFC 822) else `dc:date` (W3C-DTF); `dc:creator`s, else the item's
  /// `author` or `itunes:author`, else the channel's; `description`, `content:encoded`, `enclosure`, `category`.
  private static func rssItem(_ item: OracleElement, rdf: Bool, feedAuthor: String?) -> ExpectedItem {
    let ns: OracleNamespace = rdf ? FeedOracle.rss10 : .none
    let guidElement = item.first("guid", ns)
    let guid = nonEmpty(guidElement?.trimmedText) ?? (rdf ? item.attributes["rdf:about"] : nil)
    var link = nonEmpty(item.first("link", ns)?.trimmedText)
    if link == nil, !rdf, let guidElement, guidElement.attributes["isPermaLink"] != "false",
      let text = guid, text.hasPrefix("http")
    {
      link = text
    }
    let date =
      item.first("pubDate", ns).flatMap { FeedOracle.rfc822($0.text) }
      ?? item.first("date", FeedOracle.dc).flatMap { FeedOracle.iso8601($0.text) }
    var names: [String] = []
    for child in item.children {
      switch (child.name, child.namespace) {
      case ("author", nil):
        // `joe@example.org (Joe Bloggs)`: the name in the parentheses.
        let text = child.collapsedText
        let inParentheses = text.split(separator: "(", maxSplits: 1).last.map { String($0.dropLast()) }
        names.append(text.hasSuffix(")") && text.contains("@") ? inParentheses ?? text : text)
      case ("creator", "http://purl.org/dc/elements/1.1/"): names.append(child.collapsedText)
      case ("author", "http://www.itunes.com/dtds/podcast-1.0.dtd") where names.isEmpty:
        names.append(child.collapsedText)
      default: break
      }
    }
    return ExpectedItem(
      link: link, guid: guid, title: nonEmpty(item.first("title", ns)?.collapsedText),
      published: FeedOracle.seconds(date), author: joined(names) ?? feedAuthor,
      summary: nonEmpty(item.first("description", ns)?.trimmedText),
      content: nonEmpty(item.first("encoded", FeedOracle.content)?.trimmedText),
      base: item.attributes["xml:base"].flatMap { URL(string: $0) },
      enclosures: item.all("enclosure", ns).map {
        [$0.attributes["url"] ?? "", $0.attributes["type"] ?? "", $0.attributes["length"] ?? ""]
      },
      categories: categories(item.all("category", ns).map(\.text) + item.all("subject", FeedOracle.dc).map(\.text)))
  }

  /// Words of an HTML text: tags dropped, split at anything that is not a letter or a digit, lowercased.
  static func words(_ html: String) -> [String] {
    let text = html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
    return text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.lowercased() }
  }

  /// Whether `part` appears in `whole` in order (not necessarily side by side: entities leave extra words).
  static func isSubsequence(_ part: [String], of whole: [String]) -> Bool {
    var rest = whole[...]
    for word in part {
      guard let index = rest.firstIndex(of: word) else { return false }
      rest = rest[(index + 1)...]
    }
    return true
  }

  static func seconds(_ rfc3339: String?) -> Int64? {
    guard let rfc3339 else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return FeedOracle.seconds(formatter.date(from: rfc3339))
  }

  @Test(
    "every XML feed: its items, titles, links, dates, authors, texts, enclosures and tags",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"), arguments: RealFeeds.xmlFeeds)
  func importedFeed(_ name: String) async throws {
    let file = RealFeeds.url(name).path
    let (feedTitle, expected) = try Self.expected(name)
    let cli = CLIHarness()
    let imported = await cli.run("import", file, "--db", cli.database, "--config", cli.bundledConfig)
    #expect(imported.status == 0, "\(name): \(imported.err)")
    let listed = await cli.run("list", "--db", cli.database, "--json", "--source", file)
    #expect(listed.status == 0, "\(listed.err)")
    let rows = articles(try listed.json())
    #expect(rows.count == expected.count, "\(name)")
    #expect(rows.count > 0)
    var matched = Set<Int>()
    for (position, item) in expected.enumerated() {
      let place = "\(name) item \(position) (\(item.link ?? item.guid ?? "?"))"
      var candidates = rows.indices.filter { rows[$0]["url"] as? String == item.link }
      if candidates.count > 1, let title = item.title {
        candidates = candidates.filter { rows[$0]["title"] as? String == title }
      }
      if candidates.count > 1 {
        candidates = candidates.filter { Self.seconds(rows[$0]["publishedAt"] as? String) == item.published }
      }
      guard candidates.count == 1, let index = candidates.first else {
        Issue.record("\(place): \(candidates.count) rows have its link")
        continue
      }
      matched.insert(index)
      let row = rows[index]
      let title = row["title"] as? String ?? ""
      if let expectedTitle = item.title {
        #expect(title == expectedTitle, "\(place)")
      } else {
        // A derived title: non-empty, its words the first words of the item's text (the last one may be cut).
        #expect(!title.isEmpty, "\(place)")
        let text = Self.words(item.summary ?? item.content ?? "")
        var titleWords = Self.words(title.hasSuffix("…") ? String(title.dropLast()) : title)
        if title.hasSuffix("…"), let last = titleWords.popLast() {
          #expect(text.contains { $0.hasPrefix(last) }, "\(place): \(title)")
        }
        #expect(titleWords.first == text.first, "\(place): \(title)")
        #expect(Self.isSubsequence(titleWords, of: text), "\(place): \(title) ← \(text.prefix(30))")
      }
      #expect(Self.seconds(row["publishedAt"] as? String) == item.published, "\(place)")
      #expect(item.published != nil, "\(place): the file gives a date")
      #expect(row["author"] as? String == item.author, "\(place)")
      #expect(
        row["summary"] as? String == item.summary,
        "\(place): \(firstDifference(row["summary"] as? String, item.summary))")
      #expect(
        row["content"] as? String == item.content,
        "\(place): \(firstDifference(row["content"] as? String, item.content))")
      let enclosures = (row["enclosures"] as? [[String: Any]] ?? []).map {
        [$0["url"] as? String ?? "", $0["type"] as? String ?? "", ($0["length"] as? Int).map(String.init) ?? ""]
      }
      #expect(enclosures == item.enclosures, "\(place)")
      #expect(row["tags"] as? [String] ?? [] == item.categories, "\(place)")
      #expect(row["sourceName"] as? String == feedTitle, "\(place)")
    }
    #expect(matched.count == rows.count, "\(name): rows no item of the file explains")
  }

  @Test(
    "scriptingNews.rss: two pairs of different posts share a guid and a link; each post is an article (50)",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func repeatedItems() async throws {
    let root = try XMLOracle.read(RealFeeds.url("scriptingNews.rss"))
    let items = FeedOracle.items(root)
    let (_, distinct) = try Self.expected("scriptingNews.rss")
    #expect(items.count == 50)
    #expect(distinct.count == 50)
    // The pairs: one link and one guid each, different texts and times.
    let pairs = Dictionary(grouping: distinct, by: { "\($0.link ?? "")\u{1F}\($0.guid ?? "")" }).filter {
      $0.value.count > 1
    }
    #expect(pairs.count == 2)
    #expect(pairs.values.allSatisfy { Set($0.map(\.published)).count == 2 && Set($0.map(\.summary)).count == 2 })
    #expect(items.filter { $0.first("title") == nil }.count == 39)
    let cli = CLIHarness()
    let file = RealFeeds.url("scriptingNews.rss").path
    #expect(await cli.run("import", file, "--db", cli.database, "--config", cli.bundledConfig).status == 0)
    let rows = articles(try await cli.run("list", "--db", cli.database, "--json", "--source", file).json())
    #expect(rows.count == 50)
    #expect(Set(rows.compactMap { $0["id"] as? String }).count == 50)
  }
}
