import Foundation
import OfflineNewsFeeds
import OfflineNewsModel

/// Where an app keeps the sources it follows. The library keeps two: the store itself (``StoredSubscriptions``,
/// table `subscription`) and a hand-edited JSON file such as the `news` configuration (``SubscriptionFile``, edited
/// keeping its layout). An app may keep its own by implementing the primitives below; the rules of
/// subscribing — names unique without regard to case, equivalent URLs one subscription, OPML in and out, folders —
/// are written once, in this protocol's extension, for every list.
///
/// For example:
/// ```swift
/// let list = SubscriptionFile(path: configPath)               // or repository.storedSubscriptions
/// let changes = try await list.subscribe([NewsSource(name: "ATP", url: atpFeed, folder: ["Podcasts"])])
/// let report = try await repository.refreshSubscriptions(of: list)
/// try await repository.markRead(inFolder: ["Podcasts"], of: list)
/// ```
///
/// The primitives take names exactly as the list has them (the extension resolves a typed name first).
public protocol SubscriptionList: Sendable {
  /// Every subscription, in the list's order.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  func sources() async throws(SubscriptionChangeError) -> [NewsSource]
  /// Every subscription's name and URL, in the list's order: what subscribing checks new sources against
  /// (``planSubscribing(_:exactName:)``). By default from ``sources()``; a list that must load more to make a source
  /// (``SubscriptionFile``: a Parse source's mapping) answers without it, so that one source it cannot load does not
  /// stop others from being added.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  func subscribed() async throws(SubscriptionChangeError) -> [(name: String, url: URL)]
  /// Adds `sources` at the end of the list, in one write. Their names and URLs are new (``subscribe(_:exactName:)``
  /// checks).
  func append(_ sources: [NewsSource]) async throws(SubscriptionChangeError)
  /// Removes the subscription named `name`.
  func remove(_ name: String) async throws(SubscriptionChangeError)
  /// Renames the subscription `name` to `newName` (new in the list).
  func rename(_ name: String, to newName: String) async throws(SubscriptionChangeError)
  /// Files the subscription `name` in `folder` (outermost first; `[]`: the top level).
  func move(_ name: String, to folder: [String]) async throws(SubscriptionChangeError)
  /// Points the subscription `name` at `url` from now on: its feed moved permanently (HTTP 301 or 308; RFC 9110
  /// §15.4.2 says a client "ought to" re-link). A list may ignore it for kinds it cannot re-link.
  func relink(_ name: String, to url: URL) async throws(SubscriptionChangeError)
  /// The folders the list keeps whether or not a subscription is filed in them — made by a person before filing
  /// anything (Miniflux's `POST /v1/categories`) — each outermost first, in the order kept; kept until
  /// ``setFolderKept(_:kept:)`` stops it. (The folders of subscriptions need no keeping: ``folders()``.)
  func keptFolders() async throws(SubscriptionChangeError) -> [[String]]
  /// Keeps `folder` (outermost first; `[]`, the top level, is always there) among the list's folders, or stops
  /// keeping it (the subscriptions filed in it stay where they are).
  func setFolderKept(_ folder: [String], kept: Bool) async throws(SubscriptionChangeError)
}

/// What ``SubscriptionList/subscribe(_:exactName:)`` did.
public struct SubscriptionChanges: Sendable {
  /// The sources added, in the order given, with the names they got.
  public var added: [NewsSource] = []
  /// The sources asked for that were subscribed already (by an equivalent URL), with the name they have.
  public var existing: [(name: String, url: URL)] = []

  /// Changes that added `added` and found `existing` there already.
  public init(added: [NewsSource] = [], existing: [(name: String, url: URL)] = []) {
    self.added = added
    self.existing = existing
  }
}

extension SubscriptionList {
  /// Every subscription's name and URL, from ``sources()``.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  public func subscribed() async throws(SubscriptionChangeError) -> [(name: String, url: URL)] {
    try await sources().map { ($0.name, $0.url) }
  }

  /// The subscription named `name`: exactly, else the one name equal to it without regard to case; `nil` when there
  /// is none (or several differ from it only by case and none is exact).
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  public func source(named name: String) async throws(SubscriptionChangeError) -> NewsSource? {
    Self.named(name, in: try await sources())
  }

  /// The folders of the subscriptions and those the list keeps (``keptFolders()``), each path and every path above
  /// it (`["Tech"]` and `["Tech", "Swift"]`), sorted by their text (`SubscriptionFile.folderTree(_:)`).
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  public func folders() async throws(SubscriptionChangeError) -> [[String]] {
    SubscriptionFile.folderTree(try await sources().map(\.folder) + keptFolders())
  }

  /// Subscribes to `sources`, in one write. A source whose URL is subscribed already, by any equivalent spelling
  /// (``NewsSource/subscriptionKey``), is not added again but reported in ``SubscriptionChanges/existing``. A name
  /// is made one line (runs of white space and control characters become one space) and, when taken (compared
  /// without regard to case), gets ` (2)`, ` (3)`, … — unless `exactName`, when a taken name is refused.
  ///
  /// - Throws: ``SubscriptionChangeError``: `nameTaken` (with `exactName`), `invalidName` (with `exactName`, a name
  ///   with no letter; otherwise such a name becomes the URL's host), `unsupportedURL` (not http(s) nor a file;
  ///   nothing is subscribed), or the list's failure to read or write.
  @discardableResult
  public func subscribe(_ sources: [NewsSource], exactName: Bool = false) async throws(SubscriptionChangeError)
    -> SubscriptionChanges
  {
    let changes = try await planSubscribing(sources, exactName: exactName)
    if !changes.added.isEmpty { try await append(changes.added) }
    return changes
  }

  /// What ``subscribe(_:exactName:)`` would do, without doing it (a "dry run", a preview in an "Add" dialog).
  ///
  /// - Throws: as ``subscribe(_:exactName:)``.
  public func planSubscribing(_ sources: [NewsSource], exactName: Bool = false) async throws(SubscriptionChangeError)
    -> SubscriptionChanges
  {
    let current = try await subscribed()
    var names = Set(current.map { $0.name.lowercased() })
    var keys: [String: String] = [:]
    for source in current { keys[NewsSource.subscriptionKey(for: source.url)] = source.name }
    var changes = SubscriptionChanges()
    for var source in sources {
      guard source.url.isWebURL || source.url.isFileURL else { throw .unsupportedURL(source.url) }
      if let name = keys[source.subscriptionKey] {
        changes.existing.append((name, source.url))
        continue
      }
      let base: String
      if exactName {
        base = try Self.checkedName(source.name)
        guard !names.contains(base.lowercased()) else { throw .nameTaken(base) }
      } else {
        base = (try? Self.checkedName(source.name)) ?? source.url.host ?? "feed"
      }
      let name = NewsSource.unusedName(base, among: names)
      source.name = name
      names.insert(name.lowercased())
      keys[source.subscriptionKey] = name
      changes.added.append(source)
    }
    return changes
  }

  /// Ends the subscription `name` (any case). Its articles stay cached until deleted or evicted.
  ///
  /// - Returns: the name as the list had it.
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, or the list's failure.
  @discardableResult
  public func unsubscribe(_ name: String) async throws(SubscriptionChangeError) -> String {
    guard let source = try await source(named: name) else { throw .notSubscribed(name) }
    try await remove(source.name)
    return source.name
  }

  /// Renames the subscription `name` (any case) to `newName`. (``NewsRepository/renameSubscription(_:to:in:)``
  /// also moves its cached articles to the new name.)
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `nameTaken`, `invalidName`, or the list's failure.
  public func renameSubscription(_ name: String, to newName: String) async throws(SubscriptionChangeError) {
    let checked = try Self.checkedName(newName)
    let all = try await sources()
    guard let source = Self.named(name, in: all) else { throw .notSubscribed(name) }
    if all.contains(where: { $0.name != source.name && $0.name.lowercased() == checked.lowercased() }) {
      throw .nameTaken(checked)
    }
    try await rename(source.name, to: checked)
  }

  /// Files the subscription `name` (any case) in `folder` (outermost first; `[]`: the top level).
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, or the list's failure.
  public func moveSubscription(_ name: String, to folder: [String]) async throws(SubscriptionChangeError) {
    guard let source = try await source(named: name) else { throw .notSubscribed(name) }
    try await move(source.name, to: folder)
  }

  /// Points the subscription `name` (any case) at `url` from now on, as a person edits a feed's address (Miniflux's
  /// `PUT /v1/feeds/{id}` with `feed_url`), by the rules of subscribing: `url` must be http(s) or a file, and no
  /// other subscription of the list may have it, by any equivalent spelling (``NewsSource/subscriptionKey``). A
  /// list that cannot re-link the source's kind leaves it (``relink(_:to:)``).
  ///
  /// - Throws: ``SubscriptionChangeError``: `notSubscribed`, `unsupportedURL`, `alreadySubscribed` (naming the
  ///   other subscription), or the list's failure.
  public func relinkSubscription(_ name: String, to url: URL) async throws(SubscriptionChangeError) {
    guard url.isWebURL || url.isFileURL else { throw .unsupportedURL(url) }
    guard let source = try await source(named: name) else { throw .notSubscribed(name) }
    let key = NewsSource.subscriptionKey(for: url)
    if let other = try await subscribed().first(where: {
      $0.name != source.name && NewsSource.subscriptionKey(for: $0.url) == key
    }) {
      throw .alreadySubscribed(other.url, name: other.name)
    }
    try await relink(source.name, to: url)
  }

  /// Subscribes to every feed of an OPML subscription list (OPML 2.0, `outline` elements with `xmlUrl`), each in its
  /// folder below `folder`, named by its title (made unique as ``subscribe(_:exactName:)`` does), in one write.
  ///
  /// - Returns: what was added and what was subscribed already.
  /// - Throws: ``SubscriptionChangeError``: `invalidList` for a document that is not OPML or is cut off
  ///   (``OPML/read(_:url:)``; nothing is subscribed then), else the list's failure.
  @discardableResult
  public func importOPML(_ data: Data, url: URL, into folder: [String] = []) async throws(SubscriptionChangeError)
    -> SubscriptionChanges
  {
    let document: OPMLDocument
    do {
      document = try OPML.read(data, url: url)
    } catch {
      throw .invalidList(error)
    }
    return try await importOPML(document, into: folder)
  }

  /// Subscribes to every feed of a read OPML document, as ``importOPML(_:url:into:)`` does.
  ///
  /// - Throws: ``SubscriptionChangeError``.
  @discardableResult
  public func importOPML(_ document: OPMLDocument, into folder: [String] = []) async throws(SubscriptionChangeError)
    -> SubscriptionChanges
  {
    try await subscribe(
      document.subscriptions.map {
        NewsSource(name: $0.title, url: $0.feedURL, folder: folder + $0.folder, homePage: $0.homePageURL)
      })
  }

  /// The feed subscriptions as an OPML 2.0 subscription list, in the list's order, with their folders as enclosing
  /// outlines (`text`/`title` the source's name: what the person sees in their list). Files, NewsAPI queries and Parse sources are not
  /// feeds another reader could follow, and are left out.
  ///
  /// - Throws: ``SubscriptionChangeError`` when the list cannot be read.
  public func exportOPML(title: String? = nil) async throws(SubscriptionChangeError) -> Data {
    NewsSource.opmlDocument(of: try await sources(), title: title)
  }

  /// The source of `sources` named `name`: exact first, then the only one equal without regard to case.
  static func named(_ name: String, in sources: [NewsSource]) -> NewsSource? {
    if let exact = sources.first(where: { $0.name == name }) { return exact }
    let folded = sources.filter { $0.name.compare(name, options: [.caseInsensitive]) == .orderedSame }
    return folded.count == 1 ? folded.first : nil
  }

  /// A name on one line: runs of white space (control characters included) become one space, trimmed.
  ///
  /// - Throws: ``SubscriptionChangeError/invalidName(_:)`` when nothing is left.
  static func checkedName(_ name: String) throws(SubscriptionChangeError) -> String {
    let words = name.split { character in
      character.isWhitespace || character.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }
    }
    guard !words.isEmpty else { throw .invalidName(name) }
    return words.joined(separator: " ")
  }
}

extension NewsSource {
  /// Whether it is a feed another reader could follow: an http(s) URL that is not a NewsAPI query.
  public var isFeed: Bool {
    guard case .articles(let url) = kind, url.isWebURL else { return false }
    return !NewsSource.isNewsAPI(url)
  }

  /// Whether `url` is a NewsAPI v2 endpoint (``NewsQuery/asksNewsAPI``).
  static func isNewsAPI(_ url: URL) -> Bool { NewsQuery(url: url).asksNewsAPI }

  /// The feeds among `sources` (``isFeed``), in their order, as an OPML 2.0 subscription list with their folders as
  /// enclosing outlines (`text`/`title` the source's name, `xmlUrl`, `htmlUrl` its home page): the one OPML writer of
  /// subscriptions, whichever lists they come from (``SubscriptionList/exportOPML(title:)``,
  /// ``NewsRepository/exportOPML(besides:title:)``).
  public static func opmlDocument(of sources: [NewsSource], title: String? = nil) -> Data {
    OPML.write(sources.filter(\.isFeed).map(\.opmlSubscription), title: title)
  }

  /// Its entry in an OPML list: its name, feed URL, home page and folder.
  var opmlSubscription: OPMLSubscription {
    OPMLSubscription(title: name, feedURL: url, homePageURL: homePage, folder: folder)
  }
}
