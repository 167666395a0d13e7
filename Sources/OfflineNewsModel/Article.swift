import Foundation

/// A news article, the `article` entity of the store.
///
/// The shape follows the NewsAPI v2 article object (<https://newsapi.org/docs/endpoints/top-headlines>), renamed
/// where NewsAPI's names collide with Swift or say less than they mean: NewsAPI's `description` is ``summary``,
/// `urlToImage` is ``imageURL``, and `source.id` / `source.name` are ``sourceID`` / ``sourceName``.
///
/// Every source becomes articles of this one shape: NewsAPI, RSS, Atom and RDF feeds, JSON Feed, Hacker News
/// stories and Parse classes that hold news.
///
/// Identity: ``url``, derived by `ArticleIdentity`: the canonical form of the item's link, or an identifier scoped
/// to its source for an item without one. Two articles with the same key are the same row; saving one upserts the
/// other. The link as the source gave it is ``link``.
public struct Article: Sendable, Hashable, Codable {
  /// The article's identity (primary key): its canonical link (`CanonicalURL`), or for an item without a link a
  /// `news-item:` key scoped to its source (`ArticleIdentity`).
  public var url: URL
  /// The link as the source gave it, for display and opening; `nil` when the item has none.
  public var link: URL?
  /// Where it came from: the configured source's name, or the feed, file or URL it was read from. `nil` only for
  /// articles saved before sources were recorded.
  public var source: String?
  /// The item's categories or tags (RSS `category`, Atom `category`, JSON Feed `tags`), in the source's order.
  public var tags: [String]
  /// The item's enclosures (RSS `enclosure`, Atom `link rel="enclosure"`, JSON Feed `attachments`): podcast audio
  /// and the like.
  public var enclosures: [Enclosure]
  /// The headline. Never empty.
  public var title: String
  /// The byline as the publisher gives it; `nil` when absent, `null` or empty. It is sometimes a URL.
  public var author: String?
  /// A short description (NewsAPI's `description`).
  public var summary: String?
  /// The lead image (NewsAPI's `urlToImage`).
  public var imageURL: URL?
  /// When the article was published, as an instant (UTC) truncated to whole milliseconds.
  public var publishedAt: Date
  /// The start of the body; NewsAPI truncates it to 200 characters and appends `[+N chars]`.
  public var content: String?
  /// The NewsAPI source identifier (`source.id`), e.g. `"bbc-news"`; `nil` for many sources.
  public var sourceID: String?
  /// The publisher's display name (`source.name`).
  public var sourceName: String?
  /// Local-only: whether the reader has read it. Never sent by a source; a refresh never changes it.
  public var isRead: Bool
  /// Local-only: when the reader bookmarked it (UTC, milliseconds), or `nil`. A refresh never changes it, and
  /// eviction never removes a bookmarked article.
  public var bookmarkedAt: Date?

  /// The whole article as a reader view shows it, fetched from its page (`news fetch --full-text`): cleaned HTML;
  /// `nil` until it has been fetched. Never written by a source: a refresh does not change it.
  public var fullTextHTML: String?
  /// The text of ``fullTextHTML`` (searchable).
  public var fullText: String?
  /// When the whole article was fetched (UTC), or `nil`.
  public var fullTextAt: Date?

  /// The text of ``summary`` as a reader sees it, when ``summary`` is HTML whose text differs from it (a feed's
  /// `description` or Atom `summary`, rendered to text by the HTML layer: `FeedText.plainText`); `nil` when the
  /// summary is plain text (NewsAPI) or its own text. Full-text search indexes it, and cuts snippets from it, in
  /// place of ``summary``, so that markup (`href`, tag and attribute names) is never found; ``summary`` itself
  /// stays as the source gave it, for display. Set by the feed decoder; stored with the article (migration 11),
  /// not encoded.
  package var summaryText: String? = nil
  /// The text of ``content`` as a reader sees it, when ``content`` is HTML whose text differs from it (RSS
  /// `content:encoded`, Atom `content`), as ``summaryText`` is of ``summary``; `nil` otherwise. Searched in place of
  /// ``content`` (a ``fullText`` is searched before either).
  package var contentText: String? = nil

  /// Whether the source gave no date for the item (an RSS item without `pubDate` or `dc:date`, an Atom entry
  /// without `published` or `updated`, a JSON Feed item without `date_published` or `date_modified`): its
  /// ``publishedAt`` is then the time it was first seen, which a save keeps — a stored row's date is not replaced by
  /// a later fetch's time, and a new row is dated by the save's fetch time. Not stored, not encoded.
  package var isUndated = false

  /// The key an earlier identity rule gave this item, when it differs from ``url``: a linkblog item is keyed by its
  /// permalink (`ArticleIdentity`), where stores written before that rule keyed it by the page it links to. A save
  /// finds a stored row under this key and keeps it — its read mark, bookmark and key — instead of adding a second
  /// row; a store without one saves under ``url``. Not stored, not encoded.
  package var formerKey: URL?

  /// The item's own identifier scoped to its feed, `news-item:SCOPE/ID` (``ArticleIdentity/scoped(_:id:)`` of an RSS
  /// `guid`, Atom `id` or JSON Feed `id`), when that identifier is unique within its feed document; `nil` for
  /// every other source. It identifies the item across edits of its link: a save that finds a stored row with this
  /// identifier under another key re-keys that row (its read mark, bookmark and whole text kept) instead of adding
  /// a second article. Set by the feed decoder; stored with the article (migration 15), not encoded.
  package var itemID: String? = nil

  /// The encoded properties: all but ``isUndated``, a fact about one response, and the search texts
  /// (``summaryText``, ``contentText``), which follow from ``summary`` and ``content``.
  private enum CodingKeys: String, CodingKey {
    case url, link, source, tags, enclosures, title, author, summary, imageURL, publishedAt, content, sourceID
    case sourceName, isRead, bookmarkedAt, fullTextHTML, fullText, fullTextAt
  }

  /// Whether the article is bookmarked.
  public var isBookmarked: Bool { bookmarkedAt != nil }

  /// The article's full handle (`ArticleIdentity/handle(forKey:)`): 16 hex digits derived from its key.
  package var handle: String { ArticleIdentity.handle(forKey: url.absoluteString) }

  /// The URL to show and open: ``link`` when there is one, else the key ``url`` when it is a link.
  public var displayURL: URL? { link ?? (ArticleIdentity.isScoped(url) ? nil : url) }

  /// Creates an article from its link: the identity ``url`` is the link's canonical form, and ``link`` keeps the
  /// link as given. `publishedAt` is truncated to whole milliseconds, the precision the store keeps.
  public init(
    url: URL,
    title: String,
    author: String? = nil,
    summary: String? = nil,
    imageURL: URL? = nil,
    publishedAt: Date,
    content: String? = nil,
    sourceID: String? = nil,
    sourceName: String? = nil,
    source: String? = nil,
    tags: [String] = [],
    enclosures: [Enclosure] = [],
    isRead: Bool = false,
    bookmarkedAt: Date? = nil
  ) {
    self.init(
      key: ArticleIdentity.linked(url), link: url, title: title, author: author, summary: summary,
      imageURL: imageURL, publishedAt: publishedAt, content: content, sourceID: sourceID, sourceName: sourceName,
      source: source, tags: tags, enclosures: enclosures, isRead: isRead, bookmarkedAt: bookmarkedAt)
  }

  /// Creates an article with an identity of its own (`ArticleIdentity`) and an optional link.
  public init(
    key: URL,
    link: URL?,
    title: String,
    author: String? = nil,
    summary: String? = nil,
    imageURL: URL? = nil,
    publishedAt: Date,
    content: String? = nil,
    sourceID: String? = nil,
    sourceName: String? = nil,
    source: String? = nil,
    tags: [String] = [],
    enclosures: [Enclosure] = [],
    isRead: Bool = false,
    bookmarkedAt: Date? = nil
  ) {
    self.url = key
    self.link = link
    self.source = source
    self.tags = tags
    self.enclosures = enclosures
    self.title = title
    self.author = author
    self.summary = summary
    self.imageURL = imageURL
    self.publishedAt = Timestamp(publishedAt).date
    self.content = content
    self.sourceID = sourceID
    self.sourceName = sourceName
    self.isRead = isRead
    self.bookmarkedAt = bookmarkedAt.map { Timestamp($0).date }
  }
}

/// A file attached to an article: podcast audio, a video, a document (RSS 2.0 `enclosure`; RFC 4287 §4.2.7.2
/// `rel="enclosure"`; JSON Feed 1.1 `attachments`).
public struct Enclosure: Sendable, Hashable, Codable {
  /// Where the file is.
  public var url: URL
  /// Its media type (`audio/mpeg`), when the source says.
  public var type: String?
  /// Its size in bytes, when the source says.
  public var length: Int64?

  /// Creates an enclosure.
  public init(url: URL, type: String? = nil, length: Int64? = nil) {
    self.url = url
    self.type = type
    self.length = length
  }
}
