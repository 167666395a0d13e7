import Foundation

/// A news article, the `article` entity of the store.
///
/// The shape follows the NewsAPI v2 article object (<https://newsapi.org/docs/endpoints/top-headlines>), renamed
/// where NewsAPI's names collide with Swift or say less than they mean: NewsAPI's `description` is ``summary``,
/// `urlToImage` is ``imageURL``, and `source.id` / `source.name` are ``sourceID`` / ``sourceName``.
///
/// Identity: ``url``. Two articles with the same URL are the same row; saving one upserts the other.
public struct Article: Sendable, Hashable, Codable {
  /// The article's canonical link and its identity (primary key). Always an absolute `http`/`https` URL.
  public var url: URL
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

  /// Whether the article is bookmarked.
  public var isBookmarked: Bool { bookmarkedAt != nil }

  /// Creates an article. `publishedAt` is truncated to whole milliseconds, the precision the store keeps.
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
    isRead: Bool = false,
    bookmarkedAt: Date? = nil
  ) {
    self.url = url
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
