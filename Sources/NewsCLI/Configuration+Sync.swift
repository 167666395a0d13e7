import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsSync

extension Configuration {
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
  struct SyncSource: Sendable {
    enum Kind: Sendable {
      case parse(ParseSettings)
      case feed(URL)
    }
    var name: String
    var kind: Kind
    /// The mapping's name (in `Config/mappings`) or path.
    var mapping: String
    /// `"maxAge"`: seconds a sync stays fresh; with `"policy": "cache-first"`, `news sync` skips the source while
    /// its last complete sync is younger.
    var maxAge: TimeInterval?
    /// `"policy"`: `network-first` (default: always sync) or `cache-first` (skip while fresh; needs `maxAge`).
    var skipsWhileFresh = false
    /// `"folder"`, `"title"`, `"homePage"`.
    var labels = SourceLabels()

    /// `parse` or `feed`.
    var kindName: String {
      switch kind {
      case .parse: return "parse"
      case .feed: return "feed"
      }
    }

    /// The names its sync state is kept under: the Parse classes, or `feed`.
    var classNames: [String] {
      switch kind {
      case .parse(let settings): return settings.classes.map(\.name)
      case .feed: return ["feed"]
      }
    }

    /// Where the source is, for messages: the server or feed URL.
    var location: String { url.absoluteString }

    /// The server or feed URL its refresh sends requests to.
    var url: URL {
      switch kind {
      case .parse(let settings): return settings.serverURL
      case .feed(let url): return url
      }
    }
  }

  struct ParseSettings: Sendable {
    var serverURL: URL
    var applicationID: String
    var restAPIKeyEnvironment = "PARSE_REST_API_KEY"
    var sessionTokenEnvironment: String?
    var pageSize = 100
    var classes: [ParseClass]
  }

  struct ParseClass: Sendable {
    var name: String
    var pageSize: Int?
    var files: FileDownloads?
    /// Keys of Parse `Relation` fields whose members are synced (see `ParseClassSync.relations`).
    var relations: [String] = []
  }

  /// Whether a `sources` entry is a sync source (it has `parse` or `feed`).
  static func isSyncSource(_ entry: Any) -> Bool {
    guard let fields = entry as? [String: Any] else { return false }
    return fields["parse"] != nil || fields["feed"] != nil
  }

  static func syncSource(name: String, entry: Any, path: String) throws(CommandFailure) -> SyncSource {
    let place = "\(path): sources.\(name)"
    guard let fields = entry as? [String: Any] else { throw CommandFailure(.config, "\(place) must be an object") }
    for key in fields.keys where !(["parse", "feed", "mapping", "maxAge", "policy"] + labelKeys).contains(key) {
      throw CommandFailure(
        .config, "\(place): unknown key \"\(key)\"",
        hint: "a sync source has \"parse\" (an object) or \"feed\" (a URL), \"mapping\", \"maxAge\", \"policy\", "
          + "\"folder\", \"title\" and \"homePage\"")
    }
    let labels = try labels(fields, place: place)
    let maxAge = try Self.maxAge(fields["maxAge"], place: place)
    var skipsWhileFresh = false
    if let value = fields["policy"], !(value is NSNull) {
      guard let name = value as? String, ["network-first", "cache-first"].contains(name) else {
        throw CommandFailure(.config, "\(place).policy must be network-first or cache-first for a sync source")
      }
      skipsWhileFresh = name == "cache-first"
      if skipsWhileFresh, maxAge == nil {
        throw CommandFailure(.config, "\(place).policy cache-first needs a maxAge (seconds a sync stays fresh)")
      }
    }
    guard fields["parse"] == nil || fields["feed"] == nil else {
      throw CommandFailure(.config, "\(place): \"parse\" and \"feed\" exclude each other")
    }
    let mapping: String
    if let value = fields["mapping"] {
      guard let text = value as? String, !text.isEmpty else {
        throw CommandFailure(.config, "\(place).mapping must be a mapping name or path")
      }
      mapping = text
    } else {
      mapping = fields["parse"] != nil ? "parse-server" : "jsonfeed"
    }
    if let feed = fields["feed"] {
      guard let text = feed as? String, let url = httpURL(text) else {
        throw CommandFailure(.config, "\(place).feed must be an http(s) URL")
      }
      return SyncSource(
        name: name, kind: .feed(url), mapping: mapping, maxAge: maxAge, skipsWhileFresh: skipsWhileFresh,
        labels: labels)
    }
    guard let parse = fields["parse"] as? [String: Any] else {
      throw CommandFailure(.config, "\(place).parse must be an object")
    }
    return SyncSource(
      name: name, kind: .parse(try parseSettings(parse, place: place + ".parse")), mapping: mapping, maxAge: maxAge,
      skipsWhileFresh: skipsWhileFresh, labels: labels)
  }

  private static func parseSettings(_ fields: [String: Any], place: String) throws(CommandFailure) -> ParseSettings {
    let known = [
      "serverURL", "applicationId", "restAPIKeyEnvironment", "sessionTokenEnvironment", "pageSize", "classes",
    ]
    for key in fields.keys where !known.contains(key) {
      throw CommandFailure(
        .config, "\(place): unknown key \"\(key)\"", hint: "known keys: \(known.joined(separator: ", "))")
    }
    guard let text = fields["serverURL"] as? String, let serverURL = httpURL(text) else {
      throw CommandFailure(.config, "\(place).serverURL must be an http(s) URL")
    }
    guard let applicationID = fields["applicationId"] as? String, !applicationID.isEmpty else {
      throw CommandFailure(.config, "\(place).applicationId must be a non-empty string")
    }
    guard let list = fields["classes"] as? [Any], !list.isEmpty else {
      throw CommandFailure(.config, "\(place).classes must be a non-empty array of class names or objects")
    }
    var settings = ParseSettings(serverURL: serverURL, applicationID: applicationID, classes: [])
    for key in ["restAPIKeyEnvironment", "sessionTokenEnvironment"] {
      guard let value = fields[key] else { continue }
      guard let variable = value as? String, !variable.isEmpty else {
        throw CommandFailure(.config, "\(place).\(key) must name an environment variable")
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
        throw CommandFailure(.config, "\(place).classes[\(index)]: \(parsed.name) is listed twice")
      }
      settings.classes.append(parsed)
    }
    return settings
  }

  private static func parseClass(_ item: Any, place: String) throws(CommandFailure) -> ParseClass {
    if let name = item as? String, !name.isEmpty { return try checkedClass(ParseClass(name: name), place: place) }
    guard let fields = item as? [String: Any] else {
      throw CommandFailure(.config, "\(place) must be a class name or an object with \"name\"")
    }
    for key in fields.keys where !["name", "pageSize", "files", "relations"].contains(key) {
      throw CommandFailure(
        .config, "\(place): unknown key \"\(key)\"", hint: "a class has name, pageSize, files, relations")
    }
    guard let name = fields["name"] as? String, !name.isEmpty else {
      throw CommandFailure(.config, "\(place).name must be a class name")
    }
    var parseClass = ParseClass(name: name)
    if let value = fields["pageSize"] { parseClass.pageSize = try pageSize(value, place: place + ".pageSize") }
    if let value = fields["files"] { parseClass.files = try files(value, place: place + ".files") }
    if let value = fields["relations"] {
      guard let keys = value as? [String], keys.allSatisfy({ !$0.isEmpty }) else {
        throw CommandFailure(.config, "\(place).relations must be an array of Relation field names")
      }
      parseClass.relations = keys
    }
    return try checkedClass(parseClass, place: place)
  }

  /// Refuses the classes Parse's REST API does not serve as classes: `_Join:<field>:<Class>` tables hold Relation
  /// members, which are synced through their owner's `relations`.
  private static func checkedClass(_ parseClass: ParseClass, place: String) throws(CommandFailure) -> ParseClass {
    if parseClass.name.hasPrefix("_Join:") {
      let parts = parseClass.name.split(separator: ":")
      let hint =
        parts.count == 3
        ? "list \"relations\": [\"\(parts[1])\"] on the class \(parts[2]) instead" : "sync Relations with \"relations\""
      throw CommandFailure(
        .config, "\(place): \(parseClass.name) is a join table, not a class of the REST API", hint: hint)
    }
    return parseClass
  }

  private static func files(_ value: Any, place: String) throws(CommandFailure) -> FileDownloads {
    guard let fields = value as? [String: Any] else { throw CommandFailure(.config, "\(place) must be an object") }
    let known = ["attributes", "download", "maxBytes", "concurrency", "contentTypes"]
    for key in fields.keys where !known.contains(key) {
      throw CommandFailure(
        .config, "\(place): unknown key \"\(key)\"", hint: "known keys: \(known.joined(separator: ", "))")
    }
    guard let attributes = fields["attributes"] as? [String], !attributes.isEmpty else {
      throw CommandFailure(.config, "\(place).attributes must be a non-empty array of keys")
    }
    var policy = FileDownloads(attributes: attributes)
    if let value = fields["download"] {
      guard let text = value as? String, let mode = FileDownloads.Mode(rawValue: text) else {
        throw CommandFailure(.config, "\(place).download must be \"eager\" or \"lazy\"")
      }
      policy.mode = mode
    }
    for key in ["maxBytes", "concurrency"] {
      guard let value = fields[key] else { continue }
      guard let number = value as? NSNumber, !isJSONBoolean(value), number.doubleValue >= 1,
        number.doubleValue <= 1e12, number.doubleValue == number.doubleValue.rounded()
      else { throw CommandFailure(.config, "\(place).\(key) must be a whole number ≥ 1") }
      if key == "maxBytes" {
        policy.maxBytes = number.intValue
      } else {
        guard number.intValue <= 64 else { throw CommandFailure(.config, "\(place).concurrency must be from 1 to 64") }
        policy.concurrency = number.intValue
      }
    }
    if let value = fields["contentTypes"] {
      guard let types = value as? [String] else {
        throw CommandFailure(.config, "\(place).contentTypes must be an array of content type prefixes")
      }
      policy.allowedContentTypes = types.map { $0.lowercased() }
    }
    return policy
  }

  private static func pageSize(_ value: Any, place: String) throws(CommandFailure) -> Int {
    guard let number = value as? NSNumber, !isJSONBoolean(value), number.doubleValue >= 1,
      number.doubleValue <= 1000, number.doubleValue == number.doubleValue.rounded()
    else { throw CommandFailure(.config, "\(place) must be a whole number from 1 to 1000") }
    return number.intValue
  }

  private static func httpURL(_ text: String) -> URL? {
    guard let url = URL(string: text), url.isWebURL
    else { return nil }
    return url
  }
}
