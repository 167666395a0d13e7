import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage

/// What a composition root asks of the store through the repository — its file, whether it can be written, large
/// and mapped imports, closing it — so that no caller reaches past the repository into its storage context.
extension NewsRepository {
  /// The database file the repository's store is kept in.
  public var databasePath: String { storage.path }

  /// Why the store was opened read-only (a read-only file or folder, a full disk), or `nil` when it can be written
  /// (``StorageContext/readOnlyCause``).
  public var readOnlyCause: StorageError? { storage.readOnlyCause }

  /// Whether a write to the store would be refused: ``readOnlyCause`` once the store knows it, else what the file
  /// system says now of the database file and its folder (`access(2)`, `W_OK`; it answers `EPERM` for an immutable
  /// file, root included). A store opened for reading opens its writer at its first write, so until then only the
  /// file system can tell. For a note before any write is tried (`news read`, `news serve`); a write itself throws
  /// ``NewsRepositoryError/storage(_:network:)`` either way.
  public var isReadOnly: Bool {
    if readOnlyCause != nil { return true }
    let path = databasePath
    guard path != ":memory:" else { return false }
    let folder = (path as NSString).deletingLastPathComponent
    return access(path, W_OK) != 0 && FileManager.default.fileExists(atPath: path)
      || access(folder.isEmpty ? "." : folder, W_OK) != 0
  }

  /// Closes the store: waits for the writes under way, then closes its connections. Later calls fail with
  /// ``StorageError/Kind/closed``.
  public func close() async { await storage.close() }

  /// When any query was last fetched (saved or revalidated), or `nil` when none ever was.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func latestFetchTime() async throws(NewsRepositoryError) -> Date? { try await latestFetch()?.date }

  /// ``latestFetchTime()`` to the millisecond, as the store keeps it.
  package func latestFetch() async throws(NewsRepositoryError) -> Timestamp? {
    try await storing { try await storage.latestFetch() }
  }

  /// Saves the articles of one response that arrive in batches — the chunks of a large file — as one transaction
  /// for `query` (its `source`, else its cache key, recorded on new articles): nothing is saved when `batches`
  /// throws, and the previous cache stays whole. Images of evicted articles are removed after it.
  ///
  /// - Parameters:
  ///   - batches: the next batch of articles, `nil` at the end; called on the writer's thread.
  ///   - progress: articles written so far, as they are written.
  /// - Returns: what the save did.
  /// - Throws: the error `batches` threw, as it is; ``NewsRepositoryError/storage(_:network:)`` when the store
  ///   fails.
  @discardableResult
  public func save(
    batches: @escaping @Sendable () throws -> [Article]?, for query: NewsQuery,
    progress: (@Sendable (Int) -> Void)? = nil
  ) async throws -> ArticleSaveResult {
    let result: ArticleSaveResult
    do {
      result = try await storage.saveArticles(
        forQuery: query.cacheKey, source: query.source ?? query.cacheKey, fetchedAt: clock(), progress: progress,
        batches: batches)
    } catch let error as StorageError {
      throw NewsRepositoryError.storage(error, network: nil)
    }
    if result.evicted > 0 { await removeUnusedImages() }
    return result
  }

  /// Imports a JSON document through `mapping` (``Importer``), with the search text of articles made as every
  /// other source makes it, then removes the images of the articles a mirror import or an eviction removed.
  ///
  /// - Parameters:
  ///   - source: the file or URL it came from, recorded on new articles.
  /// - Returns: the import's report: inserted, updated, skipped and failed records.
  /// - Throws: ``ImportFailure`` (the input, the store, or cancellation); nothing is saved on a failure of the input.
  public func importRecords(_ data: Data, mapping: ImportMapping, source: String, options: Importer.Options)
    async throws(ImportFailure) -> ImportReport
  {
    let report = try await Importer(mapping: mapping, hooks: ArticleDecoder.searchTextHooks(for: mapping)).run(
      data, into: storage, source: source, options: options)
    await removeUnusedImages()
    return report
  }
}
