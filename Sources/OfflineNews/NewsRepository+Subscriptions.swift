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
  /// A URL that is neither http(s) nor a file: nothing the library can read a feed from (RFC 3986 §3.1 scheme).
  case unsupportedURL(URL)
  /// The store failed.
  case storage(StorageError)
  /// The subscription file cannot be read or written (``SubscriptionFile``).
  case file(SubscriptionFileError)
  /// A subscription list to import is not OPML, or is cut off (``OPML/read(_:url:)``): nothing of it was subscribed.
  case invalidList(OPMLError)

  /// What was refused, for a person.
  public var description: String {
    switch self {
    case .nameTaken(let name): "a source named \"\(name)\" exists already"
    case .alreadySubscribed(let url, let name): "\(NewsQuery.shown(url)) is subscribed already, as \"\(name)\""
    case .notSubscribed(let name): "no subscription is named \"\(name)\""
    case .unsupportedKind(let name): "\"\(name)\" is a Parse source: the store keeps feed, file and NewsAPI sources"
    case .invalidName(let name): "\"\(name)\" is not a name: give one with a letter or digit"
    case .unsupportedURL(let url): "\(NewsQuery.shown(url)) is not an http(s) or file URL: no feed can be read from it"
    case .storage(let error): error.description
    case .file(let error): error.description
    case .invalidList(let error): error.description
    }
  }
}

/// The subscription list kept in the store itself (table `subscription`): what an app that keeps no list of its own
/// subscribes to, renames, files in folders, refreshes, counts and marks read. Each subscription is a
/// ``NewsSource`` of kind ``NewsSource/Kind/articles(_:)``; its articles are selected by ``NewsSource/match``.
/// Renaming moves the articles recorded under the old name in the same transaction.
///
/// For example:
/// ```swift
/// let list = repository.storedSubscriptions
/// try await list.subscribe([NewsSource(name: "ATP", url: atpFeed, folder: ["Podcasts"])])
/// let report = try await repository.refreshSubscriptions(of: list, options: RefreshOptions(transport: transport))
/// let podcasts = try await repository.counts(inFolder: ["Podcasts"], of: list)  // ArticleCounts(total:unread:)
/// try await repository.markRead(inFolder: ["Podcasts"], of: list)
/// ```
public struct StoredSubscriptions: SubscriptionList {
  /// The repository whose store keeps the list.
  public let repository: NewsRepository

  /// The list kept in `repository`'s store.
  public init(repository: NewsRepository) { self.repository = repository }

  /// The subscriptions, in the order they were made.
  ///
  /// - Throws: ``SubscriptionChangeError/storage(_:)``.
  public func sources() async throws(SubscriptionChangeError) -> [NewsSource] {
    try await rows().compactMap(Self.source)
  }

  /// Adds `sources` at the end of the list.
  ///
  /// - Throws: ``SubscriptionChangeError``: `unsupportedKind` (a Parse source, whose mapping and secrets the app
  ///   keeps), `alreadySubscribed` or `nameTaken` (the store's unique constraints), `storage`.
  public func append(_ sources: [NewsSource]) async throws(SubscriptionChangeError) {
    for source in sources { guard case .articles = source.kind else { throw .unsupportedKind(source.name) } }
    do {
      try await repository.storage.saveSubscriptions(sources.map(Self.stored), at: repository.clock())
    } catch {
      throw .storage(error)
    }
  }

  /// Removes the subscription `name`; its articles stay cached.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func remove(_ name: String) async throws(SubscriptionChangeError) {
    let removed: Bool
    do {
      removed = try await repository.storage.deleteSubscription(named: name)
    } catch {
      throw .storage(error)
    }
    if !removed { throw .notSubscribed(name) }
  }

  /// Renames the subscription `name`; the articles recorded under it follow, in the same transaction.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func rename(_ name: String, to newName: String) async throws(SubscriptionChangeError) {
    try await update(name) { $0.name = newName }
  }

  /// Files the subscription `name` in `folder`.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func move(_ name: String, to folder: [String]) async throws(SubscriptionChangeError) {
    try await update(name) { $0.folder = folder }
  }

  /// Points the subscription `name` at `url`, unless that address is another subscription's.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func relink(_ name: String, to url: URL) async throws(SubscriptionChangeError) {
    let key = NewsSource.subscriptionKey(for: url)
    let all = try await rows()
    if all.contains(where: { $0.name != name && URL(string: $0.url).map(NewsSource.subscriptionKey(for:)) == key }) {
      return
    }
    try await update(name) { $0.url = url.absoluteString }
  }

  /// The folders kept in the store (table `subscription_folder`, schema 19) while no subscription is filed in them.
  ///
  /// - Throws: ``SubscriptionChangeError/storage(_:)``.
  public func keptFolders() async throws(SubscriptionChangeError) -> [[String]] {
    do {
      return try await repository.storage.keptSubscriptionFolders()
    } catch {
      throw .storage(error)
    }
  }

  /// Keeps `folder` in the store, or stops keeping it.
  ///
  /// - Throws: ``SubscriptionChangeError/storage(_:)``.
  public func setFolderKept(_ folder: [String], kept: Bool) async throws(SubscriptionChangeError) {
    do {
      try await repository.storage.setSubscriptionFolder(folder, kept: kept, at: repository.clock())
    } catch {
      throw .storage(error)
    }
  }

  private func rows() async throws(SubscriptionChangeError) -> [StoredSubscription] {
    do {
      return try await repository.storage.subscriptions()
    } catch {
      throw .storage(error)
    }
  }

  private func update(_ name: String, _ change: (inout StoredSubscription) -> Void)
    async throws(SubscriptionChangeError)
  {
    guard var row = try await rows().first(where: { $0.name == name }) else { throw .notSubscribed(name) }
    change(&row)
    do {
      try await repository.storage.saveSubscription(row, replacing: name, at: repository.clock())
    } catch {
      throw .storage(error)
    }
  }

  static func stored(_ source: NewsSource) -> StoredSubscription {
    StoredSubscription(
      name: source.name, url: source.url.absoluteString,
      title: source.title, folder: source.folder, homePage: source.homePage?.absoluteString,
      policy: source.policy?.rawValue, maxAge: source.maxAge, fullText: source.fullText)
  }

  static func source(_ row: StoredSubscription) -> NewsSource? {
    guard let url = URL(string: row.url) else { return nil }
    return NewsSource(
      name: row.name, url: url, title: row.title, folder: row.folder, homePage: row.homePage.flatMap(URL.init(string:)),
      policy: row.policy.flatMap(CachePolicy.init(rawValue:)), maxAge: row.maxAge, fullText: row.fullText)
  }
}

extension NewsRepository {
  /// The subscription list kept in this repository's store (``StoredSubscriptions``).
  public var storedSubscriptions: StoredSubscriptions { StoredSubscriptions(repository: self) }

  /// The subscriptions of the store, in the order they were made (``StoredSubscriptions/sources()``).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscriptions() async throws(NewsRepositoryError) -> [NewsSource] {
    try await storing { try await storage.subscriptions() }.compactMap(StoredSubscriptions.source)
  }

  /// The store's subscription named `name`, compared without regard to case (an exact match first), or `nil`.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscription(named name: String) async throws(NewsRepositoryError) -> NewsSource? {
    StoredSubscriptions.named(name, in: try await subscriptions())
  }

  /// The folders of the store's subscriptions (``SubscriptionList/folders()``).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func subscriptionFolders() async throws(NewsRepositoryError) -> [[String]] {
    do {
      return try await storedSubscriptions.folders()
    } catch {
      throw repositoryError(error)
    }
  }

  /// Subscribes the store to `source`, exactly as named: it is added at the end of the list. Nothing is fetched
  /// (``refreshSubscriptions(inFolder:options:progress:)`` does that).
  ///
  /// - Throws: ``SubscriptionChangeError``: `nameTaken`, `alreadySubscribed` (an equivalent URL), `invalidName`,
  ///   `unsupportedURL` (neither http(s) nor a file), `unsupportedKind` (a Parse source), `storage`.
  public func subscribe(_ source: NewsSource) async throws(SubscriptionChangeError) {
    let changes = try await storedSubscriptions.subscribe([source], exactName: true)
    if let existing = changes.existing.first { throw .alreadySubscribed(existing.url, name: existing.name) }
  }

  /// Renames the store's subscription `name` (any case) to `newName`; its cached articles follow it.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `nameTaken`, `invalidName`, `storage`.
  public func renameSubscription(_ name: String, to newName: String) async throws(SubscriptionChangeError) {
    try await storedSubscriptions.renameSubscription(name, to: newName)
  }

  /// Renames the subscription `name` (any case) of `list` to `newName`, and moves the articles recorded under the
  /// old name to the new one, so that the source keeps its history.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `nameTaken`, `invalidName`, the list's, `storage`.
  public func renameSubscription(_ name: String, to newName: String, in list: some SubscriptionList)
    async throws(SubscriptionChangeError)
  {
    guard let old = try await list.source(named: name)?.name else { throw .notSubscribed(name) }
    try await list.renameSubscription(old, to: newName)
    guard let renamed = try await list.source(named: newName)?.name, renamed != old else { return }
    do {
      try await storage.renameArticleSource(from: old, to: renamed)
    } catch {
      throw .storage(error)
    }
  }

  /// Files the store's subscription `name` (any case) in `folder` (outermost first; `[]`: the top level).
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func moveSubscription(_ name: String, to folder: [String]) async throws(SubscriptionChangeError) {
    try await storedSubscriptions.moveSubscription(name, to: folder)
  }

  /// Ends the store's subscription `name` (any case). Its articles stay cached (and readable offline) until deleted
  /// or evicted.
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `storage`.
  public func unsubscribe(_ name: String) async throws(SubscriptionChangeError) {
    try await storedSubscriptions.unsubscribe(name)
  }

  /// Refreshes the store's subscriptions of `folder` and the folders below it (`nil`: all of them)
  /// (``refreshSubscriptions(of:inFolder:options:progress:)``).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)`` when the list cannot be read.
  public func refreshSubscriptions(
    inFolder folder: [String]? = nil, options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SourceRefresh) -> Void = { _ in }
  ) async throws(NewsRepositoryError) -> RefreshReport {
    do {
      return try await refreshSubscriptions(
        of: storedSubscriptions, inFolder: folder, options: options, progress: progress)
    } catch {
      throw repositoryError(error)
    }
  }

  /// Refreshes the subscriptions of `list` in `folder` and the folders below it (`nil`: all of them) as
  /// ``refresh(_:in:options:progress:)`` refreshes them.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read; a source's failure is its result's, never
  ///   thrown.
  public func refreshSubscriptions(
    of list: some SubscriptionList, inFolder folder: [String]? = nil, options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SourceRefresh) -> Void = { _ in }
  ) async throws(SubscriptionChangeError) -> RefreshReport {
    let sources = try await list.sources().filter { folder.map($0.isFiled(under:)) ?? true }
    return await refresh(sources, in: list, options: options, progress: progress)
  }

  /// Refreshes `sources` of `list` as ``refresh(_:options:progress:)`` does, then re-links in `list` each feed that
  /// moved permanently (``SourceRefresh/movedPermanently``; RFC 9110 §15.4.2: a client "ought to" re-link) to its
  /// new address, once ``RefreshOptions/relinkAfter`` answered refreshes in a row were redirected there
  /// (``SourceRefresh/permanentRedirects``); ``RefreshReport/relinked`` says which. A list that cannot be written
  /// keeps the old address (the next refresh follows the redirect again). A feed that moved onto the address of
  /// another subscription of `list` is not re-linked, at any count: ``RefreshReport/sameFeeds`` names the two at
  /// every refresh, with ``RefreshReport/SameFeed/isNew`` `true` only the first time (the store's fetch log
  /// remembers it was found, until the move or the other subscription changes), so that an app says it once.
  public func refresh(
    _ sources: [NewsSource], in list: some SubscriptionList, options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SourceRefresh) -> Void = { _ in }
  ) async -> RefreshReport {
    let adopted = await adoptArticles(of: sources, in: list)
    await readUntitledWhole(sources)
    var report = await refresh(sources, options: options, progress: progress)
    report.adopted = adopted
    var subscribed: [(name: String, url: URL)] = []
    if report.sources.contains(where: { $0.movedPermanently != nil }) {
      subscribed = (try? await list.subscribed()) ?? []
    }
    for result in report.sources {
      guard let moved = result.movedPermanently else { continue }
      let key = NewsSource.subscriptionKey(for: moved)
      if let other = subscribed.first(where: {
        $0.name != result.source && NewsSource.subscriptionKey(for: $0.url) == key
      }) {
        var same = RefreshReport.SameFeed(source: result.source, sameAs: other.name, url: moved)
        if let query = sources.first(where: { $0.name == result.source })?.query.cacheKey {
          // A store that cannot say (or keep) it: new, so that it is said rather than never.
          same.isNew = (try? await storage.noteSameFeed(forQuery: query, as: other.name)) ?? true
        }
        report.sameFeeds.append(same)
        continue
      }
      guard result.permanentRedirects >= max(1, options.relinkAfter) else { continue }
      do {
        try await list.relink(result.source, to: moved)
        if let now = try await list.source(named: result.source), now.url == moved {
          report.relinked.append(result)
        }
      } catch {
        report.relinkFailures.append((result.source, error))
      }
    }
    let renamed = Set(report.relinked.map(\.source))
    var titles: [String: String] = [:]
    for result in report.sources { if let title = result.feedTitle { titles[result.source] = title } }
    report.named = await nameUntitled(sources.filter { !renamed.contains($0.name) }, in: list, titles: titles)
    return report
  }

  /// Names each of `sources` that has no name of its own (``NewsSource/isUntitled``: named by its feed's URL, as an
  /// import names a feed its list gave no title — a newsboat `urls` line without `~TITLE`, an OPML outline without
  /// `text` or `title`) after its feed's own title as a refresh just read it in the feed's document (`titles`, by
  /// source name: ``SourceRefresh/feedTitle`` — RSS `channel/title`, Atom `feed/title`, JSON Feed `title`, runs of
  /// white space made one space), as newsboat shows such a feed: made unique in `list` with ` (2)`, …, its cached
  /// articles moved to the new name (``renameSubscription(_:to:in:)``). Not from its cached articles: an item two
  /// feeds share (a site's main and category feeds, its RSS and Atom) holds the publisher of the feed that saved it
  /// last. A name a person gave (anything but the feed's URL) is never changed, and a feed with no title in `titles`
  /// (not read, a blank title) keeps its URL until a refresh reads one (``readUntitledWhole(_:)`` makes that read
  /// unconditional, so that a `304` does not stand in its way).
  /// ``refresh(_:in:options:progress:)`` calls it for the sources it refreshes.
  ///
  /// - Returns: each rename, in the order of `sources`; a list or store that cannot be changed renames nothing (the
  ///   next call tries again).
  public func nameUntitled(_ sources: [NewsSource], in list: some SubscriptionList, titles: [String: String]) async
    -> [RefreshReport.Naming]
  {
    let untitled = sources.filter(\.isUntitled)
    guard !untitled.isEmpty, let current = try? await list.subscribed() else { return [] }
    var names = Set(current.map { $0.name.lowercased() })
    var named: [RefreshReport.Naming] = []
    for source in untitled {
      guard let words = titles[source.name]?.split(whereSeparator: { $0.isWhitespace || $0.isNewline }),
        !words.isEmpty
      else { continue }
      names.remove(source.name.lowercased())
      let name = NewsSource.unusedName(words.joined(separator: " "), among: names)
      do {
        try await renameSubscription(source.name, to: name, in: list)
        names.insert(name.lowercased())
        named.append(RefreshReport.Naming(from: source.name, to: name))
      } catch {
        names.insert(source.name.lowercased())
      }
    }
    return named
  }

  /// Makes the next read of each of `sources` that has no name of its own (``NewsSource/isUntitled``) unconditional:
  /// forgets its stored validators, so that the feed answers with its document, whose title
  /// ``nameUntitled(_:in:titles:)`` then names it after. A conditional read answered `304 Not Modified` gives no
  /// title, and a feed whose first read was saved but not named (read by its address before it was subscribed, a
  /// list that could not be written then, a run cut short) would keep its URL for as long as the feed did not
  /// change. Once named, its reads are conditional again. ``refresh(_:in:options:progress:)`` does it for the sources
  /// it refreshes; a store that cannot be written leaves them as they are (their reads stay conditional).
  public func readUntitledWhole(_ sources: [NewsSource]) async {
    let keys = sources.filter(\.isUntitled).map(\.query.cacheKey)
    try? await storage.forgetValidators(ofQueries: keys)
  }

  /// Gives each of `sources` the cached articles its feed saved under a name no subscription of `list` has any more
  /// — a subscription renamed outside the library (its file edited by hand), or removed and added again under
  /// another name — with their reading state and bookmarks, so that every front end finds them under it again. Call
  /// it before reading a source's feed: the read records the new name in the fetch log. A name another subscription
  /// of `list` still has is left alone. ``refresh(_:in:options:progress:)`` does it for every source it reads.
  ///
  /// - Returns: each move (``RefreshReport/Adoption``); none when the list or the store cannot be read (nothing
  ///   moved: a later call tries again).
  public func adoptArticles(of sources: [NewsSource], in list: some SubscriptionList) async -> [RefreshReport.Adoption]
  {
    guard !sources.isEmpty, let live = try? await list.sources() else { return [] }
    let owners = Dictionary(sources.map { ($0.query.cacheKey, $0.name) }, uniquingKeysWith: { first, _ in first })
    let moves = (try? await storage.adoptArticles(of: owners, live: Set(live.map(\.name)))) ?? []
    return moves.map { RefreshReport.Adoption(from: $0.from, to: $0.to, articles: $0.articles) }
  }

  /// The articles of `list`'s subscriptions in `folder` and the folders below it (`[]`: every subscription), as
  /// ``ArticleFilter`` takes them (with ``ArticleFilter/unreadOnly`` and the other conditions of `base`).
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  public func filter(inFolder folder: [String], of list: some SubscriptionList, _ base: ArticleFilter = .all)
    async throws(SubscriptionChangeError) -> ArticleFilter
  {
    var filter = base
    filter.anyOfSources = try await list.sources().filter { $0.isFiled(under: folder) }.map(\.match)
    return filter
  }

  /// The articles of the store's subscriptions in `folder` and below it (``filter(inFolder:of:_:)``).
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func filter(inFolder folder: [String], _ base: ArticleFilter = .all) async throws(NewsRepositoryError)
    -> ArticleFilter
  {
    do {
      return try await filter(inFolder: folder, of: storedSubscriptions, base)
    } catch {
      throw repositoryError(error)
    }
  }

  /// Cached and unread articles of `list`'s subscriptions in `folder` and below it.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read; ``SubscriptionChangeError/storage(_:)``.
  public func counts(inFolder folder: [String], of list: some SubscriptionList) async throws(SubscriptionChangeError)
    -> ArticleCounts
  {
    let filter = try await filter(inFolder: folder, of: list)
    do {
      return try await counts(matching: filter)
    } catch {
      throw changeError(error)
    }
  }

  /// Cached and unread articles of the store's subscriptions in `folder` and below it.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func counts(inFolder folder: [String]) async throws(NewsRepositoryError) -> ArticleCounts {
    try await counts(matching: try await filter(inFolder: folder))
  }

  /// Marks the articles of `list`'s subscriptions in `folder` and below it read (or unread).
  ///
  /// - Returns: how many articles changed.
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read; ``SubscriptionChangeError/storage(_:)``.
  @discardableResult
  public func markRead(_ read: Bool = true, inFolder folder: [String], of list: some SubscriptionList)
    async throws(SubscriptionChangeError) -> Int
  {
    let filter = try await filter(inFolder: folder, of: list)
    do {
      return try await markRead(read, matching: filter)
    } catch {
      throw changeError(error)
    }
  }

  /// Marks the articles of the store's subscriptions in `folder` and below it read (or unread).
  ///
  /// - Returns: how many articles changed.
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  @discardableResult
  public func markRead(_ read: Bool = true, inFolder folder: [String]) async throws(NewsRepositoryError) -> Int {
    try await markRead(read, matching: try await filter(inFolder: folder))
  }

  /// Subscribes the store to every feed of an OPML subscription list (``SubscriptionList/importOPML(_:url:into:)``).
  ///
  /// - Returns: the sources added, in document order.
  /// - Throws: ``SubscriptionChangeError``: `invalidList` for a document that is not OPML (or is cut off), else the
  ///   list's failure.
  public func importOPML(_ data: Data, url: URL, into folder: [String] = []) async throws(SubscriptionChangeError)
    -> [NewsSource]
  {
    try await storedSubscriptions.importOPML(data, url: url, into: folder).added
  }

  /// Every subscription the library knows, as one list: `listed` (an app's own list: the `news` configuration's
  /// sources), then the store's subscriptions whose names `listed` lacks (names compared without regard to case):
  /// those an older `news serve` kept in the store, or an app made through ``storedSubscriptions``. What
  /// `news serve` serves and refreshes, and what ``exportOPML(besides:title:)`` writes.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func everySubscription(besides listed: [NewsSource]) async throws(NewsRepositoryError) -> [NewsSource] {
    let names = Set(listed.map { $0.name.lowercased() })
    return listed + (try await subscriptions()).filter { !names.contains($0.name.lowercased()) }
  }

  /// The feed subscriptions the library knows — `listed`, then the store's (``everySubscription(besides:)``) — as
  /// an OPML 2.0 subscription list (``NewsSource/opmlDocument(of:title:)``); with no `listed`, the store's.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func exportOPML(besides listed: [NewsSource] = [], title: String? = nil) async throws(NewsRepositoryError)
    -> Data
  {
    NewsSource.opmlDocument(of: try await everySubscription(besides: listed), title: title)
  }

  /// The identity of every source the store has seen renamed (``SourceIdentities``, store schema 23): what keeps an
  /// id derived from a source's name, such as `news serve`'s feed ids, the same through renames, whichever list the
  /// source is in.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func sourceIdentities() async throws(NewsRepositoryError) -> SourceIdentities {
    do {
      return SourceIdentities(try await storage.sourceIdentities())
    } catch {
      throw .storage(error, network: nil)
    }
  }

  /// A failure of the store's list as the repository's: the store's error as it is; any other (which reading the
  /// store's list does not throw) as an invalid request naming it.
  func repositoryError(_ error: SubscriptionChangeError) -> NewsRepositoryError {
    if case .storage(let storageError) = error { return .storage(storageError, network: nil) }
    return .storage(StorageError(kind: .invalidRequest(error.description), path: storage.path), network: nil)
  }

  /// The repository's failure as a list's.
  func changeError(_ error: NewsRepositoryError) -> SubscriptionChangeError {
    if case .storage(let storageError, _) = error { return .storage(storageError) }
    return .storage(StorageError(kind: .invalidRequest("\(error)"), path: storage.path))
  }
}
