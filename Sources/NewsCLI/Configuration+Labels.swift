import Foundation

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
      guard let text = value as? String, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
        ["http", "https"].contains(scheme), url.host != nil
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
