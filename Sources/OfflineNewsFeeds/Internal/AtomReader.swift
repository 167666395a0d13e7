import Foundation
import OfflineNewsModel

/// Reads Atom 1.0 (RFC 4287, <https://www.rfc-editor.org/rfc/rfc4287>) and Atom 0.3 (the 2003 draft: `issued`,
/// `modified`, `tagline`, content `mode`) from a libxml2 tree.
struct AtomReader {
  let context: FeedReadingContext

  func read(_ root: XMLElement) -> ParsedFeed {
    let atom: [String?] = [root.namespace]
    var feed = ParsedFeed(format: context.format, feedURL: context.feedURL)
    feed.title = context.plainTextConstruct(root.child("title", in: atom))
    if let link = alternateLink(root.children("link", in: atom)) {
      feed.homePageURL = context.httpURL(link.attribute("href"), in: link, name: "link@href")
    }
    feed.language = root.attribute("lang", in: Namespace.xml).flatMap {
      let trimmed = $0.trimmingWhiteSpace
      return trimmed.isEmpty ? nil : FeedReadingContext.languageTag(trimmed)
    }
    context.homePage = feed.homePageURL
    let feedAuthors = authors(root.children("author", in: atom), atom: atom)
    feed.author = feedAuthors.isEmpty ? nil : feedAuthors.joined(separator: ", ")
    if let image = root.child("logo", in: atom) ?? root.child("icon", in: atom) {
      feed.imageURL = context.httpURL(image.text, in: image, name: image.name)
    }
    feed.items = root.children("entry", in: atom).enumerated().map { index, entry in
      context.itemIndex = index
      defer { context.itemIndex = nil }
      return readEntry(entry, index: index, atom: atom).finished(feedAuthor: feed.author)
    }
    return feed
  }

  private func readEntry(_ entry: XMLElement, index: Int, atom: [String?]) -> ItemDraft {
    var draft = ItemDraft(index: index)
    let isAtom03 = context.format == .atom03
    draft.title = context.plainTextConstruct(entry.child("title", in: atom))
    let links = entry.children("link", in: atom)
    if let link = alternateLink(links) {
      draft.link = context.httpURL(link.attribute("href"), in: link, name: "link@href")
    }
    // A linkblog entry (Daring Fireball): the alternate link is the article commented on, `related` the post.
    if let related = links.first(where: { $0.attribute("rel")?.lowercased() == "related" }) {
      draft.permalink = context.linkblogPermalink(
        related.attribute("href").flatMap { URLReference.resolve($0, against: context.baseURL(for: related)) },
        link: draft.link)
    }
    if let id = entry.child("id", in: atom) {
      let text = id.text.trimmedXMLSpace
      draft.guid = text.isEmpty ? nil : text
    }
    draft.summary = context.textConstruct(entry.child("summary", in: atom))
    if let content = entry.child("content", in: atom), content.attribute("src") == nil {
      draft.content = context.textConstruct(content)
    }
    for name in authors(entry.children("author", in: atom), atom: atom) { draft.addAuthor(name) }
    if draft.authors.isEmpty, let source = entry.child("source", in: atom) {
      for name in authors(source.children("author", in: atom), atom: atom) { draft.addAuthor(name) }
    }
    if draft.authors.isEmpty {
      for creator in entry.children("creator", in: [Namespace.dublinCore]) {
        draft.addAuthor(context.collapsedText(creator))
      }
    }
    draft.published = context.date(
      entry.child(isAtom03 ? "issued" : "published", in: atom) ?? (isAtom03 ? entry.child("created", in: atom) : nil),
      .w3cdtf)
    draft.updated = context.date(entry.child(isAtom03 ? "modified" : "updated", in: atom), .w3cdtf)
    for link in links where link.attribute("rel")?.lowercased() == "enclosure" {
      if let enclosure = context.enclosure(link, url: "href", name: "link[rel=enclosure]") {
        draft.enclosures.append(enclosure)
      }
    }
    for category in entry.children("category", in: atom) {
      draft.addCategory(category.attribute("term") ?? category.text)
    }
    for subject in entry.children("subject", in: [Namespace.dublinCore]) { draft.addCategory(subject.text) }
    context.readMedia(of: entry, into: &draft)
    draft.itunesImage = context.itunesImage(of: entry)
    return draft
  }

  /// The alternate link among `links`: `rel="alternate"` or no `rel` (RFC 4287 §4.2.7.2), one of an HTML `type` (or
  /// no type) first.
  private func alternateLink(_ links: [XMLElement]) -> XMLElement? {
    let alternates = links.filter {
      let rel = $0.attribute("rel")?.trimmingWhiteSpace.lowercased()
      return rel == nil || rel == "alternate" || rel == "http://www.iana.org/assignments/relation/alternate"
    }
    return alternates.first {
      guard let type = $0.attribute("type")?.lowercased() else { return true }
      return type.contains("html")
    } ?? alternates.first
  }

  /// The `name` of each `author` (Person construct, RFC 4287 §3.2), else its `email`.
  private func authors(_ elements: [XMLElement], atom: [String?]) -> [String] {
    elements.compactMap { author in
      context.collapsedText(author.child("name", in: atom)) ?? context.collapsedText(author.child("email", in: atom))
    }
  }
}
