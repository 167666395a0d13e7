import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsNetwork

extension ArticleDecoder {
  /// An RSS, Atom, RDF or JSON Feed body through ``FeedParser``: every item an article.
  ///
  /// - key: the canonical permalink of a linkblog item (``FeedItem/permalink``: its link points to another site; the
  ///   key the link gave before is the article's `formerKey`, which a store keyed so keeps); else the canonical
  ///   link; else the `guid`/`id` scoped to the feed (its home page, else its URL or path:
  ///   ``ArticleIdentity/feedScope(homePage:origin:)``); else, for an item with neither (a podcast episode), its
  ///   first enclosure's URL scoped to the feed (Apple's podcast rules: without a `guid`, the enclosure URL
  ///   identifies the episode; its key before this rule, the fingerprint's, is its `formerKey`); else the item's
  ///   content fingerprint scoped to the feed (``ArticleIdentity``, ``FeedItem/contentFingerprint``), so an item
  ///   with none of these is saved and a re-fetch finds the same article. A link that is not the item's own — an
  ///   anchor in a page of several posts (`#fragment`), or a link another item of the feed has too — gives way to
  ///   the item's guid (an anchor link without a guid keys the item as written, fragment included);
  /// - itemID (``Article/itemID``): the `guid`/`id` scoped to the feed when no other item of the document has the
  ///   same one (an identifier repeated across items identifies none of them), so that the writer finds the item
  ///   again after its link was edited (a slug fixed after publication) and re-keys its row;
  /// - title: the item's, or the one derived from its text (``FeedItem/titleIsDerived``);
  /// - summary and content: `description`/Atom `summary` and `content:encoded`/Atom `content`, as the feed gives
  ///   them (HTML stays HTML); a `description` that is the item's only text is its summary. Where one is HTML,
  ///   its text (``FeedText/plainText``) is the article's search text (``Article/summaryText``,
  ///   ``Article/contentText``), which search indexes in its place;
  /// - publishedAt: `pubDate`/`published`/`dc:date`, else `updated`, else the time the item was first saved (kept by
  ///   later fetches: ``Article/isUndated``);
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
      throw .invalidResponse(detail: error.description)
    }
    // Items without a link of their own are scoped to the feed's home page, so that a saved copy and the feed's URL
    // give one key (``ArticleIdentity/feedScope(homePage:origin:)``).
    let scope = ArticleIdentity.feedScope(
      homePage: feed.homePageURL,
      origin: origin.isFileURL ? origin.path : NewsQuery.redacting(origin).absoluteString)
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
    for (item, web) in zip(feed.items, links) {
      let key: URL
      var formerKey: URL?
      let ownID = item.guid.flatMap { $0.isEmpty ? nil : $0 }
      if let permalink = item.permalink, let (_, linked) = web {
        // The linkblog rule: the post's own page is its identity; the page it links to was the key before.
        key = ArticleIdentity.linked(permalink)
        formerKey = linked == key ? nil : linked
      } else if let (link, linked) = web, linkCounts[linked] == 1 || ownID == nil, link.fragment == nil || ownID == nil
      {
        key = link.fragment == nil ? linked : ArticleIdentity.scoped(scope, id: link.absoluteString)
      } else if let ownID {
        key = ArticleIdentity.scoped(scope, id: ownID)
      } else if let enclosure = item.enclosures.first?.url, enclosure.isWebURL {
        // A podcast episode without guid or link: its audio's URL identifies it (Apple's RSS rules for podcasts;
        // the Podcast Index namespace's `podcast:guid` names the channel, not the episode). The fingerprint was its
        // key before, and changed with every edit of its text.
        key = ArticleIdentity.scoped(scope, id: ArticleIdentity.linked(enclosure).absoluteString)
        formerKey = ArticleIdentity.scoped(scope, id: "#" + item.contentFingerprint)
      } else {
        key = ArticleIdentity.scoped(scope, id: "#" + item.contentFingerprint)
      }
      var article = Article(
        key: key, link: item.link, title: item.title, author: item.author ?? feed.author,
        summary: item.summary?.value, imageURL: item.imageURL,
        publishedAt: item.published ?? item.updated ?? Date(), content: item.content?.value,
        sourceName: feed.title, tags: item.categories,
        enclosures: item.enclosures.map { Enclosure(url: $0.url, type: $0.type, length: $0.length) })
      article.summaryText = item.summary.flatMap(Self.searchText)
      article.contentText = item.content.flatMap(Self.searchText)
      // Undated: first seen now; the save keeps the date of a row already stored (``Article/isUndated``).
      article.isUndated = item.published == nil && item.updated == nil
      article.formerKey = formerKey
      if let ownID, guidCounts[ownID] == 1 { article.itemID = ArticleIdentity.scoped(scope, id: ownID).absoluteString }
      articles.append(article)
    }
    // Issues name the item as the document does: `item[3].pubDate` in XML, `items[3].date_published` in JSON.
    let itemPath = [.jsonFeed10, .jsonFeed11].contains(feed.format) ? "items" : "item"
    let issues = feed.issues.map { issue in
      RecordIssue(
        index: issue.itemIndex ?? -1, url: nil,
        keyPath: issue.itemIndex.map { "\(itemPath)[\($0)]" + (issue.element.map { ".\($0)" } ?? "") }
          ?? (issue.element ?? ""),
        reason: issue.message, skipped: false)
    }
    return NewsPage(articles: articles, issues: issues)
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

  /// The item's link when it is an absolute `http(s)` URL.
  static func webLink(_ item: FeedItem) -> URL? {
    guard let link = item.link, link.isWebURL else {
      return nil
    }
    return link
  }
}
