import Foundation
import OfflineNews

/// What `news serve`'s handlers serve: the repository (articles, reading state, subscriptions, images) and the
/// sources of the composition root (the configuration's and the store's subscriptions), read again on each use so
/// that a `news add` in another shell shows up.
///
/// Every handler of the server (the Miniflux API, the Google Reader API, the web reader) is built from one of these
/// and reads and writes only through it: read and starred state are the repository's read and bookmark state,
/// shared with the CLI.
public struct ServedLibrary: Sendable {
  /// The offline-first repository over the served store.
  public var repository: NewsRepository
  /// Every source served, sorted by name: the configuration's and the store's subscriptions.
  public var sources: @Sendable () async throws -> [NewsSource]
  /// The clock (tests pin it).
  public var now: @Sendable () -> Date

  /// - Parameters: see the properties of the same names.
  public init(
    repository: NewsRepository, sources: @escaping @Sendable () async throws -> [NewsSource],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.repository = repository
    self.sources = sources
    self.now = now
  }
}
