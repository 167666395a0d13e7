import Foundation
import OfflineNewsModel
import OfflineNewsStorage

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
  /// come while a list is being read are coalesced into the next read (at most one read waits). Changes another
  /// process commits to the same file (`news fetch` in another shell) count too: see ``storeChanges(polling:)``.
  /// The stream ends when the task iterating it is cancelled or the storage context is closed.
  ///
  /// - Parameters:
  ///   - filter: which articles (``ArticleFilter``: unread, bookmarked, sources, folders by their sources, dates).
  ///   - limit: at most this many, newest first; `nil` for all.
  ///   - fields: every field (the default), or only what a list shows (``ArticleFields/listing``): a list of 2,000
  ///     is read again after every change, so a list UI reads the article it opens whole (``article(url:)``).
  /// - Returns: a stream of lists; it throws ``NewsRepositoryError/storage(_:network:)`` when a read fails.
  public func observe(_ filter: ArticleFilter = .all, limit: Int? = nil, fields: ArticleFields = .all)
    -> AsyncThrowingStream<[Article], any Error>
  {
    observing { try await self.read(limit: limit, filter: filter, fields: fields) }
  }

  /// An observed list with its counts, as ``observe(_:limit:fields:)`` observes the list: each version holds the
  /// newest `limit` articles `filter` selects and the counts of every article the same filter selects, read or
  /// not (its ``ArticleFilter/unreadOnly`` left out: how many there are and how many of them are unread), both read
  /// in one transaction — what a list's title says ("newest 2000 of 17713 articles, 1991 unread") always agrees
  /// with its rows, also after another process deletes or marks articles.
  ///
  /// - Returns: a stream of ``CountedArticles``; it throws ``NewsRepositoryError/storage(_:network:)`` when a read
  ///   fails.
  public func observeCounted(_ filter: ArticleFilter = .all, limit: Int? = nil, fields: ArticleFields = .all)
    -> AsyncThrowingStream<CountedArticles, any Error>
  {
    var every = filter
    every.unreadOnly = false
    let counting = every
    return observing {
      let read = try await self.storing {
        try await self.storage.articlesAndCounts(limit: limit, filter: filter, fields: fields, counting: counting)
      }
      return CountedArticles(articles: read.articles, counts: read.counts)
    }
  }

  /// The values `read` reads, at once and then after each committed change that changes them (the loop of
  /// ``observe(_:limit:fields:)``).
  private func observing<Value: Equatable & Sendable>(
    _ read: @escaping @Sendable () async throws -> Value
  ) -> AsyncThrowingStream<Value, any Error> {
    // Subscribed before the first read, so that a change committed meanwhile is not missed.
    let changes = storeChanges()
    return AsyncThrowingStream { continuation in
      let task = Task {
        var last: Value?
        do {
          let first = try await read()
          continuation.yield(first)
          last = first
          for await _ in changes {
            let value = try await read()
            if value != last {
              continuation.yield(value)
              last = value
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

  /// Yields once after each committed change to the store, whoever committed it: this process's writes as they are
  /// committed (``StorageContext/changes(bufferLimit:)``), and another process's writes to the same database file
  /// (another shell's `news fetch` or `mark-read`), seen by looking at the file and its `-wal` every `polling`
  /// interval (their size and modification time: SQLite writes one of them at every commit). Changes that come while
  /// the observer is busy are coalesced into one. The stream ends when the storage context is closed or the task
  /// iterating it is cancelled. An in-memory store has no other process.
  ///
  /// - Parameter polling: how often the file is looked at; half a second by default.
  public func storeChanges(polling: Duration = .milliseconds(500)) -> AsyncStream<Void> {
    let local = storage.changes(bufferLimit: 1)
    let path = storage.path
    let onDisk = !path.isEmpty && path != ":memory:" && !path.hasPrefix("file::memory:")
    let first = onDisk ? FileStamp(path) : nil
    return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let forward = Task {
        for await _ in local { continuation.yield() }
        continuation.finish()
      }
      let poll = Task {
        guard var stamp = first else { return }
        while !Task.isCancelled {
          do { try await Task.sleep(for: polling) } catch { return }
          let now = FileStamp(path)
          if now != stamp {
            stamp = now
            continuation.yield()
          }
        }
      }
      continuation.onTermination = { _ in
        forward.cancel()
        poll.cancel()
      }
    }
  }
}

/// The size and modification time of a database file and its `-wal`: what changes when any process commits.
private struct FileStamp: Equatable, Sendable {
  var database: [String]
  var log: [String]

  init(_ path: String) {
    database = Self.stamp(path)
    log = Self.stamp(path + "-wal")
  }

  private static func stamp(_ path: String) -> [String] {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return [] }
    let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
    let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    return ["\(size)", "\(modified)"]
  }
}

/// A version of an observed list with its counts (``NewsRepository/observeCounted(_:limit:fields:)``), read in one
/// transaction.
public struct CountedArticles: Sendable, Equatable {
  /// The newest articles the filter selects, at most the limit, newest first.
  public var articles: [Article]
  /// Every article the filter selects, read or not, and how many of them are unread (more than ``articles`` holds
  /// when the limit cut the list).
  public var counts: ArticleCounts

  /// A list and its counts.
  public init(articles: [Article], counts: ArticleCounts) {
    self.articles = articles
    self.counts = counts
  }
}
