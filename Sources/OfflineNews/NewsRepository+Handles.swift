import Foundation
import OfflineNewsModel

/// What a handle or URL typed by a person finds.
package enum ArticleLookup: Sendable, Hashable {
  /// One article.
  case found(Article)
  /// A handle prefix several articles share (at most 10 of them, by handle).
  case ambiguous([Article])
  /// Nothing cached has that handle or URL.
  case notFound
}

extension NewsRepository {
  /// The short handles of `articles` (key → handle): the fewest digits of each one's handle, 6 at least, that no
  /// other cached article's starts with (`StorageContext/shortHandles(forKeys:minimumLength:)`).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func shortHandles(for articles: some Collection<Article>) async throws(NewsRepositoryError)
    -> [String: String]
  {
    let keys = articles.map(\.url.absoluteString)
    return try await storing { try await storage.shortHandles(forKeys: keys) }
  }

  /// The cached article a person means by `text`: a handle or a prefix of one (4 to 16 hex digits, as `news list`
  /// prints them), else a key or link in any equivalent form (`CanonicalURL`). Never touches the network.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func article(handleOrURL text: String) async throws(NewsRepositoryError) -> ArticleLookup {
    let trimmed = text.trimmingWhiteSpace
    if ArticleIdentity.looksLikeHandle(trimmed.lowercased()) {
      let matches = try await storing { try await storage.articles(withHandlePrefix: trimmed) }
      if matches.count == 1, let only = matches.first { return .found(only) }
      if matches.count > 1 { return .ambiguous(matches) }
    }
    if let article = try await article(url: trimmed) { return .found(article) }
    return .notFound
  }
}
