import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The web reader at `/` over a ``ServedLibrary``. Called by the server's front door for every request that is not
/// an API's, once the session is authenticated and, for a state change, its CSRF token checked.
///
/// Server-rendered HTML that reads with JavaScript off; the script (``WebAssets``) adds keyboard shortcuts and
/// changes read and starred state in place. Routes:
/// - `GET /`: folders and sources with their unread counts, each source's age and last error.
/// - `GET /articles`: the article list, newest first (``WebListQuery``: `unread=1`, `starred=1`, `source=`,
///   `folder=`, `page=`).
/// - `GET /search?q=…`: the store's full-text search, best first, with snippets (`unread=1` too).
/// - `GET /article/{id}`: the readable article (stored full text, else content or summary, sanitised) with its
///   offline images; `ctx` and `i` (the list it was opened from, and its place there) give previous and next. `{id}`
///   is the article's served id (`article.servedID`, 16 hex digits, ``ServedIdentifiers``): kept when the store
///   re-keys the row (a publisher fixes the link under the same guid), so that a bookmarked URL keeps opening it. A
///   URL written before, with the handle of the row's key (``ArticleIdentity``), still opens the article (the served
///   id is looked up first: an article inserted under a key and never moved has that key's handle as its served id).
///   A short handle as `news list` prints it (4 to 15 hex digits) redirects to its article's page; one that several
///   articles' handles start with lists them (`300 Multiple Choices`).
/// - `POST /article/{id}/read` (`read=1|0`) and `POST /article/{id}/star` (`star=1|0`): the form's CSRF
///   token is the front door's to check; answered with JSON (`{"read":true,"starred":false}`) when the request
///   accepts it (the script's `fetch`), else `303 See Other` back to the page (`back=`, a path of this server).
/// - `POST /articles/read` (the list's arguments, as ``WebListQuery`` reads them, in the form): marks every article of
///   that list read (every page of it, not only the one shown), then `303 See Other` back to the list.
/// - `GET /assets/…` (``WebAssets``) and `GET /images/{handle}/{position}` (``ServedImages``).
///
/// Opening an article does not mark it read: a `GET` changes nothing (`m` or the button does).
public struct WebReader: Sendable {
  /// The library served.
  public var library: ServedLibrary

  /// - Parameter library: the library served.
  public init(library: ServedLibrary) { self.library = library }

  /// Answers a web request of an authenticated session.
  public func handle(_ request: ServerRequest, session: WebSession) async -> ServerResponse {
    let path = request.path
    let method = request.method == "HEAD" ? "GET" : request.method
    if path.hasPrefix("/assets/") { return method == "GET" ? WebAssets.response(to: request) : notAllowed("GET") }
    if path.hasPrefix(ServedImages.pathPrefix) {
      guard method == "GET" else { return notAllowed("GET") }
      return await ServedImages.response(to: path, repository: library.repository)
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    let isGet = method == "GET"
    switch parts.count {
    case 1 where parts[0] == "":
      return isGet ? await home(session: session) : notAllowed("GET")
    case 1 where parts[0] == "articles":
      return isGet ? await list(WebListQuery(request.query), session: session) : notAllowed("GET")
    case 2 where parts[0] == "articles" && parts[1] == "read":
      return method == "POST" ? await markAllRead(request, session: session) : notAllowed("POST")
    case 1 where parts[0] == "search":
      return isGet ? await search(request, session: session) : notAllowed("GET")
    case 2 where parts[0] == "article":
      guard isGet else { return notAllowed("GET") }
      if parts[1].count < 16 { return await shortHandle(parts[1], request: request, session: session) }
      return await article(parts[1], request: request, session: session)
    case 3 where parts[0] == "article" && (parts[2] == "read" || parts[2] == "star"):
      return method == "POST" ? await change(parts[2], of: parts[1], request: request) : notAllowed("POST")
    default:
      return notFound(session: session)
    }
  }

  /// Sets an article's read or starred state.
  private func change(_ action: String, of id: String, request: ServerRequest) async -> ServerResponse {
    guard let (article, id) = await find(id) else { return .text("no such article", status: 404) }
    let key = article.url.absoluteString
    let repository = library.repository
    let on = (request.parameter(action) ?? "1") != "0"
    do {
      if action == "read" {
        try await repository.markRead(on, url: key)
      } else {
        try await repository.bookmark(on, url: key)
      }
    } catch {
      return ServedFailure.text(error, prefix: "could not save: ")
    }
    let current = (try? await repository.article(url: key)) ?? article
    if request.header("accept")?.contains("application/json") == true {
      let json = #"{"read":\#(current.isRead),"starred":\#(current.isBookmarked)}"#
      return ServerResponse(
        status: 200, type: "application/json", data: Data(json.utf8),
        headers: [(name: "Cache-Control", value: "no-store")])
    }
    let back = NewsServer.localPath(request.parameter("back")) ?? "/article/\(id)"
    return ServerResponse(status: 303, headers: [(name: "Location", value: back)])
  }

  /// Marks every article of the list the form names read (`Mark all read`), then back to that list.
  private func markAllRead(_ request: ServerRequest, session: WebSession) async -> ServerResponse {
    var query = WebListQuery(request.formFields)
    query.page = 1
    let feeds = (try? await ServedCatalog.current(library))?.feeds ?? []
    guard var (filter, _) = query.filter(feeds: feeds) else {
      return notFound(session: session, message: "No such source or folder.")
    }
    // Up to the newest article the page showed (`upto`, ms since 1970), not those a refresh added since.
    if let upTo = request.formFields.first(where: { $0.name == "upto" }).flatMap({ Int64($0.value) }) {
      filter.publishedBefore = Timestamp(millisecondsSince1970: upTo + 1).date
    }
    do {
      _ = try await library.repository.markRead(true, matching: filter)
    } catch {
      return ServedFailure.text(error, prefix: "could not save: ")
    }
    return ServerResponse(status: 303, headers: [(name: "Location", value: query.path())])
  }

  /// The article of `/article/{id}` and its served id: the article whose served id is `id` (16 hex digits, any
  /// case), else the one whose key's handle it is (a URL written before served ids, or of a row re-keyed since);
  /// `nil` for neither.
  func find(_ id: String) async -> (article: Article, servedID: String)? {
    guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return nil }
    let id = id.lowercased()
    if let article = try? await library.repository.articles(withServedIDPrefixes: [id]).first {
      return (article, id)
    }
    guard case .found(let article) = try? await library.repository.article(handleOrURL: id),
      ArticleIdentity.handle(forKey: article.url.absoluteString) == id
    else { return nil }
    return (article, await servedIDs(of: [article])[article.url.absoluteString] ?? id)
  }

  /// `GET /article/{prefix}` with a short handle as `news list` prints it (4 to 15 hex digits, any case), found by the
  /// library's lookup of a typed handle (``NewsRepository/article(handleOrURL:)``, `news show`'s): `302 Found` to
  /// the page of the one article whose handle starts with it (`/article/{served id}`, the query kept), so that a
  /// handle read off the terminal opens in the browser; `300 Multiple Choices` with a page listing the articles whose
  /// handles start with it (each a link to its page, as in a list) when several do, as `news show` says it is
  /// ambiguous; a not-found page when none does.
  func shortHandle(_ prefix: String, request: ServerRequest, session: WebSession) async -> ServerResponse {
    let prefix = prefix.lowercased()
    guard ArticleIdentity.looksLikeHandle(prefix),
      let lookup = try? await library.repository.article(handleOrURL: prefix)
    else { return notFound(session: session, message: "No such article.") }
    switch lookup {
    case .found(let article):
      let key = article.url.absoluteString
      let id = await servedIDs(of: [article])[key] ?? ArticleIdentity.handle(forKey: key)
      let query = request.query.isEmpty ? "" : "?" + Self.queryString(request.query)
      return ServerResponse(status: 302, headers: [(name: "Location", value: "/article/\(id)" + query)])
    case .ambiguous(let candidates):
      return await ambiguous(prefix, candidates, request: request, session: session)
    case .notFound:
      return notFound(session: session, message: "No such article.")
    }
  }

  /// The page of a short handle that several articles' handles start with: each of them as a list shows it.
  private func ambiguous(_ prefix: String, _ candidates: [Article], request: ServerRequest, session: WebSession) async
    -> ServerResponse
  {
    let ids = await servedIDs(of: candidates)
    let back = "/article/\(prefix)"
    let query = request.query.isEmpty ? "" : "?" + Self.queryString(request.query)
    var html = "<h1>Which article?</h1>\n<p>\(candidates.count) articles have a handle that starts with "
    html += "<code>\(WebPage.text(prefix))</code>:</p>\n<ol class=\"entries\">"
    for article in candidates {
      html += entry(
        article, id: ids[article.url.absoluteString], link: query, snippet: nil, back: back, session: session)
    }
    html += "</ol>"
    return WebPage(title: "Which article?", main: html, kind: "list", csrfToken: session.csrfToken)
      .response(status: 300)
  }

  /// The served id of each of `articles` (``ServedIdentifiers``), by key text.
  func servedIDs(of articles: [Article]) async -> [String: String] {
    let facts = (try? await library.repository.syncFacts(of: articles)) ?? [:]
    var ids: [String: String] = [:]
    for article in articles {
      ids[article.url.absoluteString] = ServedIdentifiers.servedID(of: article, in: facts)
    }
    return ids
  }

  func notAllowed(_ allow: String) -> ServerResponse {
    var response = ServerResponse.text("method not allowed", status: 405)
    response.headers.append((name: "Allow", value: allow + (allow == "GET" ? ", HEAD" : "")))
    return response
  }

  func notFound(session: WebSession, message: String = "Nothing here.") -> ServerResponse {
    WebPage(
      title: "Not found",
      main: "<h1>Not found</h1><p>\(WebPage.text(message)) <a href=\"/\">Back to the sources</a></p>",
      kind: "missing", csrfToken: session.csrfToken
    ).response(status: 404)
  }
}
