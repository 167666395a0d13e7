import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

extension CommandContext {
  /// A source of cached articles that no configured source reads (``alsoCached(in:)``).
  struct CachedSource {
    /// What names it, as `news sources` prints it and `--source` takes it: a file's path, else the query's key (the
    /// URL fetched with `--url`, or a removed source's).
    var name: String
    /// Its articles: those recorded under ``name`` and those of its query's last result.
    var match: SourceMatch
    var query: CachedQuery
  }

  /// What the cache holds from no configured source — files imported (`news import FILE`), URLs read once
  /// (`news fetch --url`), sources removed from the configuration whose articles are still cached — newest first:
  /// `news sources`' "also cached" list and `news read`'s rows below the sources, so that every article `news list`
  /// shows is reachable there too (`news serve` serves them in its *Imported* folder: ``CachedQuery/source``). One
  /// read of the fetch log.
  ///
  /// - Throws: the repository's ``NewsRepositoryError`` when the store fails.
  func alsoCached(in repository: NewsRepository) async throws -> [CachedSource] {
    let configured = Set(configuration.allSourceNames.flatMap { sourceMatch($0).queries })
    let cached = try await repository.cachedQueries(besides: [], savedForNoneOf: Array(configuration.allSourceNames))
    return cached.filter { !configured.contains($0.cacheKey) }.map { query in
      // Named and matched as `news serve` serves it (``CachedQuery/source``); a key that is no URL as it is.
      CachedSource(
        name: query.source?.name ?? query.cacheKey,
        match: query.match ?? SourceMatch(source: query.cacheKey, queries: [query.cacheKey]), query: query)
    }
  }

  /// What `--source TEXT` of `news list`, `search` and `mark-read` selects (``SourceMatch``): a configured source's
  /// name, of any kind, without regard to case (``NewsSource/match``); a file path (`./feed.xml`, `~/x.json`, `/…`, or
  /// the name of a file in the current folder)
  /// or a feed or NewsAPI URL (``SourceMatch/init(location:)``); else a publisher's name.
  ///
  /// An article keeps the source that first saved it, so a feed imported from `./natasha.xml` and then fetched as the
  /// configured source `natasha` has articles recorded under the path; `--source natasha` still lists them, being
  /// the articles of that source's last fetch, and `--source ./natasha.xml` those of the import.
  func sourceMatch(_ typed: String) -> SourceMatch {
    let text = configuration.sourceName(matching: typed) ?? typed
    if let source = configuration.sources[text] {
      return newsSource(source).match
    } else if let sync = configuration.syncSources[text] {
      switch sync.kind {
      case .feed(let url): return SourceMatch(source: text, queries: [NewsQuery(url: url).cacheKey])
      case .parse: return SourceMatch(source: text, queries: [NewsSource.query(ofParseSource: text).cacheKey])
      }
    } else if text.hasPrefix(".") || text.hasPrefix("~") || text.hasPrefix("/")
      || FileManager.default.fileExists(atPath: resolvedPath(text))
    {
      return SourceMatch(location: URL(fileURLWithPath: resolvedPath(text)))
    } else if let url = URL(string: text), url.isWebURL {
      return SourceMatch(source: text, queries: [NewsQuery(url: url).cacheKey])
    }
    return SourceMatch(source: text)
  }

  /// ``sourceMatch(_:)``, completed by what `repository` holds: a text that names no configured source, file in reach
  /// or URL is also taken as the file name of a file imported before (`news import ~/feeds/x.rss`, then
  /// `--source x.rss`, without regard to case); else as a publisher's name, when one is cached.
  ///
  /// - Throws: ``CommandFailure`` (usage, 64) when the text names nothing at all — no source, imported file or cached
  ///   publisher (as `--folder` with a folder no source is in), or several imported files of that name (listing
  ///   their paths); the repository's ``NewsRepositoryError`` when the store fails.
  func sourceMatch(_ typed: String, in repository: NewsRepository) async throws -> SourceMatch {
    let match = sourceMatch(typed)
    guard match.queries.isEmpty else { return match }
    if !(try await repository.read(limit: 1, offset: 0, filter: ArticleFilter(source: match.source))).isEmpty {
      return match
    }
    // A file's query is keyed by its `file:` URL (``NewsQuery/cacheKey``); a mapped import's by its absolute path
    // (the import's source). A file imported both ways is one file.
    let files = Set(
      try await repository.cachedQueries(besides: []).compactMap { query -> String? in
        if query.cacheKey.hasPrefix("/") { return query.cacheKey }
        guard let url = URL(string: query.cacheKey), url.isFileURL else { return nil }
        return url.path
      }.filter { ($0 as NSString).lastPathComponent.lowercased() == typed.lowercased() }
    ).sorted()
    if files.count == 1, let path = files.first { return SourceMatch(location: URL(fileURLWithPath: path)) }
    if files.count > 1 {
      throw CommandFailure(
        .usage, "several imported files are named \"\(typed)\"", hint: "give the path: " + files.joined(separator: ", ")
      )
    }
    let names = configuration.allSourceNames
    throw CommandFailure(
      .usage, "no source, imported file or publisher is named \"\(typed)\"",
      hint: (names.isEmpty ? "" : NameHint.text("sources", names, typed: typed) + "; ")
        + "'news sources' lists them and the files imported")
  }

  /// What `--folder NAME` selects: the sources of that folder and of the folders below it, each as `--source`
  /// selects it.
  ///
  /// - Throws: ``CommandFailure`` (usage) when no configured source is in that folder, naming the folders there are.
  func folderMatches(_ text: String) throws(CommandFailure) -> [SourceMatch] {
    guard let names = configuration.sourceNames(inFolder: text) else {
      let folders = configuration.folders.map(SubscriptionFile.folderText)
      throw CommandFailure(
        .usage, "no source is in a folder \"\(text)\"",
        hint: folders.isEmpty
          ? "no source has a \"folder\"; 'news sources' lists them"
          : NameHint.text("folders", folders, typed: text, more: "'news sources' lists them"))
    }
    return names.map(sourceMatch)
  }

  /// `filter` narrowed to the articles `--source TEXT` (``sourceMatch(_:in:)``) and `--folder NAME`
  /// (``folderMatches(_:)``) select, as typed (`nil`: not given), in that order: `news list`, `search` and
  /// `mark-read` select alike.
  ///
  /// - Throws: ``CommandFailure`` (usage) for a source or folder that names none; the repository's errors.
  func narrowing(
    _ filter: ArticleFilter, source: String?, folder: String?, in repository: NewsRepository
  ) async throws -> ArticleFilter {
    var filter = filter
    if let source {
      let selection = try await sourceMatch(source, in: repository)
      filter.source = selection.source
      filter.sourceQueries = selection.queries
    }
    if let folder { filter.anyOfSources = try folderMatches(folder) }
    return filter
  }
}
