import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// A source as the sync APIs serve it: a Miniflux *feed*, a Reader *subscription* (`feed/` + its URL).
struct ServedFeed: Sendable {
  /// The source.
  var source: NewsSource
  /// Its Miniflux feed id: ``ServedIdentifiers/feedID(forSourceNamed:)`` of its identity (``SourceIdentities``: the
  /// name it was first recorded under), so that a rename keeps it.
  let id: Int64
  /// The category (folder) it is filed in.
  let category: ServedCategory
  /// What selects its articles (``ArticleSelection/sources``): the source's ``NewsSource/match``, computed once
  /// with the catalog (its query's cache key parses the feed's URL).
  let match: SourceMatch
  /// The feed's URL (a Parse source: its server's) as people are shown it: ``NewsQuery/shown(_:)-(URL)``, no
  /// password (the request keeps it).
  let feedURL: String
  /// The site's home page, else the feed's URL.
  let siteURL: String
  /// The Reader API's stream id: `feed/` and the feed's URL, as FreshRSS writes them.
  let streamID: String
  /// Its Miniflux document without its health (``MinifluxJSON/feed(_:health:)``), as each of its entries holds it:
  /// written once with the catalog.
  let minifluxFeed: MinifluxJSON.Feed

  /// The feed of `source`, filed in `category`, numbered by its identity (`identities`: the store's).
  init(source: NewsSource, category: ServedCategory, identities: SourceIdentities) {
    self.source = source
    let id = ServedIdentifiers.feedID(forSourceNamed: identities.identity(ofSourceNamed: source.name))
    self.id = id
    self.category = category
    match = source.match
    let feedURL = NewsQuery.shown(source.url)
    let siteURL = source.homePage.map(NewsQuery.shown) ?? feedURL
    self.feedURL = feedURL
    self.siteURL = siteURL
    streamID = "feed/" + feedURL
    minifluxFeed = MinifluxJSON.feed(
      id: id, feedURL: feedURL, siteURL: siteURL, title: NewsQuery.shown(source.name), crawler: source.fullText,
      category: category,
      health: nil)
  }

  /// The title clients show: the subscription's name, which the user chose (`news add --name`) or which is the
  /// feed's own title by default — as NetNewsWire shows a renamed feed by its edited name. The feed's own title
  /// (``NewsSource/title``) stays in the OPML export.
  var title: String { NewsQuery.shown(source.name) }

  /// Whether `a` and `b` are served alike: what the catalog derives from a source (id, category, match, URLs, the
  /// Miniflux document) is the same for both.
  static func servedAlike(_ a: NewsSource, _ b: NewsSource) -> Bool {
    guard a.name == b.name, a.folder == b.folder, a.fullText == b.fullText, a.url == b.url, a.homePage == b.homePage
    else { return false }
    switch (a.kind, b.kind) {
    case (.articles, .articles), (.parse, .parse): return true
    default: return false
    }
  }
}

/// A folder as the sync APIs serve it: a Miniflux *category*, a Reader *label*.
struct ServedCategory: Sendable, Hashable {
  /// The folder path; `[]` is the top level, Miniflux's "All".
  var path: [String]
  /// Its Miniflux category id (``ServedIdentifiers/categoryID(forFolder:)``).
  var id: Int64

  /// - Parameter path: the folder path.
  init(path: [String]) {
    self.path = path
    id = ServedIdentifiers.categoryID(forFolder: path)
  }

  /// The Miniflux title: the path joined with `" / "` (a nested folder is its own category), `All` at the top.
  var title: String { path.isEmpty ? "All" : path.joined(separator: " / ") }
  /// The Reader label: the path joined with `/` (``ServedIdentifiers``).
  var label: String { path.isEmpty ? "All" : path.joined(separator: "/") }
  /// The Reader stream id `user/-/label/` + ``label``.
  var streamID: String { "user/-/label/" + label }
}

/// The sources served at one moment, with the ids of the sync APIs: made for each request from
/// ``ServedLibrary/servedSources()`` and the list's kept folders, by ``current(_:)``, which reuses the last request's
/// while they are alike.
struct ServedCatalog: Sendable {
  /// Every source, sorted by name.
  private(set) var feeds: [ServedFeed]
  /// Every folder that holds a source directly or that the list keeps (``SubscriptionList/keptFolders()``: made
  /// through an API), "All" first, then by title.
  let categories: [ServedCategory]
  /// The folders kept without a source it was made with.
  let keptFolders: [[String]]
  /// The source identities its feeds are numbered by.
  let identities: SourceIdentities
  /// The position in ``feeds`` of the first feed of each source name, and of the first whose match holds each cache
  /// key (``feeds(of:in:)``).
  private let feedByName: [String: Int]
  private let feedByQuery: [String: Int]

  /// The catalog of `sources`, with the empty folders `folders` too, each feed numbered by its identity
  /// (`identities`: the store's; none given, each source is its own).
  init(sources: [NewsSource], folders: [[String]] = [], identities: SourceIdentities = SourceIdentities([:])) {
    feeds = sources.map {
      ServedFeed(
        source: $0, category: ServedCategory(path: Self.servedFolder($0.folder)), identities: identities)
    }
    var seen = Set<[String]>()
    var categories: [ServedCategory] = [ServedCategory(path: [])]
    seen.insert([])
    let made = folders.filter { !$0.isEmpty }.map(ServedCategory.init(path:))
    for category in (feeds.map(\.category) + made).sorted(by: { $0.title < $1.title })
    where seen.insert(category.path).inserted {
      categories.append(category)
    }
    self.categories = categories
    keptFolders = folders
    self.identities = identities
    var byName: [String: Int] = [:]
    var byQuery: [String: Int] = [:]
    for (index, feed) in feeds.enumerated() {
      if byName[feed.source.name] == nil { byName[feed.source.name] = index }
      for query in feed.match.queries where byQuery[query] == nil { byQuery[query] = index }
    }
    feedByName = byName
    feedByQuery = byQuery
  }

  /// This catalog for `sources` and `folders` when they are served alike (``ServedFeed/servedAlike(_:_:)``, in the
  /// same order) and numbered by the same `identities`: its feeds holding `sources`' values; else `nil`.
  func reused(for sources: [NewsSource], folders: [[String]], identities: SourceIdentities) -> ServedCatalog? {
    guard sources.count == feeds.count, folders == keptFolders, identities == self.identities,
      zip(feeds, sources).allSatisfy({ ServedFeed.servedAlike($0.source, $1) })
    else { return nil }
    var catalog = self
    for index in catalog.feeds.indices { catalog.feeds[index].source = sources[index] }
    return catalog
  }

  /// The category a source filed in `folder` is served in: the folder, but for a folder named `All` (any case) at the
  /// top, which is the top level itself. Miniflux's own export files the feeds of its default category, "All", in
  /// an outline titled `All`, and Miniflux's "All" is the top level here: importing that list (`POST /v1/import`,
  /// `news import`) must not make a second "All".
  static func servedFolder(_ folder: [String]) -> [String] {
    folder.count == 1 && folder[0].lowercased() == "all" ? [] : folder
  }

  /// The catalog of the library's sources now, with the folders its list keeps: the last one made for the library
  /// when they are served alike (``reused(for:folders:identities:)``), so that a request does not parse every feed's URL
  /// again.
  /// The store's source identities are read every time (a small table, most often empty): a rename made outside
  /// this server (a configuration file edited by hand) reaches the store at a later refresh, after the names changed.
  ///
  /// - Throws: what ``ServedLibrary/sources`` throws; the list's failure to read its folders; the store's to read
  ///   its identities.
  static func current(_ library: ServedLibrary) async throws -> ServedCatalog {
    let sources = try await library.servedSources()
    let folders = try await library.subscriptions.keptFolders()
    let identities = try await library.repository.sourceIdentities()
    if let reused = library.memo.catalog?.reused(for: sources, folders: folders, identities: identities) {
      return reused
    }
    let catalog = ServedCatalog(sources: sources, folders: folders, identities: identities)
    library.memo.catalog = catalog
    return catalog
  }

  /// Whether `id` is `full` or `full`'s low 32 bits read as a signed integer: how a client that keeps ids in C
  /// `int`s (newsboat reads Miniflux ids so) writes them back.
  static func matches(_ id: Int64, _ full: Int64) -> Bool {
    id == full || id == Int64(Int32(truncatingIfNeeded: full))
  }

  /// The feed of the source named `name` (as the list holds it).
  func feed(named name: String) -> ServedFeed? { feedByName[name].map { feeds[$0] } }

  /// The feed of Miniflux id `id` (or its 32-bit truncation).
  func feed(id: Int64) -> ServedFeed? { feeds.first { $0.id == id } ?? feeds.first { Self.matches(id, $0.id) } }

  /// The category of Miniflux id `id` (or its 32-bit truncation).
  func category(id: Int64) -> ServedCategory? {
    categories.first { $0.id == id } ?? categories.first { Self.matches(id, $0.id) }
  }

  /// The feed of Reader stream id `streamID` (`feed/` + its URL, or `feed/` + its Miniflux id as some clients
  /// write it).
  func feed(streamID: String) -> ServedFeed? {
    guard streamID.hasPrefix("feed/") else { return nil }
    let rest = String(streamID.dropFirst(5))
    if let feed = feeds.first(where: { $0.feedURL == rest }) { return feed }
    let canonical = URL(string: rest).map { CanonicalURL.canonical($0).absoluteString }
    if let feed = feeds.first(where: { CanonicalURL.canonical($0.source.url).absoluteString == canonical }) {
      return feed
    }
    return Int64(rest).flatMap(feed(id:))
  }

  /// The category of Reader label `label` (the path joined with `/`), compared without regard to case.
  func category(label: String) -> ServedCategory? {
    categories.first { $0.label == label } ?? categories.first { $0.label.lowercased() == label.lowercased() }
  }

  /// The feeds filed directly in `category`.
  func feeds(in category: ServedCategory) -> [ServedFeed] { feeds.filter { $0.category == category } }

  /// Which feed each article is served under: the source it is recorded under when that is served, else the first
  /// served source whose last results hold it (one query for all of them); articles of no served source are absent.
  ///
  /// - Throws: ``NewsRepositoryError``.
  func feeds(of articles: [Article], in repository: NewsRepository) async throws -> [String: ServedFeed] {
    var result: [String: ServedFeed] = [:]
    var unplaced: [String] = []
    for article in articles {
      let key = article.url.absoluteString
      if let source = article.source, let index = feedByName[source] {
        result[key] = feeds[index]
      } else {
        unplaced.append(key)
      }
    }
    guard !unplaced.isEmpty else { return result }
    for (key, queries) in try await repository.resultQueries(ofArticleKeys: unplaced) {
      if let index = queries.sorted().lazy.compactMap({ feedByQuery[$0] }).first { result[key] = feeds[index] }
    }
    return result
  }

  /// The selection of every served article (``ArticleSelection/sources``), checked in date order (most of the
  /// store is served).
  var everything: ArticleSelection {
    ArticleSelection(sources: feeds.map(\.match), sourceLookup: .scan)
  }

  /// The selection of `feeds`' articles: through the indexes when they are a few of the sources served, else
  /// checked in date order.
  func selection(of some: [ServedFeed]) -> ArticleSelection {
    ArticleSelection(
      sources: some.map(\.match), sourceLookup: some.count * 4 <= max(1, feeds.count) ? .index : .scan)
  }
}
