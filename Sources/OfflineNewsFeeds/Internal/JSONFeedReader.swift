import Foundation
import OfflineNewsModel

/// Reads a JSON Feed 1.0 or 1.1 document (<https://www.jsonfeed.org/version/1.1/>) into the one model of every feed
/// (``ParsedFeed``), so that its items get the identity, title, date and linkblog rules RSS and Atom items get.
///
/// - `url` is the item's own page; with an `external_url` (the page it is about) the item is a linkblog post: its
///   link is the external page and its permalink its `url` (``FeedItem/permalink``), as RSS and Atom linkblogs are
///   read. Relative URLs are resolved against `home_page_url`, else `feed_url`, else where the document was read.
/// - `id` is the guid (a number is read as its digits: feeds in the wild write `"id": 123`).
/// - `content_html` is HTML content, else `content_text` plain-text content; `summary` is read as HTML (the spec says
///   plain text, but feeds in the wild put markup in it, and HTML rendering shows plain text unchanged but for
///   white space).
/// - `date_published`, else `date_modified`, by the one date rule (``Timestamp/init(feedDate:preferW3CDTF:)``, RFC
///   3339 first); a date-time without a UTC offset is read as UTC and reported.
/// - `authors` (1.1), else `author` (1.0): names joined; the feed's own author when the item has none.
/// - `image`, else `banner_image`, else the first `image/…` attachment, is the image; `attachments` are enclosures.
/// - Extension keys (`_name`) are ignored; a value of the wrong type is left out with an issue, the item kept.
struct JSONFeedReader {
  let context: FeedReadingContext

  /// The feed of a JSON Feed object (its `version` names jsonfeed.org: ``FeedFormatSniffer``), its items in order.
  func read(_ object: [String: Any]) -> ParsedFeed {
    let version = object["version"] as? String ?? ""
    let base =
      url(object["home_page_url"], key: "home_page_url", base: context.feedURL)
      ?? url(object["feed_url"], key: "feed_url", base: context.feedURL) ?? context.feedURL
    let home = url(object["home_page_url"], key: "home_page_url", base: context.feedURL)
    context.homePage = home
    let names = authorNames(of: object)
    let feedAuthor = names.isEmpty ? nil : names.joined(separator: ", ")
    var items: [FeedItem] = []
    let list = object["items"] as? [Any] ?? []
    if object["items"] != nil, !(object["items"] is [Any]) {
      context.note(.unreadableURL, "items", "items is not an array; no item read")
    }
    for (index, value) in list.enumerated() {
      context.itemIndex = index
      guard let item = value as? [String: Any] else {
        context.note(.unreadableURL, nil, "an item that is not an object; left out")
        continue
      }
      items.append(read(item, index: index, base: base).finished(feedAuthor: feedAuthor))
    }
    context.itemIndex = nil
    return ParsedFeed(
      format: version.contains("version/1.1") ? .jsonFeed11 : .jsonFeed10, feedURL: context.feedURL,
      title: text(object["title"])?.collapsingWhiteSpace, homePageURL: home,
      language: text(object["language"]), author: feedAuthor,
      imageURL: url(object["icon"], key: "icon", base: base) ?? url(object["favicon"], key: "favicon", base: base),
      items: items, issues: [])
  }

  private func read(_ item: [String: Any], index: Int, base: URL) -> ItemDraft {
    var draft = ItemDraft(index: index)
    let own = url(item["url"], key: "url", base: base)
    let external = url(item["external_url"], key: "external_url", base: base)
    if let external, let own, external != own {
      draft.link = external
      draft.permalink = own
    } else {
      draft.link = own ?? external
    }
    switch item["id"] {
    case let id as String: draft.guid = id.trimmingWhiteSpace
    case let id as NSNumber: draft.guid = id.stringValue
    default: break
    }
    draft.title = text(item["title"])?.collapsingWhiteSpace
    if let html = text(item["content_html"]) {
      draft.content = FeedText(value: html, kind: .html, baseURL: base)
    } else if let plain = text(item["content_text"]) {
      draft.content = FeedText(value: plain, kind: .text, baseURL: base)
    }
    if let summary = text(item["summary"]) { draft.summary = FeedText(value: summary, kind: .html, baseURL: base) }
    draft.published = date(item["date_published"], key: "date_published")
    draft.updated = date(item["date_modified"], key: "date_modified")
    for name in authorNames(of: item) { draft.addAuthor(name) }
    for tag in item["tags"] as? [Any] ?? [] { draft.addCategory(tag as? String) }
    for (offset, value) in (item["attachments"] as? [Any] ?? []).enumerated() {
      guard let attachment = value as? [String: Any],
        let link = url(attachment["url"], key: "attachments[\(offset)].url", base: base)
      else { continue }
      let size = (attachment["size_in_bytes"] as? NSNumber).map(\.int64Value).flatMap { $0 >= 0 ? $0 : nil }
      draft.enclosures.append(Enclosure(url: link, type: text(attachment["mime_type"]), length: size))
    }
    draft.thumbnail = url(item["image"], key: "image", base: base)
    draft.mediaImage = url(item["banner_image"], key: "banner_image", base: base)
    return draft
  }

  /// A string value, trimmed; `nil` when absent, empty or of another type.
  private func text(_ value: Any?) -> String? {
    guard let string = value as? String else { return nil }
    let trimmed = string.trimmingWhiteSpace
    return trimmed.isEmpty ? nil : trimmed
  }

  /// A URL value resolved against `base`; `nil` (with an issue when there was text) when it cannot be read.
  private func url(_ value: Any?, key: String, base: URL) -> URL? {
    guard let string = text(value) else { return nil }
    guard let resolved = URLReference.resolve(string, against: base) else {
      context.note(.unreadableURL, key, text: string, "not a URL; value dropped")
      return nil
    }
    return resolved
  }

  /// A date value by the one date rule, RFC 3339 first; without a UTC offset read as UTC, and said.
  private func date(_ value: Any?, key: String) -> Date? {
    guard let string = text(value) else { return nil }
    guard let timestamp = Timestamp(feedDate: string, preferW3CDTF: true) else {
      context.note(
        .unreadableDate, key, text: string, "not an RFC 3339 date (nor any other form feeds write); value dropped")
      return nil
    }
    if Timestamp(w3cdtf: string) == nil, Timestamp(w3cdtf: string, assumingOffset: 0) != nil {
      context.note(.unreadableDate, key, text: string, "a date-time without a UTC offset; read as UTC")
    }
    return timestamp.date
  }

  /// The names of `authors` (JSON Feed 1.1), else of `author` (1.0), in order.
  private func authorNames(of object: [String: Any]) -> [String] {
    let people = (object["authors"] as? [Any]) ?? (object["author"].map { [$0] } ?? [])
    return people.compactMap { ($0 as? [String: Any]).flatMap { text($0["name"]) } }
  }
}
