import Foundation
import OfflineNewsModel

/// Reads RSS 0.90, 0.91, 0.92, 1.0 (RDF) and 2.0 from a libxml2 tree.
///
/// RSS 2.0: <https://www.rssboard.org/rss-specification>; RSS 1.0: <https://web.resource.org/rss/1.0/spec> (items
/// are children of `rdf:RDF`, beside `channel`); the modules: Dublin Core (`dc:`), content (`content:encoded`),
/// Media RSS (`media:`), iTunes (`itunes:`), and Atom elements inside RSS (`atom:link`, `atom:updated`).
struct RSSReader {
  let context: FeedReadingContext

  /// RSS elements are in no namespace (0.9x, 2.0), in RSS 1.0's or 0.90's, in the default namespace some RSS 2.0
  /// feeds declared (UserLand's, Harvard's), or in whatever namespace the `<rss>` root element itself is in (a feed
  /// that declared Atom's as its default, newsboat#1086); any of them is accepted anywhere, as feeds mix them.
  private var rss: [String?] = [nil, Namespace.rss10, Namespace.rss090, Namespace.userlandRSS2, Namespace.harvardRSS2]

  init(context: FeedReadingContext) { self.context = context }

  func read(_ root: XMLElement) -> ParsedFeed {
    var reader = self
    if root.name == "rss", let namespace = root.namespace, !reader.rss.contains(namespace) {
      reader.rss.append(namespace)
    }
    return reader.readDocument(root)
  }

  private func readDocument(_ root: XMLElement) -> ParsedFeed {
    let channel = root.child("channel", in: rss)
    var feed = ParsedFeed(format: context.format, feedURL: context.feedURL)
    if let channel {
      feed.title =
        context.collapsedText(channel.child("title", in: rss))
        ?? context.collapsedText(channel.child("title", in: [Namespace.dublinCore]))
      if let link = channel.child("link", in: rss) {
        feed.homePageURL = context.httpURL(link.text, in: link, name: "channel.link")
      }
      context.channelLink = feed.homePageURL
      context.homePage = feed.homePageURL
      feed.language =
        (context.collapsedText(channel.child("language", in: rss))
        ?? context.collapsedText(channel.child("language", in: [Namespace.dublinCore])))
        .map(FeedReadingContext.languageTag)
      feed.author =
        context.collapsedText(channel.child("creator", in: [Namespace.dublinCore]))
        ?? context.collapsedText(channel.child("author", in: Namespace.itunesNames))
        ?? context.collapsedText(channel.child("managingEditor", in: rss)).map(FeedReadingContext.personName)
      if let image = channel.child("image", in: rss), let url = image.child("url", in: rss) {
        feed.imageURL = context.httpURL(url.text, in: url, name: "channel.image.url")
      }
      if feed.imageURL == nil { feed.imageURL = context.itunesImage(of: channel) }
    }
    let items = (channel?.children("item", in: rss) ?? []) + root.children("item", in: rss)
    feed.items = items.enumerated().map { index, element in
      context.itemIndex = index
      defer { context.itemIndex = nil }
      return readItem(element, index: index).finished(feedAuthor: feed.author)
    }
    return feed
  }

  private func readItem(_ item: XMLElement, index: Int) -> ItemDraft {
    var draft = ItemDraft(index: index)
    // Elements that only stand in for a missing one, in the order they are preferred.
    var dcDescription: FeedText?
    var rssSummary: FeedText?
    var itunesSummary: FeedText?
    var alternativeContent: FeedText?
    var dcDate: Date?
    var mediaTitle: String?
    for child in item.children {
      switch (child.namespace, child.name) {
      case (let ns, "title") where rss.contains(ns):
        draft.title = context.collapsedText(child)
      case (Namespace.dublinCore, "title") where draft.title == nil:
        draft.title = context.collapsedText(child)
      case (let ns, "link") where rss.contains(ns) && draft.link == nil:
        draft.link = context.httpURL(child.text, in: child, name: "link")
      case (let ns, "guid") where rss.contains(ns):
        draft.guid = nonEmpty(child.text)
        draft.guidIsPermaLink =
          child.attribute("isPermaLink")?.trimmingWhiteSpace.lowercased()
          != "false"
      case (let ns, "description") where rss.contains(ns):
        draft.summary = context.html(child)
      case (let ns, "summary") where rss.contains(ns):
        rssSummary = context.html(child)
      case (Namespace.dublinCore, "description"), (Namespace.dublinCoreTerms, "abstract"):
        if dcDescription == nil { dcDescription = context.html(child) }
      case (let ns, "summary") where Namespace.isITunes(ns):
        itunesSummary = context.html(child)
      case (Namespace.content, "encoded"):
        draft.content = context.html(child)
      case (Namespace.xhtml, "body"), (nil, "body"):
        // XHTML inside RSS (`xhtml:body`, or a `body` in no namespace as some feeds write it): its children are the
        // content, as markup.
        if alternativeContent == nil { alternativeContent = context.markup(child) }
      case (let ns, "fullitem") where rss.contains(ns):
        if alternativeContent == nil { alternativeContent = context.html(child) }
      case (let ns, "author") where rss.contains(ns):
        draft.addAuthor(context.collapsedText(child).map(FeedReadingContext.personName))
      case (Namespace.dublinCore, "creator"), (Namespace.dublinCore, "author"):
        draft.addAuthor(context.collapsedText(child).map(FeedReadingContext.personName))
      case (let ns, "author") where Namespace.isITunes(ns) && draft.authors.isEmpty:
        draft.addAuthor(context.collapsedText(child))
      case (let ns, "pubDate") where rss.contains(ns):
        draft.published = context.date(child, .rfc822)
      case (Namespace.dublinCoreTerms, "issued"), (Namespace.dublinCoreTerms, "created"):
        if draft.published == nil { draft.published = context.date(child, .w3cdtf) }
      case (Namespace.dublinCore, "date"):
        if dcDate == nil { dcDate = context.date(child, .w3cdtf) }
      case (Namespace.atom10, "updated"), (Namespace.dublinCoreTerms, "modified"):
        if draft.updated == nil { draft.updated = context.date(child, .w3cdtf) }
      case (let ns, "enclosure") where rss.contains(ns):
        if let enclosure = context.enclosure(child, url: "url", name: "enclosure") {
          draft.enclosures.append(enclosure)
        }
      case (let ns, "category") where rss.contains(ns):
        draft.addCategory(child.text)
      case (Namespace.dublinCore, "subject"):
        draft.addCategory(child.text)
      case (let ns, "category") where Namespace.isITunes(ns):
        addITunesCategories(child, to: &draft)
      case (let ns, "category") where Namespace.isMedia(ns):
        draft.addCategory(child.text)
      case (let ns, "title") where Namespace.isMedia(ns):
        if mediaTitle == nil { mediaTitle = context.collapsedText(child) }
      default:
        break
      }
    }
    // The stand-ins: `dc:date` (RSS 1.0's date) is the publication date and, without another, the modification date
    // (feedparser reads it as `updated`); RSS `summary` beside `description` makes the description the content.
    if draft.published == nil { draft.published = dcDate }
    if draft.updated == nil { draft.updated = dcDate }
    if let rssSummary {
      if draft.content == nil { draft.content = draft.summary }
      draft.summary = rssSummary
    }
    if draft.summary == nil { draft.summary = dcDescription ?? itunesSummary }
    if draft.content == nil { draft.content = alternativeContent }
    if draft.title == nil { draft.title = mediaTitle }
    if draft.link == nil {
      draft.link = alternateAtomLink(of: item)
    }
    if context.format == .rdf || context.format == .rss090, let about = item.attribute("about", in: Namespace.rdf) {
      draft.guid = draft.guid ?? nonEmpty(about)
      draft.guidIsPermaLink = false
      if draft.link == nil { draft.link = permalink(about, in: item) }
    } else if draft.link == nil, draft.guidIsPermaLink, let guid = draft.guid {
      draft.link = permalink(guid, in: item)
    } else if draft.guidIsPermaLink, let guid = draft.guid {
      // A linkblog item: the link is the article commented on, the permalink guid the post on the feed's site.
      draft.permalink = context.linkblogPermalink(permalink(guid, in: item), link: draft.link)
    }
    context.readMedia(of: item, into: &draft)
    draft.itunesImage = context.itunesImage(of: item)
    return draft
  }

  /// `itunes:category text="…"` and the categories nested in it, in document order.
  private func addITunesCategories(_ category: XMLElement, to draft: inout ItemDraft) {
    draft.addCategory(category.attribute("text"))
    for inner in category.children where inner.name == "category" && Namespace.isITunes(inner.namespace) {
      addITunesCategories(inner, to: &draft)
    }
  }

  /// An `atom:link` with `rel="alternate"` (or no `rel`) inside an RSS item.
  private func alternateAtomLink(of item: XMLElement) -> URL? {
    let links = item.children("link", in: [Namespace.atom10]).filter {
      let rel = $0.attribute("rel")?.lowercased()
      return rel == nil || rel == "alternate"
    }
    guard let link = links.first else { return nil }
    return context.httpURL(link.attribute("href"), in: link, name: "atom:link@href")
  }

  /// A guid or `rdf:about` as the item's link, when it is an absolute `http(s)` URL (no issue when it is not: a guid
  /// need not be a URL).
  private func permalink(_ text: String, in element: XMLElement) -> URL? {
    let trimmed = text.trimmedXMLSpace
    guard let url = URL(string: trimmed), url.isWebURL
    else { return nil }
    return url
  }

  private func nonEmpty(_ text: String) -> String? {
    let trimmed = text.trimmedXMLSpace
    return trimmed.isEmpty ? nil : trimmed
  }
}
