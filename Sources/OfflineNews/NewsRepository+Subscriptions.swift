import Foundation
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsStorage

/// Why a change to the store's subscription list was refused.
public enum SubscriptionChangeError: Error, Sendable, CustomStringConvertible {
  /// Another subscription has this name (names are compared without regard to case).
  case nameTaken(String)
  /// The URL is subscribed already, under `name` (URLs are compared in their canonical form: host case, default
  /// port, empty path, fragment and tracking parameters do not tell two subscriptions apart; RFC 3986 §6).
  case alreadySubscribed(URL, name: String)
  /// No subscription has this name.
  case notSubscribed(String)
  /// The store keeps feed, file and NewsAPI sources; a Parse source (with its mapping and secrets) is kept by the
  /// app, e.g. in a configuration file.
  case unsupportedKind(String)
  /// A name that is empty or only white space.
  case invalidName(String)
  /// The store failed.
  case storage(StorageError)

  /// What was refused, for a person.
  public var description: String {
    switch self {
    case .nameTaken(let name): "a subscription named \"\(name)\" exists already"
    case .alreadySubscribed(let url, let name): "\(url.absoluteString) is subscribed already, as \"\(name)\""
    case .notSubscribed(let name): "no subscription is named \"\(name)\""
    case .unsupportedKind(let name): "\"\(name)\" is a Parse source: the store keeps feed, file and NewsAPI sources"
    case .invalidName(let name): "\"\(name)\" is not a name: give one with a letter or digit"
    case .storage(let error): error.description
    }
  }
}

/// The subscription list kept in the store itself (table `subscription`): what an app that keeps no list of its own
/// subscribes to, renames, files in folders, refreshes, counts and marks read. Each subscription is a
/// ``NewsSource`` of kind ``NewsSource/Kind/articles(_:)``; its articles are selected by ``NewsSource/match``.
///
/// For example:
/// ```swift
/// try await repository.subscribe(NewsSource(name: "ATP", url: atpFeed, folder: ["Podcasts"]))
/// let report = await repository.refreshSubscriptions(options: RefreshOptions(transport: transport))
/// let podcasts = try await repository.counts(inFolder: ["Podcasts"])  // ArticleCounts(total:unread:)
/// try await repository.markRead(inFolder: ["Podcasts"])
/// ```
extension NewsRepository {
  /// The subscriptions, in the order they were made.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscriptions() async throws(NewsRepositoryError) -> [NewsSource] {
    try await storing { try await storage.subscriptions() }.compactMap(Self.source)
  }

  /// The subscription named `name`, compared without regard to case (an exact match first), or `nil`.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscription(named name: String) async throws(NewsRepositoryError) -> NewsSource? {
    let all = try await subscriptions()
    return all.first { $0.name == name } ?? all.first { $0.name.lowercased() == name.lowercased() }
  }

  /// The folders of the subscriptions, each path and every path above it (`["Tech"]` and `["Tech", "Swift"]`),
  /// sorted.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscriptionFolders() async throws(NewsRepositoryError) -> [[String]] {
    var all = Set<[String]>()
    for source in try await subscriptions() {
      for depth in stride(from: 1, through: source.folder.count, by: 1) {
        all.insert(Array(source.folder.prefix(depth)))
      }
    }
    return all.sorted { $0.joined(separator: "/") < $1.joined(separator: "/") }
  }

  /// Subscribes to `source`: it is added at the end of the list. Nothing is fetched (``refreshSubscriptions(inFolder:options:progress:)``
  /// does that).
  ///
  /// - Throws: ``SubscriptionChangeError``: `nameTaken`, `alreadySubscribed` (an equivalent URL), `invalidName`,
  ///   `unsupportedKind` (a Parse source), `storage`.
  public func subscribe(_ source: NewsSource) async throws(SubscriptionChangeError) {
    guard case .articles(let url) = source.kind else { throw .unsupportedKind(source.name) }
    let name = try Self.checkedName(source.name)
    let existing = try await storedSubscriptions()
    if existing.contains(where: { $0.name.lowercased() == name.lowercased() }) { throw .nameTaken(name) }
    let key = CanonicalURL.canonical(url).absoluteString
    if let other = existing.first(where: {
      URL(string: $0.url).map { CanonicalURL.canonical($0).absoluteString } == key
    }) {
      throw .alreadySubscribed(url, name: other.name)
    }
    var stored = Self.stored(source)
    stored.name = name
    do {
      try await storage.saveSubscription(stored, at: clock())
    } catch {
      throw .storage(error)
    }
  }

  /// Renames the subscription `name` (any case) to `newName`; its cached articles follow it.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `nameTaken`, `invalidName`, `storage`.
  public func renameSubscription(_ name: String, to newName: String) async throws(SubscriptionChangeError) {
    let checked = try Self.checkedName(newName)
    let existing = try await storedSubscriptions()
    guard var row = Self.row(named: name, in: existing) else { throw .notSubscribed(name) }
    if existing.contains(where: { $0.name != row.name && $0.name.lowercased() == checked.lowercased() }) {
      throw .nameTaken(checked)
    }
    let old = row.name
    row.name = checked
    try await save(row, replacing: old)
  }

  /// Files the subscription `name` (any case) in `folder` (outermost first; `[]`: the top level).
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func moveSubscription(_ name: String, to folder: [String]) async throws(SubscriptionChangeError) {
    guard var row = Self.row(named: name, in: try await storedSubscriptions()) else { throw .notSubscribed(name) }
    row.folder = folder
    try await save(row, replacing: row.name)
  }

  /// Ends the subscription `name` (any case). Its articles stay cached (and readable offline) until deleted or
  /// evicted.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func unsubscribe(_ name: String) async throws(SubscriptionChangeError) {
    guard let row = Self.row(named: name, in: try await storedSubscriptions()) else { throw .notSubscribed(name) }
    do {
      _ = try await storage.deleteSubscription(named: row.name)
    } catch {
      throw .storage(error)
    }
  }

  /// Refreshes the subscriptions of `folder` and the folders below it (`nil`: all of them) as
  /// ``refresh(_:options:progress:)`` refreshes a list.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)`` when the list cannot be read; a source's failure is its
  ///   result's, never thrown. A subscription whose feed moved permanently (``SourceRefresh/movedPermanently``) is
  ///   moved to its new address.
  public func refreshSubscriptions(
    inFolder folder: [String]? = nil, options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SourceRefresh) -> Void = { _ in }
  ) async throws(NewsRepositoryError) -> RefreshReport {
    let sources = try await subscriptions().filter { folder.map($0.isFiled(under:)) ?? true }
    let report = await refresh(sources, options: options, progress: progress)
    // A feed that moved permanently is subscribed at its new address from now on (RFC 9110 §15.4.2: a client
    // "ought to" re-link), unless that address is another subscription's.
    for result in report.sources {
      guard let moved = result.movedPermanently,
        let rows = try? await storage.subscriptions(),
        var row = Self.row(named: result.source, in: rows),
        !rows.contains(where: { $0.name != row.name && Self.sameSubscription($0.url, moved) })
      else { continue }
      row.url = moved.absoluteString
      try? await storage.saveSubscription(row, replacing: row.name, at: clock())
    }
    return report
  }

  private static func sameSubscription(_ stored: String, _ url: URL) -> Bool {
    URL(string: stored).map { CanonicalURL.canonical($0).absoluteString } == CanonicalURL.canonical(url).absoluteString
  }

  /// The articles of the subscriptions in `folder` and the folders below it (`[]`: every subscription), as
  /// ``ArticleFilter`` takes them (with ``ArticleFilter/unreadOnly`` and the other conditions as given).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func filter(inFolder folder: [String], _ base: ArticleFilter = .all) async throws(NewsRepositoryError)
    -> ArticleFilter
  {
    var filter = base
    filter.anyOfSources = try await subscriptions().filter { $0.isFiled(under: folder) }.map(\.match)
    return filter
  }

  /// Cached and unread articles of the subscriptions in `folder` and below it.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func counts(inFolder folder: [String]) async throws(NewsRepositoryError) -> ArticleCounts {
    try await counts(matching: try await filter(inFolder: folder))
  }

  /// Marks the articles of the subscriptions in `folder` and below it read (or unread).
  ///
  /// - Returns: how many articles changed.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func markRead(_ read: Bool = true, inFolder folder: [String]) async throws(NewsRepositoryError) -> Int {
    try await markRead(read, matching: try await filter(inFolder: folder))
  }

  /// Subscribes to every feed of an OPML subscription list (OPML 2.0, `outline` elements with `xmlUrl`), each in
  /// its folder below `folder`, named by its title (made unique with ` (2)`, ` (3)`, … when taken). Feeds subscribed
  /// already (by an equivalent URL) are skipped.
  ///
  /// - Returns: the sources added, in document order.
  /// - Throws: ``OPMLError`` as ``OPML/read(_:url:)`` throws it for a document that is not OPML;
  ///   ``SubscriptionChangeError/storage(_:)``.
  public func importOPML(_ data: Data, url: URL, into folder: [String] = []) async throws -> [NewsSource] {
    let document = try OPML.read(data, url: url)
    var added: [NewsSource] = []
    for entry in document.subscriptions {
      let existing = try await storedSubscriptions()
      let key = CanonicalURL.canonical(entry.feedURL).absoluteString
      if existing.contains(where: { URL(string: $0.url).map { CanonicalURL.canonical($0).absoluteString } == key }) {
        continue
      }
      let base = (try? Self.checkedName(entry.title)) ?? (entry.feedURL.host ?? "feed")
      var name = base
      var counter = 2
      while existing.contains(where: { $0.name.lowercased() == name.lowercased() }) {
        name = "\(base) (\(counter))"
        counter += 1
      }
      let source = NewsSource(
        name: name, url: entry.feedURL, title: entry.title == name ? nil : entry.title, folder: folder + entry.folder,
        homePage: entry.homePageURL)
      try await subscribe(source)
      added.append(source)
    }
    return added
  }

  /// The feed subscriptions as an OPML 2.0 subscription list, with their folders as enclosing outlines (files and
  /// NewsAPI queries are not feeds a reader could follow, and are left out).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func exportOPML(title: String? = nil) async throws(NewsRepositoryError) -> Data {
    let feeds = try await subscriptions().filter { $0.kindName == "feed" }.map {
      OPMLSubscription(title: $0.title ?? $0.name, feedURL: $0.url, homePageURL: $0.homePage, folder: $0.folder)
    }
    return OPML.write(feeds, title: title)
  }

  private func storedSubscriptions() async throws(SubscriptionChangeError) -> [StoredSubscription] {
    do {
      return try await storage.subscriptions()
    } catch {
      throw .storage(error)
    }
  }

  private func save(_ row: StoredSubscription, replacing old: String) async throws(SubscriptionChangeError) {
    do {
      try await storage.saveSubscription(row, replacing: old, at: clock())
    } catch {
      throw .storage(error)
    }
  }

  private static func row(named name: String, in rows: [StoredSubscription]) -> StoredSubscription? {
    rows.first { $0.name == name } ?? rows.first { $0.name.lowercased() == name.lowercased() }
  }

  /// A name on one line: runs of white space (control characters included) become one space, trimmed.
  private static func checkedName(_ name: String) throws(SubscriptionChangeError) -> String {
    let words = name.split { character in
      character.isWhitespace || character.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }
    }
    guard !words.isEmpty else { throw .invalidName(name) }
    return words.joined(separator: " ")
  }

  private static func stored(_ source: NewsSource) -> StoredSubscription {
    StoredSubscription(
      name: source.name, url: source.url.absoluteString,
      title: source.title, folder: source.folder, homePage: source.homePage?.absoluteString,
      policy: source.policy?.rawValue, maxAge: source.maxAge, fullText: source.fullText)
  }

  private static func source(_ row: StoredSubscription) -> NewsSource? {
    guard let url = URL(string: row.url) else { return nil }
    return NewsSource(
      name: row.name, url: url, title: row.title, folder: row.folder, homePage: row.homePage.flatMap(URL.init(string:)),
      policy: row.policy.flatMap(CachePolicy.init(rawValue:)), maxAge: row.maxAge, fullText: row.fullText)
  }
}
