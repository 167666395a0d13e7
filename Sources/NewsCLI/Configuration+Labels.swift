import Foundation
import OfflineNewsModel

extension Configuration {
  /// What a source says about itself besides where it is, for lists and OPML (any kind of source may have them):
  ///
  /// ```json
  /// "Daring Fireball": { "feed": "https://daringfireball.net/feeds/main", "folder": "Weblogs/Apple",
  ///                      "title": "Daring Fireball", "homePage": "https://daringfireball.net/" }
  /// ```
  struct SourceLabels: Sendable, Hashable {
    /// `"folder"`: the folder path, outermost first, written with `/` between the folders (`"Tech/Swift"`); `[]`
    /// when absent.
    var folder: [String] = []
    /// `"title"`: the feed's own title, when it differs from the source's name.
    var title: String?
    /// `"homePage"`: the site the feed belongs to.
    var homePage: URL?
    /// `"fullText": true`: after each refresh, fetch the pages of its new articles for their whole text
    /// (`news fetch --full-text` for one run).
    var fullText = false
  }

  /// The keys of ``SourceLabels``, allowed in every source.
  static let labelKeys = ["folder", "title", "homePage", "fullText"]

  /// Reads the label keys of a source's fields.
  static func labels(_ fields: [String: Any], place: String) throws(CommandFailure) -> SourceLabels {
    var labels = SourceLabels()
    if let value = fields["folder"], !(value is NSNull) {
      guard let text = value as? String, let path = folderPath(text) else {
        throw CommandFailure(
          .config, "\(place).folder must be a folder name, or folders separated by \"/\" (e.g. \"Tech/Swift\")")
      }
      labels.folder = path
    }
    if let value = fields["title"], !(value is NSNull) {
      guard let text = value as? String else { throw CommandFailure(.config, "\(place).title must be a string") }
      labels.title = text.isEmpty ? nil : text
    }
    if let value = fields["homePage"], !(value is NSNull) {
      guard let text = value as? String, let url = URL(string: text), url.isWebURL
      else { throw CommandFailure(.config, "\(place).homePage must be an http(s) URL") }
      labels.homePage = url
    }
    if let value = fields["fullText"], !(value is NSNull) {
      guard isJSONBoolean(value), let flag = value as? Bool else {
        throw CommandFailure(.config, "\(place).fullText must be true or false")
      }
      labels.fullText = flag
    }
    return labels
  }

  /// `"Tech/Swift"` → `["Tech", "Swift"]` (each folder trimmed); `nil` when a folder would be empty.
  static func folderPath(_ text: String) -> [String]? {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
    return parts
  }

  /// `["Tech", "Swift"]` → `"Tech/Swift"` (a `/` inside a folder's name becomes `∕`, U+2215, so that the path reads
  /// back the same).
  static func folderText(_ path: [String]) -> String {
    path.map { $0.replacingOccurrences(of: "/", with: "\u{2215}") }.joined(separator: "/")
  }

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
    Self.name(matching: text, among: allSourceNames)
  }

  /// The name of `names` that `text` names: exact first, then the only one equal without regard to case.
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
  /// `["Tech", "Swift"]` for a source in `Tech/Swift`).
  var folders: [[String]] {
    var all = Set<[String]>()
    for name in allSourceNames {
      let path = folder(ofSource: name)
      for depth in stride(from: 1, through: path.count, by: 1) { all.insert(Array(path.prefix(depth))) }
    }
    return all.sorted { Self.folderText($0) < Self.folderText($1) }
  }

  /// The configured sources in the folder `text` names (`"Tech"`, `"Tech/Swift"`) or in a folder below it, sorted;
  /// folders are compared without regard to case, like source names. `nil` when no source is in that folder.
  func sourceNames(inFolder text: String) -> [String]? {
    guard let path = Self.folderPath(text) else { return nil }
    let names = allSourceNames.filter { name in
      let folder = folder(ofSource: name)
      return folder.count >= path.count
        && zip(folder, path).allSatisfy { $0.compare($1, options: [.caseInsensitive]) == .orderedSame }
    }
    return names.isEmpty ? nil : names.sorted()
  }
}
