import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage

/// The `news` configuration: named sources, the default one, the database path, the timeout, the API key.
///
/// Read from a JSON file (see `Config/news.json` and the README):
/// ```json
/// {
///   "defaultSource": "sample",
///   "sources": {
///     "sample": { "file": "sample/top-headlines.json" },
///     "top-headlines": { "url": "https://newsapi.org/v2/top-headlines", "query": { "country": "us" },
///                        "maxAge": 900, "policy": "cache-first" }
///   },
///   "database": null,
///   "timeoutSeconds": 5,
///   "apiKey": null
/// }
/// ```
/// A `file` path and a relative `database` path are relative to the folder of the configuration file. Unknown keys
/// and wrong types are errors naming the key, so a typo is never silently ignored.
struct Configuration: Sendable {
  /// A named place to fetch from.
  struct Source: Sendable {
    var name: String
    var url: URL
    /// `"maxAge"`: seconds its rows stay fresh; `nil` when not configured.
    var maxAge: TimeInterval?
    /// `"policy"`: how `news fetch` reads it by default; `nil` when not configured (network-first).
    var policy: CachePolicy?
    /// `"folder"`, `"title"`, `"homePage"`.
    var labels = SourceLabels()
  }

  var sources: [String: Source] = [:]
  /// The sources `news sync` reads (entries of `"sources"` with `"parse"` or `"feed"`).
  var syncSources: [String: SyncSource] = [:]
  var defaultSource: String?
  /// The database path, or `nil` for the default under the XDG data directory.
  var databasePath: String?
  /// Seconds allowed for a network request.
  var timeoutSeconds: Double = 5
  /// The NewsAPI key from the file; `NEWSAPI_KEY` in the environment takes precedence.
  var apiKey: String?
  /// What to evict after each save (`"eviction": {"maxArticles": N, "maxAgeDays": D}`); nothing by default.
  var eviction: EvictionPolicy = .none
  /// The file this configuration was read from; `nil` for the built-in defaults.
  var file: String?
  /// `"serve"`: the account and names of `news serve` (docs/SERVE.md).
  var serve = Serve()

  /// `"serve": {"user": …, "passwordHash": "$argon2id$…", "apiToken": …, "names": [...]}`: who may use
  /// `news serve` and under which names it is reached. `user` and `passwordHash` come together or not at all
  /// (`news serve --set-password USER` writes them and a new `apiToken`).
  struct Serve: Sendable {
    /// The user name, or `nil` for no account (loopback only).
    var user: String?
    /// The argon2id hash of the password (libsodium's string form).
    var passwordHash: String?
    /// The Miniflux API token (`X-Auth-Token`), or `nil`.
    var apiToken: String?
    /// Host names the server answers for besides IP literals and `localhost` (behind a proxy).
    var names: [String] = []
  }

  /// Finds and reads the configuration: `--config PATH`, else `$NEWS_CONFIG`, else `Config/news.json` in the
  /// current folder (a checkout of this package), else `$XDG_CONFIG_HOME/news/news.json` (default
  /// `~/.config/news/news.json`), else built-in defaults with no sources.
  ///
  /// With `creatable` (the commands that write sources: `news add`, `news import`), an explicit path that does not
  /// exist yet gives an empty configuration for that file, which the command then creates.
  static func load(
    explicitPath: String?, environment: [String: String], currentDirectory: String, creatable: Bool = false
  ) throws(CommandFailure) -> Configuration {
    if let path = explicitPath ?? environment["NEWS_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
      let file = resolvedPath(path, relativeTo: currentDirectory, environment: environment)
      if creatable, !FileManager.default.fileExists(atPath: file) { return Configuration(file: file) }
      return try read(path: file, environment: environment)
    }
    let local = absolute("Config/news.json", relativeTo: currentDirectory)
    if FileManager.default.fileExists(atPath: local) { return try read(path: local, environment: environment) }
    let user = xdgDirectory("XDG_CONFIG_HOME", fallback: ".config", environment: environment) + "/news/news.json"
    if FileManager.default.fileExists(atPath: user) { return try read(path: user, environment: environment) }
    return Configuration()
  }

  /// The largest configuration file read (1 MiB): a hand-written file is a few KiB.
  static let maximumFileSize = 1 << 20

  /// The bytes of the configuration file at `path`.
  ///
  /// - Throws: ``CommandFailure`` 78 naming the file and why it cannot be read, from `errno` (no such file, is a
  ///   directory, permission denied) or its size.
  static func contents(path: String) throws(CommandFailure) -> Data {
    do {
      return try LocalFile.read(path, maxBytes: maximumFileSize)
    } catch {
      let hint: String? =
        switch error.code {
        case ENOENT: "give an existing file with --config or NEWS_CONFIG, or none to use the default"
        case EISDIR: "give the configuration file (news.json), not its folder"
        case EACCES, EPERM: "check the file's permissions (ls -l \(path))"
        default: nil
        }
      throw CommandFailure(.config, "cannot read the configuration file \(path): \(error.reason)", hint: hint)
    }
  }

  /// The JSON value of a configuration file's text (RFC 8259).
  ///
  /// - Throws: ``CommandFailure`` 78 naming the file and where the text stops being JSON: the byte, line and column,
  ///   and what was expected there (the package's JSON reader, `JSONValue.parse`, the one mapping files are read
  ///   with), e.g. `news.json: not valid JSON: byte 41 (line 3, column 7): expected "," or "}" after a member of an
  ///   object, found "]"`.
  static func jsonObject(_ data: Data, path: String) throws(CommandFailure) -> Any {
    do {
      return try JSONSerialization.jsonObject(with: data)
    } catch {
      let detail: String
      do {
        _ = try JSONValue.parse(data)
        detail = "\(error.localizedDescription)"
      } catch {
        if case .invalidJSON(let position) = error { detail = position } else { detail = error.description }
      }
      throw CommandFailure(.config, "\(path): not valid JSON: \(detail)")
    }
  }

  /// Reads one configuration file; `~/` in its paths is `$HOME` from `environment` (the user's home folder when it
  /// has none: a check of an edit's validity).
  static func read(path: String, environment: [String: String] = [:]) throws(CommandFailure) -> Configuration {
    let data = try contents(path: path)
    let object = try jsonObject(data, path: path)
    guard let root = object as? [String: Any] else {
      throw CommandFailure(.config, "\(path): the top level must be a JSON object")
    }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var configuration = Configuration(file: path)
    func wrong(_ key: String, _ expected: String) -> CommandFailure {
      CommandFailure(.config, "\(path): \"\(key)\" must be \(expected)")
    }
    for (key, value) in root {
      switch key {
      case "defaultSource":
        guard let name = value as? String else { throw wrong(key, "a string") }
        configuration.defaultSource = name
      case "database":
        if value is NSNull { continue }
        guard let database = value as? String, !database.isEmpty else { throw wrong(key, "a path or null") }
        configuration.databasePath = resolvedPath(database, relativeTo: folder, environment: environment)
      case "timeoutSeconds":
        guard let number = value as? NSNumber, !isJSONBoolean(value), number.doubleValue > 0,
          number.doubleValue <= 86_400
        else {
          throw wrong(key, "a number of seconds more than 0 and at most 86400 (a day)")
        }
        configuration.timeoutSeconds = number.doubleValue
      case "apiKey":
        if value is NSNull { continue }
        guard let key = value as? String else { throw wrong("apiKey", "a string or null") }
        configuration.apiKey = key.isEmpty ? nil : key
      case "eviction":
        if value is NSNull { continue }
        guard let fields = value as? [String: Any] else { throw wrong(key, "an object or null") }
        for (field, number) in fields {
          guard ["maxArticles", "maxAgeDays"].contains(field) else {
            throw CommandFailure(
              .config, "\(path): unknown key \"eviction.\(field)\"", hint: "eviction has maxArticles and maxAgeDays")
          }
          if number is NSNull { continue }
          guard let count = number as? NSNumber, !isJSONBoolean(number), count.doubleValue > 0 else {
            throw wrong("eviction.\(field)", "a number > 0 or null")
          }
          if field == "maxArticles" {
            configuration.eviction.maxArticles = count.intValue
          } else {
            configuration.eviction.maxAge = count.doubleValue * 86_400
          }
        }
      case "sources":
        guard let sources = value as? [String: Any] else { throw wrong(key, "an object of named sources") }
        for (name, entry) in sources {
          if isSyncSource(entry) {
            configuration.syncSources[name] = try syncSource(name: name, entry: entry, path: path)
          } else {
            configuration.sources[name] = try source(
              name: name, entry: entry, folder: folder, path: path, environment: environment)
          }
        }
      case "serve":
        configuration.serve = try serve(value, path: path)
      default:
        throw CommandFailure(
          .config, "\(path): unknown key \"\(key)\"",
          hint: "known keys: defaultSource, sources, database, timeoutSeconds, apiKey, eviction, serve")
      }
    }
    // Any source `news fetch --source` reads can be the default: NewsAPI, file, feed or Parse.
    if let name = configuration.defaultSource, configuration.sources[name] == nil,
      configuration.syncSources[name] == nil
    {
      throw CommandFailure(.config, "\(path): \"defaultSource\" names \"\(name)\", which is not in \"sources\"")
    }
    return configuration
  }

  /// The `"serve"` object (see ``Serve``).
  private static func serve(_ value: Any, path: String) throws(CommandFailure) -> Serve {
    if value is NSNull { return Serve() }
    guard let fields = value as? [String: Any] else {
      throw CommandFailure(.config, "\(path): \"serve\" must be an object or null")
    }
    var serve = Serve()
    for (field, entry) in fields {
      if entry is NSNull { continue }
      switch field {
      case "user", "passwordHash", "apiToken":
        guard let text = entry as? String, !text.isEmpty else {
          throw CommandFailure(.config, "\(path): \"serve.\(field)\" must be a non-empty string or null")
        }
        if field == "user" {
          serve.user = text
        } else if field == "apiToken" {
          serve.apiToken = text
        } else {
          guard text.hasPrefix("$argon2id$") else {
            throw CommandFailure(
              .config, "\(path): \"serve.passwordHash\" must be an argon2id hash ($argon2id$…)",
              hint: "set it with: news serve --set-password USER (reads the password from standard input)")
          }
          serve.passwordHash = text
        }
      case "names":
        guard let names = entry as? [String], !names.contains(where: \.isEmpty) else {
          throw CommandFailure(.config, "\(path): \"serve.names\" must be an array of host names")
        }
        serve.names = names
      default:
        throw CommandFailure(
          .config, "\(path): unknown key \"serve.\(field)\"", hint: "serve has user, passwordHash, apiToken and names")
      }
    }
    if (serve.user == nil) != (serve.passwordHash == nil) {
      throw CommandFailure(
        .config, "\(path): \"serve\" needs both \"user\" and \"passwordHash\", or neither",
        hint: "set them with: news serve --set-password USER")
    }
    return serve
  }

  private static func source(
    name: String, entry: Any, folder: String, path: String, environment: [String: String]
  ) throws(CommandFailure) -> Source {
    let place = "\(path): sources.\(name)"
    guard let fields = entry as? [String: Any] else { throw CommandFailure(.config, "\(place) must be an object") }
    for key in fields.keys where !(["file", "url", "query", "maxAge", "policy"] + labelKeys).contains(key) {
      throw CommandFailure(
        .config, "\(place): unknown key \"\(key)\"",
        hint: "a source has \"file\", or \"url\" and \"query\"; and optionally \"maxAge\", \"policy\", \"folder\", "
          + "\"title\" and \"homePage\"")
    }
    let labels = try labels(fields, place: place)
    let maxAge = try Self.maxAge(fields["maxAge"], place: place)
    var policy: CachePolicy?
    if let value = fields["policy"], !(value is NSNull) {
      guard let name = value as? String, let named = CachePolicy(commandLineName: name) else {
        throw CommandFailure(
          .config, "\(place).policy must be one of \(CachePolicy.commandLineNames.joined(separator: ", ")), or null")
      }
      policy = named
    }
    if let file = fields["file"] {
      guard let file = file as? String, !file.isEmpty, fields["url"] == nil, fields["query"] == nil else {
        throw CommandFailure(.config, "\(place).file must be a path, alone (no url or query)")
      }
      return Source(
        name: name, url: URL(fileURLWithPath: resolvedPath(file, relativeTo: folder, environment: environment)),
        maxAge: maxAge,
        policy: policy, labels: labels)
    }
    guard let text = fields["url"] as? String, var components = URLComponents(string: text),
      components.url?.isWebURL == true
    else {
      throw CommandFailure(.config, "\(place) needs \"file\" (a path) or \"url\" (an http(s) URL)")
    }
    if let query = fields["query"] {
      guard let items = query as? [String: Any] else {
        throw CommandFailure(.config, "\(place).query must be an object of strings")
      }
      var queryItems = components.queryItems ?? []
      for (key, value) in items.sorted(by: { $0.key < $1.key }) {
        let text: String
        if let string = value as? String {
          text = string
        } else if let number = value as? NSNumber, !isJSONBoolean(value) {
          text = number.stringValue
        } else {
          throw CommandFailure(.config, "\(place).query.\(key) must be a string or a number")
        }
        queryItems.append(URLQueryItem(name: key, value: text))
      }
      components.queryItems = queryItems
    }
    guard let url = components.url else { throw CommandFailure(.config, "\(place): cannot build a URL") }
    return Source(name: name, url: url, maxAge: maxAge, policy: policy, labels: labels)
  }

  /// The hint of an error naming no configured source: every source of every kind (NewsAPI, file, feed, Parse), at
  /// most 8 by name, e.g. `configured: a, b, … (207 in all; 'news sources' lists them)`.
  var knownSourcesHint: String {
    let sorted = Set(sources.keys).union(syncSources.keys).sorted()
    guard !sorted.isEmpty else { return "no sources are configured" }
    var known = sorted.prefix(8).joined(separator: ", ")
    if sorted.count > 8 { known += ", … (\(sorted.count) in all; 'news sources' lists them)" }
    return "configured: \(known)"
  }

  /// A source's `"maxAge"`: seconds ≥ 0, or `nil` when absent or `null`.
  static func maxAge(_ value: Any?, place: String) throws(CommandFailure) -> TimeInterval? {
    guard let value, !(value is NSNull) else { return nil }
    guard let number = value as? NSNumber, !isJSONBoolean(value), number.doubleValue >= 0, number.doubleValue.isFinite
    else { throw CommandFailure(.config, "\(place).maxAge must be a number of seconds ≥ 0, or null") }
    return number.doubleValue
  }

  /// The default database: `$XDG_DATA_HOME/news/news.sqlite`, else `~/.local/share/news/news.sqlite`.
  static func defaultDatabasePath(environment: [String: String]) -> String {
    xdgDirectory("XDG_DATA_HOME", fallback: ".local/share", environment: environment) + "/news/news.sqlite"
  }

  /// An XDG base directory (<https://specifications.freedesktop.org/basedir-spec/latest/>): the variable if it is
  /// set to an absolute path, else `$HOME/<fallback>`.
  static func xdgDirectory(_ variable: String, fallback: String, environment: [String: String]) -> String {
    if let value = environment[variable], value.hasPrefix("/") { return value }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return home + "/" + fallback
  }
}

/// `path` made absolute against `base` (and standardized).
func absolute(_ path: String, relativeTo base: String) -> String {
  let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: base).appendingPathComponent(path)
  return url.standardizedFileURL.path
}

/// Whether a value from `JSONSerialization` is a JSON `true`/`false`. `value is Bool` cannot tell: with
/// swift-corelibs-foundation the numbers `1`, `0` and `1.0` are `Bool` too, which made `"timeoutSeconds": 1` an
/// error; a boolean is the only `NSNumber` JSONSerialization makes with the `char` type.
func isJSONBoolean(_ value: Any) -> Bool {
  guard let number = value as? NSNumber else { return false }
  return String(cString: number.objCType) == "c"
}

/// `~` → `$HOME` and `~/x` → `$HOME/x` (`HOME` from `environment`, else the user's home folder); any other path,
/// `~user/x` included, as it is. A configuration file or a script passes `~` quoted, where no shell expands it.
func expandingTilde(_ path: String, environment: [String: String]) -> String {
  guard path == "~" || path.hasPrefix("~/") else { return path }
  let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
  return (home.hasSuffix("/") && path.hasPrefix("~/") ? String(home.dropLast()) : home) + path.dropFirst()
}

/// A path as a user wrote it (an option, a configuration value, an argument) made absolute: `~` or `~/…` expanded
/// with `$HOME` (``expandingTilde(_:environment:)``), then resolved against `base` (``absolute(_:relativeTo:)``).
func resolvedPath(_ path: String, relativeTo base: String, environment: [String: String]) -> String {
  absolute(expandingTilde(path, environment: environment), relativeTo: base)
}

extension CachePolicy {
  /// The policies `news fetch --policy` and a source's `"policy"` accept, by name.
  static let byCommandLineName: [String: CachePolicy] = [
    "network-first": .networkFirst, "cache-first": .cacheFirst, "network-only": .networkOnly,
    "cache-only": .cacheOnly,
  ]

  /// The accepted names, in the order the help lists them.
  static let commandLineNames = ["network-first", "cache-first", "network-only", "cache-only"]

  /// The policy named `name` (`network-first`, `cache-first`, `network-only`, `cache-only`), or `nil`.
  init?(commandLineName name: String) {
    guard let policy = Self.byCommandLineName[name] else { return nil }
    self = policy
  }

  /// The policy's name on the command line, e.g. `network-first`.
  var commandLineName: String {
    switch self {
    case .networkFirst: "network-first"
    case .cacheFirst: "cache-first"
    case .networkOnly: "network-only"
    case .cacheOnly: "cache-only"
    case .cacheThenNetwork: "cache-then-network"
    }
  }
}
