import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsSync

// The entries of a subscription file's `"sources"` object, read as the `news` configuration has always read them:
// the format is documented in the README ("Configuration") and docs/CLI.md.
extension SubscriptionFile {
  /// A source read by URL: a NewsAPI v2 `url` with its `query` items, or a `file` (a path, made absolute against the
  /// file's folder).
  package struct Entry: Sendable {
    package var name: String
    package var url: URL
    /// `"maxAge"`: seconds its rows stay fresh; `nil` when not configured.
    package var maxAge: TimeInterval?
    /// `"policy"`: how a fetch reads it by default; `nil` when not configured (network-first).
    package var policy: CachePolicy?
    /// `"folder"`, `"title"`, `"homePage"`, `"fullText"`.
    package var labels = Labels()
  }

  /// The entries of a file: the sources read by URL or file, and the synced ones (Parse classes, feeds), by name.
  package struct Entries: Sendable {
    package var sources: [String: Entry] = [:]
    package var syncSources: [String: SyncEntry] = [:]
    /// Every name, in the order the file lists them.
    package var order: [String] = []

    package init() {}
  }

  /// The entries of a `"sources"` value; `path` names the file in errors, `folder` is the one relative `file` paths
  /// are resolved against, `environment` gives `HOME` for `~/`.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/invalidValue``) naming the file and the key.
  package static func entries(
    _ value: JSONValue, order: [String], path: String, environment: [String: String]
  ) throws(SubscriptionFileError) -> Entries {
    guard let sources = value.object else {
      throw SubscriptionFileError(.invalidValue, path: path, "\(path): \"sources\" must be an object of named sources")
    }
    // JSON readers keep the last of two members of one name (RFC 8259 §4 leaves it open): a source written twice
    // would silently be one, and an edit would change both.
    var seen = Set<String>()
    if let twice = order.first(where: { !seen.insert($0).inserted }) {
      throw SubscriptionFileError(
        .invalidValue, path: path, "\(path): sources.\(twice) is written twice",
        hint: "give each source its own name (news sources lists them)")
    }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var entries = Entries()
    entries.order = order.filter { sources[$0] != nil }
    do {
      for (name, entry) in sources {
        if isSyncEntry(entry) {
          entries.syncSources[name] = try syncSource(name: name, entry: entry, path: path)
        } else {
          entries.sources[name] = try source(
            name: name, entry: entry, folder: folder, path: path, environment: environment)
        }
      }
    } catch var error {
      error.path = path
      throw error
    }
    for name in sources.keys.sorted() where !entries.order.contains(name) { entries.order.append(name) }
    return entries
  }

  /// A failure of a value; ``entries(_:order:path:environment:)`` names the file.
  static func invalid(_ message: String, hint: String? = nil) -> SubscriptionFileError {
    SubscriptionFileError(.invalidValue, path: "", message, hint: hint)
  }

  /// `value` as an object whose keys are all `known`; throws naming `place` when it is not an object, or names the
  /// first unknown key with `hint` (by default the known keys).
  private static func object(_ value: JSONValue, place: String, known: [String], hint: String? = nil)
    throws(SubscriptionFileError) -> [String: JSONValue]
  {
    guard let fields = value.object else { throw Self.invalid("\(place) must be an object") }
    try checkKeys(of: fields, place: place, known: known, hint: hint)
    return fields
  }

  /// Throws naming the first of `fields`' keys that is not `known`, with `hint` (by default the known keys).
  private static func checkKeys(
    of fields: [String: JSONValue], place: String, known: [String], hint: String? = nil
  ) throws(SubscriptionFileError) {
    for key in fields.keys where !known.contains(key) {
      throw Self.invalid(
        "\(place): unknown key \"\(key)\"", hint: hint ?? "known keys: \(known.joined(separator: ", "))")
    }
  }

  /// What every `sources` entry begins with: its place in messages (`PATH: sources.NAME`), its fields (an object
  /// whose keys are `known`, `maxAge`, `policy` and the labels), its labels and its `maxAge`.
  private static func commonFields(
    of name: String, _ entry: JSONValue, path: String, known: [String], hint: String
  ) throws(SubscriptionFileError) -> (place: String, fields: [String: JSONValue], labels: Labels, maxAge: TimeInterval?)
  {
    let place = "\(path): sources.\(name)"
    let fields = try object(entry, place: place, known: known + ["maxAge", "policy"] + labelKeys, hint: hint)
    return try (place, fields, labels(fields, place: place), maxAge(fields["maxAge"], place: place))
  }

  private static func source(
    name: String, entry: JSONValue, folder: String, path: String, environment: [String: String]
  ) throws(SubscriptionFileError) -> Entry {
    let (place, fields, labels, maxAge) = try commonFields(
      of: name, entry, path: path, known: ["file", "url", "query"],
      hint: "a source has \"file\", or \"url\" and \"query\"; and optionally \"maxAge\", \"policy\", \"folder\", "
        + "\"title\" and \"homePage\"")
    var policy: CachePolicy?
    if let value = fields["policy"], value != .null {
      guard let name = value.stringValue, let named = CachePolicy(name: name) else {
        throw Self.invalid(
          "\(place).policy must be one of \(CachePolicy.names.joined(separator: ", ")), or null")
      }
      policy = named
    }
    if let file = fields["file"] {
      guard let file = file.stringValue, !file.isEmpty, fields["url"] == nil, fields["query"] == nil else {
        throw Self.invalid("\(place).file must be a path, alone (no url or query)")
      }
      return Entry(
        name: name, url: URL(fileURLWithPath: LocalPath.resolved(file, relativeTo: folder, environment: environment)),
        maxAge: maxAge,
        policy: policy, labels: labels)
    }
    guard let text = fields["url"]?.stringValue, var components = URLComponents(string: text),
      components.url?.isWebURL == true
    else {
      throw Self.invalid("\(place) needs \"file\" (a path) or \"url\" (an http(s) URL)")
    }
    if let query = fields["query"] {
      guard let items = query.object else {
        throw Self.invalid("\(place).query must be an object of strings")
      }
      var queryItems = components.queryItems ?? []
      for (key, value) in items.sorted(by: { $0.key < $1.key }) {
        let text: String
        if let string = value.stringValue {
          text = string
        } else if case .integer(let number) = value {
          text = String(number)
        } else if case .number(let number) = value, number.isFinite {
          // As JSON wrote it when whole (`1e2` is 100), else the shortest text that reads back the same.
          text = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        } else {
          throw Self.invalid("\(place).query.\(key) must be a string or a number")
        }
        queryItems.append(URLQueryItem(name: key, value: text))
      }
      components.queryItems = queryItems
    }
    guard let url = components.url else { throw Self.invalid("\(place): cannot build a URL") }
    return Entry(name: name, url: url, maxAge: maxAge, policy: policy, labels: labels)
  }

  /// A source's `"maxAge"`: seconds ≥ 0, or `nil` when absent or `null`.
  package static func maxAge(_ value: JSONValue?, place: String) throws(SubscriptionFileError) -> TimeInterval? {
    guard let value, value != .null else { return nil }
    guard let number = value.numberValue, number >= 0, number.isFinite
    else { throw Self.invalid("\(place).maxAge must be a number of seconds ≥ 0, or null") }
    return number
  }

  /// A source `news sync` reads: a Parse Server's classes, or a JSON Feed, imported with a mapping.
  ///
  /// ```json
  /// "parse-demo": {
  ///   "parse": {
  ///     "serverURL": "http://localhost:1337/parse", "applicationId": "news-app",
  ///     "restAPIKeyEnvironment": "PARSE_REST_API_KEY", "pageSize": 100,
  ///     "classes": ["_User", "ArticleCategory", "ArticleTag",
  ///                 { "name": "Article", "relations": ["tags"],
  ///                   "files": { "attributes": ["image"], "download": "eager", "maxBytes": 5000000,
  ///                              "contentTypes": ["image/"] } }]
  ///   },
  ///   "mapping": "parse-server"
  /// },
  /// "example-feed": { "feed": "https://example.org/feed.json", "mapping": "jsonfeed" }
  /// ```
  /// Secrets are never in the file: the REST API key and the session token are read from the environment variables
  /// named by `restAPIKeyEnvironment` (default `PARSE_REST_API_KEY`) and `sessionTokenEnvironment`.
  package struct SyncEntry: Sendable {
    package enum Kind: Sendable {
      case parse(ParseSettings)
      case feed(URL)
    }
    package var name: String
    package var kind: Kind
    /// The mapping's name (in `Config/mappings`) or path.
    package var mapping: String
    /// `"maxAge"`: seconds a sync stays fresh; with `"policy": "cache-first"`, `news sync` skips the source while
    /// its last complete sync is younger.
    package var maxAge: TimeInterval?
    /// `"policy"`: `network-first` (default: always sync) or `cache-first` (skip while fresh; needs `maxAge`).
    package var skipsWhileFresh = false
    /// `"folder"`, `"title"`, `"homePage"`.
    package var labels = Labels()

    /// A synced feed as a source read by URL: its name, feed URL, `maxAge` and labels, no policy (`news fetch
    /// --source` and `news sources` read it so); `nil` for Parse classes.
    package var feedEntry: Entry? {
      guard case .feed(let url) = kind else { return nil }
      return Entry(name: name, url: url, maxAge: maxAge, labels: labels)
    }

    /// `parse` or `feed`.
    package var kindName: String {
      switch kind {
      case .parse: return "parse"
      case .feed: return "feed"
      }
    }

    /// The names its sync state is kept under: the Parse classes, or `feed`.
    package var classNames: [String] {
      switch kind {
      case .parse(let settings): return settings.classes.map(\.name)
      case .feed: return ["feed"]
      }
    }

    /// Where the source is, for messages: the server or feed URL.
    package var location: String { url.absoluteString }

    /// The server or feed URL its refresh sends requests to.
    package var url: URL {
      switch kind {
      case .parse(let settings): return settings.serverURL
      case .feed(let url): return url
      }
    }
  }

  package struct ParseSettings: Sendable {
    package var serverURL: URL
    package var applicationID: String
    package var restAPIKeyEnvironment = "PARSE_REST_API_KEY"
    package var sessionTokenEnvironment: String?
    package var pageSize = 100
    package var classes: [ParseClass]
  }

  package struct ParseClass: Sendable {
    package var name: String
    package var pageSize: Int?
    package var files: FileDownloads?
    /// Keys of Parse `Relation` fields whose members are synced (see `ParseClassSync.relations`).
    package var relations: [String] = []
  }

  /// Whether a `sources` entry is a sync source (it has `parse` or `feed`).
  static func isSyncEntry(_ entry: JSONValue) -> Bool {
    guard let fields = entry.object else { return false }
    return fields["parse"] != nil || fields["feed"] != nil
  }

  static func syncSource(name: String, entry: JSONValue, path: String) throws(SubscriptionFileError) -> SyncEntry {
    let (place, fields, labels, maxAge) = try commonFields(
      of: name, entry, path: path, known: ["parse", "feed", "mapping"],
      hint: "a sync source has \"parse\" (an object) or \"feed\" (a URL), \"mapping\", \"maxAge\", \"policy\", "
        + "\"folder\", \"title\" and \"homePage\"")
    var skipsWhileFresh = false
    if let value = fields["policy"], value != .null {
      guard let name = value.stringValue, ["network-first", "cache-first"].contains(name) else {
        throw Self.invalid("\(place).policy must be network-first or cache-first for a sync source")
      }
      skipsWhileFresh = name == "cache-first"
      if skipsWhileFresh, maxAge == nil {
        throw Self.invalid("\(place).policy cache-first needs a maxAge (seconds a sync stays fresh)")
      }
    }
    guard fields["parse"] == nil || fields["feed"] == nil else {
      throw Self.invalid("\(place): \"parse\" and \"feed\" exclude each other")
    }
    let mapping: String
    if let value = fields["mapping"] {
      guard let text = value.stringValue, !text.isEmpty else {
        throw Self.invalid("\(place).mapping must be a mapping name or path")
      }
      mapping = text
    } else {
      mapping = fields["parse"] != nil ? "parse-server" : "jsonfeed"
    }
    if let feed = fields["feed"] {
      guard let text = feed.stringValue, let url = httpURL(text) else {
        throw Self.invalid("\(place).feed must be an http(s) URL")
      }
      return SyncEntry(
        name: name, kind: .feed(url), mapping: mapping, maxAge: maxAge, skipsWhileFresh: skipsWhileFresh,
        labels: labels)
    }
    guard let parse = fields["parse"]?.object else {
      throw Self.invalid("\(place).parse must be an object")
    }
    return SyncEntry(
      name: name, kind: .parse(try parseSettings(parse, place: place + ".parse")), mapping: mapping, maxAge: maxAge,
      skipsWhileFresh: skipsWhileFresh, labels: labels)
  }

  private static func parseSettings(_ fields: [String: JSONValue], place: String) throws(SubscriptionFileError)
    -> ParseSettings
  {
    try checkKeys(
      of: fields, place: place,
      known: [
        "serverURL", "applicationId", "restAPIKeyEnvironment", "sessionTokenEnvironment", "pageSize", "classes",
      ])
    guard let text = fields["serverURL"]?.stringValue, let serverURL = httpURL(text) else {
      throw Self.invalid("\(place).serverURL must be an http(s) URL")
    }
    guard let applicationID = fields["applicationId"]?.stringValue, !applicationID.isEmpty else {
      throw Self.invalid("\(place).applicationId must be a non-empty string")
    }
    guard let list = fields["classes"]?.arrayValue, !list.isEmpty else {
      throw Self.invalid("\(place).classes must be a non-empty array of class names or objects")
    }
    var settings = ParseSettings(serverURL: serverURL, applicationID: applicationID, classes: [])
    for key in ["restAPIKeyEnvironment", "sessionTokenEnvironment"] {
      guard let value = fields[key] else { continue }
      guard let variable = value.stringValue, !variable.isEmpty else {
        throw Self.invalid("\(place).\(key) must name an environment variable")
      }
      if key == "restAPIKeyEnvironment" {
        settings.restAPIKeyEnvironment = variable
      } else {
        settings.sessionTokenEnvironment = variable
      }
    }
    if let value = fields["pageSize"] {
      settings.pageSize = try pageSize(value, place: place + ".pageSize")
    }
    for (index, item) in list.enumerated() {
      let parsed = try parseClass(item, place: "\(place).classes[\(index)]")
      guard !settings.classes.contains(where: { $0.name == parsed.name }) else {
        throw Self.invalid("\(place).classes[\(index)]: \(parsed.name) is listed twice")
      }
      settings.classes.append(parsed)
    }
    return settings
  }

  private static func parseClass(_ item: JSONValue, place: String) throws(SubscriptionFileError) -> ParseClass {
    if let name = item.stringValue, !name.isEmpty { return try checkedClass(ParseClass(name: name), place: place) }
    guard let fields = item.object else {
      throw Self.invalid("\(place) must be a class name or an object with \"name\"")
    }
    try checkKeys(
      of: fields, place: place, known: ["name", "pageSize", "files", "relations"],
      hint: "a class has name, pageSize, files, relations")
    guard let name = fields["name"]?.stringValue, !name.isEmpty else {
      throw Self.invalid("\(place).name must be a class name")
    }
    var parseClass = ParseClass(name: name)
    if let value = fields["pageSize"] { parseClass.pageSize = try pageSize(value, place: place + ".pageSize") }
    if let value = fields["files"] { parseClass.files = try files(value, place: place + ".files") }
    if let value = fields["relations"] {
      guard let keys = value.stringArray, keys.allSatisfy({ !$0.isEmpty }) else {
        throw Self.invalid("\(place).relations must be an array of Relation field names")
      }
      parseClass.relations = keys
    }
    return try checkedClass(parseClass, place: place)
  }

  /// Refuses the classes Parse's REST API does not serve as classes: `_Join:<field>:<Class>` tables hold Relation
  /// members, which are synced through their owner's `relations`.
  private static func checkedClass(_ parseClass: ParseClass, place: String) throws(SubscriptionFileError) -> ParseClass
  {
    if parseClass.name.hasPrefix("_Join:") {
      let parts = parseClass.name.split(separator: ":")
      let hint =
        parts.count == 3
        ? "list \"relations\": [\"\(parts[1])\"] on the class \(parts[2]) instead" : "sync Relations with \"relations\""
      throw Self.invalid(
        "\(place): \(parseClass.name) is a join table, not a class of the REST API", hint: hint)
    }
    return parseClass
  }

  private static func files(_ value: JSONValue, place: String) throws(SubscriptionFileError) -> FileDownloads {
    let fields = try object(
      value, place: place, known: ["attributes", "download", "maxBytes", "concurrency", "contentTypes"])
    guard let attributes = fields["attributes"]?.stringArray, !attributes.isEmpty else {
      throw Self.invalid("\(place).attributes must be a non-empty array of keys")
    }
    var policy = FileDownloads(attributes: attributes)
    if let value = fields["download"] {
      guard let text = value.stringValue, let mode = FileDownloads.Mode(rawValue: text) else {
        throw Self.invalid("\(place).download must be \"eager\" or \"lazy\"")
      }
      policy.mode = mode
    }
    for key in ["maxBytes", "concurrency"] {
      guard let value = fields[key] else { continue }
      guard let number = value.numberValue, number >= 1, number <= 1e12, number == number.rounded()
      else { throw Self.invalid("\(place).\(key) must be a whole number ≥ 1") }
      if key == "maxBytes" {
        policy.maxBytes = Int(number)
      } else {
        guard number <= 64 else { throw Self.invalid("\(place).concurrency must be from 1 to 64") }
        policy.concurrency = Int(number)
      }
    }
    if let value = fields["contentTypes"] {
      guard let types = value.stringArray else {
        throw Self.invalid("\(place).contentTypes must be an array of content type prefixes")
      }
      policy.allowedContentTypes = types.map { $0.lowercased() }
    }
    return policy
  }

  private static func pageSize(_ value: JSONValue, place: String) throws(SubscriptionFileError) -> Int {
    guard let number = value.numberValue, number >= 1, number <= 1000, number == number.rounded()
    else { throw Self.invalid("\(place) must be a whole number from 1 to 1000") }
    return Int(number)
  }

  private static func httpURL(_ text: String) -> URL? {
    guard let url = URL(string: text), url.isWebURL
    else { return nil }
    return url
  }
  /// What a source says about itself besides where it is, for lists and OPML (any kind of source may have them):
  ///
  /// ```json
  /// "Daring Fireball": { "feed": "https://daringfireball.net/feeds/main", "folder": "Weblogs/Apple",
  ///                      "title": "Daring Fireball", "homePage": "https://daringfireball.net/" }
  /// ```
  package struct Labels: Sendable, Hashable {
    /// `"folder"`: the folder path, outermost first, written with `/` between the folders (`"Tech/Swift"`); `[]`
    /// when absent.
    package var folder: [String] = []
    /// `"title"`: the feed's own title, when it differs from the source's name.
    package var title: String?
    /// `"homePage"`: the site the feed belongs to.
    package var homePage: URL?
    /// `"fullText": true`: after each refresh, fetch the pages of its new articles for their whole text
    /// (`news fetch --full-text` for one run).
    package var fullText = false

    package init(folder: [String] = [], title: String? = nil, homePage: URL? = nil, fullText: Bool = false) {
      self.folder = folder
      self.title = title
      self.homePage = homePage
      self.fullText = fullText
    }
  }

  /// The keys of ``Labels``, allowed in every source.
  package static let labelKeys = ["folder", "title", "homePage", "fullText"]

  /// Reads the label keys of a source's fields.
  static func labels(_ fields: [String: JSONValue], place: String) throws(SubscriptionFileError) -> Labels {
    var labels = Labels()
    if let value = fields["folder"], value != .null {
      guard let text = value.stringValue, let path = folderPath(text) else {
        throw Self.invalid(
          "\(place).folder must be a folder name, or folders separated by \"/\" (e.g. \"Tech/Swift\")")
      }
      labels.folder = path
    }
    if let value = fields["title"], value != .null {
      guard let text = value.stringValue else { throw Self.invalid("\(place).title must be a string") }
      labels.title = text.isEmpty ? nil : text
    }
    if let value = fields["homePage"], value != .null {
      guard let text = value.stringValue, let url = URL(string: text), url.isWebURL
      else { throw Self.invalid("\(place).homePage must be an http(s) URL") }
      labels.homePage = url
    }
    if let value = fields["fullText"], value != .null {
      guard case .bool(let flag) = value else {
        throw Self.invalid("\(place).fullText must be true or false")
      }
      labels.fullText = flag
    }
    return labels
  }

  /// `"Tech/Swift"` → `["Tech", "Swift"]` (each folder trimmed); `nil` when a folder would be empty.
  package static func folderPath(_ text: String) -> [String]? {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).map {
      $0.trimmingWhiteSpace
    }
    guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
    return parts
  }

  /// `["Tech", "Swift"]` → `"Tech/Swift"` (a `/` inside a folder's name becomes `∕`, U+2215, so that the path reads
  /// back the same).
  package static func folderText(_ path: [String]) -> String {
    path.map { $0.replacingOccurrences(of: "/", with: "\u{2215}") }.joined(separator: "/")
  }

  /// Each of `paths` and every folder above it (`["Tech"]` and `["Tech", "Swift"]` for `["Tech", "Swift"]`), once
  /// each, sorted by their text (``folderText(_:)``); `[]` (the top level) is none. The one folder tree of a list
  /// (``SubscriptionList/folders()``) and of the `news` configuration's sources.
  package static func folderTree(_ paths: some Sequence<[String]>) -> [[String]] {
    var all = Set<[String]>()
    for path in paths {
      for depth in stride(from: 1, through: path.count, by: 1) { all.insert(Array(path.prefix(depth))) }
    }
    return all.map { (folderText($0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
  }

}
