import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

extension WebReader {
  // MARK: Home

  /// `/`: the counts, the folders, and every source with its counts, age and last error.
  func home(session: WebSession) async -> ServerResponse {
    let repository = library.repository
    let now = library.now()
    let feeds = (try? await ServedCatalog.current(library))?.feeds ?? []
    let sources = feeds.map(\.source)
    let folders = WebListQuery.folders(of: sources)
    // Every count of the page in one call, as `news read` counts its rows: all, each folder, each source.
    let groups: [[SourceMatch]?] =
      [nil] + folders.map(FolderIndex(sources.map { ($0.folder, $0.match) }).members(under:))
      + sources.map { [$0.match] }
    let counted = (try? await repository.counts(ofGroups: groups)) ?? []
    func countsOf(_ index: Int) -> ArticleCounts {
      counted.indices.contains(index)
        ? ArticleCounts(total: counted[index].total, unread: counted[index].unread) : ArticleCounts(total: 0, unread: 0)
    }
    let all = countsOf(0)
    let starred = (try? await repository.counts(matching: ArticleFilter(bookmarkedOnly: true)))?.total ?? 0
    var html = "<h1>Sources</h1>\n<ul class=\"totals\">"
    html += "<li><a href=\"/articles?unread=1\">Unread</a> <span class=\"count\">\(all.unread)</span></li>"
    html += "<li><a href=\"/articles\">All articles</a> <span class=\"count\">\(all.total)</span></li>"
    html += "<li><a href=\"/articles?starred=1\">Starred</a> <span class=\"count\">\(starred)</span></li></ul>\n"

    if !folders.isEmpty {
      html += "<h2>Folders</h2>\n<ul class=\"folders\">"
      for (index, folder) in folders.enumerated() {
        let counts = countsOf(1 + index)
        let id = ServedIdentifiers.categoryID(forFolder: folder)
        html += "<li class=\"depth-\(min(folder.count, 4))\"><a href=\"/articles?unread=1&amp;folder=\(id)\">"
        html += WebPage.text(folder.last ?? "") + "</a> <span class=\"count\">\(counts.unread)</span></li>"
      }
      html += "</ul>\n"
    }

    html += "<h2>Every source</h2>\n"
    if sources.isEmpty { html += "<p class=\"empty\">No sources yet: add one with <code>news add</code>.</p>\n" }
    html += "<ul class=\"sources\">"
    for (index, feed) in feeds.enumerated() {
      let source = feed.source
      let counts = countsOf(1 + folders.count + index)
      let health = try? await repository.health(of: source)
      let id = feed.id
      html += "<li class=\"source\(health?.lastError != nil ? " failing" : "")\">"
      html += "<a href=\"/articles?unread=1&amp;source=\(id)\">" + WebPage.text(NewsQuery.shown(source.name)) + "</a>"
      html += " <span class=\"count\" title=\"unread of \(counts.total)\">\(counts.unread)</span>"
      if !source.folder.isEmpty {
        html += " <span class=\"folder\">" + WebPage.text(source.folder.joined(separator: " / ")) + "</span>"
      }
      html += "<div class=\"health\">"
      if let fetched = health?.lastFetched {
        html += "<span class=\"age\">fetched <time datetime=\"\(WebPage.timestamp(fetched))\">"
        html += WebPage.text(WebPage.age(of: fetched, now: now)) + "</time></span>"
      } else {
        html += "<span class=\"age\">never fetched</span>"
      }
      if let error = health?.lastError {
        html += " <span class=\"error\">last error"
        if let at = health?.lastErrorAt { html += " " + WebPage.text(WebPage.age(of: at, now: now)) }
        html += ": " + WebPage.text(error) + "</span>"
      }
      html += "</div></li>"
    }
    html += "</ul>"
    return WebPage(title: "News", main: html, kind: "home", csrfToken: session.csrfToken).response()
  }

  // MARK: Lists

  /// `/articles`: one page of a list, newest first.
  func list(_ query: WebListQuery, session: WebSession) async -> ServerResponse {
    let feeds = (try? await ServedCatalog.current(library))?.feeds ?? []
    guard let (filter, heading) = query.filter(feeds: feeds) else {
      return notFound(session: session, message: "No such source or folder.")
    }
    let offset = (query.page - 1) * WebListQuery.pageSize
    let articles: [Article]
    do {
      articles = try await library.repository.read(limit: WebListQuery.pageSize + 1, offset: offset, filter: filter)
    } catch {
      return ServedFailure.answer(
        WebPage(
          title: "Error", main: "<h1>Error</h1><p>\(WebPage.text(ServedFailure.message(error)))</p>", kind: "error",
          csrfToken: session.csrfToken
        ).response(status: ServedFailure.status(of: error)), to: error)
    }
    let shown = articles.prefix(WebListQuery.pageSize)
    let back = query.path()
    var html = "<h1>\(WebPage.text(heading))</h1>\n<p class=\"filters\">"
    var other = query
    other.page = 1
    other.unreadOnly.toggle()
    html += "<a href=\"\(WebPage.attribute(other.path()))\">\(query.unreadOnly ? "Show all" : "Only unread")</a></p>\n"
    // Mark every article of this list read (all its pages) up to the newest the list had when the page was drawn,
    // as the Reader API's `ts` bounds mark-all-as-read: an article a refresh adds after is not marked unseen. A
    // form, so it works with JavaScript off; none on a page with no article (it would mark what is not shown).
    let newest = query.page == 1 ? shown.first : (try? await library.repository.read(limit: 1, filter: filter))?.first
    if !shown.isEmpty, let newest {
      html += "<form class=\"mark-all\" method=\"post\" action=\"/articles/read\">"
      html += "<input type=\"hidden\" name=\"csrf\" value=\"\(WebPage.attribute(session.csrfToken))\">"
      for part in query.context.split(separator: "&") {
        let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
        guard pair.count == 2 else { continue }
        html += "<input type=\"hidden\" name=\"\(WebPage.attribute(pair[0]))\" value=\"\(WebPage.attribute(pair[1]))\">"
      }
      let upTo = Timestamp(newest.publishedAt).millisecondsSince1970
      html += "<input type=\"hidden\" name=\"upto\" value=\"\(upTo)\">"
      html += "<button type=\"submit\">Mark all read</button></form>\n"
    }
    if shown.isEmpty { html += "<p class=\"empty\">No articles.</p>\n" }
    html += "<ol class=\"entries\">"
    let ids = await servedIDs(of: Array(shown))
    for (index, article) in shown.enumerated() {
      let context = "ctx=\(WebPage.query(query.context))&i=\(offset + index)"
      html += entry(
        article, id: ids[article.url.absoluteString], link: "?" + context, snippet: nil, back: back,
        session: session)
    }
    html += "</ol>\n<nav class=\"pager\">"
    if query.page > 1 {
      html += "<a rel=\"prev\" href=\"\(WebPage.attribute(query.path(page: query.page - 1)))\">← Newer</a> "
    }
    if articles.count > WebListQuery.pageSize {
      html += "<a rel=\"next\" href=\"\(WebPage.attribute(query.path(page: query.page + 1)))\">Older →</a>"
    }
    html += "</nav>"
    return WebPage(title: heading, main: html, kind: "list", csrfToken: session.csrfToken).response()
  }

  /// `/search?q=…`: hits of the full-text search, best first, each with its snippet.
  func search(_ request: ServerRequest, session: WebSession) async -> ServerResponse {
    let text = (request.queryValue("q") ?? "").trimmingWhiteSpace
    let unreadOnly = request.queryValue("unread") == "1"
    let page = min(max(1, Int(request.queryValue("page") ?? "") ?? 1), 10_000)
    var html = "<h1>Search</h1>\n"
    guard !text.isEmpty else {
      html += "<p class=\"empty\">Type words to look for: <code>storm ferr*</code>, <code>\"exact phrase\"</code>.</p>"
      return WebPage(title: "Search", main: html, kind: "search", csrfToken: session.csrfToken).response()
    }
    let hits: [SearchHit]
    do {
      hits = try await library.repository.search(
        text, filter: ArticleFilter(unreadOnly: unreadOnly), limit: WebListQuery.pageSize + 1,
        offset: (page - 1) * WebListQuery.pageSize)
    } catch {
      html += "<p class=\"empty\">Nothing to search for in “\(WebPage.text(text))”.</p>"
      return WebPage(title: "Search", main: html, kind: "search", csrfToken: session.csrfToken, search: text)
        .response()
    }
    let back = "/search?q=\(WebPage.query(text))" + (unreadOnly ? "&unread=1" : "") + (page > 1 ? "&page=\(page)" : "")
    html = "<h1>Search: \(WebPage.text(text))</h1>\n"
    if hits.isEmpty { html += "<p class=\"empty\">No article matches.</p>\n" }
    html += "<ol class=\"entries results\">"
    let ids = await servedIDs(of: hits.prefix(WebListQuery.pageSize).map(\.article))
    for hit in hits.prefix(WebListQuery.pageSize) {
      html += entry(
        hit.article, id: ids[hit.article.url.absoluteString], link: "", snippet: hit.snippet, back: back,
        session: session)
    }
    html += "</ol>\n<nav class=\"pager\">"
    let base = "/search?q=\(WebPage.query(text))" + (unreadOnly ? "&unread=1" : "")
    if page > 1 { html += "<a rel=\"prev\" href=\"\(WebPage.attribute(base + "&page=\(page - 1)"))\">← Better</a> " }
    if hits.count > WebListQuery.pageSize {
      html += "<a rel=\"next\" href=\"\(WebPage.attribute(base + "&page=\(page + 1)"))\">More →</a>"
    }
    html += "</nav>"
    return WebPage(title: "Search: " + text, main: html, kind: "search", csrfToken: session.csrfToken, search: text)
      .response()
  }

  /// One article of a list: its title (a link to the reader, by served id `id`; `nil`: the handle of its key, which
  /// ``find(_:)`` resolves too), source and age, a snippet, and its two buttons.
  func entry(_ article: Article, id: String?, link: String, snippet: String?, back: String, session: WebSession)
    -> String
  {
    let handle = id ?? ArticleIdentity.handle(forKey: article.url.absoluteString)
    let href = "/article/\(handle)" + link
    var classes = ["entry"]
    if !article.isRead { classes.append("unread") }
    if article.isBookmarked { classes.append("starred") }
    var html = "<li class=\"\(classes.joined(separator: " "))\" data-handle=\"\(handle)\">"
    html += "<a class=\"title\" href=\"\(WebPage.attribute(href))\">\(WebPage.text(article.title))</a>"
    html += "<div class=\"meta\">" + meta(article) + "</div>"
    if let snippet {
      var escaped = WebPage.text(snippet.replacingOccurrences(of: "\n", with: " "))
      escaped = escaped.replacingOccurrences(of: SearchHit.highlightStart, with: "<mark>")
        .replacingOccurrences(of: SearchHit.highlightEnd, with: "</mark>")
      html += "<p class=\"snippet\">\(balancedMarks(escaped))</p>"
    }
    html += actions(article, handle: handle, back: back, session: session)
    return html + "</li>"
  }

  /// `html` with a `<mark>` the snippet left open closed (a match cut by the ellipsis).
  private func balancedMarks(_ html: String) -> String {
    let opened = html.components(separatedBy: "<mark>").count - 1
    let closed = html.components(separatedBy: "</mark>").count - 1
    return html + String(repeating: "</mark>", count: max(0, opened - closed))
  }

  /// The source, author and age of an article.
  func meta(_ article: Article) -> String {
    var parts: [String] = []
    if let source = article.sourceName ?? article.source.map(NewsQuery.shown) {
      parts.append("<span class=\"source\">\(WebPage.text(source))</span>")
    }
    if let author = article.author, !author.isEmpty {
      parts.append("<span class=\"author\">\(WebPage.text(author))</span>")
    }
    parts.append(
      "<time datetime=\"\(WebPage.timestamp(article.publishedAt))\">"
        + WebPage.text(WebPage.age(of: article.publishedAt, now: library.now())) + "</time>")
    return parts.joined(separator: " · ")
  }

  /// The read and star buttons: forms that post with the CSRF token and work without JavaScript; the script
  /// sends them with `fetch` and changes the page in place.
  func actions(_ article: Article, handle: String, back: String, session: WebSession) -> String {
    func form(_ action: String, on: Bool, label: String, key: String) -> String {
      "<form class=\"toggle \(action)\" method=\"post\" action=\"/article/\(handle)/\(action)\">"
        + "<input type=\"hidden\" name=\"csrf\" value=\"\(WebPage.attribute(session.csrfToken))\">"
        + "<input type=\"hidden\" name=\"\(action)\" value=\"\(on ? "1" : "0")\">"
        + "<input type=\"hidden\" name=\"back\" value=\"\(WebPage.attribute(back))\">"
        + "<button type=\"submit\" data-key=\"\(key)\">\(label)</button></form>"
    }
    return "<div class=\"actions\">"
      + form("read", on: !article.isRead, label: article.isRead ? "Mark unread" : "Mark read", key: "m")
      + form("star", on: !article.isBookmarked, label: article.isBookmarked ? "Unstar" : "Star", key: "s")
      + "</div>"
  }

  // MARK: The article

  /// `/article/{id}`: the readable article (`id`: its served id, or the handle of its key, ``find(_:)``).
  func article(_ id: String, request: ServerRequest, session: WebSession) async -> ServerResponse {
    guard let (article, handle) = await find(id) else {
      return notFound(session: session, message: "No such article.")
    }
    let content = await library.sanitizedContent(of: article)
    let lead = await ServedImages.leadImage(of: article, in: library.repository)
    let back = request.path + (request.query.isEmpty ? "" : "?" + Self.queryString(request.query))
    var classes = ["entry", "reader"]
    if !article.isRead { classes.append("unread") }
    if article.isBookmarked { classes.append("starred") }
    var html = "<article class=\"\(classes.joined(separator: " "))\" data-handle=\"\(handle)\">"
    html += "<h1>\(WebPage.text(article.title))</h1>"
    html += "<div class=\"meta\">" + meta(article)
    if let link = article.displayURL, link.isWebURL {
      html += " · <a id=\"original\" href=\"\(WebPage.attribute(link.absoluteString))\" rel=\"noopener noreferrer\">"
      html += "Original</a>"
    }
    html += "</div>" + actions(article, handle: handle, back: back, session: session)
    if let lead, !content.contains(lead) {
      html += "<img class=\"lead\" src=\"\(WebPage.attribute(lead))\" alt=\"\">"
    }
    html += "<div class=\"content\">\(content.isEmpty ? "<p class=\"empty\">No text stored.</p>" : content)</div>"
    html += "</article>\n" + (await neighbours(of: article, request: request))
    return WebPage(title: article.title, main: html, kind: "article", csrfToken: session.csrfToken).response()
  }

  /// The previous and next articles of the list the article was opened from (`ctx`, `i`), as links.
  private func neighbours(of article: Article, request: ServerRequest) async -> String {
    guard let context = request.queryValue("ctx"), let index = request.queryValue("i").flatMap(Int.init), index >= 0,
      index < 10_000_000
    else { return "<nav class=\"pager\"><a href=\"/articles\">All articles</a></nav>" }
    let query = WebListQuery(ServerRequest.formPairs(context))
    let feeds = (try? await ServedCatalog.current(library))?.feeds ?? []
    guard let (filter, heading) = query.filter(feeds: feeds),
      let window = try? await library.repository.read(limit: 3, offset: max(0, index - 1), filter: filter)
    else { return "" }
    let key = article.url.absoluteString
    let ids = await servedIDs(of: window)
    var previous: (Article, Int)?
    var next: (Article, Int)?
    let first = max(0, index - 1)
    if let here = window.firstIndex(where: { $0.url.absoluteString == key }) {
      if here > 0 { previous = (window[here - 1], first + here - 1) }
      if here + 1 < window.count { next = (window[here + 1], first + here + 1) }
    } else {
      // The article left the list (marked read in an unread list): its place holds the next one.
      if index > 0, let before = window.first { previous = (before, index - 1) }
      if let after = window.dropFirst(index > 0 ? 1 : 0).first { next = (after, index) }
    }
    func link(_ target: (Article, Int), rel: String, label: String) -> String {
      let id = ids[target.0.url.absoluteString] ?? ArticleIdentity.handle(forKey: target.0.url.absoluteString)
      let href = "/article/\(id)?ctx=\(WebPage.query(context))&i=\(target.1)"
      return "<a rel=\"\(rel)\" href=\"\(WebPage.attribute(href))\" title=\"\(WebPage.attribute(target.0.title))\">"
        + label + "</a> "
    }
    var html = "<nav class=\"pager\">"
    if let previous { html += link(previous, rel: "prev", label: "← Newer") }
    html += "<a rel=\"up\" href=\"\(WebPage.attribute(query.path()))\">\(WebPage.text(heading))</a> "
    if let next { html += link(next, rel: "next", label: "Older →") }
    return html + "</nav>"
  }

  /// Query arguments written back as a query string.
  static func queryString(_ query: [(name: String, value: String)]) -> String {
    query.map { WebPage.query($0.name) + "=" + WebPage.query($0.value) }.joined(separator: "&")
  }
}
