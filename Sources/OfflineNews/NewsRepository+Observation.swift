import Foundation

extension NewsRepository {
  /// An observed list of cached articles — what a list UI shows: the articles `filter` selects, newest first, at
  /// most `limit` of them, yielded at once and then again each time a committed change to the store changes the
  /// list (a refresh that brings new articles, an article marked read, a delete). A change that leaves the list as
  /// it was yields nothing. Like GRDB's `ValueObservation`, it observes a fetch request rather than rows.
  ///
  /// For example:
  /// ```swift
  /// for try await unread in repository.observe(ArticleFilter(unreadOnly: true), limit: 50) {
  ///   show(unread)  // the first list at once, then each new list
  /// }
  /// ```
  ///
  /// The list is read after the change is committed, so a reader never sees a half-written refresh. Changes that
  /// come while a list is being read are coalesced into the next read (at most one read waits). The stream ends when
  /// the task iterating it is cancelled or the storage context is closed.
  ///
  /// - Parameters:
  ///   - filter: which articles (``ArticleFilter``: unread, bookmarked, sources, folders by their sources, dates).
  ///   - limit: at most this many, newest first; `nil` for all.
  /// - Returns: a stream of lists; it throws ``NewsRepositoryError/storage(_:network:)`` when a read fails.
  public func observe(_ filter: ArticleFilter = .all, limit: Int? = nil) -> AsyncThrowingStream<[Article], any Error> {
    // Subscribed before the first read, so that a change committed meanwhile is not missed.
    let changes = storage.changes(bufferLimit: 1)
    return AsyncThrowingStream { continuation in
      let task = Task {
        var last: [Article]?
        do {
          let first = try await read(limit: limit, filter: filter)
          continuation.yield(first)
          last = first
          for await _ in changes {
            let list = try await read(limit: limit, filter: filter)
            if list != last {
              continuation.yield(list)
              last = list
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
