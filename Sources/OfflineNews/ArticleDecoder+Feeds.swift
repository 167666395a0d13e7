import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsNetwork

extension ArticleDecoder {
  /// An RSS, Atom, RDF or JSON Feed body through ``FeedParser``: every item an article.
  ///
  /// - key (``itemKey(_:web:linkIsShared:guid:guidIsUnique:scope:)``): the canonical permalink of a linkblog item
  ///   (``FeedItem/permalink``: its link points to another site); else the canonical link; else the `guid`/`id`
  ///   scoped to the feed (its home page, else its URL or path: ``ArticleIdentity/feedScope(homePage:origin:)``)
  ///   when no other item of the document has it; else, for an item with no link (a podcast episode), its first
  ///   enclosure's URL scoped to the feed (Apple's podcast rules: without a `guid`, the enclosure URL identifies the
  ///   episode); else the item's content fingerprint scoped to the feed (``ArticleIdentity``,
  ///   ``FeedItem/contentFingerprint``), so an item with none of these is saved and a re-fetch finds the same
  ///   article. A link that is not the item's own — an anchor in a page of several posts (`#fragment`), or a link
  ///   another item of the feed has too — gives way to the item's guid (an anchor link without a guid keys the item
  ///   as written, fragment included). Where an earlier rule keyed the item otherwise, that key is the article's
  ///   `formerKey`, under which a stored row is re-keyed by the writer;
  /// - itemID (``Article/itemID``): the `guid`/`id` scoped to the feed when no other item of the document has the
  ///   same one (an identifier repeated across items identifies none of them), so that the writer finds the item
  ///   again after its link was edited (a slug fixed after publication) and re-keys its row;
  /// - title: the item's, or the one derived from its text (``FeedItem/titleIsDerived``);
  /// - summary and content: `description`/Atom `summary` and `content:encoded`/Atom `content`, as the feed gives
  ///   them (HTML stays HTML); a `description` that is the item's only text is its summary. Where one is HTML,
  ///   its text (``FeedText/plainText``) is the article's search text (``Article/summaryText``,
  ///   ``Article/contentText``), which search indexes in its place;
  /// - publishedAt: `pubDate`/`published`/`dc:date`, else `updated`, else the time the item was first saved (kept by
  ///   later fetches: ``Article/isUndated``). A date more than ``futureTolerance`` (a day) after the decoding is
  ///   dated as an undated item is, and is an issue of the page naming the date (its value is dropped, as an
  ///   unreadable date's is): else one item dated 2099 would top every newest-first list for ever. A day, because
  ///   time zones reach UTC+14 (a local time written as UTC is up to 14 h ahead) and clocks drift; a date a
  ///   day ahead is no time zone's. NetNewsWire orders by `datePublished ?? dateModified ?? dateArrived` with no
  ///   bound (`Article.logicalDatePublished`), and newsboat by the date as given (newsboat#762, "Feed-Entries with
  ///   dates in the future", open): in both such an item stays on top;
  /// - the publisher's name (``Article/sourceName``): the feed's title.
  ///
  /// Problems the parser reports (a date or URL it could not read, recovered XML) become issues of the page; the
  /// items stay. A document that is not well-formed past recovery, or not a feed, is `.invalidResponse` naming the
  /// feed, the line and column.
  func decodeFeed(_ data: Data, origin: URL, contentType: String?) throws(NewsNetworkError) -> NewsPage {
    let feed: ParsedFeed
    do {
      feed = try FeedParser.parse(data, feedURL: origin, charset: FeedParser.charset(fromContentType: contentType))
    } catch {
      throw .invalidResponse(Self.problem(error))
    }
    // Items without a link of their own are scoped to the feed's home page, so that a saved copy and the feed's URL
    // give one key (``ArticleIdentity/feedScope(homePage:origin:)``).
    let scope = ArticleIdentity.feedScope(
      homePage: feed.homePageURL,
      origin: origin.isFileURL ? origin.path : NewsQuery.shown(origin))
    // Links that are not one item's own: an anchor in a page of several posts (`day.html#a1345`, Scripting News),
    // or a link two items of this feed share (a sponsor's site linked by two Daring Fireball posts). Such items are
    // keyed by their guid (or fingerprint), so that each is saved.
    // Each web link with its canonical form, computed once (canonicalizing is a tenth of a feed's decoding time).
    let links = feed.items.map { item in Self.webLink(item).map { (link: $0, key: ArticleIdentity.linked($0)) } }
    var linkCounts: [URL: Int] = [:]
    for case let link? in links { linkCounts[link.key, default: 0] += 1 }
    // An identifier that two items of the document share identifies neither (feeds that give every item the
    // channel's URL, or one constant, as guid).
    var guidCounts: [String: Int] = [:]
    for item in feed.items { if let guid = item.guid, !guid.isEmpty { guidCounts[guid, default: 0] += 1 } }
    var articles: [Article] = []
    articles.reserveCapacity(feed.items.count)
    let now = Date()
    var futureDates: [RecordIssue] = []
    for (index, (item, web)) in zip(feed.items, links).enumerated() {
      let guid = item.guid.flatMap { $0.isEmpty ? nil : $0 }
      let guidIsUnique = guid.map { guidCounts[$0] == 1 } ?? false
      let (key, formerKey) = Self.itemKey(
        item, web: web, linkIsShared: web.map { linkCounts[$0.key, default: 0] > 1 } ?? false, guid: guid,
        guidIsUnique: guidIsUnique, scope: scope)
      var date = item.published ?? item.updated
      if let given = date, given.timeIntervalSince(now) > Self.futureTolerance {
        futureDates.append(Self.futureDateIssue(given, index: index, item: item, format: feed.format))
        date = nil
      }
      var article = Article(
        key: key, link: item.link, title: item.title, author: item.author ?? feed.author,
        summary: item.summary?.value, imageURL: item.imageURL,
        publishedAt: date ?? now, content: item.content?.value,
        sourceName: feed.title, tags: item.categories,
        enclosures: item.enclosures)
      article.summaryText = item.summary.flatMap(Self.searchText)
      article.contentText = item.content.flatMap(Self.searchText)
      // Undated: first seen now; the save keeps the date of a row already stored (``Article/isUndated``).
      article.isUndated = date == nil
      article.formerKey = formerKey
      if let guid, guidIsUnique { article.itemID = ArticleIdentity.scoped(scope, id: guid).absoluteString }
      articles.append(article)
    }
    // Issues name the item as the document does: `item[3].pubDate` in XML, `items[3].date_published` in JSON.
    let itemPath = [.jsonFeed10, .jsonFeed11].contains(feed.format) ? "items" : "item"
    let issues = feed.issues.map { issue in
      RecordIssue(
        index: issue.itemIndex ?? -1, url: nil,
        keyPath: IssuePlace.path(issue.itemIndex.map { "\(itemPath)[\($0)]" } ?? "", issue.element ?? ""),
        reason: issue.message, outcome: Self.outcome(of: issue.kind))
    }
    var page = NewsPage(articles: articles, issues: issues + futureDates)
    page.feedTitle = feed.title
    return page
  }

  /// How far after the decoding an item's date may lie and still order it: a day (see
  /// ``decodeFeed(_:origin:contentType:)``).
  static let futureTolerance: TimeInterval = 86_400

  /// The issue of an item dated more than ``futureTolerance`` ahead: `item[3].pubDate: more than a day after the
  /// fetch: 2099-01-01T00:00:00Z; value dropped`.
  static func futureDateIssue(_ date: Date, index: Int, item: FeedItem, format: FeedFormat) -> RecordIssue {
    let isPublished = item.published != nil
    let path: String
    switch format {
    case .jsonFeed10, .jsonFeed11: path = "items[\(index)]." + (isPublished ? "date_published" : "date_modified")
    case .atom03, .atom10: path = "item[\(index)]." + (isPublished ? "published" : "updated")
    default: path = "item[\(index)]." + (isPublished ? "pubDate" : "dc:date")
    }
    return RecordIssue(
      index: index, url: item.link?.absoluteString, keyPath: path,
      reason: "more than a day after the fetch: \(Timestamp(date).rfc3339String); dated when first seen",
      outcome: .valueDropped)
  }

  /// What became of the value a feed issue is about: an unreadable date or URL is dropped (the parser says so); the
  /// others — a charset decided against a label, XML libxml2 recovered, HTML entities read as HTML's — lose nothing
  /// the message does not name, and are notes.
  static func outcome(of kind: FeedIssue.Kind) -> RecordIssue.Outcome {
    switch kind {
    case .unreadableDate, .unreadableURL: .valueDropped
    case .notSubscribed: .recordSkipped
    case .recoveredXML, .htmlEntity, .encoding: .noted
    }
  }

  /// What search indexes for a summary or content that is HTML: its text as a reader sees it
  /// (``FeedText/plainText``, the HTML layer's renderer), or `nil` when the value is plain text or its own text
  /// (nothing to store beside it). HTML without a `<` or `&` has no markup or entity, so its text has the same
  /// words (the renderer would only collapse its white space): it is not parsed.
  static func searchText(_ text: FeedText) -> String? {
    guard text.kind == .html,
      text.value.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") })
    else { return nil }
    let plain = text.plainText
    return plain == text.value ? nil : plain
  }

  /// An item's key (see ``decodeFeed(_:origin:contentType:)``) and the key the rules before gave it, when that
  /// differs (``Article/formerKey``: a store keyed so keeps its row, re-keyed):
  ///
  /// - a linkblog item: its permalink; before, the page it links to;
  /// - else its canonical link when no other item of the document has that link (an anchor link, `#fragment`, only
  ///   when the item has no identifier: then as written, fragment included);
  /// - else its `guid`/`id` when no other item has it; before, a repeated one counted too (Scripting News gives two
  ///   different posts one link and one guid: they were one article);
  /// - else, without a link, its first enclosure (a podcast episode); before, its fingerprint;
  /// - else its content fingerprint; before, a link shared with another item keyed it (the items were one article).
  static func itemKey(
    _ item: FeedItem, web: (link: URL, key: URL)?, linkIsShared: Bool, guid: String?, guidIsUnique: Bool,
    scope: String
  ) -> (key: URL, former: URL?) {
    if let permalink = item.permalink, let web {
      // The linkblog rule: the post's own page is its identity; the page it links to was the key before.
      let key = ArticleIdentity.linked(permalink)
      return (key, web.key == key ? nil : web.key)
    }
    func key(ownID: String?, current: Bool) -> URL {
      if let web, !linkIsShared || (ownID == nil && !current), web.link.fragment == nil || ownID == nil {
        return web.link.fragment == nil ? web.key : ArticleIdentity.scoped(scope, id: web.link.absoluteString)
      }
      if let ownID { return ArticleIdentity.scoped(scope, id: ownID) }
      if current, web == nil, let enclosure = item.enclosures.first?.url, enclosure.isWebURL {
        // A podcast episode without guid or link: its audio's URL identifies it (Apple's RSS rules for podcasts;
        // the Podcast Index namespace's `podcast:guid` names the channel, not the episode).
        return ArticleIdentity.scoped(scope, id: ArticleIdentity.linked(enclosure).absoluteString)
      }
      return ArticleIdentity.scoped(scope, id: "#" + item.contentFingerprint)
    }
    let current = key(ownID: guidIsUnique ? guid : nil, current: true)
    let before = key(ownID: guid, current: false)
    return (current, before == current ? nil : before)
  }

  /// The item's link when it is an absolute `http(s)` URL.
  static func webLink(_ item: FeedItem) -> URL? {
    guard let link = item.link, link.isWebURL else {
      return nil
    }
    return link
  }

  /// A feed document's failure as a typed problem: cut off, empty, a page or list that is no feed, or unreadable.
  static func problem(_ error: FeedParseError) -> BodyProblem {
    switch error {
    case .truncated: BodyProblem(.truncated, error.description)
    case .empty: BodyProblem(.empty, error.description)
    case .notAFeed(_, _, _, let kind):
      switch kind {
      case .opml: BodyProblem(.subscriptionList, error.description)
      case .html: BodyProblem(.htmlPage, error.description)
      default: BodyProblem(.xmlNotAFeed, error.description)
      }
    // A JSON Feed whose JSON does not parse is nearly always one cut off.
    case .json(_, let isJSONFeed): BodyProblem(isJSONFeed ? .truncated : .unreadableFeed, error.description)
    case .notWellFormed, .tooLarge: BodyProblem(.unreadableFeed, error.description)
    }
  }
}
