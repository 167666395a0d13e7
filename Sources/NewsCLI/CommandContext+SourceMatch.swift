import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

extension CommandContext {
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
          : "folders: " + folders.joined(separator: ", "))
    }
    return names.map(sourceMatch)
  }
}
