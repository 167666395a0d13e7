import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// What ``NewsRepository/importArticles(from:progress:)`` did with a file.
public struct FileImportResult: Sendable, Hashable {
  /// What the save did: distinct articles saved, inserted, updated, unchanged, evicted by the store's eviction
  /// policy right after, and left out because a deletion or an eviction remembers them. All zero when the file held
  /// no article to save.
  public var save: ArticleSaveResult
  /// The records left out (``RecordIssue/skipped``) and the values set aside, each with its place and reason, in
  /// file order.
  public var issues: [RecordIssue]
  /// Whether the file was read in batches (a NewsAPI export of ``NewsRepository/streamingThreshold`` bytes or more)
  /// rather than whole.
  public var streamed: Bool

  /// The records of the file that were not saved.
  public var skipped: Int { issues.filter(\.skipped).count }
}

/// How far ``NewsRepository/importArticles(from:progress:)`` has come.
public enum FileImportProgress: Sendable, Hashable {
  /// `written` articles are written so far, of `total` when it is known (a file read whole; `nil` when streamed).
  case writing(written: Int, total: Int?)
  /// Every article is written; the save goes on with the search index, the other indexes and the commit (about a
  /// third of a first import's time).
  case finishing
}

/// A file of articles opened for an import, before the store is touched: a NewsAPI export large enough to be
/// streamed, or any other file decoded whole (so that a file that cannot be read is refused before a store is made).
package struct OpenedArticleFile: Sendable {
  /// The query the articles are saved for: the file's URL, its path as their source.
  package let query: NewsQuery
  package let content: Content

  package enum Content: Sendable {
    /// Decoded whole.
    case page(NewsPage)
    /// Read in batches as it is saved.
    case stream(NewsAPIFileStream)
  }

  /// How many articles will be written, when known before the save (a file decoded whole).
  package var articleCount: Int? {
    if case .page(let page) = content { return page.articles.count }
    return nil
  }

  /// Opens the file at `fileURL`, decoding it whole unless it is a NewsAPI export to stream.
  ///
  /// - Throws: what ``NewsRepository/importArticles(from:progress:)`` documents for the file.
  package static func open(_ fileURL: URL) async throws(NewsNetworkError) -> OpenedArticleFile {
    let query = NewsQuery(url: fileURL, source: fileURL.path)
    guard fileURL.isFileURL else { throw .unsupportedURL(query.description) }
    let path = fileURL.path
    // Only JSON may be a large NewsAPI export, read in batches; a feed or page is read whole, its size checked first.
    let kind = documentKind(at: path)
    if kind == .json || kind == nil, let stream = try NewsAPIFileStream(path: path) {
      return OpenedArticleFile(query: query, content: .stream(stream))
    }
    return OpenedArticleFile(query: query, content: .page(try await FileNewsNetwork().fetch(query)))
  }

  /// What the file holds, told by its first bytes whatever its name (``FeedFormatSniffer``); `nil` when it cannot be
  /// opened (the read that follows says why).
  package static func documentKind(at path: String) -> FeedDocumentKind? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let prefix = try? handle.read(upToCount: FeedFormatSniffer.prefixLength) else { return nil }
    return FeedFormatSniffer.kind(of: prefix)
  }
}

extension NewsRepository {
  /// Files of this size or more that are a NewsAPI response (a top-level object with an `articles` array) are read
  /// in batches while they are saved, so that memory holds a batch, not the file (4 MiB).
  public static var streamingThreshold: Int { NewsAPIFileStream.defaultMinimumSize }

  /// Imports a file of articles into the store, as `news import FILE` does: one transaction, upsert by URL,
  /// recorded as the result of the query of the file's URL with the file's path as the articles' source.
  ///
  /// Formats, told by the file's content, not its name (``ArticleDecoder``): a NewsAPI v2 response, RSS 0.9x/2.0,
  /// RDF (RSS 1.0), Atom and JSON Feed 1.0/1.1. A NewsAPI response of ``streamingThreshold`` bytes or more is
  /// decoded in batches on its own thread while the previous batch is saved; any other file is read whole, up to
  /// ``NewsRequest/maximumBodySize``. Other JSON (Hacker News items, a Parse export) goes through a mapping:
  /// ``importRecords(_:mapping:source:options:)``; subscription lists (OPML) through ``SubscriptionList``.
  ///
  /// Records that cannot be saved (no URL, no title, NewsAPI's `[Removed]` placeholders) are left out and reported
  /// in ``FileImportResult/issues``; the rest are saved.
  ///
  /// - Parameters:
  ///   - fileURL: a `file:` URL.
  ///   - progress: called as articles are written, then once with ``FileImportProgress/finishing``; from any thread.
  /// - Returns: what was saved, evicted and left out, and the issues of the records read.
  /// - Throws: a ``NewsNetworkError`` when the file cannot be read or is not a complete document of these formats —
  ///   ``NewsNetworkError/unreadableFile(path:reason:)`` (missing, a folder, no permission),
  ///   ``NewsNetworkError/tooLarge(bytes:limit:)``, ``NewsNetworkError/invalidResponse(_:)`` (cut off, not valid
  ///   JSON or XML, JSON of another shape), ``NewsNetworkError/api(code:message:)`` (a NewsAPI error response),
  ///   ``NewsNetworkError/unsupportedURL(_:)`` (not a `file:` URL) — and nothing is saved, a streamed file included
  ///   (its one transaction is rolled back); ``NewsRepositoryError/storage(_:network:)`` when the store fails.
  @discardableResult
  public func importArticles(from fileURL: URL, progress: (@Sendable (FileImportProgress) -> Void)? = nil)
    async throws -> FileImportResult
  {
    try await importArticles(OpenedArticleFile.open(fileURL), progress: progress)
  }

  /// Saves a file opened by ``OpenedArticleFile/open(_:)``: what ``importArticles(from:progress:)`` does once the
  /// file is open (a command line opens it first, so that a file it refuses makes no store).
  package func importArticles(_ file: OpenedArticleFile, progress: (@Sendable (FileImportProgress) -> Void)? = nil)
    async throws -> FileImportResult
  {
    switch file.content {
    case .page(let page):
      guard !page.articles.isEmpty else {
        return FileImportResult(save: .nothing, issues: page.issues, streamed: false)
      }
      let total = page.articles.count
      let result = try await save(page.articles, for: file.query) { written in
        progress?(.writing(written: written, total: total))
        if written >= total { progress?(.finishing) }
      }
      return FileImportResult(save: result, issues: page.issues, streamed: false)
    case .stream(let stream):
      defer { stream.cancel() }
      let result = try await save(
        batches: {
          let batch = try stream.next()
          if batch == nil { progress?(.finishing) }
          return batch
        }, for: file.query, progress: { progress?(.writing(written: $0, total: nil)) })
      return FileImportResult(save: result, issues: stream.issues, streamed: true)
    }
  }
}
