import Foundation

/// How much of the article cache to keep. Runs after every save of articles, in the same transaction.
///
/// Bookmarked articles are never evicted and do not count toward `maxArticles`.
public struct EvictionPolicy: Sendable, Hashable {
  /// Keep at most this many articles that are not bookmarked: the newest by `publishedAt`. `nil`: no limit.
  package var maxArticles: Int?
  /// Drop articles that are not bookmarked and whose last save from a source (`fetchedAt`) is older than this many
  /// seconds. `nil`: no limit. (Not by `publishedAt`: a source may serve old stories that are still wanted.)
  package var maxAge: TimeInterval?

  /// A policy; by default it keeps everything.
  /// - Parameters:
  ///   - maxArticles: at most this many articles that are not bookmarked; `nil` for no limit.
  ///   - maxAge: seconds since an article was last saved by a fetch (UTC clock) after which it goes; `nil` for no limit.
  public init(maxArticles: Int? = nil, maxAge: TimeInterval? = nil) {
    self.maxArticles = maxArticles
    self.maxAge = maxAge
  }

  /// Keep everything.
  public static let none = EvictionPolicy()

  /// Whether the policy keeps everything.
  package var isNone: Bool { maxArticles == nil && maxAge == nil }
}
