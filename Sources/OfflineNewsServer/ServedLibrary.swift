import Foundation
import OfflineNews
import Synchronization

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
  /// Where subscriptions made, renamed, moved or ended through the APIs go: the app's own list (`news serve`: the
  /// configuration file, so that a feed added from a phone is the CLI's too). Default: the store's list
  /// (``NewsRepository/storedSubscriptions``). A subscription of the store's list that `subscriptions` does not
  /// hold is still changed there.
  public var subscriptions: any SubscriptionList
  /// Reads a feed subscribed to through the APIs before it is added, as Miniflux does: it is named after the feed's
  /// own title, follows a permanent redirect, and a URL that is no feed (or a page announcing none) is refused.
  /// `nil`: nothing is read while the client waits; the subscription is named after the URL's host.
  public var subscriber: FeedSubscriber?
  /// Whether a subscription through the APIs may not read an address on the server's machine or network
  /// (``SubscribeTarget``): `true` when the server listens beyond loopback (``NewsServer`` sets it from its
  /// ``NewsServer/Settings/listenHost``).
  public var refusesPrivateTargets = false
  /// How ``refresh(only:)`` reads the sources (`news serve`: `news fetch --all`'s options, its transport for whole
  /// texts and images). Default: ``RefreshOptions/init()``.
  public var refreshOptions = RefreshOptions()
  /// Called with the report of each refresh ``refresh(only:)`` runs, whoever asked for it (the periodic refresh, an
  /// API client), once it is done: `news serve`'s line on standard error. Default: nothing.
  public var refreshed: @Sendable (RefreshReport) -> Void = { _ in }
  /// What the last request derived from the sources, for the next while they are alike; shared by the copies.
  let memo = ServedMemo()
  /// The refresh under way (``refresh(only:)``), shared by the copies.
  let refreshes = ServedRefreshes()
  /// - Parameters: see the properties of the same names.
  public init(
    repository: NewsRepository, sources: @escaping @Sendable () async throws -> [NewsSource],
    now: @escaping @Sendable () -> Date = { Date() }, subscriptions: (any SubscriptionList)? = nil,
    subscriber: FeedSubscriber? = nil, refreshOptions: RefreshOptions = RefreshOptions(),
    refreshed: @escaping @Sendable (RefreshReport) -> Void = { _ in }
  ) {
    self.repository = repository
    self.sources = sources
    self.now = now
    self.subscriptions = subscriptions ?? repository.storedSubscriptions
    self.subscriber = subscriber
    self.refreshOptions = refreshOptions
    self.refreshed = refreshed
  }

  /// The folder the articles of no source are served in: those of each file imported (`news import FILE`) or URL
  /// read once (`news fetch --url`) that ``sources`` does not fetch (``NewsRepository/cachedQueries(besides:savedForNoneOf:)``).
  public static let importedFolder = ["Imported"]

  /// What every door serves: ``sources``, then one source per file imported or URL read once whose articles are
  /// still cached, named by its path (a file) or URL and filed in ``importedFolder``, so that Miniflux and Reader
  /// clients and the web reader see every cached article, as `news list` does, not only those of subscriptions.
  /// Such a source is no subscription: the APIs refuse to rename, move or end it (its articles go with
  /// `news delete`).
  ///
  /// - Throws: what ``sources`` throws; the repository's error reading its fetch log.
  public func servedSources() async throws -> [NewsSource] {
    let subscribed = try await sources()
    let keys = memo.cacheKeys(of: subscribed)
    var names = Set(subscribed.map(\.name))
    var imported: [NewsSource] = []
    // `cachedQueries(besides: subscribed.map(\.query))`, without parsing every source's URL again for its cache key.
    let cachedQueries = try await repository.cachedQueries(besides: [], savedForNoneOf: subscribed.map(\.name))
    for cached in cachedQueries where !keys.contains(cached.cacheKey) {
      // A file's name is its path (what its articles are recorded under: ``CachedQuery/source``).
      guard var source = cached.source, names.insert(source.name).inserted else { continue }
      source.folder = Self.importedFolder
      imported.append(source)
    }
    return subscribed + imported.sorted { $0.name < $1.name }
  }

  /// Whether `source` is one ``servedSources()`` adds for a file imported or URL read once, not a subscription.
  public static func isImported(_ source: NewsSource) -> Bool {
    source.folder == importedFolder
      && source.name == (source.url.isFileURL ? source.url.path : source.url.absoluteString)
  }
}

/// What ``ServedLibrary`` derived from its sources for the last request, reused by the next while they are served
/// alike (``ServedFeed/servedAlike(_:_:)``): the subscriptions' cache keys, and the catalog
/// (``ServedCatalog/current(_:)``). Whatever a request finds is compared with what it reads itself, so a change
/// anywhere (a `news add` in another shell, a subscription through an API) is served at once.
final class ServedMemo: Sendable {
  private struct Keys {
    var sources: [NewsSource]
    var keys: Set<String>
  }

  private let keys = Mutex<Keys?>(nil)
  private let lastCatalog = Mutex<ServedCatalog?>(nil)

  /// The cache keys of `sources`' queries (``NewsSource/query``): the last ones when the sources are alike.
  func cacheKeys(of sources: [NewsSource]) -> Set<String> {
    let last = keys.withLock { $0 }
    if let last, last.sources.count == sources.count,
      zip(last.sources, sources).allSatisfy({ ServedFeed.servedAlike($0, $1) })
    {
      return last.keys
    }
    let made = Set(sources.map(\.query.cacheKey))
    keys.withLock { $0 = Keys(sources: sources, keys: made) }
    return made
  }

  /// The catalog made last.
  var catalog: ServedCatalog? {
    get { lastCatalog.withLock { $0 } }
    set { lastCatalog.withLock { $0 = newValue } }
  }
}
