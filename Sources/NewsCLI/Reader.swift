import Foundation
import NewsTerminal
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// The screens of `news read` and what a key does on them, without a terminal: keys in, ``Action``s (what the
/// command asks the repository or the system to do) and screen lines out. ``ReadCommand`` runs it on a
/// ``Terminal``; tests run it on a size of their choice.
///
/// Three screens, as in newsboat: the sources (each folder and source with its unread and total counts), a list of
/// articles (a source's, a folder's, every article, or a search's hits: newest first, unread marked `N`, bookmarks
/// `!`), and an article (rendered as `news show` renders it, scrollable). Help (`?`) covers any of them.
struct Reader {
  /// A row of the source list.
  struct SourceRow: Equatable {
    var title: String
    /// 0 for "All articles" and top-level folders and sources; 1 for a source inside a folder.
    var depth: Int
    var filter: ArticleFilter
    var isFolder: Bool
    var counts: ArticleCounts?
    /// What a reload of this row refreshes: the source, a folder's sources, every source for "All articles".
    var reloads: ReaderReload.Selection = .all
    /// A source's health (its last good fetch and last error since), read with the counts; `nil` for folders.
    var health: SourceHealth? = nil
    /// A folder row's folder, as the configuration writes it (`Tech/Swift`): what is saved of a collapsed folder
    /// between runs (``collapsedFolders``); `nil` for other rows.
    var folder: String? = nil
  }

  enum Screen: Equatable { case sources, articles, article, help }

  /// What the command does for the reader.
  enum Action: Equatable {
    /// Observe this list (``NewsRepository/observe(_:limit:)``) and hand each version to ``setArticles(_:)``.
    case observe(ArticleFilter)
    /// Run this search and hand the hits to ``setArticles(_:)``.
    case search(String)
    case markRead(Article, Bool)
    case bookmark(Article, Bool)
    /// Mark every article of this list read (`A`), its title for the status line.
    case markAllRead(ArticleFilter, title: String)
    /// Refresh these configured sources in the background (`r`: the row's or list's; `R`: every source).
    case reload(ReaderReload.Selection)
    case openLink(Article)
    case quit
  }

  var sources: [SourceRow]
  var screens: [Screen]
  /// The selected row, an index of ``sources`` (always a shown one: never inside a collapsed folder).
  var sourceSelection = 0
  /// The folder rows (indices of ``sources``) collapsed on the sources screen: their sources and folders are hidden,
  /// their own counts (every source inside) stay on their row. Kept while the reader runs.
  var collapsed: Set<Int> = []
  /// The first shown row on the screen, a position in ``shownSources``.
  var sourceTop = 0
  var listTitle = ""
  /// The counts of every article of the open list's filter, read or not (not only those the list holds: it holds
  /// the newest ``ReadCommand/listLimit``), read with its rows in one transaction
  /// (``NewsRepository/observeCounted(_:limit:fields:)``), so that the title never disagrees with the rows; `nil`
  /// for a search's hits and until the list is read.
  var listCounts: ArticleCounts?
  var listFilter: ArticleFilter?
  /// The list a search was started from (`/` on a list or an article): `q` on the results goes back to it, as
  /// newsboat's search results close onto the list they were searched from. `nil` when the search began on the
  /// sources screen.
  var listBeforeSearch: SavedList?

  /// A list's place, kept while a search's results are shown.
  struct SavedList: Equatable {
    var title: String
    var filter: ArticleFilter
    var reloads: ReaderReload.Selection
    var selection: Int
    var top: Int
  }
  /// The sources a reload of the open list refreshes (``SourceRow/reloads`` of the row it was opened from).
  var listReloads: ReaderReload.Selection = .all
  /// The progress of a reload running in the background ("reloading 3 of 12 sources"); `nil` when none runs.
  var reloading: String?
  var articles: [Article] = []
  /// Whether the open list's articles have been read (observed or searched) at least once: until then its screen
  /// says "loading…", not "no articles".
  var listLoaded = false
  var articleSelection = 0
  var listTop = 0
  /// The article open on the article screen.
  var open: Article?
  /// The images of the open article (its lead image and the whole text's, with their offline files), listed under it
  /// as `news show` lists them; read by the command when an article opens (``setImages(_:of:)``).
  var openImages: [ShowCommand.ShownImage] = []
  /// What a mapping's relationships link the open article to (``NewsRepository/relatedRecords(ofArticleKey:)``).
  var openRelated: [RelatedRecords] = []
  var articleTop = 0
  /// The search being typed after `/`; `nil` when none.
  var prompt: String?
  /// A note on the status line until the next key.
  var message: String?
  /// A question on the status line (`A`'s: mark so many articles read?) and what `y` does; any other key cancels.
  /// newsboat asks the same by default (`confirm-mark-feed-read`, `confirm-mark-all-feeds-read`).
  var confirming: (question: String, actions: [Action])?
  /// Only unread articles in the lists (`--unread`).
  var unreadOnly: Bool
  var readOnlyNote: String?
  var now: Date

  /// The laid-out rows of the list's screen: for this version of the list, width and first row (``listTop``).
  private var listLinesCache: (version: Int, width: Int, rows: Range<Int>, lines: [String])?
  private var listVersion = 0
  private var articleLinesCache: (article: Article, width: Int, images: Int, related: Int, lines: [String])?

  init(
    sources: [SourceRow],
    startingList: (title: String, filter: ArticleFilter, reloads: ReaderReload.Selection)? = nil,
    unreadOnly: Bool, now: Date
  ) {
    self.sources = sources
    self.unreadOnly = unreadOnly
    self.now = now
    screens = [.sources]
    if let startingList {
      screens = [.articles]
      listTitle = startingList.title
      listFilter = startingList.filter
      listReloads = startingList.reloads
    }
  }

  var screen: Screen { screens.last ?? .sources }

  /// The actions to take before the first key: observe the starting list, when the reader starts on one.
  var initialActions: [Action] {
    screen == .articles ? listFilter.map { [.observe($0)] } ?? [] : []
  }

  // MARK: Data in

  /// A new version of the open list (observed, with the `counts` read with it; or a search's hits, without): the
  /// selection stays on the same article when it is still there.
  mutating func setArticles(_ list: [Article], counts: ArticleCounts? = nil) {
    let selected = articles.indices.contains(articleSelection) ? articles[articleSelection].url : nil
    articles = list
    listCounts = counts
    listLoaded = true
    listVersion += 1
    if let selected, let index = list.firstIndex(where: { $0.url == selected }) {
      articleSelection = index
    } else {
      articleSelection = min(articleSelection, max(0, list.count - 1))
    }
    // The open article keeps its whole text (a list holds only what it shows: ``ArticleFields/listing``); its read
    // mark and bookmark follow the list's. The command reads it whole again (``setWhole(_:)``).
    if var current = open, let fresh = list.first(where: { $0.url == current.url }) {
      current.isRead = fresh.isRead
      current.bookmarkedAt = fresh.bookmarkedAt
      open = current
    }
  }

  /// The open article read whole (its summary, content and whole text), when it is still the open one.
  mutating func setWhole(_ article: Article) {
    guard open?.url == article.url else { return }
    open = article
  }

  /// New counts for the source rows, in their order.
  mutating func setCounts(_ counts: [ArticleCounts?]) {
    for (index, value) in counts.enumerated() where sources.indices.contains(index) { sources[index].counts = value }
  }

  /// The images of the article `url` and the records it links to, when it is still the open one.
  mutating func setImages(_ images: [ShowCommand.ShownImage], related: [RelatedRecords] = [], of url: URL) {
    guard open?.url == url else { return }
    openImages = images
    openRelated = related
  }

  /// New healths for the source rows, in their order.
  mutating func setHealth(_ health: [SourceHealth?]) {
    for (index, value) in health.enumerated() where sources.indices.contains(index) { sources[index].health = value }
  }

  /// The article `url` changed here (marked read, bookmarked): shown at once, before the observed list says so.
  mutating func update(_ url: URL, _ change: (inout Article) -> Void) {
    if let index = articles.firstIndex(where: { $0.url == url }) {
      change(&articles[index])
      listVersion += 1
    }
    if open?.url == url, var article = open {
      change(&article)
      open = article
    }
  }

  // MARK: Keys

  /// What `key` does on the current screen, `height` lines tall; the actions for the command to take.
  mutating func handle(_ key: Terminal.Key, height: Int) -> [Action] {
    message = nil
    if let pending = confirming {
      confirming = nil
      if key == .character("y") || key == .character("Y") { return pending.actions }
      message = "nothing marked"
      return []
    }
    if prompt != nil { return handlePrompt(key) }
    if screen == .help {
      screens.removeLast()
      return []
    }
    let page = max(1, height - 2)
    switch key {
    case .left where screen == .sources && sources.indices.contains(sourceSelection):
      // ← on the sources screen moves out in the tree, never quits: an open folder collapses; a source or a closed
      // folder inside a folder collapses that folder and selects it; at the top level nothing happens (q quits).
      if sources[sourceSelection].isFolder, !collapsed.contains(sourceSelection) {
        collapsed.insert(sourceSelection)
      } else if let folder = folderRow(of: sourceSelection) {
        collapsed.insert(folder)
        sourceSelection = folder
      }
      return []
    case .character("q"), .escape, .left:
      return back()
    case .character("?"):
      screens.append(.help)
      return []
    case .character("/"):
      prompt = ""
      return []
    case .character("R"):
      return [.reload(.all)]
    default: break
    }
    switch screen {
    case .sources: return handleSources(key, page: page)
    case .articles: return handleList(key, page: page)
    case .article: return handleArticle(key, page: page)
    case .help: return []
    }
  }

  private mutating func back() -> [Action] {
    if screens.count <= 1 { return [.quit] }
    if screens.last == .articles, listFilter == nil, let saved = listBeforeSearch {
      // The search's results close onto the list it was started from, where it was.
      listBeforeSearch = nil
      listTitle = saved.title
      listCounts = nil
      listFilter = saved.filter
      listReloads = saved.reloads
      articles = []
      listLoaded = false
      articleSelection = saved.selection
      listTop = saved.top
      return [.observe(saved.filter)]
    }
    let left = screens.removeLast()
    if left == .article { open = nil }
    if left == .articles { articles = [] }
    return []
  }

  private mutating func handlePrompt(_ key: Terminal.Key) -> [Action] {
    guard let typed = prompt else { return [] }
    switch key {
    case .escape:
      prompt = nil
    case .backspace, .delete:
      prompt = String(typed.dropLast())
    case .enter:
      prompt = nil
      let text = typed.trimmingWhiteSpace
      guard !text.isEmpty else { return [] }
      guard (try? SearchQuery(text)) != nil else {
        message = "nothing to search for in \"\(OutputFormat.sanitized(text, collapsingWhitespace: true))\""
        return []
      }
      if screen == .article { screens.removeLast() }
      if screen == .articles {
        // A list's place is kept for `q` (a search from the results replaces them, keeping the list before).
        if let filter = listFilter {
          listBeforeSearch = SavedList(
            title: listTitle, filter: filter, reloads: listReloads, selection: articleSelection, top: listTop)
        }
        screens.removeLast()
      }
      screens.append(.articles)
      listTitle = "Search: " + OutputFormat.sanitized(text, collapsingWhitespace: true)
      listCounts = nil
      listFilter = nil
      listReloads = .all
      articles = []
      listLoaded = false
      articleSelection = 0
      listTop = 0
      return [.search(text)]
    case .character(let character):
      if !character.isNewline { prompt = typed + String(character) }
    default: break
    }
    return []
  }

  private mutating func handleSources(_ key: Terminal.Key, page: Int) -> [Action] {
    guard sources.indices.contains(sourceSelection) else { return [] }
    let row = sources[sourceSelection]
    switch key {
    case .right where row.isFolder && collapsed.contains(sourceSelection):
      collapsed.remove(sourceSelection)
    case .character("+"):
      guard row.isFolder else {
        message = "+ expands a folder"
        return []
      }
      collapsed.remove(sourceSelection)
    case .character("-"):
      // On a source inside a folder: its folder collapses, and the selection goes to the folder's row.
      // On a folder collapsed already: the folder it is in (as ← does).
      let own = row.isFolder && !collapsed.contains(sourceSelection) ? sourceSelection : nil
      guard let folder = own ?? folderRow(of: sourceSelection) else {
        message = "- collapses a folder (this source is in none)"
        return []
      }
      collapsed.insert(folder)
      sourceSelection = folder
    case .enter, .right, .character("l"):
      screens.append(.articles)
      listTitle = row.title
      listCounts = nil  // read with the rows
      var filter = row.filter
      if unreadOnly { filter.unreadOnly = true }
      listFilter = filter
      listReloads = row.reloads
      articles = []
      listLoaded = false
      articleSelection = 0
      listTop = 0
      return [.observe(filter)]
    case .character("r"):
      return [.reload(row.reloads)]
    case .character("A"):
      confirm(markingRead: row.filter, title: row.title, unread: row.counts?.unread)
    default:
      let shown = shownSources
      let position = shown.firstIndex(of: sourceSelection) ?? 0
      let moved = move(position, key, count: shown.count, page: page)
      if shown.indices.contains(moved) { sourceSelection = shown[moved] }
    }
    return []
  }

  /// Asks, on the status line, before `A` marks `filter`'s articles read (`unread` of them, when known).
  private mutating func confirm(markingRead filter: ArticleFilter, title: String, unread: Int?) {
    let count = unread.map { " (\($0) unread)" } ?? ""
    confirming = ("mark every article of \(title)\(count) read? y/n", [.markAllRead(filter, title: title)])
  }

  /// The folders collapsed (``SourceRow/folder`` of the rows in ``collapsed``), sorted: what `news read` saves when
  /// it ends and collapses again at its next start (``collapse(folders:)``).
  var collapsedFolders: [String] {
    collapsed.compactMap { sources.indices.contains($0) ? sources[$0].folder : nil }.sorted()
  }

  /// Collapses the folder rows whose folder is one of `folders` (those saved by the last run); folders no longer
  /// configured are ignored. The selection stays where it is when it is still shown, else goes to the first row.
  mutating func collapse(folders: [String]) {
    let names = Set(folders)
    collapsed = Set(sources.indices.filter { sources[$0].isFolder && sources[$0].folder.map(names.contains) == true })
    if !shownSources.contains(sourceSelection) { sourceSelection = 0 }
  }

  /// New source rows for the same sources, some renamed (`renamed`: old name → new name; a reload named an untitled
  /// subscription after its feed): the collapsed folders stay collapsed, and the selection stays on the row of the
  /// same source, under its new name. An open list of a renamed source takes its new title, reload and filter (the
  /// articles are saved under the new name), and the returned action observes it again. Counts and health come
  /// with the next ``setCounts(_:)``.
  mutating func replaceSources(_ rows: [SourceRow], renamed: [String: String]) -> [Action] {
    func moved(_ selection: ReaderReload.Selection) -> ReaderReload.Selection {
      if case .source(let name) = selection, let new = renamed[name] { .source(new) } else { selection }
    }
    let folders = collapsedFolders
    let wanted = sources.indices.contains(sourceSelection) ? moved(sources[sourceSelection].reloads) : nil
    sources = rows
    if let wanted, let index = rows.firstIndex(where: { $0.reloads == wanted }) {
      sourceSelection = index
    } else {
      sourceSelection = min(sourceSelection, max(0, rows.count - 1))
    }
    collapse(folders: folders)
    guard screens.contains(.articles), listFilter != nil, moved(listReloads) != listReloads,
      let row = rows.first(where: { $0.reloads == moved(listReloads) })
    else { return [] }
    listTitle = row.title
    listReloads = row.reloads
    var filter = row.filter
    if unreadOnly { filter.unreadOnly = true }
    listFilter = filter
    return [.observe(filter)]
  }

  /// The rows of ``sources`` shown on the sources screen, in order: every row but those inside a collapsed folder.
  var shownSources: [Int] {
    var shown: [Int] = []
    var hiddenBelow: Int?  // the depth of the collapsed folder whose rows are being skipped
    for (index, row) in sources.enumerated() {
      if let depth = hiddenBelow {
        if row.depth > depth { continue }
        hiddenBelow = nil
      }
      shown.append(index)
      if row.isFolder && collapsed.contains(index) { hiddenBelow = row.depth }
    }
    return shown
  }

  /// The row of the folder the row `index` is directly in: the nearest folder row above it, one level out.
  private func folderRow(of index: Int) -> Int? {
    let depth = sources[index].depth
    guard depth > 0 else { return nil }
    return sources.indices.prefix(index).last { sources[$0].isFolder && sources[$0].depth == depth - 1 }
  }

  private mutating func handleList(_ key: Terminal.Key, page: Int) -> [Action] {
    let selected = articles.indices.contains(articleSelection) ? articles[articleSelection] : nil
    switch key {
    case .enter, .right, .character("l"):
      guard let selected else { return [] }
      return openArticle(selected)
    case .character("N"), .character("m"):
      guard let selected else { return [] }
      return [.markRead(selected, !selected.isRead)]
    case .character("b"), .character("s"):
      guard let selected else { return [] }
      return [.bookmark(selected, !selected.isBookmarked)]
    case .character("o"):
      guard let selected else { return [] }
      return [.openLink(selected)]
    case .character("n"), .character("p"):
      let forward = key == .character("n")
      guard let index = unread(from: articleSelection, forward: forward) else {
        message = forward ? "no unread article below" : "no unread article above"
        return []
      }
      articleSelection = index
    case .character("J"):
      articleSelection = min(articleSelection + 1, max(0, articles.count - 1))
    case .character("K"):
      articleSelection = max(articleSelection - 1, 0)
    case .character("r"):
      return [.reload(listReloads)]
    case .character("A"):
      guard let listFilter else {
        message = "A marks a source's or folder's articles read, not a search's"
        return []
      }
      // Up to the newest article the list shows, not those a refresh added since (as the web reader's `upto`).
      var shown = listFilter
      if let newest = articles.map(\.publishedAt).max() {
        let bound = Timestamp(millisecondsSince1970: Timestamp(newest).millisecondsSince1970 + 1).date
        shown.publishedBefore = min(shown.publishedBefore ?? bound, bound)
      }
      confirm(markingRead: shown, title: listTitle, unread: articles.filter { !$0.isRead }.count)
    default:
      articleSelection = move(articleSelection, key, count: articles.count, page: page)
    }
    return []
  }

  private mutating func openArticle(_ article: Article) -> [Action] {
    if screen != .article { screens.append(.article) }
    if open?.url != article.url {
      openImages = []
      openRelated = []
    }
    open = article
    articleTop = 0
    if let index = articles.firstIndex(where: { $0.url == article.url }) { articleSelection = index }
    // Opening marks read, as `news show` does.
    guard !article.isRead else { return [] }
    return [.markRead(article, true)]
  }

  /// The first unread article after (or before) `index`, in list order.
  private func unread(from index: Int, forward: Bool) -> Int? {
    let candidates = forward ? Array(articles.indices.dropFirst(index + 1)) : articles.indices.prefix(index).reversed()
    return candidates.first { !articles[$0].isRead }
  }

  private mutating func handleArticle(_ key: Terminal.Key, page: Int) -> [Action] {
    guard let article = open else { return back() }
    let current = articles.firstIndex(where: { $0.url == article.url }) ?? articleSelection
    switch key {
    case .character("n"), .character("p"):
      let forward = key == .character("n")
      guard let next = unread(from: current, forward: forward) else {
        message = forward ? "no next unread article" : "no previous unread article"
        return []
      }
      return openArticle(articles[next])
    case .character("J"), .character("K"):
      let next = key == .character("J") ? current + 1 : current - 1
      guard articles.indices.contains(next) else {
        message = key == .character("J") ? "no next article" : "no previous article"
        return []
      }
      return openArticle(articles[next])
    case .character("r"):
      return [.reload(listReloads)]
    case .character("N"), .character("m"):
      return [.markRead(article, !article.isRead)]
    case .character("b"), .character("s"):
      return [.bookmark(article, !article.isBookmarked)]
    case .character("o"):
      return [.openLink(article)]
    case .down, .character("j"): articleTop += 1
    case .up, .character("k"): articleTop -= 1
    case .pageDown, .character(" "), .character("f"): articleTop += page
    case .pageUp, .character("B"): articleTop -= page
    case .home, .character("g"): articleTop = 0
    case .end, .character("G"): articleTop = Int.max / 2
    default: break
    }
    articleTop = max(0, articleTop)
    return []
  }

  private func move(_ index: Int, _ key: Terminal.Key, count: Int, page: Int) -> Int {
    let last = max(0, count - 1)
    switch key {
    case .down, .character("j"): return min(index + 1, last)
    case .up, .character("k"): return max(index - 1, 0)
    case .pageDown, .character(" "): return min(index + page, last)
    case .pageUp: return max(index - page, 0)
    case .home, .character("g"): return 0
    case .end, .character("G"): return last
    default: return index
    }
  }

  // MARK: Lines out

  /// The screen, `height` lines of at most `width` columns: a title bar, the screen's rows, a status line.
  mutating func lines(height: Int, width: Int) -> [Terminal.Line] {
    guard height >= 3, width >= 10 else { return [Terminal.Line(Self.fit("news read", width))] }
    let body = height - 2
    var lines: [Terminal.Line] = []
    switch screen {
    case .sources:
      lines.append(bar("news read — sources" + totalNote))
      lines += sourceLines(body, width)
    case .articles:
      lines.append(bar("news read — " + listTitle + listHeadingCounts))
      lines += listLines(body, width)
    case .article:
      let position =
        open.flatMap { current in articles.firstIndex { $0.url == current.url } }.map {
          " (\($0 + 1) of \(articles.count))"
        }
        ?? ""
      lines.append(bar("news read — " + listTitle + position))
      lines += articleLines(body, width)
    case .help:
      // The keys of the screen under the help (ReaderKey's table, as `news read --keys` and docs/CLI.md list them).
      let under = screens.dropLast().last ?? .sources
      lines.append(
        bar(
          "news read — keys "
            + (under == .sources ? "on the sources" : under == .articles ? "on a list" : "on the article")))
      // Wrapped to the width; on a screen too short for them all, the last row says where the rest are.
      let keys = ReaderKey.lines(on: under, width: width)
      let shown =
        keys.count <= body
        ? keys : keys.prefix(body - 1) + ["  … \(keys.count - body + 1) more lines: news read --keys"]
      lines += shown.map { Terminal.Line(Self.fit($0, width)) }
    }
    while lines.count < height - 1 { lines.append(Terminal.Line("")) }
    lines.append(statusLine(width))
    return lines

    func bar(_ text: String) -> Terminal.Line {
      Terminal.Line(Self.fit(text, width), style: [.reverse, .bold])
    }
  }

  private var unreadCount: Int { articles.reduce(0) { $0 + ($1.isRead ? 0 : 1) } }

  /// ` (120 articles, 7 unread)`; when the row has more than the list holds, how many of them it shows:
  /// ` (newest 2000 of 17713 articles, 1991 unread; / searches them all)`.
  private var listHeadingCounts: String {
    let unreadList = listFilter?.unreadOnly == true
    if listLoaded, let counts = listCounts, case let all = unreadList ? counts.unread : counts.total,
      all > articles.count
    {
      return " (newest \(articles.count) of \(all)\(unreadList ? " unread" : "") articles, \(counts.unread) unread; "
        + "/ searches them all)"
    }
    return " (\(articles.count) articles, \(unreadCount) unread)"
  }

  private var totalNote: String {
    guard let all = sources.first?.counts else { return "" }
    return " (\(all.unread) unread of \(all.total))"
  }

  private func statusLine(_ width: Int) -> Terminal.Line {
    if let prompt { return Terminal.Line(Self.fit("/" + prompt + "▏", width)) }
    if let confirming { return Terminal.Line(Self.fit(confirming.question, width), style: .bold) }
    if let message { return Terminal.Line(Self.fit(message, width), style: .bold) }
    if let reloading { return Terminal.Line(Self.fit(reloading, width), style: .bold) }
    if screen == .sources, sources.indices.contains(sourceSelection), let health = sources[sourceSelection].health,
      let error = health.lastError
    {
      let when = health.lastErrorAt.map { " " + OutputFormat.relative($0, now: now) } ?? ""
      return Terminal.Line(Self.fit("last error\(when): " + error, width), style: .bold)
    }
    if let readOnlyNote, screen != .help { return Terminal.Line(Self.fit(readOnlyNote, width), style: .bold) }
    let keys =
      switch screen {
      case .sources: "q:Quit  ENTER:Open  -/+:Fold  r/R:Reload  A:All read  /:Search  ?:Help"
      case .articles:
        "q:Back  ENTER:Open  n/p:Unread  N:Read  s:Bookmark  A:All read  o:Browser  r/R:Reload  /:Search  ?:Help"
      case .article: "q:Back  n/p:Unread  J/K:Next/Prev  SPACE:Page  N:Read  s:Bookmark  o:Browser  ?:Help"
      case .help: "any key: back"
      }
    return Terminal.Line(Self.fit(keys, width), style: .dim)
  }

  private mutating func sourceLines(_ body: Int, _ width: Int) -> [Terminal.Line] {
    let shown = shownSources
    let position = shown.firstIndex(of: sourceSelection) ?? 0
    sourceTop = Self.scrolled(top: sourceTop, selection: position, body: body)
    let countWidth = 14
    // Each source's age (its last good fetch), `!` before it when its last refresh failed; at 40 columns and more.
    let ageWidth = width >= 40 ? 12 : 0
    return shown.dropFirst(sourceTop).prefix(body).map { index in
      let row = sources[index]
      let counts = row.counts.map { "\($0.unread)/\($0.total)" } ?? "…"
      let marker = (row.counts?.unread ?? 0) > 0 ? "N " : "  "
      let folderMark = row.isFolder ? (collapsed.contains(index) ? "▸ " : "▾ ") : ""
      let name = String(repeating: "  ", count: row.depth) + folderMark + row.title
      let nameWidth = max(1, width - countWidth - ageWidth - 3)
      var age = ""
      if ageWidth > 0, let health = row.health {
        age =
          (health.lastError != nil ? "!" : "")
          + (health.lastFetched.map { OutputFormat.relative($0, now: now) } ?? "never")
      }
      let ageColumn = ageWidth > 0 ? OutputFormat.padded(Self.fit(age, ageWidth - 1), to: ageWidth - 1) + " " : ""
      let text = marker + OutputFormat.padded(Self.fit(name, nameWidth), to: nameWidth) + " " + ageColumn + counts
      var style: Terminal.Style = (row.counts?.unread ?? 0) > 0 ? .bold : []
      if index == sourceSelection { style.insert(.reverse) }
      return Terminal.Line(Self.fit(text, width), style: style)
    }
  }

  private mutating func listLines(_ body: Int, _ width: Int) -> [Terminal.Line] {
    if articles.isEmpty {
      return [Terminal.Line(listLoaded ? "  no articles" : "  loading…", style: .dim)]
    }
    listTop = Self.scrolled(top: listTop, selection: articleSelection, body: body)
    // Only the rows on the screen are laid out (`news list`'s columns, fitted to them, as `news list` fits a page):
    // laying out the whole list (2,000 rows) was most of the time to open one (docs/PERFORMANCE.md, "news read").
    let shown = articles.indices.dropFirst(listTop).prefix(body)
    let rows: [String]
    if let cache = listLinesCache, cache.version == listVersion, cache.width == width, cache.rows == shown {
      rows = cache.lines
    } else {
      let text = OutputFormat.lines(articles[shown], now: now, width: max(20, width - 1), color: false)
      // `news list`'s two leading spaces are where the marks go.
      rows = text.split(separator: "\n", omittingEmptySubsequences: false).map {
        String($0.hasPrefix("  ") ? $0.dropFirst(2) : $0)
      }
      listLinesCache = (listVersion, width, shown, rows)
    }
    return shown.enumerated().map { offset, index in
      let article = articles[index]
      let marks = (article.isRead ? " " : "N") + (article.isBookmarked ? "!" : " ") + " "
      var style: Terminal.Style = article.isRead ? [] : .bold
      if index == articleSelection { style.insert(.reverse) }
      return Terminal.Line(Self.fit(marks + (rows.indices.contains(offset) ? rows[offset] : ""), width), style: style)
    }
  }

  private mutating func articleLines(_ body: Int, _ width: Int) -> [Terminal.Line] {
    guard let article = open else { return [] }
    let rendered: [String]
    if let cache = articleLinesCache, cache.article == article, cache.width == width,
      cache.images == openImages.count, cache.related == openRelated.count
    {
      rendered = cache.lines
    } else {
      rendered = Self.render(article, images: openImages, related: openRelated, width: width, now: now)
      articleLinesCache = (article, width, openImages.count, openRelated.count, rendered)
    }
    articleTop = min(articleTop, max(0, rendered.count - body))
    return rendered.dropFirst(articleTop).prefix(body).enumerated().map { offset, text in
      Terminal.Line(Self.fit(text, width), style: articleTop + offset == 0 ? .bold : [])
    }
  }

  /// The article's lines as `news show` renders it (``ShowCommand/render(_:images:related:fullTextNote:now:width:color:)``)
  /// for `width` columns, without colour: the reader's styles are ncurses attributes.
  static func render(
    _ article: Article, images: [ShowCommand.ShownImage] = [], related: [RelatedRecords] = [], width: Int, now: Date
  ) -> [String] {
    ShowCommand.render(article, images: images, related: related, now: now, width: max(20, width - 1), color: false)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// `text` with no control characters, cut to `width` display columns (``OutputFormat/clip(_:_:)``).
  static func fit(_ text: String, _ width: Int) -> String {
    OutputFormat.clip(OutputFormat.sanitized(text), width)
  }

  /// The first row shown so that the selection is in the `body` rows.
  static func scrolled(top: Int, selection: Int, body: Int) -> Int {
    if selection < top { return selection }
    if selection >= top + body { return selection - body + 1 }
    return max(0, top)
  }
}
