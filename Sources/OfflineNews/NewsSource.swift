import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync

/// One source of news an app follows — a subscription: a NewsAPI query, a feed (RSS 2.0, RSS 1.0, Atom, JSON Feed),
/// a feed or NewsAPI file, or a Parse Server's classes — with how it is read and where it is filed.
///
/// Every kind is refreshed by one call, ``NewsRepository/refresh(_:options:progress:)``, and its cached articles are
/// selected by ``match`` (``ArticleFilter/source`` and ``SourceMatch``). Where an app keeps its list of sources is
/// its choice: the `news` command line keeps it in its configuration file.
///
/// For example:
/// ```swift
/// let sources = [
///   NewsSource(name: "ATP", url: URL(string: "https://atp.fm/rss")!, folder: ["Podcasts"]),
///   NewsSource(name: "Swift", url: URL(string: "https://www.swift.org/atom.xml")!, folder: ["Tech", "Swift"],
///              fullText: true),
/// ]
/// let report = await repository.refresh(sources, options: RefreshOptions(transport: transport))
/// ```
public struct NewsSource: Sendable {
  /// What the source is read from.
  public enum Kind: Sendable {
    /// A URL the repository's network reads (``NewsNetwork``): a NewsAPI endpoint with its query items, a feed in
    /// any format the decoder reads, or a file (a `file:` URL).
    case articles(URL)
    /// A Parse Server's classes, synced incrementally (``ParseSource``).
    case parse(ParseSource)
  }

  /// The source's name, unique in its list: what its articles are recorded under (``Article/source``) and what a
  /// person types to select it (matched without regard to case by the command line).
  public var name: String
  /// Where it is read from.
  public var kind: Kind
  /// The feed's own title, when it differs from ``name``; `nil` when unknown.
  public var title: String?
  /// The folder path, outermost first (`["Tech", "Swift"]`); `[]`: at the top level.
  public var folder: [String]
  /// The site the source belongs to, when known.
  public var homePage: URL?
  /// How a refresh reads it (``CachePolicy``); `nil`: network-first. For a Parse source only
  /// ``CachePolicy/cacheFirst`` changes anything: the sync is skipped while its last complete sync is younger than
  /// ``maxAge``.
  public var policy: CachePolicy?
  /// Seconds its rows stay fresh (stored with the fetch); `nil`: the max-age stored with its last fetch, if any.
  public var maxAge: TimeInterval?
  /// After each refresh, fetch the pages of its articles for their whole text and images
  /// (``NewsRepository/fetchFullText(for:using:limits:)``).
  public var fullText: Bool

  /// A source read from `kind`; the other properties as documented, empty by default.
  public init(
    name: String, kind: Kind, title: String? = nil, folder: [String] = [], homePage: URL? = nil,
    policy: CachePolicy? = nil, maxAge: TimeInterval? = nil, fullText: Bool = false
  ) {
    self.name = name
    self.kind = kind
    self.title = title
    self.folder = folder
    self.homePage = homePage
    self.policy = policy
    self.maxAge = maxAge
    self.fullText = fullText
  }

  /// A source read from `url` (``Kind/articles(_:)``): a feed, a NewsAPI query or a file.
  public init(
    name: String, url: URL, title: String? = nil, folder: [String] = [], homePage: URL? = nil,
    policy: CachePolicy? = nil, maxAge: TimeInterval? = nil, fullText: Bool = false
  ) {
    self.init(
      name: name, kind: .articles(url), title: title, folder: folder, homePage: homePage, policy: policy,
      maxAge: maxAge, fullText: fullText)
  }

  /// The URL its refresh sends requests to: the feed, query or file, or the Parse Server.
  public var url: URL {
    switch kind {
    case .articles(let url): url
    case .parse(let parse): parse.server.serverURL
    }
  }

  /// The query its articles are cached under: its URL's, recorded under its name; for a Parse source, the query
  /// the sync keeps the source's articles under.
  public var query: NewsQuery {
    switch kind {
    case .articles(let url): return NewsQuery(url: url, source: name)
    case .parse: return Self.query(ofParseSource: name)
    }
  }

  /// The query the sync of the Parse source named `name` keeps its articles under (a `news-source:` URL).
  public static func query(ofParseSource name: String) -> NewsQuery {
    let key = ParseSyncEngine.articleQuery(source: name)
    return NewsQuery(url: URL(string: key) ?? URL(fileURLWithPath: "/"), source: name)
  }

  /// Its articles, as filters select them (``ArticleFilter/anyOfSources``): those recorded under its name and
  /// those its last refresh held (an article keeps the source that saved it first).
  public var match: SourceMatch { SourceMatch(source: name, queries: [query.cacheKey]) }

  /// `"feed"` (any http(s) URL, NewsAPI included), `"file"` or `"parse"`: what `--json` documents print as `kind`.
  public var kindName: String {
    switch kind {
    case .articles(let url): url.isFileURL ? "file" : "feed"
    case .parse: "parse"
    }
  }

  /// Whether `folder` is its folder or one of its folders' ancestors (`["Tech"]` contains `["Tech", "Swift"]`),
  /// compared exactly: `Apple` and `apple` are two folders, as the folder lists show them (a newsboat tag and an
  /// OPML folder may differ only in case) and as the Miniflux and Reader APIs serve them; `[]` contains every source.
  /// A front end that takes a typed folder name resolves it to a folder first (`news`'s `--folder`: any case, when
  /// that names one folder).
  public func isFiled(under folder: [String]) -> Bool { Self.isFolder(self.folder, under: folder) }

  /// Whether `folder` is `ancestor` or below it, compared exactly (``isFiled(under:)``'s rule).
  package static func isFolder(_ folder: [String], under ancestor: [String]) -> Bool {
    ancestor.count <= folder.count && zip(ancestor, folder).allSatisfy { $0.0 == $0.1 }
  }

  /// `base`, else `base (2)`, `base (3)`…: the first that is not in `names` (lowercased), as a new subscription is
  /// named beside the list's (``SubscriptionList/planSubscribing(_:exactName:)``, and ``SubscriptionFile`` again under
  /// its lock).
  /// Whether it has no name of its own: a feed named by its own URL (any equivalent spelling,
  /// ``subscriptionKey``, or as people are shown it, without its password: `NewsQuery.shown`), as an import names a
  /// feed its list gave no title. A refresh in a list names it after
  /// its feed's title (``NewsRepository/nameUntitled(_:in:titles:)``); any other name was given by a person and is kept.
  public var isUntitled: Bool {
    guard isFeed, case .articles(let url) = kind, let named = URL(string: name), named.isWebURL else {
      return false
    }
    return name == NewsQuery.shown(url) || Self.subscriptionKey(for: named) == Self.subscriptionKey(for: url)
  }

  static func unusedName(_ base: String, among names: Set<String>) -> String {
    var name = base
    var counter = 2
    while names.contains(name.lowercased()) {
      name = "\(base) (\(counter))"
      counter += 1
    }
    return name
  }
}

extension SourceMatch {
  /// The articles that came from `location` — a feed, NewsAPI or file URL — whether imported or fetched: those
  /// recorded under it (a file's path, made absolute, or the URL as written) and those its query's last result held.
  public init(location: URL) {
    self.init(
      source: location.isFileURL ? location.path : location.absoluteString,
      queries: [NewsQuery(url: location).cacheKey])
  }
}

/// A Parse Server source: the server, its classes and the mapping their objects are imported with.
///
/// Open the repository's storage context with ``entities`` (the mapping's and the sync's bookkeeping), or the
/// sync fails naming the entity it lacks.
public struct ParseSource: Sendable {
  /// One class of the source.
  public struct Class: Sendable, Hashable {
    /// The Parse class, e.g. `Article` or `_User`.
    public var name: String
    /// Objects per request (Parse's `limit`, 1…1000); `nil`: the source's ``ParseSource/pageSize``.
    public var pageSize: Int?
    /// Which attributes hold files, and how they are downloaded; `nil`: none.
    public var files: FileDownloads?
    /// Keys of Parse `Relation` fields whose members are synced (``ParseClassSync``).
    public var relations: [String]

    /// A class; see the properties.
    public init(name: String, pageSize: Int? = nil, files: FileDownloads? = nil, relations: [String] = []) {
      self.name = name
      self.pageSize = pageSize
      self.files = files
      self.relations = relations
    }
  }

  /// The server, with its application id and secrets.
  public var server: ParseServer
  /// The classes synced, in any order (pointed-to classes are synced first).
  public var classes: [Class]
  /// The mapping the objects are imported with: one root per class (``ImportMapping/roots``), or a single root for
  /// every class.
  public var mapping: ImportMapping
  /// Objects per request for classes that do not say; default 100.
  public var pageSize: Int

  /// A source syncing `classes` of `server` with `mapping`.
  public init(server: ParseServer, classes: [Class], mapping: ImportMapping, pageSize: Int = 100) {
    self.server = server
    self.classes = classes
    self.mapping = mapping
    self.pageSize = pageSize
  }

  /// The entities the storage context needs for this source: its mapping's and the sync's bookkeeping.
  public var entities: [EntityDescription] { mapping.entityDescriptions + ParseSyncEngine.bookkeepingEntities }

  /// The class syncs of the engine: each class with its root of the mapping selected.
  ///
  /// - Throws: ``RefreshFailure/configuration(_:)`` naming a class the mapping has no root for, and the roots it has.
  func classSyncs() throws(RefreshFailure) -> [ParseClassSync] {
    var syncs: [ParseClassSync] = []
    for parseClass in classes {
      let selected: ImportMapping
      do {
        selected = mapping.roots.isEmpty ? mapping : try mapping.selecting(root: parseClass.name)
      } catch {
        throw .configuration(
          "classes: \(parseClass.name): \(error) (the mapping's roots: "
            + mapping.roots.keys.sorted().joined(separator: ", ") + ")")
      }
      syncs.append(
        ParseClassSync(
          className: parseClass.name, mapping: selected, pageSize: parseClass.pageSize ?? pageSize,
          files: parseClass.files, relations: parseClass.relations))
    }
    return syncs
  }
}
