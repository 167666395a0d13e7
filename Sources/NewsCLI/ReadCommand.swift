import Foundation
import NewsTerminal
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

#if canImport(Glibc)
  import Glibc
#endif

/// `news read`: the interactive reader in the terminal (ncurses, through ``Terminal``): the sources with their
/// unread counts, a source's articles, an article — offline, on the cache, the lists updating themselves while
/// another `news fetch` saves (``NewsRepository/observe(_:limit:)``). The screens and keys are ``Reader``'s; this
/// command wires them to the repository and the terminal.
struct ReadCommand: NewsCommand {
  static let name = "read"
  static let summary = "Read the cache interactively in the terminal: sources, articles, the article (newsboat-like)."
  static let groups: [(options: [Option], required: Bool)] = [([.source, .folder], false)]
  static let details = """
    Opens on the sources (every configured source and folder, with unread and total counts; "All articles" first;
    the files imported and URLs fetched once, as news sources lists them, last),
    or on one source's or folder's articles with --source or --folder. The lists are newest first, unread marked N,
    bookmarks !, and update themselves while open (another shell's news fetch or mark-read shows at once).
    Keys (newsboat's): j/k move, ENTER opens, q goes back, n next unread, r/R reload in the background, A all
    read, s bookmark, / search, - and + collapse and expand a folder; every key: news read --keys, or ? in the
    reader. The screen is redrawn when the terminal is resized; the terminal is given back on q, Ctrl-C, SIGTERM
    and errors. Reading never waits for the network.
    On a store the user may only read, the reader opens and says that read marks are not saved.
    Exit status: 0 quit, 64 not a terminal (standard input and output must be one) or an unknown folder, 66 no
    database at the path (nothing is created), 74 storage error, 78 the terminal type (TERM) is unknown or
    ncurses cannot be loaded, 130 Ctrl-C, 143 SIGTERM or SIGHUP.
    """

  static let storeOptions = StoreOptions<Option>()

  enum Option: CommandOption {
    case source, folder, unread, keys
    var spec: OptionSpec {
      switch self {
      case .source:
        OptionSpec(
          name: "source", valueName: "NAME",
          help: "Open on this source's articles: a configured source's name, the feed, file or URL, or a publisher.")
      case .folder:
        OptionSpec(
          name: "folder", valueName: "NAME", help: "Open on the articles of the sources in this folder (\"Tech\").")
      case .unread: OptionSpec(name: "unread", help: "Only articles not marked read in the lists.")
      case .keys: OptionSpec(name: "keys", help: "Print every key of the reader, screen by screen, and exit.")
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  /// How many articles an observed list holds at most (newest first).
  static let listLimit = 2_000

  func run() async throws -> ExitCode {
    if arguments.flag(.keys) {
      context.console.out(ReaderKey.text)
      return .success
    }
    guard Terminal.isInteractive else {
      throw CommandFailure(
        .usage, "news read needs a terminal (standard input and output are not one)",
        hint: "news list and news show print the same articles")
    }
    // What is written to standard error while the screen is the reader's waits until it is given back.
    let errors = HeldErrors(through: self.context.console.err)
    var context = self.context
    context.console.err = { errors.write($0) }
    let unreadOnly = arguments.flag(.unread)
    let repository = try context.makeRepository(arguments.common, reading: true)
    var start: (title: String, filter: ArticleFilter, reloads: ReaderReload.Selection)?
    let configuration = context.configuration
    if let typed = arguments.value(.source) {
      let match = try await context.sourceMatch(typed, in: repository)
      var filter = ArticleFilter(unreadOnly: unreadOnly, source: match.source)
      filter.sourceQueries = match.queries
      let name = configuration.allSourceNames.first { $0.lowercased() == typed.lowercased() }
      start = (OutputFormat.sanitized(typed, collapsingWhitespace: true), filter, name.map { .source($0) } ?? .none)
    } else if let folder = arguments.value(.folder) {
      let filter = ArticleFilter(unreadOnly: unreadOnly, anyOfSources: try context.folderMatches(folder))
      start = (OutputFormat.sanitized(folder, collapsingWhitespace: true), filter, .folder(folder))
    }
    // Below the sources, what the cache holds from no configured source (files imported, URLs fetched once), as
    // `news sources` lists it: every article `news list` shows has a row.
    // A file's row is titled by its name first, its folder after it (a long folder is what the width cuts).
    let imported = ((try? await context.alsoCached(in: repository)) ?? []).map { cached in
      let path = cached.name as NSString
      let title =
        cached.name.hasPrefix("/")
        ? "\(path.lastPathComponent) (\(path.deletingLastPathComponent))" : NewsQuery.shown(cached.name)
      return Reader.SourceRow(
        title: OutputFormat.sanitized(title, collapsingWhitespace: true), depth: 0,
        filter: ArticleFilter(anyOfSources: [cached.match]), isFolder: false, reloads: .none)
    }
    var reader = Reader(
      sources: Self.sourceRows(context) + imported, startingList: start, unreadOnly: unreadOnly, now: context.now())
    let statePath = Self.statePath(ofDatabase: repository.databasePath)
    reader.collapse(folders: Self.savedCollapsedFolders(statePath))
    if repository.isReadOnly {
      reader.readOnlyNote = "read-only store: read marks and bookmarks are not saved"
    }
    let terminal: Terminal
    do {
      terminal = try Terminal(styles: context.console.color)
      try terminal.start()
    } catch {
      throw CommandFailure(
        .config, error.description, hint: "news list and news show print the same articles without ncurses")
    }
    errors.hold()
    defer {
      terminal.stop()
      errors.release()
    }
    // A reload is `news fetch … --json-lines` on this store and configuration (``ReaderReload``).
    var reloadArguments = ["--db", repository.databasePath]
    if let file = configuration.file { reloadArguments += ["--config", file] }
    var session = Session(
      repository: repository, terminal: terminal, reader: reader, context: context, reloadArguments: reloadArguments)
    defer { Self.saveCollapsedFolders(session.reader.collapsedFolders, statePath) }
    return try await session.run()
  }

  /// Where the reader keeps what it remembers between runs (the collapsed folders): beside the store, named after
  /// it (`news.sqlite-read.json` for `news.sqlite`), so that each store has its own; `nil` for an in-memory store.
  /// A JSON object, `{"collapsedFolders": ["Tech/Swift"]}` (folders as the configuration writes them).
  static func statePath(ofDatabase path: String) -> String? {
    guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return nil }
    return path + "-read.json"
  }

  /// The collapsed folders the last run saved; none when there is no file or it cannot be read (it is only a
  /// preference: a damaged file is replaced at the next quit).
  static func savedCollapsedFolders(_ path: String?) -> [String] {
    guard let path, let data = FileManager.default.contents(atPath: path),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let folders = object["collapsedFolders"] as? [String]
    else { return [] }
    return folders
  }

  /// Saves the collapsed folders for the next run, when they changed; a store whose folder cannot be written (a
  /// read-only store) keeps none, silently: the reader said so when it opened.
  static func saveCollapsedFolders(_ folders: [String], _ path: String?) {
    guard let path, folders != savedCollapsedFolders(path) else { return }
    guard !folders.isEmpty || FileManager.default.fileExists(atPath: path),
      let data = try? JSONSerialization.data(withJSONObject: ["collapsedFolders": folders], options: [.sortedKeys])
    else { return }
    try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
  }

  /// The health of the configured source `name` (its last fetch and last error), or `nil` when it is not one.
  static func health(of name: String, _ context: CommandContext, _ repository: NewsRepository) async -> SourceHealth? {
    let configuration = context.configuration
    if let source = configuration.sources[name] {
      return try? await repository.health(of: context.newsSource(source))
    }
    guard let sync = configuration.syncSources[name] else { return nil }
    switch sync.kind {
    case .feed(let url): return try? await repository.health(of: NewsSource(name: name, url: url))
    case .parse: return try? await repository.health(ofParseSource: name)
    }
  }

  /// "All articles", then each folder with its sources below it, then the sources in no folder.
  static func sourceRows(_ context: CommandContext) -> [Reader.SourceRow] {
    let configuration = context.configuration
    var rows = [Reader.SourceRow(title: "All articles", depth: 0, filter: .all, isFolder: false)]
    // A source's articles are those saved under its name and those of its last fetch, as `news serve` and the
    // counts select them: not another feed's whose publisher bears its name (``ArticleFilter/anyOfSources``).
    func row(_ name: String, depth: Int) -> Reader.SourceRow {
      let filter = ArticleFilter(anyOfSources: [context.sourceMatch(name)])
      // The subscription's name, as `news sources` and `--source` use it (its feed's own title is a label).
      return Reader.SourceRow(title: name, depth: depth, filter: filter, isFolder: false, reloads: .source(name))
    }
    let names = configuration.allSourceNames.sorted { $0.lowercased() < $1.lowercased() }
    // Each folder right after the folder it is in ("Tech", "Tech/Swift", then "Tech 2"), so that collapsing a
    // folder hides the rows below it up to the next row as far out.
    let folders = configuration.folders.sorted { $0.lexicographicallyPrecedes($1) }
    let index = FolderIndex(names.map { (configuration.folder(ofSource: $0), $0) })
    for folder in folders {
      let text = SubscriptionFile.folderText(folder)
      let matches = index.members(under: folder).sorted().map(context.sourceMatch)
      rows.append(
        Reader.SourceRow(
          title: folder.last ?? text, depth: folder.count - 1, filter: ArticleFilter(anyOfSources: matches),
          isFolder: true, reloads: .folder(text), folder: text))
      for name in index.members(directlyIn: folder) { rows.append(row(name, depth: folder.count)) }
    }
    for name in index.members(directlyIn: []) { rows.append(row(name, depth: 0)) }
    return rows
  }

  /// One run of the reader: the event loop over keys, signals, the observed list and the store's changes.
  struct Session {
    var repository: NewsRepository
    var terminal: Terminal
    var reader: Reader
    var context: CommandContext
    /// `--db` and `--config` of a reload's `news fetch`: this store and configuration.
    var reloadArguments: [String]

    /// What the loop waits for, from the terminal and from the repository.
    enum Event: Sendable {
      case terminal(Terminal.Event)
      /// A version of the list observed under `generation`, with its counts read with it (older generations are
      /// dropped).
      case list(CountedArticles, generation: Int)
      case listFailed(String, generation: Int)
      /// A write was committed to the store (by this process or another): the counts are read again.
      case storeChanged
      case counts([ArticleCounts?])
      case health([SourceHealth?])
      /// A reload has refreshed `done` of its `total` sources.
      case reloadProgress(done: Int, total: Int)
      /// A reload ended: what it did, for the status line.
      case reloaded(String)
    }

    /// Reads the configuration again after a reload, which may have named untitled subscriptions after their feeds
    /// (``FetchCommand``'s renaming, written to the file): the rows take the new names, and with them the filters and
    /// reloads that find the articles saved under those names; so does an open list of such a source (the actions
    /// returned observe it again). Nothing changes when the file is unchanged, gone or unreadable (the rows of the
    /// start stay).
    mutating func renameSources() -> [Reader.Action] {
      let old = context.configuration
      guard let file = old.file, let new = try? Configuration.read(path: file, environment: context.environment),
        new.allSourceNames != old.allSourceNames
      else { return [] }
      // A renamed subscription keeps its address (a feed's URL, a source's URL or file): old name → new name by it.
      func addresses(_ configuration: Configuration) -> [String: String] {
        var names: [String: String] = [:]
        for (name, source) in configuration.sources { names[source.url.absoluteString] = name }
        for (name, source) in configuration.syncSources {
          if case .feed(let url) = source.kind { names[url.absoluteString] = name }
        }
        return names
      }
      let now = addresses(new)
      var renamed: [String: String] = [:]
      for (address, name) in addresses(old) {
        if let current = now[address], current != name { renamed[name] = current }
      }
      context.configuration = new
      let imported = reader.sources.filter { $0.reloads == .none }
      return reader.replaceSources(ReadCommand.sourceRows(context) + imported, renamed: renamed)
    }

    mutating func run() async throws -> ExitCode {
      let (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
      // Keys, resizes and signals come straight from the terminal's watcher thread into this loop's stream.
      terminal.deliver { sink.yield(.terminal($0)) }
      let changes = repository.storeChanges()
      let watchStore = Task {
        for await _ in changes { sink.yield(.storeChanged) }
      }
      var observation: Task<Void, Never>?
      var generation = 0
      var reload: ReaderReload?
      // The open article's key once it has been read whole, with its images.
      var wholeOf: URL?
      defer {
        watchStore.cancel()
        observation?.cancel()
        reload?.terminate()
      }
      let repository = self.repository
      // The counts first (the first screen), then each source's health (age, last error), beside its counts.
      func countAll() {
        let rows = reader.sources.map(\.filter)
        let context = self.context
        let named = reader.sources.map { row -> String? in
          if case .source(let name) = row.reloads { name } else { nil }
        }
        Task {
          sink.yield(.counts(await Self.counts(of: rows, repository)))
          var health: [SourceHealth?] = []
          for name in named {
            health.append(name == nil ? nil : await ReadCommand.health(of: name ?? "", context, repository))
          }
          sink.yield(.health(health))
        }
      }
      // A new list to observe, or none (`nil`: a search's hits, which are read once).
      func observe(_ filter: ArticleFilter?) {
        observation?.cancel()
        generation += 1
        let current = generation
        guard let filter else { return }
        observation = Task {
          do {
            // What the list shows, not the articles' bodies: the open one is read whole (below).
            // The title's counts come from the same read as the rows (one transaction): never stale beside them.
            for try await list in repository.observeCounted(filter, limit: ReadCommand.listLimit, fields: .listing) {
              sink.yield(.list(list, generation: current))
            }
          } catch {
            sink.yield(.listFailed(Self.describe(error), generation: current))
          }
        }
      }
      // Refreshes sources in a child `news fetch` (``ReaderReload``): the lists and counts update as its saves commit
      // (observed), the status line shows its progress; one at a time.
      let reloadArguments = self.reloadArguments
      func startReload(_ selection: ReaderReload.Selection) {
        guard reload == nil else {
          reader.message = "a reload is running"
          return
        }
        let total = Self.sourceCount(of: selection, context.configuration)
        guard total > 0 else {
          reader.message = "nothing to reload: no configured source here"
          return
        }
        do {
          reload = try ReaderReload(
            selection, arguments: reloadArguments, environment: context.environment,
            progress: { done, _ in sink.yield(.reloadProgress(done: done, total: total)) },
            finished: { sink.yield(.reloaded(Self.summary($0))) })
        } catch {
          reader.message = error.description
          return
        }
        reader.reloading = "reloading \(total) source\(total == 1 ? "" : "s")…"
      }
      countAll()
      for action in reader.initialActions { try await perform(action, observe: observe) }
      draw()
      for await event in events {
        switch event {
        case .terminal(.input):
          let (lines, _) = terminal.size
          for key in terminal.readKeys() {
            for action in reader.handle(key, height: lines) {
              if action == .quit { return .success }
              if case .reload(let selection) = action {
                startReload(selection)
                continue
              }
              try await perform(action, observe: observe)
            }
          }
        case .terminal(.resize):
          terminal.resize()
        case .terminal(.interrupt(let signal)):
          return signal == SIGINT ? .interrupted : .terminated
        case .list(let list, let listGeneration):
          guard listGeneration == generation else { continue }
          reader.setArticles(list.articles, counts: list.counts)
          wholeOf = nil  // the open article may have changed too: read again
        case .listFailed(let message, let listGeneration):
          guard listGeneration == generation else { continue }
          reader.listLoaded = true
          reader.message = message
        case .storeChanged:
          countAll()
          continue
        case .counts(let counts):
          reader.setCounts(counts)
        case .health(let health):
          reader.setHealth(health)
        case .reloadProgress(let done, let total):
          reader.reloading = "reloading: \(done) of \(total) source\(total == 1 ? "" : "s") done…"
        case .reloaded(let summary):
          reload = nil
          reader.reloading = nil
          reader.message = summary
          for action in renameSources() { try await perform(action, observe: observe) }
          countAll()
        }
        reader.now = context.now()
        // An article just opened: read whole (the list holds only what it shows), with its images (and their offline
        // files) listed under it, as `news show` does.
        if let open = reader.open, open.url != wholeOf {
          wholeOf = open.url
          let key = open.url.absoluteString
          if let whole = (try? await repository.article(url: key)) ?? nil { reader.setWhole(whole) }
          let images = (try? await repository.images(of: open))?.map {
            ShowCommand.ShownImage($0, file: repository.imageFile($0))
          }
          let related = (try? await repository.relatedRecords(ofArticleKey: key)) ?? []
          reader.setImages(images ?? [], related: related, of: open.url)
        } else if reader.open == nil {
          wholeOf = nil
        }
        draw()
      }
      return .success
    }

    /// The counts of each row's filter, in order, in one statement (``NewsRepository/counts(ofGroups:)``, as
    /// `news serve` counts its feeds): a folder's sources (``ArticleFilter/anyOfSources``) or a source's, each
    /// article once, "All articles" every article. A source's articles are those saved under its name and those of
    /// its last fetch (the publisher's name, which `news list --source` also matches, is left out: no index has it,
    /// and a scan of the store for each row took 8.6 s at 100,000 articles, docs/PERFORMANCE.md). `nil` for every
    /// row when they could not be counted.
    static func counts(of rows: [ArticleFilter], _ repository: NewsRepository) async -> [ArticleCounts?] {
      let groups = rows.map { filter -> [SourceMatch]? in
        if let members = filter.anyOfSources { return members }
        return filter.source.map { [SourceMatch(source: $0, queries: filter.sourceQueries)] }
      }
      guard let counts = try? await repository.counts(ofGroups: groups) else { return rows.map { _ in nil } }
      return counts.map { ArticleCounts(total: $0.total, unread: $0.unread) }
    }

    mutating func draw() {
      let (lines, columns) = terminal.size
      terminal.draw(reader.lines(height: lines, width: columns))
    }

    /// Does what the reader asked for; a failure becomes the status line's message, never the end of the reader.
    mutating func perform(_ action: Reader.Action, observe: (ArticleFilter?) -> Void) async throws {
      let repository = self.repository
      switch action {
      case .reload:
        break  // the event loop starts reloads (startReload)
      case .markAllRead(let filter, let title):
        do {
          let count = try await repository.markRead(true, matching: filter)
          reader.message = "\(title): \(count) article\(count == 1 ? "" : "s") marked read"
        } catch {
          let readOnly = repository.readOnlyCause != nil || Self.isReadOnly(error)
          reader.message = readOnly ? "not saved: the store is read-only" : Self.describe(error)
        }
      case .observe(let filter):
        observe(filter)
      case .search(let text):
        observe(nil)  // the previous list's updates stop
        do {
          let hits = try await repository.search(text, limit: ReadCommand.listLimit)
          reader.setArticles(hits.map(\.article))
          reader.message = "\(hits.count) found"
        } catch {
          reader.listLoaded = true
          reader.message = Self.describe(error)
        }
      case .markRead(let article, let read):
        await change(article, note: read ? "marked read" : "marked unread") {
          try await repository.markRead(read, url: article.url.absoluteString)
        } apply: {
          $0.isRead = read
        }
      case .bookmark(let article, let bookmarked):
        await change(article, note: bookmarked ? "bookmarked" : "bookmark removed") {
          try await repository.bookmark(bookmarked, url: article.url.absoluteString)
        } apply: {
          $0.bookmarkedAt = bookmarked ? Date() : nil
        }
      case .openLink(let article):
        guard let link = article.displayURL else {
          reader.message = "this article " + OpenCommand.noLink(article)
          return
        }
        guard let opener = OpenCommand.opener(environment: context.environment) else {
          reader.message = "no opener (set NEWS_OPENER, or install xdg-utils): " + link.absoluteString
          return
        }
        let environment = context.environment
        let outcome = terminal.suspended { OpenCommand.spawn(opener, link.absoluteString, environment: environment) }
        // The link with the failure too, as `news open` prints it: it can be copied into a browser by hand.
        reader.message =
          outcome.failure(of: opener).map { "\($0): \(link.absoluteString)" } ?? "opened " + link.absoluteString
      case .quit:
        break
      }
    }

    /// Saves a change of local state; shows it at once when saved, says why not otherwise (a read-only store).
    private mutating func change(
      _ article: Article, note: String, _ save: () async throws -> Bool, apply: (inout Article) -> Void
    ) async {
      do {
        _ = try await save()
        reader.update(article.url, apply)
        if reader.screen != .article || note != "marked read" { reader.message = note }
      } catch {
        reader.update(article.url, apply)  // shown for this session, as `news show` shows a read-only store's article
        let readOnly = repository.readOnlyCause != nil || Self.isReadOnly(error)
        reader.message = readOnly ? "not saved: the store is read-only" : Self.describe(error)
      }
    }

    /// A reload's line: "reloaded 12 sources: 30 new, 4 updated, 1 failed (Blog: …)" (the sources in the order
    /// they finished, the first failure named), or why it refreshed nothing ("reload failed: …").
    static func summary(_ outcome: ReaderReload.Outcome) -> String {
      if let failure = outcome.failure {
        return OutputFormat.sanitized("reload failed: " + failure, collapsingWhitespace: true)
      }
      let sources = outcome.sources
      let inserted = sources.reduce(0) { $0 + $1.inserted }
      let updated = sources.reduce(0) { $0 + $1.updated }
      let failed = sources.filter {
        $0.status == SourceRefresh.Status.failed.rawValue || $0.status == SourceRefresh.Status.gone.rawValue
      }
      var text = "reloaded \(sources.count) source\(sources.count == 1 ? "" : "s"): \(inserted) new"
      if updated > 0 { text += ", \(updated) updated" }
      if let first = failed.first {
        text += ", \(failed.count) failed (\(first.source): \(first.error ?? "failed"))"
      }
      return OutputFormat.sanitized(text, collapsingWhitespace: true)
    }

    /// How many configured sources a reload of `selection` refreshes (its progress counts to it).
    static func sourceCount(of selection: ReaderReload.Selection, _ configuration: Configuration) -> Int {
      switch selection {
      case .none: 0
      case .all: configuration.allSourceNames.count
      case .folder(let folder): configuration.sourceNames(inFolder: folder)?.count ?? 0
      case .source(let name): configuration.allSourceNames.contains(name) ? 1 : 0
      }
    }

    static func isReadOnly(_ error: any Error) -> Bool {
      (error as? NewsRepositoryError).map(ShowCommand.isReadOnly) ?? false
    }

    static func describe(_ error: any Error) -> String {
      OutputFormat.sanitized(CommandFailure(error, currentDirectory: "").message, collapsingWhitespace: true)
    }
  }
}
