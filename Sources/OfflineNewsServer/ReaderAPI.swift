import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// The Google Reader API as FreshRSS serves it (<https://freshrss.github.io/FreshRSS/en/developers/06_GoogleReader_API.html>,
/// FreshRSS's `greader.php`) over a ``ServedLibrary``. Called by the server's front door for every
/// `/reader/api/0/…` request but `token`, and every `/reader/atom/…` request (Google Reader's Atom output, which
/// newsboat's `urls-source "feedhq"` reads; also answered as `/reader/api/0/atom/…`), once it is authenticated (`accounts/ClientLogin` and `token` are the
/// front door's).
///
/// - Subscriptions are `feed/` + the source's URL, labels `user/-/label/` + its folder path joined with `/`; read
///   and starred are the repository's read and bookmark state (`user/-/state/com.google/read`, `…/starred`).
/// - Items are ``ServedIdentifiers``' (`tag:google.com,2005:reader/item/` + 16 hex digits); every id form is read
///   back (long, 16 hex digits, signed decimal). Content is ``servedContent(of:)``.
/// - A continuation (`c`) is the place of a page's last item (``ReaderContinuation``): the next page starts after
///   it, whatever was marked read or arrived meanwhile; one this server did not give is 400. Changes answer `OK`; an invalid argument
///   answers 400 naming it, an unknown stream 404.
public struct ReaderAPI: Sendable {
  /// The library served.
  public var library: ServedLibrary
  /// The user name the API reports (`user-info`).
  public var user: String

  /// - Parameters: see the properties of the same names.
  public init(library: ServedLibrary, user: String) {
    self.library = library
    self.user = user
  }

  /// The path prefix of the API's calls.
  static let apiPrefix = "/reader/api/0/"
  /// The path prefix of the Atom streams.
  static let atomPrefix = "/reader/atom/"

  /// The calls that change state (FreshRSS's `greader.php` checks the action token `T` on these only): a `POST` of
  /// one of them must carry `T`; reads (`stream/contents`, `stream/items/contents`, …) may be `POST`s without it.
  static let stateChangingCalls: Set<String> = [
    "edit-tag", "rename-tag", "disable-tag", "mark-all-as-read", "subscription/edit", "subscription/quickadd",
  ]

  /// Whether `request` (its `/api/greader.php` prefix dropped) is a `POST` of a state-changing call
  /// (``stateChangingCalls``): one that must carry the action token `T`.
  static func needsActionToken(_ request: ServerRequest) -> Bool {
    guard request.method == "POST", request.path.hasPrefix(apiPrefix) else { return false }
    return stateChangingCalls.contains(String(request.path.dropFirst(apiPrefix.count)))
  }

  /// Answers an authenticated `/reader/api/0/…` or `/reader/atom/…` request.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    do {
      if request.path.hasPrefix(Self.atomPrefix) {
        return try await atom(request, streamID: String(request.path.dropFirst(Self.atomPrefix.count)))
      }
      guard request.path.hasPrefix(Self.apiPrefix) else { return .text("not found", status: 404) }
      return try await route(request, String(request.path.dropFirst(Self.apiPrefix.count)))
    } catch let invalid as ReaderStreamQuery.Invalid {
      return .text(invalid.message, status: 400)
    } catch {
      return ServedFailure.text(error)
    }
  }

  private func route(_ request: ServerRequest, _ call: String) async throws -> ServerResponse {
    let isPost = request.method == "POST"
    switch call {
    case "user-info": return ReaderJSON.response(ReaderJSON.userInfo(userName: user))
    case "subscription/list": return try await subscriptions()
    case "tag/list": return try await tags()
    case "unread-count": return try await unreadCounts()
    case "stream/items/ids": return try await itemIDs(request)
    case "stream/items/contents": return try await itemContents(request)
    case "stream/contents":
      return try await contents(request, streamID: request.parameter("s") ?? ReaderStream.readingListID)
    case "edit-tag" where isPost: return try await editTag(request)
    case "mark-all-as-read" where isPost: return try await markAllAsRead(request)
    case "subscription/quickadd" where isPost: return try await quickAdd(request)
    case "subscription/edit" where isPost: return try await editSubscription(request)
    case "edit-tag", "mark-all-as-read", "subscription/quickadd", "subscription/edit":
      return .text("\(call) takes a POST", status: 405)
    default:
      if call.hasPrefix("atom/") { return try await atom(request, streamID: String(call.dropFirst("atom/".count))) }
      if call.hasPrefix("stream/contents/") {
        return try await contents(request, streamID: String(call.dropFirst("stream/contents/".count)))
      }
      return .text("not found", status: 404)
    }
  }

  // MARK: Lists

  private func subscriptions() async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    return ReaderJSON.response(ReaderJSON.subscriptionList(catalog.feeds))
  }

  private func tags() async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    let labels = catalog.categories.filter { !$0.path.isEmpty }.map(\.streamID)
    return ReaderJSON.response(ReaderJSON.tagList(labels: labels))
  }

  private func unreadCounts() async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    let counts = try await library.repository.counts(bySource: catalog.feeds.map(\.match))
    var result: [(id: String, count: Int, newest: Date?)] = []
    var labels: [[String]: (Int, Date?)] = [:]
    var total = 0
    var newestOfAll: Date?
    for (feed, count) in zip(catalog.feeds, counts) {
      result.append((feed.streamID, count.unread, count.newest))
      total += count.unread
      newestOfAll = [newestOfAll, count.newest].compactMap { $0 }.max()
      guard !feed.category.path.isEmpty else { continue }
      let sum = labels[feed.category.path] ?? (0, nil)
      labels[feed.category.path] = (sum.0 + count.unread, [sum.1, count.newest].compactMap { $0 }.max())
    }
    for category in catalog.categories where !category.path.isEmpty {
      let sum = labels[category.path] ?? (0, nil)
      result.append((category.streamID, sum.0, sum.1))
    }
    result.append((ReaderStream.readingListID, total, newestOfAll))
    return ReaderJSON.response(ReaderJSON.unreadCounts(max: total, result))
  }

  // MARK: Streams

  /// One page of a stream's articles, each with its feed, when each arrived (by key), and the continuation of the
  /// next page.
  private func page(_ request: ServerRequest, streamID: String, catalog: ServedCatalog, defaultCount: Int = 20)
    async throws
    -> (stream: ReaderStream, items: [(Article, ServedFeed)], facts: [String: SyncFacts], continuation: String?)?
  {
    guard let stream = ReaderStream(streamID, catalog: catalog) else { return nil }
    let query = try ReaderStreamQuery(request, defaultCount: defaultCount)
    let articles = try await library.repository.articles(selecting: query.applied(to: stream.selection(in: catalog)))
    let page = await library.servingImages(Array(articles.prefix(query.count)), origin: requestOrigin(request))
    let feeds = try await catalog.feeds(of: page, in: library.repository)
    let facts = try await library.repository.syncFacts(of: page)
    let items = page.compactMap { article in feeds[article.url.absoluteString].map { (article, $0) } }
    var continuation: String?
    if articles.count > query.count {
      let last = articles[query.count - 1]
      continuation = ReaderContinuation.after(
        last, firstSeen: facts[last.url.absoluteString]?.firstSeen ?? last.publishedAt)
    }
    return (stream, items, facts, continuation)
  }

  private func contents(_ request: ServerRequest, streamID: String) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    guard let page = try await page(request, streamID: streamID, catalog: catalog) else {
      return .text("no stream \(streamID)", status: 404)
    }
    return ReaderJSON.response(
      ReaderJSON.stream(
        id: streamID, title: title(of: page.stream, catalog: catalog),
        updated: Int64(library.now().timeIntervalSince1970),
        items: page.items.map { article, feed in
          ReaderJSON.item(
            article, feed: feed, firstSeen: page.facts[article.url.absoluteString]?.firstSeen,
            servedID: ServedIdentifiers.servedID(of: article, in: page.facts))
        },
        continuation: page.continuation))
  }

  private func atom(_ request: ServerRequest, streamID: String) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    guard let page = try await page(request, streamID: streamID, catalog: catalog) else {
      return .text("no stream \(streamID)", status: 404)
    }
    var siteURL: String?
    if case .feed(let id) = page.stream { siteURL = catalog.feed(id: id)?.siteURL }
    let xml = ReaderAtom.document(
      streamID: streamID, title: title(of: page.stream, catalog: catalog), siteURL: siteURL, items: page.items,
      facts: page.facts, continuation: page.continuation, updated: library.now())
    return ServerResponse(status: 200, type: "application/atom+xml; charset=utf-8", data: Data(xml.utf8))
  }

  private func title(of stream: ReaderStream, catalog: ServedCatalog) -> String {
    switch stream {
    case .readingList: "Reading list"
    case .starred: "Starred"
    case .read: "Read"
    case .feed(let id): catalog.feed(id: id)?.title ?? ""
    case .label(let path): path.joined(separator: "/")
    }
  }

  private func itemIDs(_ request: ServerRequest) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    let streamID = request.parameter("s") ?? ReaderStream.readingListID
    guard let page = try await page(request, streamID: streamID, catalog: catalog, defaultCount: 20) else {
      return .text("no stream \(streamID)", status: 404)
    }
    return ReaderJSON.response(
      ReaderJSON.itemRefs(
        page.items.map { article, _ in
          (
            id: String(
              ServedIdentifiers.readerShortItemID(ofServedID: ServedIdentifiers.servedID(of: article, in: page.facts))),
            timestampUsec: ReaderJSON.microseconds(
              page.facts[article.url.absoluteString]?.firstSeen ?? article.publishedAt)
          )
        }, continuation: page.continuation))
  }

  private func itemContents(_ request: ServerRequest) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    let articles = await library.servingImages(try await items(request), origin: requestOrigin(request))
    let feeds = try await catalog.feeds(of: articles, in: library.repository)
    let facts = try await library.repository.syncFacts(of: articles)
    return ReaderJSON.response(
      ReaderJSON.stream(
        id: ReaderStream.readingListID, updated: Int64(library.now().timeIntervalSince1970),
        items: articles.compactMap { article in
          let key = article.url.absoluteString
          return feeds[key].map {
            ReaderJSON.item(
              article, feed: $0, firstSeen: facts[key]?.firstSeen,
              servedID: ServedIdentifiers.servedID(of: article, in: facts))
          }
        }))
  }

  /// The articles of the request's `i` arguments (any id form; at most 10,000), in their order; unknown ids are
  /// skipped.
  private func items(_ request: ServerRequest) async throws -> [Article] {
    let ids = request.parameters("i").prefix(10_000).compactMap(ServedIdentifiers.servedID(ofReaderItemID:))
    return try await library.repository.articles(withServedIDPrefixes: ids)
  }

  // MARK: Changes

  private func editTag(_ request: ServerRequest) async throws -> ServerResponse {
    let articles = try await items(request)
    let added = request.parameters("a").compactMap(ReaderStream.state(of:))
    let removed = request.parameters("r").compactMap(ReaderStream.state(of:))
    let keys = articles.map(\.url.absoluteString)
    let repository = library.repository
    if added.contains("read") {
      try await repository.markRead(true, urls: keys)
    } else if removed.contains("read") || added.contains("kept-unread") {
      try await repository.markRead(false, urls: keys)
    }
    if added.contains("starred") || removed.contains("starred") {
      for key in keys { _ = try await repository.bookmark(added.contains("starred"), url: key) }
    }
    return ReaderJSON.ok
  }

  private func markAllAsRead(_ request: ServerRequest) async throws -> ServerResponse {
    let catalog = try await ServedCatalog.current(library)
    guard let streamID = request.parameter("s"), let stream = ReaderStream(streamID, catalog: catalog) else {
      return .text("s: no such stream", status: 400)
    }
    var selection = stream.selection(in: catalog)
    if let text = request.parameter("ts"), !text.isEmpty {
      guard let microseconds = Int64(text), microseconds >= 0 else {
        return .text("ts: \"\(text)\" is not microseconds since 1970", status: 400)
      }
      // Items that arrived at or before `ts` (FreshRSS: entry ids, the time each was added, up to `ts`), so that
      // what arrived after the client's newest item (`timestampUsec`, its arrival) stays unread.
      selection.firstSeenBefore = Timestamp(millisecondsSince1970: microseconds / 1000 + 1).date
    }
    try await library.repository.markRead(true, selecting: selection)
    return ReaderJSON.ok
  }

  /// A feed URL from a `feed/…` stream id or a bare URL, if it is http or https.
  private static func feedURL(_ text: String) -> URL? {
    let bare = text.hasPrefix("feed/") ? String(text.dropFirst(5)) : text
    guard let url = URL(string: bare), url.isWebURL else { return nil }
    return url
  }

  private func quickAdd(_ request: ServerRequest) async throws -> ServerResponse {
    guard let text = request.parameter("quickadd"), let url = Self.feedURL(text) else {
      return .text("quickadd: an http or https feed URL is required", status: 400)
    }
    switch await ServedSubscriptions.subscribe(url: url, title: nil, folder: [], in: library) {
    case .success(let source):
      return ReaderJSON.response(ReaderJSON.quickAdd(query: text, feedURL: url, name: source.name))
    case .failure(.alreadySubscribed(_, let name)):
      return ReaderJSON.response(ReaderJSON.quickAdd(query: text, feedURL: url, name: name))
    case .failure(let error) where ServedFailure.cause(of: error) != nil:
      return ServedFailure.text(error)
    case .failure(let error):
      return .text(error.description, status: 400)
    }
  }

  private func editSubscription(_ request: ServerRequest) async throws -> ServerResponse {
    let action = request.parameter("ac") ?? "edit"
    let streams = request.parameters("s")
    guard !streams.isEmpty else { return .text("s: a subscription (feed/…) is required", status: 400) }
    guard ["subscribe", "unsubscribe", "edit"].contains(action) else {
      return .text("ac: \"\(action)\" is not subscribe, unsubscribe or edit", status: 400)
    }
    let edit = SubscriptionEdit(
      action: action, added: request.parameters("a").compactMap(ReaderStream.label(of:)),
      removed: Set(request.parameters("r").compactMap(ReaderStream.label(of:))),
      title: request.parameter("t").flatMap { $0.trimmingWhiteSpace.isEmpty ? nil : $0 })
    for streamID in streams {
      if let failure = try await apply(edit, to: streamID) { return failure }
    }
    return ReaderJSON.ok
  }

  /// The arguments of `subscription/edit`.
  private struct SubscriptionEdit {
    var action: String
    var added: [String]
    var removed: Set<String>
    var title: String?
  }

  /// Applies `edit` to the subscription `streamID`: `nil` when done, else the error answer.
  private func apply(_ edit: SubscriptionEdit, to streamID: String) async throws -> ServerResponse? {
    let catalog = try await ServedCatalog.current(library)
    if edit.action == "subscribe" {
      guard let url = Self.feedURL(streamID) else { return .text("s: \(streamID) is not a feed URL", status: 400) }
      let folder = edit.added.first.map { $0.split(separator: "/").map(String.init) } ?? []
      let result = await ServedSubscriptions.subscribe(url: url, title: edit.title, folder: folder, in: library)
      switch result {
      case .success, .failure(.alreadySubscribed): break
      case .failure(let error) where ServedFailure.cause(of: error) != nil: return ServedFailure.text(error)
      case .failure(let error): return .text(error.description, status: 400)
      }
      return nil
    }
    guard let feed = catalog.feed(streamID: streamID) else {
      return .text("s: no subscription \(streamID)", status: 404)
    }
    let repository = library.repository
    var name = feed.source.name
    let outcome: Result<Void, SubscriptionChangeError>
    do {
      if edit.action == "unsubscribe" {
        try await ServedSubscriptions.change(name, in: library) { list throws(SubscriptionChangeError) in
          try await list.unsubscribe(name)
        }
      } else {
        if let title = edit.title, title != name {
          let old = name
          try await ServedSubscriptions.change(old, in: library) { list throws(SubscriptionChangeError) in
            try await repository.renameSubscription(old, to: title, in: list)
          }
          name = title
        }
        let moved = name
        if let label = edit.added.first {
          try await ServedSubscriptions.change(moved, in: library) { list throws(SubscriptionChangeError) in
            try await list.moveSubscription(moved, to: label.split(separator: "/").map(String.init))
          }
        } else if edit.removed.contains(feed.category.label) {
          try await ServedSubscriptions.change(moved, in: library) { list throws(SubscriptionChangeError) in
            try await list.moveSubscription(moved, to: [])
          }
        }
      }
      outcome = .success(())
    } catch {
      outcome = .failure(error)
    }
    switch outcome {
    case .success: return nil
    case .failure(.notSubscribed):
      return .text(ServedSubscriptions.unchangeable(feed.source), status: 400)
    case .failure(let error) where ServedFailure.cause(of: error) != nil: return ServedFailure.text(error)
    case .failure(let error): return .text(error.description, status: 400)
    }
  }
}

extension SubscriptionChangeError {
  /// Whether this is ``alreadySubscribed(_:name:)``.
  var isAlreadySubscribed: Bool {
    if case .alreadySubscribed = self { return true }
    return false
  }
}
