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
    Opens on the sources (every configured source and folder, with unread and total counts; "All articles" first),
    or on one source's or folder's articles with --source or --folder. The lists are newest first, unread marked N,
    bookmarks !, and update themselves while open (another shell's news fetch or mark-read shows at once).
    Keys: ↑/↓ or j/k move, PgUp/PgDn or SPACE page, g/G first/last, ENTER (or l, →) opens, q (or ESC, ←) goes back
    and quits on the first screen, n/p next/previous article, r marks read or unread (opening an article marks it
    read), b (or s) bookmarks, o opens the link with $NEWS_OPENER or xdg-open (which honours $BROWSER), / searches
    every article (ENTER runs it, ESC cancels), ? shows the keys. The screen is redrawn when the terminal is
    resized; the terminal is given back on q, Ctrl-C, SIGTERM and errors. No network: news fetch refreshes.
    On a store the user may only read, the reader opens and says that read marks are not saved.
    Exit status: 0 quit, 64 not a terminal (standard input and output must be one) or an unknown folder, 66 no
    database at the path (nothing is created), 74 storage error, 78 the terminal type (TERM) is unknown or
    ncurses cannot be loaded, 130 Ctrl-C, 143 SIGTERM or SIGHUP.
    """

  enum Option: CommandOption {
    case source, folder, unread, db, config
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
      case .db: SharedOption.database
      case .config: SharedOption.configuration
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  /// How many articles an observed list holds at most (newest first).
  static let listLimit = 2_000

  func run() async throws -> ExitCode {
    guard Terminal.isInteractive else {
      throw CommandFailure(
        .usage, "news read needs a terminal (standard input and output are not one)",
        hint: "news list and news show print the same articles")
    }
    let unreadOnly = arguments.flag(.unread)
    var start: (title: String, filter: ArticleFilter)?
    if let typed = arguments.value(.source) {
      let match = context.sourceMatch(typed)
      var filter = ArticleFilter(unreadOnly: unreadOnly, source: match.source)
      filter.sourceQueries = match.queries
      start = (OutputFormat.sanitized(typed, collapsingWhitespace: true), filter)
    } else if let folder = arguments.value(.folder) {
      let filter = ArticleFilter(unreadOnly: unreadOnly, anyOfSources: try context.folderMatches(folder))
      start = (OutputFormat.sanitized(folder, collapsingWhitespace: true), filter)
    }
    let repository = try context.makeRepository(arguments.common, reading: true)
    var reader = Reader(sources: sourceRows(), startingList: start, unreadOnly: unreadOnly, now: context.now())
    // A reading command opens the writer at its first write, so `readOnlyCause` may not be known yet: the file and
    // its folder are asked too (access(2) says EPERM for an immutable file, root included).
    let path = repository.storage.path
    let folder = (path as NSString).deletingLastPathComponent
    if repository.storage.readOnlyCause != nil || access(path, W_OK) != 0
      || access(folder.isEmpty ? "." : folder, W_OK) != 0
    {
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
    defer { terminal.stop() }
    var session = Session(repository: repository, terminal: terminal, reader: reader, context: context)
    return try await session.run()
  }

  /// "All articles", then each folder with its sources below it, then the sources in no folder.
  func sourceRows() -> [Reader.SourceRow] {
    let configuration = context.configuration
    var rows = [Reader.SourceRow(title: "All articles", depth: 0, filter: .all, isFolder: false)]
    func row(_ name: String, depth: Int) -> Reader.SourceRow {
      let match = context.sourceMatch(name)
      var filter = ArticleFilter(source: match.source)
      filter.sourceQueries = match.queries
      let title = configuration.sources[name]?.labels.title ?? configuration.syncSources[name]?.labels.title ?? name
      return Reader.SourceRow(title: title, depth: depth, filter: filter, isFolder: false)
    }
    let names = configuration.allSourceNames.sorted { $0.lowercased() < $1.lowercased() }
    for folder in configuration.folders {
      let text = Configuration.folderText(folder)
      let matches = (configuration.sourceNames(inFolder: text) ?? []).map(context.sourceMatch)
      rows.append(
        Reader.SourceRow(
          title: folder.last ?? text, depth: folder.count - 1, filter: ArticleFilter(anyOfSources: matches),
          isFolder: true))
      for name in names where configuration.folder(ofSource: name) == folder {
        rows.append(row(name, depth: folder.count))
      }
    }
    for name in names where configuration.folder(ofSource: name).isEmpty { rows.append(row(name, depth: 0)) }
    return rows
  }

  /// One run of the reader: the event loop over keys, signals, the observed list and the store's changes.
  struct Session {
    var repository: NewsRepository
    var terminal: Terminal
    var reader: Reader
    var context: CommandContext

    /// What the loop waits for, from the terminal and from the repository.
    enum Event: Sendable {
      case terminal(Terminal.Event)
      /// A version of the list observed under `generation` (older generations are dropped).
      case list([Article], generation: Int)
      case listFailed(String, generation: Int)
      /// A write was committed to the store (by this process or another): the counts are read again.
      case storeChanged
      case counts([ArticleCounts?])
    }

    mutating func run() async throws -> ExitCode {
      let (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
      let terminalEvents = terminal.events
      let forward = Task {
        for await event in terminalEvents { sink.yield(.terminal(event)) }
      }
      let changes = repository.storeChanges()
      let watchStore = Task {
        for await _ in changes { sink.yield(.storeChanged) }
      }
      var observation: Task<Void, Never>?
      var generation = 0
      defer {
        forward.cancel()
        watchStore.cancel()
        observation?.cancel()
      }
      let repository = self.repository
      let rows = reader.sources.map(\.filter)
      func countAll() {
        Task {
          var counts: [ArticleCounts?] = []
          for filter in rows { counts.append(try? await repository.counts(matching: filter)) }
          sink.yield(.counts(counts))
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
            for try await list in repository.observe(filter, limit: ReadCommand.listLimit) {
              sink.yield(.list(list, generation: current))
            }
          } catch {
            sink.yield(.listFailed(Self.describe(error), generation: current))
          }
        }
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
              try await perform(action, observe: observe)
            }
          }
        case .terminal(.resize):
          terminal.resize()
        case .terminal(.interrupt(let signal)):
          return signal == SIGINT ? .interrupted : .terminated
        case .list(let list, let listGeneration):
          guard listGeneration == generation else { continue }
          reader.setArticles(list)
        case .listFailed(let message, let listGeneration):
          guard listGeneration == generation else { continue }
          reader.message = message
        case .storeChanged:
          countAll()
          continue
        case .counts(let counts):
          reader.setCounts(counts)
        }
        reader.now = context.now()
        draw()
      }
      return .success
    }

    mutating func draw() {
      let (lines, columns) = terminal.size
      terminal.draw(reader.lines(height: lines, width: columns))
    }

    /// Does what the reader asked for; a failure becomes the status line's message, never the end of the reader.
    mutating func perform(_ action: Reader.Action, observe: (ArticleFilter?) -> Void) async throws {
      let repository = self.repository
      switch action {
      case .observe(let filter):
        observe(filter)
      case .search(let text):
        observe(nil)  // the previous list's updates stop
        do {
          let hits = try await repository.search(text, limit: ReadCommand.listLimit)
          reader.setArticles(hits.map(\.article))
          reader.message = "\(hits.count) found"
        } catch {
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
          reader.message = "this article has no link to open"
          return
        }
        guard let opener = OpenCommand.opener(environment: context.environment) else {
          reader.message = "no opener (set NEWS_OPENER, or install xdg-utils): " + link.absoluteString
          return
        }
        let environment = context.environment
        let status = terminal.suspended { OpenCommand.spawn(opener, link.absoluteString, environment: environment) }
        reader.message =
          status == 0
          ? "opened " + link.absoluteString : "\(opener) could not be started (\(String(cString: strerror(status))))"
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
        let readOnly = repository.storage.readOnlyCause != nil || Self.isReadOnly(error)
        reader.message = readOnly ? "not saved: the store is read-only" : Self.describe(error)
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
