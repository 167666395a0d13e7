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
  /// A source read by URL: a NewsAPI query or a file (the library reads the `"sources"` object: ``SubscriptionFile``).
  typealias Source = SubscriptionFile.Entry
  /// A synced source: a feed or a Parse Server's classes.
  typealias SyncSource = SubscriptionFile.SyncEntry
  /// `"folder"`, `"title"`, `"homePage"`, `"fullText"`, which every source may have.
  typealias SourceLabels = SubscriptionFile.Labels

  var sources: [String: Source] = [:]
  /// The sources `news sync` reads (entries of `"sources"` with `"parse"` or `"feed"`).
  var syncSources: [String: SyncSource] = [:]
  /// Every source's name, in the order the file lists them.
  var sourceOrder: [String] = []
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

  /// Finds and reads the configuration: `--config PATH`, else `$NEWS_CONFIG`, else the user's
  /// `$XDG_CONFIG_HOME/news/news.json` (default `~/.config/news/news.json`), else the package's sample
  /// `Config/news.json` in the current folder (a checkout of this package: the quick start), else built-in defaults
  /// with no sources.
  ///
  /// With `creatable` (the commands that write the file: `news add`, `news import`, `news serve`), an explicit path
  /// that does not exist yet gives an empty configuration for that file, which the command then creates; and the
  /// package's sample is never written: it is copied to the user's file first, which every later `news` reads,
  /// from any folder (a fresh user's `news add` in the checkout edited the tracked sample, and `news serve
  /// --set-password` wrote a password hash into it).
  /// With `newFileAllowed` only the first: an explicit path not there yet is an empty configuration (`note` says so),
  /// and the sample is read in place.
  static func load(
    explicitPath: String?, environment: [String: String], currentDirectory: String, creatable: Bool = false,
    newFileAllowed: Bool = false, note: (String) -> Void = { _ in }
  ) throws(CommandFailure) -> Configuration {
    if let path = explicitPath ?? environment["NEWS_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
      let file = LocalPath.resolved(path, relativeTo: currentDirectory, environment: environment)
      if creatable || newFileAllowed, !FileManager.default.fileExists(atPath: file) {
        // Said, not silent: a mistyped `--config` would otherwise import under no eviction policy (tester LOW).
        if !creatable { note("no configuration file \(file): the defaults apply (no eviction, no sources)") }
        return Configuration(file: file)
      }
      return try read(path: file, environment: environment)
    }
    let user = userConfigurationPath(environment: environment)
    if FileManager.default.fileExists(atPath: user) { return try read(path: user, environment: environment) }
    let sample = LocalPath.absolute("Config/news.json", relativeTo: currentDirectory)
    guard FileManager.default.fileExists(atPath: sample) else {
      return creatable ? Configuration(file: user) : Configuration()
    }
    guard creatable else { return try read(path: sample, environment: environment) }
    // Checked as it is read before it is copied: a broken sample is reported as the sample.
    let original = try read(path: sample, environment: environment)
    do {
      try FileManager.default.createDirectory(
        atPath: (user as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: sample, toPath: user)
      // A file source's relative path is relative to its configuration's folder: the copy names the same files.
      var edit = try JSONFileEdit(path: user)
      for (name, source) in original.sources where source.url.isFileURL {
        _ = try edit.setField("file", ofSource: name, to: .string(source.url.path))
      }
      try edit.save { path in _ = try read(path: path, environment: environment) }
    } catch {
      throw CommandFailure(
        .config, "cannot create \(user) from the package's sample \(sample): \(error.localizedDescription)",
        hint: "give a configuration file with --config PATH or NEWS_CONFIG")
    }
    note("\(user) created from the package's sample \(sample): news reads and edits it from now on, in any folder")
    return try read(path: user, environment: environment)
  }

  /// The bytes of the configuration file at `path` (at most ``SubscriptionFile/maximumFileSize``).
  ///
  /// - Throws: ``CommandFailure`` 78 naming the file and why it cannot be read.
  static func contents(path: String) throws(CommandFailure) -> Data {
    do {
      return try SubscriptionFile.contents(path: path)
    } catch {
      throw CommandFailure(error)
    }
  }

  /// Reads one configuration file; `~/` in its paths is `$HOME` from `environment` (the user's home folder when it
  /// has none: a check of an edit's validity).
  static func read(path: String, environment: [String: String] = [:]) throws(CommandFailure) -> Configuration {
    let data = try contents(path: path)
    let value: JSONValue
    do {
      value = try SubscriptionFile.jsonValue(data, path: path)
    } catch {
      throw CommandFailure(error)
    }
    guard let root = value.object else {
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
        guard let name = value.stringValue else { throw wrong(key, "a string") }
        configuration.defaultSource = name
      case "database":
        if value == .null { continue }
        guard let database = value.stringValue, !database.isEmpty else { throw wrong(key, "a path or null") }
        configuration.databasePath = LocalPath.resolved(database, relativeTo: folder, environment: environment)
      case "timeoutSeconds":
        guard let number = value.numberValue, number > 0, number <= 86_400 else {
          throw wrong(key, "a number of seconds more than 0 and at most 86400 (a day)")
        }
        configuration.timeoutSeconds = number
      case "apiKey":
        if value == .null { continue }
        guard let key = value.stringValue else { throw wrong("apiKey", "a string or null") }
        configuration.apiKey = key.isEmpty ? nil : key
      case "eviction":
        if value == .null { continue }
        guard let fields = value.object else { throw wrong(key, "an object or null") }
        for (field, number) in fields {
          guard ["maxArticles", "maxAgeDays"].contains(field) else {
            throw CommandFailure(
              .config, "\(path): unknown key \"eviction.\(field)\"", hint: "eviction has maxArticles and maxAgeDays")
          }
          if number == .null { continue }
          guard let count = number.numberValue, count > 0, count < 1e15 else {
            throw wrong("eviction.\(field)", "a number > 0 or null")
          }
          if field == "maxArticles" {
            configuration.eviction.maxArticles = Int(count)
          } else {
            configuration.eviction.maxAge = count * 86_400
          }
        }
      case "sources":
        do {
          let entries = try SubscriptionFile.entries(
            value, order: SubscriptionFile.order(of: data), path: path, environment: environment)
          configuration.sources = entries.sources
          configuration.syncSources = entries.syncSources
          configuration.sourceOrder = entries.order
        } catch {
          throw CommandFailure(error)
        }
      case "serve":
        configuration.serve = try serve(value, path: path)
      case "folders":
        // The folders kept with no source filed in them (`news serve`'s Miniflux `POST /v1/categories`): the
        // library reads them (``SubscriptionFile/keptFolders()``); a bad value is refused here, as any key's.
        do {
          _ = try SubscriptionFile.keptFolders(value, path: path)
        } catch {
          throw CommandFailure(error)
        }
      default:
        throw CommandFailure(
          .config, "\(path): unknown key \"\(key)\"",
          hint: "known keys: defaultSource, sources, folders, database, timeoutSeconds, apiKey, eviction, serve")
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
  private static func serve(_ value: JSONValue, path: String) throws(CommandFailure) -> Serve {
    if value == .null { return Serve() }
    guard let fields = value.object else {
      throw CommandFailure(.config, "\(path): \"serve\" must be an object or null")
    }
    var serve = Serve()
    for (field, entry) in fields {
      if entry == .null { continue }
      switch field {
      case "user", "passwordHash", "apiToken":
        guard let text = entry.stringValue, !text.isEmpty else {
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
        guard let names = entry.stringArray, !names.contains(where: \.isEmpty) else {
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

  /// The hint of an error naming no configured source: the sources of every kind (NewsAPI, file, feed, Parse) by
  /// ``NameHint``, the nearest to `typed` first, e.g. `configured: a, b, … (207 in all; 'news sources' lists them)`.
  func knownSourcesHint(typed: String? = nil) -> String {
    let names = Set(sources.keys).union(syncSources.keys)
    guard !names.isEmpty else { return "no sources are configured" }
    return NameHint.text("configured", names, typed: typed, more: "'news sources' lists them")
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
