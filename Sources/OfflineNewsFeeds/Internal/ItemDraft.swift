import Foundation
import OfflineNewsModel

/// An item as read from its elements, before the rules that need all of it (derived title, author fallback,
/// image choice, fingerprint) make it a ``FeedItem``.
struct ItemDraft {
  var index: Int
  var link: URL?
  var permalink: URL?
  var guid: String?
  var guidIsPermaLink = false
  var title: String?
  var summary: FeedText?
  var content: FeedText?
  var authors: [String] = []
  var published: Date?
  var updated: Date?
  /// Image candidates in the order of preference: `media:thumbnail`, `media:content` images, `itunes:image`.
  var thumbnail: URL?
  var mediaImage: URL?
  var itunesImage: URL?
  var enclosures: [Enclosure] = []
  var categories: [String] = []

  init(index: Int) { self.index = index }

  /// Adds a category unless empty or already there.
  mutating func addCategory(_ text: String?) {
    guard let text else { return }
    let trimmed = text.collapsingWhiteSpace
    if !trimmed.isEmpty, !categories.contains(trimmed) { categories.append(trimmed) }
  }

  /// Adds an author unless empty or already there.
  mutating func addAuthor(_ text: String?) {
    guard let text, !text.isEmpty, !authors.contains(text) else { return }
    authors.append(text)
  }

  func finished(feedAuthor: String?) -> FeedItem {
    var title = self.title ?? ""
    var derived = false
    if title.isEmpty {
      derived = true
      let text = [summary, content].compactMap { $0?.plainText }.first { !$0.isEmpty }
      title = ArticleTitle.derived(from: text) ?? ArticleTitle.fallback(link: link)
    }
    let image =
      thumbnail ?? mediaImage ?? enclosures.first { $0.type?.lowercased().hasPrefix("image/") == true }?.url
      ?? itunesImage
    return FeedItem(
      index: index, link: link, permalink: permalink, guid: guid, guidIsPermaLink: guidIsPermaLink, title: title,
      titleIsDerived: derived,
      summary: summary, content: content, author: authors.isEmpty ? feedAuthor : authors.joined(separator: ", "),
      published: published, updated: updated, imageURL: image, enclosures: enclosures, categories: categories)
  }
}

/// Reading the elements several formats share: Media RSS, iTunes, enclosures.
extension FeedReadingContext {
  /// `candidate` as the item's permalink beside `link` (``FeedItem/permalink``): when it is on the site of the feed's
  /// home page (`www.` aside) and `link` is on another site; `nil` otherwise, and always without a home page.
  func linkblogPermalink(_ candidate: URL?, link: URL?) -> URL? {
    guard let candidate, let link, let home = Self.site(homePage), let own = Self.site(candidate),
      let linked = Self.site(link), own == home, linked != home
    else { return nil }
    return candidate
  }

  /// A URL's host, lower-cased, without a leading `www.`.
  static func site(_ url: URL?) -> String? {
    guard let host = url?.host?.lowercased(), !host.isEmpty else { return nil }
    return host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
  }

  /// `media:thumbnail` and `media:content` images of `element` and of its `media:group`s.
  func readMedia(of element: XMLElement, into draft: inout ItemDraft) {
    let scopes = [element] + element.children.filter { $0.name == "group" && Namespace.isMedia($0.namespace) }
    for scope in scopes {
      for child in scope.children where Namespace.isMedia(child.namespace) {
        switch child.name {
        case "thumbnail" where draft.thumbnail == nil:
          draft.thumbnail = httpURL(child.attribute("url"), in: child, name: "media:thumbnail@url")
        case "content" where draft.mediaImage == nil:
          let medium = child.attribute("medium")?.lowercased()
          let type = child.attribute("type")?.lowercased()
          if medium == "image" || type?.hasPrefix("image/") == true {
            draft.mediaImage = httpURL(child.attribute("url"), in: child, name: "media:content@url")
          }
        default:
          break
        }
      }
    }
  }

  /// `itunes:image@href`.
  func itunesImage(of element: XMLElement) -> URL? {
    guard let image = element.child("image", in: Namespace.itunesNames) else { return nil }
    return httpURL(image.attribute("href"), in: image, name: "itunes:image@href")
  }

  /// An enclosure from its URL, type and length attributes; `nil` (with an issue) without a usable URL.
  func enclosure(_ element: XMLElement, url attribute: String, name: String) -> Enclosure? {
    guard let url = httpURL(element.attribute(attribute), in: element, name: "\(name)@\(attribute)") else {
      if element.attribute(attribute) == nil {
        note(.unreadableURL, name, "an enclosure without a \(attribute); left out", line: element.line)
      }
      return nil
    }
    let type = element.attribute("type").map { $0.trimmingWhiteSpace }.flatMap {
      $0.isEmpty ? nil : $0
    }
    let length = element.attribute("length").flatMap { Int64($0.trimmingWhiteSpace) }.flatMap {
      $0 >= 0 ? $0 : nil
    }
    return Enclosure(url: url, type: type, length: length)
  }

  /// An RSS `author` as a name: `joe@example.org (Joe Bloggs)` → `Joe Bloggs`, `Joe <joe@example.org>` → `Joe`.
  static func personName(_ text: String) -> String {
    let text = text.collapsingWhiteSpace
    if text.hasSuffix(")"), let open = text.firstIndex(of: "("), text[..<open].contains("@") {
      let name = text[text.index(after: open)..<text.index(before: text.endIndex)].trimmingWhiteSpace
      if !name.isEmpty { return name }
    }
    if text.hasSuffix(">"), let open = text.firstIndex(of: "<"), text[open...].contains("@") {
      let name = text[..<open].trimmingWhiteSpace
      if !name.isEmpty { return name }
    }
    return text
  }
}
