import Foundation
import OfflineNews
import OfflineNewsModel

extension Configuration {
  /// The configuration file `news add` and `news import FILE.opml` write when none was found:
  /// `$XDG_CONFIG_HOME/news/news.json` (default `~/.config/news/news.json`).
  static func userConfigurationPath(environment: [String: String]) -> String {
    xdgDirectory("XDG_CONFIG_HOME", fallback: ".config", environment: environment) + "/news/news.json"
  }
}

extension Configuration {
  /// Every configured source's name, of any kind.
  var allSourceNames: Set<String> { Set(sources.keys).union(syncSources.keys) }

  /// The configured source's name that `text` names: the name itself when a source has exactly that name, else
  /// the one name equal to it without regard to case (`atp` finds `ATP`); `nil` when none does, or when several
  /// names differ from it only by case and none is exact.
  func sourceName(matching text: String) -> String? {
    // An exact name is looked up, not searched for: every source of a 5,000-source list is matched by its name.
    if sources[text] != nil || syncSources[text] != nil { return text }
    return Self.name(matching: text, among: allSourceNames)
  }

  /// The source `news fetch --source TEXT` refreshes: ``sourceName(matching:)``; else, when `text` is an http(s) URL,
  /// the one feed source whose address it is (any equivalent spelling, ``NewsSource/subscriptionKey``), so that a
  /// source named by its feed's URL until it took its feed's title (``NewsRepository/nameUntitled(_:in:titles:)``) is
  /// still refreshed by that URL (`news read`'s rows read before the rename, a script).
  func sourceName(matchingOrFeedURL text: String) -> String? {
    if let name = sourceName(matching: text) { return name }
    guard let url = URL(string: text), url.isWebURL else { return nil }
    let key = NewsSource.subscriptionKey(for: url)
    let feeds = syncSources.compactMap { name, sync -> String? in
      guard case .feed(let feed) = sync.kind, NewsSource.subscriptionKey(for: feed) == key else { return nil }
      return name
    }
    return feeds.count == 1 ? feeds.first : nil
  }

  /// The name of `names` that `text` names: exact first, then the only one equal without regard to case (the rule of
  /// ``SubscriptionList/source(named:)``).
  static func name(matching text: String, among names: some Collection<String>) -> String? {
    if names.contains(text) { return text }
    let folded = names.filter { $0.compare(text, options: [.caseInsensitive]) == .orderedSame }
    return folded.count == 1 ? folded.first : nil
  }

  /// The folder a source is filed in (its `"folder"` label, outermost first), of any kind; `[]` when none.
  func folder(ofSource name: String) -> [String] {
    sources[name]?.labels.folder ?? syncSources[name]?.labels.folder ?? []
  }

  /// Every folder that holds a source, directly or through a folder inside it, sorted (`["Tech"]` and
  /// `["Tech", "Swift"]` for a source in `Tech/Swift`): the library's tree (`SubscriptionFile.folderTree(_:)`) of
  /// the sources' folders. The folders the file keeps empty (`"folders"`) are not among them: `--folder` selects
  /// sources, and `news serve` shows those (``SubscriptionList/folders()``).
  var folders: [[String]] { SubscriptionFile.folderTree(allSourceNames.map(folder(ofSource:))) }

  /// The configured sources in the folder `text` names (`"Tech"`, `"Tech/Swift"`) or in a folder below it, sorted.
  /// The folder as written, else in any case when that names one folder (`tech` for `Tech`, but neither of `Apple`
  /// and `apple` for `APPLE`: two folders, as the lists show them). `nil` when no source is in that folder.
  func sourceNames(inFolder text: String) -> [String]? {
    guard let path = SubscriptionFile.folderPath(text) else { return nil }
    let exact = allSourceNames.filter { NewsSource.isFolder(folder(ofSource: $0), under: path) }
    if !exact.isEmpty { return exact.sorted() }
    let folded = allSourceNames.filter { name in
      let folder = folder(ofSource: name)
      return folder.count >= path.count
        && zip(folder, path).allSatisfy { $0.compare($1, options: [.caseInsensitive]) == .orderedSame }
    }
    let folders = Set(folded.map { Array(folder(ofSource: $0).prefix(path.count)) })
    return folders.count == 1 ? folded.sorted() : nil
  }
}
