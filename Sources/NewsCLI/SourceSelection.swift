import Foundation
import OfflineNews

/// What `--source NAME` of `news list` and `news search` selects: the articles whose ``Article/source`` is the text
/// (a path made absolute, as imports record it), whose publisher is it, or that the last fetch of the source it
/// names held.
///
/// An article keeps the source that first saved it, so a feed imported from `./natasha.xml` and then fetched as the
/// configured source `natasha` has articles recorded under the path; `--source natasha` still lists them, being
/// the articles of that source's last fetch (its query's result), and `--source ./natasha.xml` those of the import.
struct SourceSelection {
  /// The text compared with ``Article/source`` and the publisher's name.
  var source: String
  /// The cache keys (`NewsQuery.cacheKey`) whose last results also belong to the selection.
  var queries: [String]

  /// The selection of `text`: a configured source's name (any kind), a file path (`./feed.xml`, `~/x.json`, `/…`),
  /// a feed or NewsAPI URL, or a publisher's name.
  init(_ typed: String, context: CommandContext) {
    let configuration = context.configuration
    // A configured source's name, without regard to case (an exact match first).
    let text = configuration.sourceName(matching: typed) ?? typed
    if let source = configuration.sources[text] {
      self.init(source: text, queries: [NewsQuery(url: source.url).cacheKey])
    } else if let sync = configuration.syncSources[text] {
      switch sync.kind {
      case .feed(let url): self.init(source: text, queries: [NewsQuery(url: url).cacheKey])
      case .parse: self.init(source: text, queries: [FetchAll.parseQuery(text).cacheKey])
      }
    } else if text.hasPrefix(".") || text.hasPrefix("~") || text.hasPrefix("/") {
      let path = context.resolvedPath(text)
      self.init(source: path, queries: [NewsQuery(url: URL(fileURLWithPath: path)).cacheKey])
    } else if let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) {
      self.init(source: text, queries: [NewsQuery(url: url).cacheKey])
    } else {
      self.init(source: text, queries: [])
    }
  }

  private init(source: String, queries: [String]) {
    self.source = source
    self.queries = queries
  }

  /// The selection as the library's filters take it.
  var match: SourceMatch { SourceMatch(source: source, queries: queries) }

  /// What `--folder NAME` selects: the sources of that folder and of the folders below it, each as `--source`
  /// selects it.
  ///
  /// - Throws: ``CommandFailure`` (usage) when no configured source is in that folder, naming the folders there are.
  static func folder(_ text: String, context: CommandContext) throws(CommandFailure) -> [SourceMatch] {
    let configuration = context.configuration
    guard let names = configuration.sourceNames(inFolder: text) else {
      let folders = configuration.folders.map(Configuration.folderText)
      throw CommandFailure(
        .usage, "no source is in a folder \"\(text)\"",
        hint: folders.isEmpty
          ? "no source has a \"folder\"; 'news sources' lists them"
          : "folders: " + folders.joined(separator: ", "))
    }
    return names.map { SourceSelection($0, context: context).match }
  }
}
