import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// The Miniflux API v1 (<https://miniflux.app/docs/api.html>) over a ``ServedLibrary``: the subset its clients use.
/// Called by the server's front door for every `/v1/…` request once it is authenticated.
///
/// - Feeds are the library's sources, categories its folders: a nested folder is one category titled with its
///   path joined by `" / "`; a source at the top level is in category `All` (``ServedIdentifiers``).
/// - An entry's `status` is the repository's read state, `starred` its bookmark; its `content` is
///   ``servedContent(of:)`` (the stored full text when there is one).
/// - Ids are ``ServedIdentifiers``'; ids written back by a client that keeps them in 32-bit integers (newsboat) are
///   understood too (``ServedCatalog/matches(_:_:)``).
/// - Errors are Miniflux's: `{"error_message": "…"}` with 400 (an invalid parameter, named), 404 (no such feed,
///   category or entry), 409 (a feed subscribed already), 503 when the store is busy or cannot be written
///   (``ServedFailure``).
public struct MinifluxAPI: Sendable {
  /// The library served.
  public var library: ServedLibrary
  /// The user name `GET /v1/me` reports.
  public var user: String
  /// The program's version `GET /v1/version` reports (`news --version`'s: `0.1.0`).
  public var version: String
  /// The commit it was built from, `nil` when unknown (`GET /v1/version`'s `commit`).
  public var commit: String?

  /// - Parameter library: the library served; the user reported is `news`, the version `unknown`.
  public init(library: ServedLibrary) {
    self.init(library: library, user: "news")
  }

  /// - Parameters: see the properties of the same names.
  public init(library: ServedLibrary, user: String, version: String = "unknown", commit: String? = nil) {
    self.library = library
    self.user = user
    self.version = version
    self.commit = commit
  }

  /// Answers an authenticated `/v1/…` request: JSON, `204 No Content` for a change, or a Miniflux error.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard parts.first == "v1" else { return MinifluxJSON.error("Route not found", status: 404) }
    do {
      return try await route(request, Array(parts.dropFirst()))
    } catch let failure as MinifluxEntryQuery.Invalid {
      return MinifluxJSON.error(failure.message, status: 400)
    } catch {
      return ServedFailure.miniflux(error)
    }
  }

  private func route(_ request: ServerRequest, _ parts: [String]) async throws -> ServerResponse {
    let method = request.method == "HEAD" ? "GET" : request.method
    let id = parts.count > 1 ? Int64(parts[1]) : nil
    switch (method, parts.first, parts.count) {
    case ("GET", "me", 1):
      return MinifluxJSON.response(
        MinifluxJSON.user(username: user, lastLoginAt: MinifluxJSON.date(library.now())))
    case ("GET", "version", 1):
      return MinifluxJSON.response(MinifluxJSON.version(version, commit: commit ?? "unknown"))
    case ("GET", "export", 1):
      // Every subscription served, the configuration's and the store's (not the files imported: no feeds).
      let opml = NewsSource.opmlDocument(of: try await library.sources(), title: "news subscriptions")
      return ServerResponse(status: 200, type: "text/xml; charset=utf-8", data: opml)
    case ("POST", "import", 1): return try await importOPML(request)
    case ("GET", "feeds", 1): return try await feeds()
    case ("POST", "feeds", 1): return try await subscribe(request)
    case ("GET", "feeds", 2) where parts[1] == "counters": return try await counters()
    case ("PUT", "feeds", 2) where parts[1] == "refresh":
      // Miniflux's "refresh all feeds": started in the background (or the one under way joined), 204 at once.
      try library.startRefresh()
      return MinifluxJSON.noContent
    case ("GET", "categories", 1): return try await categories(counts: request.queryValue("counts") == "true")
    case ("POST", "categories", 1): return try await createCategory(request)
    case ("GET", "entries", 1): return try await entries(request, feeds: nil)
    case ("PUT", "entries", 1): return try await setStatus(request)
    default: break
    }
    guard let id else { return MinifluxJSON.error("Route not found", status: 404) }
    let catalog = try await ServedCatalog.current(library)
    switch (method, parts[0], parts.dropFirst(2).first, parts.count) {
    case ("GET", "feeds", nil, 2):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      return MinifluxJSON.response(
        MinifluxJSON.feed(feed, health: try? await library.repository.health(of: feed.source)))
    case ("DELETE", "feeds", nil, 2):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      return try await unsubscribe(feed)
    case ("PUT", "feeds", nil, 2):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      return try await updateFeed(feed, request, catalog: catalog)
    case ("GET", "feeds", "entries", 3):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      return try await entries(request, feeds: [feed], catalog: catalog)
    case ("GET", "feeds", "entries", 4):
      guard let feed = catalog.feed(id: id), let entryID = Int64(parts[3]) else { return Self.notFound("Feed") }
      return try await entry(entryID, catalog: catalog, within: [feed], origin: requestOrigin(request))
    case ("GET", "feeds", "icon", 3): return MinifluxJSON.error("This feed doesn't have any icon", status: 404)
    case ("PUT", "feeds", "mark-all-as-read", 3):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      try await library.repository.markRead(true, selecting: catalog.selection(of: [feed]))
      return MinifluxJSON.noContent
    case ("PUT", "feeds", "refresh", 3):
      guard let feed = catalog.feed(id: id) else { return Self.notFound("Feed") }
      return try await refresh(feed)
    case ("DELETE", "categories", nil, 2):
      guard let category = catalog.category(id: id) else { return Self.notFound("Category") }
      return try await deleteCategory(category, catalog: catalog)
    case ("GET", "categories", "feeds", 3):
      guard let category = catalog.category(id: id) else { return Self.notFound("Category") }
      return try await feeds(catalog.feeds(in: category))
    case ("GET", "categories", "entries", 3):
      guard let category = catalog.category(id: id) else { return Self.notFound("Category") }
      return try await entries(request, feeds: catalog.feeds(in: category), catalog: catalog)
    case ("GET", "categories", "entries", 4):
      guard let category = catalog.category(id: id), let entryID = Int64(parts[3]) else {
        return Self.notFound("Category")
      }
      return try await entry(
        entryID, catalog: catalog, within: catalog.feeds(in: category), origin: requestOrigin(request))
    case ("PUT", "categories", "mark-all-as-read", 3):
      guard let category = catalog.category(id: id) else { return Self.notFound("Category") }
      try await library.repository.markRead(true, selecting: catalog.selection(of: catalog.feeds(in: category)))
      return MinifluxJSON.noContent
    case ("GET", "entries", nil, 2):
      return try await entry(id, catalog: catalog, within: nil, origin: requestOrigin(request))
    case ("PUT", "entries", "bookmark", 3): return try await toggleBookmark(id, catalog: catalog)
    default: return MinifluxJSON.error("Route not found", status: 404)
    }
  }

  private static func notFound(_ what: String) -> ServerResponse {
    MinifluxJSON.error("\(what) not found", status: 404)
  }

  // MARK: Feeds and categories

  /// The request's JSON body as `Body`, its keys Miniflux's snake_case (`feed_url` is `feedUrl`).
  /// - Throws: ``MinifluxEntryQuery/Invalid`` (`Invalid JSON payload`, a 400) when the body is no such JSON.
  private static func body<Body: Decodable>(_ type: Body.Type, of request: ServerRequest)
    throws(MinifluxEntryQuery.Invalid) -> Body
  {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    guard let body = try? decoder.decode(type, from: request.body) else {
      throw MinifluxEntryQuery.Invalid(message: "Invalid JSON payload")
    }
    return body
  }

  private func feeds(_ some: [ServedFeed]? = nil) async throws -> ServerResponse {
    var feeds = some ?? []
    if some == nil { feeds = try await ServedCatalog.current(library).feeds }
    var documents: [MinifluxJSON.Feed] = []
    for feed in feeds {
      documents.append(MinifluxJSON.feed(feed, health: try? await library.repository.health(of: feed.source)))
    }
    return MinifluxJSON.response(documents)
  }

  private func counters() async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    let counts = try await library.repository.counts(bySource: catalog.feeds.map(\.match))
    var reads: [String: Int] = [:]
    var unreads: [String: Int] = [:]
    for (feed, count) in zip(catalog.feeds, counts) {
      reads[String(feed.id)] = count.total - count.unread
      unreads[String(feed.id)] = count.unread
    }
    return MinifluxJSON.response(MinifluxJSON.counters(reads: reads, unreads: unreads))
  }

  private func categories(counts: Bool) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    var unread: [ServedCategory: Int] = [:]
    if counts {
      let perFeed = try await library.repository.counts(bySource: catalog.feeds.map(\.match))
      for (feed, count) in zip(catalog.feeds, perFeed) { unread[feed.category, default: 0] += count.unread }
    }
    return MinifluxJSON.response(
      catalog.categories.map { category in
        MinifluxJSON.category(
          category,
          counts: counts ? (feeds: catalog.feeds(in: category).count, unread: unread[category] ?? 0) : nil)
      })
  }

  private func subscribe(_ request: ServerRequest) async throws -> ServerResponse {
    struct Body: Decodable {
      var feedUrl: String?
      var categoryId: Int64?
    }
    let body = try Self.body(Body.self, of: request)
    guard let text = body.feedUrl, let url = URL(string: text), url.isWebURL else {
      return MinifluxJSON.error("Invalid feed_url: an http or https URL is required", status: 400)
    }
    let catalog = try await ServedCatalog.current(library)
    var folder: [String] = []
    if let categoryID = body.categoryId {
      guard let category = catalog.category(id: categoryID) else {
        return MinifluxJSON.error("Invalid category_id: no category \(categoryID)", status: 400)
      }
      folder = category.path
    }
    switch await ServedSubscriptions.subscribe(url: url, title: nil, folder: folder, in: library) {
    case .success(let source):
      guard let feed = try await ServedCatalog.current(library).feed(named: source.name) else {
        return Self.notFound("Feed")
      }
      return MinifluxJSON.response(MinifluxJSON.created(feedID: feed.id), status: 201)
    case .failure(.alreadySubscribed(_, let name)):
      return MinifluxJSON.error("This feed already exists (\(name))", status: 409)
    case .failure(let error) where ServedFailure.cause(of: error) != nil:
      return ServedFailure.miniflux(error)
    case .failure(let error):
      return MinifluxJSON.error(error.description, status: 400)
    }
  }

  /// `POST /v1/categories` `{"title"}`: a folder, its path the title split at `/` (`Tech / Swift` is `Tech`'s
  /// `Swift`, as ``ServedCategory/title`` writes it). 201 with the category; 409 when a category has that path
  /// (without regard to case); 400 for a title that names no folder. The folder is kept by the library's list
  /// (``SubscriptionList/setFolderKept(_:kept:)``: `news serve`'s configuration file, its `"folders"`), so that it
  /// lives on, empty, after a restart, until `DELETE /v1/categories/{id}`.
  private func createCategory(_ request: ServerRequest) async throws -> ServerResponse {
    struct Body: Decodable { var title: String? }
    let body = try Self.body(Body.self, of: request)
    let path = (body.title ?? "").split(separator: "/").map { $0.trimmingWhiteSpace }
      .filter { !$0.isEmpty }
    guard !path.isEmpty else { return MinifluxJSON.error("The category title is mandatory", status: 400) }
    let catalog = try await ServedCatalog.current(library)
    let lowered = path.map { $0.lowercased() }
    if lowered == ["all"] || catalog.categories.contains(where: { $0.path.map { $0.lowercased() } == lowered }) {
      return MinifluxJSON.error("This category already exists", status: 409)
    }
    try await library.subscriptions.setFolderKept(path, kept: true)
    return MinifluxJSON.response(MinifluxJSON.category(ServedCategory(path: path)), status: 201)
  }

  /// `DELETE /v1/categories/{id}`: the folder is no longer kept (``SubscriptionList/setFolderKept(_:kept:)``), and
  /// the feeds filed directly in it move to the top level ("All"), as FreshRSS's `disable-tag` moves them (Miniflux
  /// deletes them with their category; here ending a subscription is never a side effect). 204; 400 for "All" and
  /// for a category holding the articles of a file imported (no subscriptions to move); 404 for no such category.
  private func deleteCategory(_ category: ServedCategory, catalog: ServedCatalog) async throws -> ServerResponse {
    guard !category.path.isEmpty else { return MinifluxJSON.error("The category All cannot be removed", status: 400) }
    for feed in catalog.feeds(in: category) {
      let name = feed.source.name
      do {
        try await ServedSubscriptions.change(name, in: library) { list throws(SubscriptionChangeError) in
          try await list.moveSubscription(name, to: [])
        }
      } catch .notSubscribed {
        return MinifluxJSON.error(ServedSubscriptions.unchangeable(feed.source), status: 400)
      } catch {
        return ServedFailure.miniflux(error)
      }
    }
    try await library.subscriptions.setFolderKept(category.path, kept: false)
    return MinifluxJSON.noContent
  }

  /// `POST /v1/import`: the body is an OPML subscription list, subscribed as `news import FILE.opml` does
  /// (``SubscriptionList/importOPML(_:url:into:)`` on the served list, each feed in its folder, a feed whose URL the
  /// list has already skipped); no feed is read while the client waits. 201 `{"message"}` as Miniflux answers; 400
  /// naming the problem for a body that is not OPML, and nothing is subscribed then.
  private func importOPML(_ request: ServerRequest) async throws -> ServerResponse {
    let url = URL(string: "urn:miniflux:import") ?? URL(fileURLWithPath: "/v1/import")
    do {
      try await library.subscriptions.importOPML(request.body, url: url)
    } catch {
      if ServedFailure.cause(of: error) != nil { throw error }
      return MinifluxJSON.error("Invalid OPML: \(error.description)", status: 400)
    }
    return MinifluxJSON.response(MinifluxJSON.message("Feeds imported successfully"), status: 201)
  }

  private func unsubscribe(_ feed: ServedFeed) async throws -> ServerResponse {
    do {
      try await ServedSubscriptions.change(feed.source.name, in: library) { list throws(SubscriptionChangeError) in
        try await list.unsubscribe(feed.source.name)
      }
      return MinifluxJSON.noContent
    } catch .notSubscribed {
      return MinifluxJSON.error(ServedSubscriptions.unchangeable(feed.source), status: 400)
    } catch {
      return ServedFailure.miniflux(error)
    }
  }

  /// `PUT /v1/feeds/{id}`, Miniflux's feed modification: `title` renames the subscription (its cached articles
  /// follow it: ``NewsRepository/renameSubscription(_:to:in:)``), `category_id` files it in that category's folder,
  /// `feed_url` points it at another feed (``SubscriptionList/relinkSubscription(_:to:)``; the `feed_url` the API
  /// served, the URL as shown, leaves the feed's own URL and its password as they are), each through the
  /// library's subscription API in the list that holds it (``ServedSubscriptions/change(_:in:_:)``); Miniflux's other
  /// fields (scraper and rewrite rules, credentials, …) have no counterpart here and are ignored. Every field is
  /// checked before anything changes. 201 with the feed as it is now, as Miniflux answers (a feed's id follows its
  /// name: ``ServedIdentifiers``, so a renamed feed has a new id); 400 naming the field for an empty title, a title
  /// another subscription has, an unknown category, a URL that is not http(s) or that another served feed has, or
  /// (listening beyond loopback) on the server's own machine or network (``SubscribeTarget``); 400 for a source that
  /// is no subscription (a file imported).
  private func updateFeed(_ feed: ServedFeed, _ request: ServerRequest, catalog: ServedCatalog) async throws
    -> ServerResponse
  {
    struct Body: Decodable {
      var title: String?
      var categoryId: Int64?
      var feedUrl: String?
    }
    let body = try Self.body(Body.self, of: request)
    let name = feed.source.name
    var title: String?
    if let given = body.title {
      let trimmed = given.trimmingWhiteSpace
      guard !trimmed.isEmpty else { return MinifluxJSON.error("Invalid title: the title cannot be empty", status: 400) }
      if trimmed != name { title = trimmed }
    }
    var folder: [String]?
    // Miniflux leaves the category as it is for a missing or 0 `category_id`.
    if let categoryID = body.categoryId, categoryID != 0 {
      guard let category = catalog.category(id: categoryID) else {
        return MinifluxJSON.error("Invalid category_id: no category \(categoryID)", status: 400)
      }
      if category.path != feed.source.folder { folder = category.path }
    }
    var url: URL?
    // A client sends back the `feed_url` it was given, which is the URL as shown (``NewsQuery/shown(_:)``: no
    // password, no `apiKey`): that is the feed as it is, not a new URL with `***` for a password.
    if let text = body.feedUrl, !text.isEmpty, text != NewsQuery.shown(feed.source.url) {
      guard let given = URL(string: text), given.isWebURL else {
        return MinifluxJSON.error("Invalid feed_url: an http or https URL is required", status: 400)
      }
      // Every served source, the configuration's and the store's: a URL another one has is taken.
      if let other = try await library.sources().first(where: {
        $0.name != name && $0.subscriptionKey == NewsSource.subscriptionKey(for: given)
      }) {
        return MinifluxJSON.error("Invalid feed_url: this feed already exists (\(other.name))", status: 400)
      }
      if given != feed.source.url {
        // Pointed at the server's own machine or network, the next refresh would read it for the client.
        if library.refusesPrivateTargets, let refusal = SubscribeTarget.refusal(given) {
          return MinifluxJSON.error("Invalid feed_url: \(refusal)", status: 400)
        }
        url = given
      }
    }
    let repository = library.repository
    var current = name
    do {
      try await ServedSubscriptions.change(name, in: library) { list throws(SubscriptionChangeError) in
        if let title {
          try await repository.renameSubscription(name, to: title, in: list)
          current = try await list.source(named: title)?.name ?? title
        }
        if let folder { try await list.moveSubscription(current, to: folder) }
        if let url { try await list.relinkSubscription(current, to: url) }
      }
    } catch .notSubscribed {
      return MinifluxJSON.error(ServedSubscriptions.unchangeable(feed.source), status: 400)
    } catch .nameTaken(let taken) {
      return MinifluxJSON.error("Invalid title: a feed named \"\(taken)\" exists already", status: 400)
    } catch .invalidName(let given) {
      return MinifluxJSON.error("Invalid title: \"\(given)\" has no letter or digit", status: 400)
    } catch .alreadySubscribed(_, let other) {
      return MinifluxJSON.error("Invalid feed_url: this feed already exists (\(other))", status: 400)
    } catch {
      return ServedFailure.miniflux(error)
    }
    let updated = try await ServedCatalog.current(library)
    guard let changed = updated.feed(named: current) else {
      return Self.notFound("Feed")
    }
    return MinifluxJSON.response(
      MinifluxJSON.feed(changed, health: try? await library.repository.health(of: changed.source)), status: 201)
  }

  /// `PUT /v1/feeds/{id}/refresh`: the feed refreshed now through the library's refresh
  /// (``ServedLibrary/refresh(only:)``: the periodic refresh's path; a refresh under way that reads it is joined, not
  /// started again), answered once it is done, as Miniflux answers: 204; the refresh's failure as Miniflux's
  /// `{"error_message"}` (500 for the feed's own failure — refused, not found, not a feed — which the feed's
  /// `parsing_error_message` keeps; 503 when the store cannot be written, ``ServedFailure``); 400 for the articles
  /// of a file imported, which no refresh reads.
  private func refresh(_ feed: ServedFeed) async throws -> ServerResponse {
    guard !ServedLibrary.isImported(feed.source) else {
      return MinifluxJSON.error(ServedSubscriptions.unchangeable(feed.source), status: 400)
    }
    let report = try await library.refresh(only: [feed.source.name])
    if let failure = report?.sources.first(where: { $0.source == feed.source.name })?.failure {
      return ServedFailure.miniflux(failure)
    }
    return MinifluxJSON.noContent
  }

  // MARK: Entries

  private func entries(_ request: ServerRequest, feeds: [ServedFeed]?, catalog given: ServedCatalog? = nil)
    async throws -> ServerResponse
  {
    let query = try MinifluxEntryQuery(request)
    var catalog: ServedCatalog
    if let given { catalog = given } else { catalog = try await ServedCatalog.current(library) }
    var within = feeds
    if within == nil, let feedID = query.feedID {
      within = catalog.feed(id: feedID).map { [$0] } ?? []
    }
    if let categoryID = query.categoryID {
      let inCategory = catalog.category(id: categoryID).map(catalog.feeds(in:)) ?? []
      within = (within ?? catalog.feeds).filter { feed in inCategory.contains { $0.id == feed.id } }
    }
    guard let selection = query.selection(of: within, in: catalog) else {
      return MinifluxJSON.response(MinifluxJSON.entries(total: 0, []))
    }
    let repository = library.repository
    let articles: [Article]
    let total: Int
    if let search = query.search {
      (articles, total) = try await searched(search, selection: selection, within: within ?? catalog.feeds)
    } else {
      async let page = repository.articles(selecting: selection)
      async let count = repository.count(selecting: selection)
      (articles, total) = try await (page, count)
    }
    return MinifluxJSON.response(
      MinifluxJSON.entries(
        total: total, try await documents(articles, catalog: catalog, origin: requestOrigin(request))))
  }

  /// The page of a `search`: the store's full-text search (best match first) with the selection's conditions;
  /// `total` is exact on the last page, else one more than the page reaches (so that a client asks for the next).
  private func searched(_ text: String, selection: ArticleSelection, within feeds: [ServedFeed]) async throws
    -> ([Article], Int)
  {
    var filter = ArticleFilter(
      unreadOnly: selection.filter.unreadOnly, bookmarkedOnly: selection.filter.bookmarkedOnly,
      publishedSince: selection.publishedAfter?.addingTimeInterval(0.001),
      publishedBefore: selection.filter.publishedBefore)
    filter.anyOfSources = feeds.map(\.match)
    let limit = selection.limit ?? MinifluxEntryQuery.maximumLimit
    guard (try? SearchQuery(text)) != nil else {
      throw MinifluxEntryQuery.Invalid(message: "Invalid search: \"\(text)\" has no word to look for")
    }
    let hits = try await library.repository.search(text, filter: filter, limit: limit + 1, offset: selection.offset)
    let articles = hits.map(\.article).filter {
      (!selection.readOnly || $0.isRead) && (!selection.unbookmarkedOnly || !$0.isBookmarked)
    }
    return (Array(articles.prefix(limit)), selection.offset + min(articles.count, limit) + (hits.count > limit ? 1 : 0))
  }

  /// The entry documents of `articles`, each under its feed; articles of no served feed are left out.
  private func documents(_ articles: [Article], catalog: ServedCatalog, origin: String?) async throws
    -> [MinifluxJSON.Entry]
  {
    let articles = await library.servingImages(articles, origin: origin)
    let placed = try await catalog.feeds(of: articles, in: library.repository)
    let facts = try await library.repository.syncFacts(of: articles)
    return articles.compactMap { article in
      let key = article.url.absoluteString
      guard let feed = placed[key] else { return nil }
      return MinifluxJSON.entry(
        article, feed: feed.minifluxFeed, firstSeen: facts[key]?.firstSeen,
        servedID: ServedIdentifiers.servedID(of: article, in: facts))
    }
  }

  private func entry(_ id: Int64, catalog: ServedCatalog, within feeds: [ServedFeed]?, origin: String?) async throws
    -> ServerResponse
  {
    let found = try await MinifluxEntries.articles(ofEntryIDs: [id], in: library.repository)
    let documents = try await documents(found, catalog: catalog, origin: origin).filter { entry in
      feeds.map { $0.contains { $0.id == entry.feedId } } ?? true
    }
    guard let document = documents.first else { return Self.notFound("Entry") }
    return MinifluxJSON.response(document)
  }

  private func setStatus(_ request: ServerRequest) async throws -> ServerResponse {
    struct Body: Decodable {
      var entryIds: [Int64]?
      var status: String?
    }
    let body = try Self.body(Body.self, of: request)
    guard let ids = body.entryIds, !ids.isEmpty else {
      return MinifluxJSON.error("Invalid entry_ids: the list of entry ids is required", status: 400)
    }
    guard ids.count <= 10_000 else {
      return MinifluxJSON.error("Invalid entry_ids: at most 10000 at once", status: 400)
    }
    guard let status = body.status, status == "read" || status == "unread" else {
      return MinifluxJSON.error("Invalid status: \"read\" or \"unread\" is required", status: 400)
    }
    let found = try await MinifluxEntries.articles(ofEntryIDs: ids, in: library.repository)
    try await library.repository.markRead(status == "read", urls: found.map(\.url.absoluteString))
    return MinifluxJSON.noContent
  }

  private func toggleBookmark(_ id: Int64, catalog: ServedCatalog) async throws -> ServerResponse {
    guard let article = try await MinifluxEntries.articles(ofEntryIDs: [id], in: library.repository).first else {
      return Self.notFound("Entry")
    }
    _ = try await library.repository.bookmark(!article.isBookmarked, url: article.url.absoluteString)
    return MinifluxJSON.noContent
  }
}

/// How Miniflux entry ids find articles.
enum MinifluxEntries {
  /// The articles of these entry ids, each once: by served-id prefix
  /// (``ServedIdentifiers/servedIDPrefix(ofEntryID:)``), and an id a 32-bit client truncated (within `Int32`'s
  /// range, not found so) by the served id's digits 6 to 13.
  ///
  /// - Throws: ``NewsRepositoryError``.
  static func articles(ofEntryIDs ids: [Int64], in repository: NewsRepository) async throws -> [Article] {
    let prefixes = ids.compactMap(ServedIdentifiers.servedIDPrefix(ofEntryID:))
    var found = try await repository.articles(withServedIDPrefixes: prefixes)
    let facts = try await repository.syncFacts(of: found)
    let foundIDs = Set(
      found.map { ServedIdentifiers.entryID(ofServedID: ServedIdentifiers.servedID(of: $0, in: facts)) })
    let truncated = ids.filter { !foundIDs.contains($0) && Int64(Int32.min) <= $0 && $0 <= Int64(Int32.max) }
    if !truncated.isEmpty {
      let digits = truncated.map { id -> String in
        let hex = String(UInt32(truncatingIfNeeded: id), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
      }
      let keys = Set(found.map(\.url))
      found += try await repository.articles(withServedIDDigits6to13: digits).filter { !keys.contains($0.url) }
    }
    return found
  }
}
