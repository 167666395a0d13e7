import Foundation
import OfflineNewsStorage

extension NewsRepository {
  /// Full-text search of the cached articles, best match first. Never touches the network: it searches what was
  /// fetched, offline.
  ///
  /// The text takes words, `"phrases"`, `prefix*` and `AND`/`OR`/`NOT` between terms; anything else is searched as
  /// plain words (see ``SearchQuery``). Matching, ranking (`bm25`, title above body) and snippets are described at
  /// `StorageContext.search(_:filter:limit:offset:)`.
  ///
  /// For example:
  /// ```swift
  /// let hits = try await repository.search("storm ferr*", filter: ArticleFilter(sourceName: "BBC News"), limit: 5)
  /// for hit in hits { print(hit.article.title, "—", hit.snippet) }
  /// ```
  ///
  /// - Parameters:
  ///   - text: what the user typed.
  ///   - filter: source name, publication dates (`since` inclusive, `until` exclusive), unread, bookmarked.
  ///   - limit: at most this many hits; `nil` for all.
  ///   - offset: hits to skip first.
  /// - Returns: the hits, each with the article, its rank (lower is better) and a snippet whose matches are marked
  ///   with ``SearchHit/highlightStart`` and ``SearchHit/highlightEnd``.
  /// - Throws: ``NewsRepositoryError/invalidSearch(_:)`` when the text has no word to look for (empty, or only
  ///   punctuation) or too many words (``SearchQueryError``, naming the text; nothing is read);
  ///   ``NewsRepositoryError/storage(_:network:)`` when the store fails.
  public func search(_ text: String, filter: ArticleFilter = .all, limit: Int? = nil, offset: Int = 0)
    async throws(NewsRepositoryError) -> [SearchHit]
  {
    let query: SearchQuery
    do {
      query = try SearchQuery(text)
    } catch {
      throw .invalidSearch(error)
    }
    do {
      return try await storage.search(query, filter: filter, limit: limit, offset: offset)
    } catch {
      throw .storage(error, network: nil)
    }
  }
}
