import Foundation
import OfflineNews

/// A source about to be written into the configuration by `news add` or `news import FILE.opml`: a `feed` (an
/// http(s) URL) or a `file`, with its labels.
struct NewSource: Encodable, Sendable {
  var name: String
  /// `"feed"`: the feed's URL; `nil` for a file.
  var feed: String?
  /// `"file"`: the feed file's absolute path; `nil` for a URL.
  var file: String?
  var title: String?
  var homePage: String?
  /// The folder path as the configuration writes it (`"Tech/Swift"`), or `nil`.
  var folder: String?

  /// The source's fields, in the order they are written.
  var fields: [(String, ConfigurationEdit.FieldValue)] {
    var fields: [(String, ConfigurationEdit.FieldValue)] = []
    if let feed { fields.append(("feed", .string(feed))) }
    if let file { fields.append(("file", .string(file))) }
    if let title { fields.append(("title", .string(title))) }
    if let homePage { fields.append(("homePage", .string(homePage))) }
    if let folder { fields.append(("folder", .string(folder))) }
    return fields
  }

  /// The URL or path, for messages.
  var location: String { feed ?? file ?? "" }

  enum CodingKeys: String, CodingKey { case name, feed, file, title, homePage, folder }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .name)
    try c.encode(feed, forKey: .feed)
    try c.encode(file, forKey: .file)
    try c.encode(title, forKey: .title)
    try c.encode(homePage, forKey: .homePage)
    try c.encode(folder, forKey: .folder)
  }
}

/// A source that was asked for but is configured already (by its URL or path).
struct ExistingSource: Encodable, Sendable {
  var name: String
  var url: String
}

/// Decides the names of new sources against the configuration: a feed already configured (under any name, by any
/// equivalent spelling of its URL: ``NewsSource/subscriptionKey(for:)``) is not added again, and a name already
/// taken gets ` (2)`, ` (3)`, … — unless it was given with `--name`, which must be new.
struct SubscriptionPlan {
  private(set) var added: [NewSource] = []
  private(set) var existing: [ExistingSource] = []
  private var names: Set<String>
  /// The configured (and planned) sources by the subscription keys of their URLs.
  private var locations: [String: String]

  init(configuration: Configuration) {
    names = Set(configuration.sources.keys).union(configuration.syncSources.keys)
    locations = [:]
    for (name, source) in configuration.sources { locations[NewsSource.subscriptionKey(for: source.url)] = name }
    for (name, source) in configuration.syncSources { locations[NewsSource.subscriptionKey(for: source.url)] = name }
  }

  /// Whether a source of `url` (under any name, any equivalent spelling) is configured or planned already.
  func isConfigured(_ url: URL) -> Bool { locations[NewsSource.subscriptionKey(for: url)] != nil }

  /// The subscription key of a new source's feed URL or file path.
  private static func key(_ source: NewSource) -> String {
    if let file = source.file { return NewsSource.subscriptionKey(for: URL(fileURLWithPath: file)) }
    return source.feed.flatMap(URL.init(string:)).map(NewsSource.subscriptionKey(for:)) ?? source.location
  }

  /// Plans `source` (its name is made presentable and unique first, unless `exactName`).
  ///
  /// - Throws: `CommandFailure` (64) when `exactName` is taken.
  mutating func add(_ source: NewSource, exactName: Bool = false) throws(CommandFailure) {
    let key = Self.key(source)
    if let name = locations[key] {
      existing.append(ExistingSource(name: name, url: source.location))
      return
    }
    var source = source
    let base = Self.presentable(source.name)
    if exactName {
      guard !names.contains(base) else {
        throw CommandFailure(
          .usage, "a source named \"\(base)\" exists already", hint: "choose another --name, or news remove it first")
      }
      source.name = base
    } else {
      var name = base
      var counter = 2
      while names.contains(name) {
        name = "\(base) (\(counter))"
        counter += 1
      }
      source.name = name
    }
    names.insert(source.name)
    locations[key] = source.name
    added.append(source)
  }

  /// Writes the planned sources into the configuration file and returns its path.
  func write(configuration: Configuration, environment: [String: String]) throws(CommandFailure) -> String {
    var edit = try ConfigurationEdit(
      path: configuration.file ?? Configuration.userConfigurationPath(environment: environment))
    for source in added { try edit.addSource(named: source.name, fields: source.fields) }
    if !added.isEmpty { try edit.save() }
    return edit.path
  }

  /// A name on one line: control characters and runs of white space become one space; never empty.
  static func presentable(_ name: String) -> String {
    let words = OutputFormat.sanitized(name, collapsingWhitespace: true).split(whereSeparator: { $0.isWhitespace })
    return words.isEmpty ? "feed" : words.joined(separator: " ")
  }
}
