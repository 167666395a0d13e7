import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsSync

/// A subscription list kept in a JSON file that people also edit by hand — the `"sources"` object of the `news`
/// configuration file — read and written by the library, keeping the file's layout: every edit changes the entries
/// it is about and nothing else (other keys, their order, white space), is checked by reading the result back, and
/// replaces the file atomically (`rename(2)`).
///
/// For example:
/// ```swift
/// let list = SubscriptionFile(path: NSHomeDirectory() + "/.config/news/news.json")
/// try await list.subscribe([NewsSource(name: "ATP", url: URL(string: "https://atp.fm/rss")!, folder: ["Podcasts"])])
/// // news.json now also has: "ATP": { "feed": "https://atp.fm/rss", "folder": "Podcasts" }
/// let report = try await repository.refreshSubscriptions(of: list, options: RefreshOptions(transport: transport))
/// ```
///
/// The format (README, "Configuration"): each member of `"sources"` is a source, named by its key — `{"feed": URL}`
/// (RSS, Atom, RDF or JSON Feed), `{"url": URL, "query": {…}}` (NewsAPI v2), `{"file": PATH}` (relative to the
/// file's folder; `~/` is `$HOME`), or `{"parse": {…}, "mapping": NAME}` (a Parse Server's classes) — with
/// `folder` (`"Tech/Swift"`), `title`, `homePage`, `fullText`, `policy` and `maxAge`. Unknown keys and wrong types
/// are errors naming the key. A missing file is an empty list, created by the first change.
public struct SubscriptionFile: SubscriptionList {
  /// The file, as given.
  public let path: String
  /// Where `HOME` (for `~/` in paths) and a Parse source's secrets (the variables its `restAPIKeyEnvironment` and
  /// `sessionTokenEnvironment` name) are read from.
  public var environment: [String: String] { didSet { cache = SubscriptionFileCache() } }
  /// How a Parse source's `"mapping"` (a name or a path) becomes a mapping; by default the shipped mappings by name
  /// (``ImportMapping/shipped(_:)``) — an app with its own mapping files passes its loader.
  public var mappings: @Sendable (String) throws -> ImportMapping { didSet { cache = SubscriptionFileCache() } }
  /// A further check of an edited file before it replaces the old one (an app whose file holds more than sources
  /// checks the rest here); it throws to refuse. By default none: the sources are always checked.
  public var check: @Sendable (String) throws -> Void

  /// The largest file read (1 MiB): a hand-written list of a thousand feeds is about 150 KiB.
  public static let maximumFileSize = 1 << 20

  /// The file's last text and what was made of it (``sources()``, ``subscribed()``, ``keptFolders()``), shared by
  /// the copies of this list: the file is read and parsed again only when it changed (``SubscriptionFileCache``).
  private var cache = SubscriptionFileCache()

  /// The list in the file at `path`; nothing is read until it is used.
  public init(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    mappings: @escaping @Sendable (String) throws -> ImportMapping = SubscriptionFile.shippedMapping,
    check: @escaping @Sendable (String) throws -> Void = { _ in }
  ) {
    self.path = path
    self.environment = environment
    self.mappings = mappings
    self.check = check
  }

  /// The shipped mapping `name` (``ImportMapping/shipped(_:)``).
  ///
  /// - Throws: ``SubscriptionFileError`` naming the shipped mappings when there is none of that name.
  public static func shippedMapping(_ name: String) throws -> ImportMapping {
    guard let mapping = try ImportMapping.shipped(name) else {
      throw SubscriptionFileError(
        .invalidValue, path: "", "no shipped mapping \"\(name)\"",
        hint: "shipped: " + ImportMapping.shippedNames.joined(separator: ", "))
    }
    return mapping
  }

  // MARK: SubscriptionList

  /// Every source of the file, in the file's order.
  ///
  /// - Throws: ``SubscriptionChangeError/file(_:)`` when the file cannot be read, a value is wrong, or a Parse
  ///   source's mapping cannot be loaded.
  public func sources() async throws(SubscriptionChangeError) -> [NewsSource] {
    do {
      guard let snapshot = try cache.snapshot(path: path) else { return [] }
      if let sources = snapshot.products.withLock({ $0.sources }) { return sources }
      let sources = try newsSources(entries(of: snapshot))
      snapshot.products.withLock { $0.sources = sources }
      return sources
    } catch {
      throw .file(error)
    }
  }

  /// The entries of the file's text `snapshot`, read once per text.
  private func entries(of snapshot: SubscriptionFileCache.Snapshot) throws(SubscriptionFileError) -> Entries {
    let path = path
    let environment = environment
    return try snapshot.product(
      { $0.entries },
      make: {
        Result { () throws(SubscriptionFileError) in
          try Self.entries(ofText: snapshot.bytes, path: path, environment: environment)
        }
      },
      keep: { $0.entries = $1 }
    ).get()
  }

  /// Every source's name and URL, in the file's order, without loading a Parse source's mapping.
  ///
  /// - Throws: ``SubscriptionChangeError/file(_:)`` when the file cannot be read or a value is wrong.
  public func subscribed() async throws(SubscriptionChangeError) -> [(name: String, url: URL)] {
    let entries: Entries
    do {
      entries = try cache.snapshot(path: path).map(entries(of:)) ?? Entries()
    } catch {
      throw .file(error)
    }
    return entries.order.compactMap { name in
      (entries.sources[name]?.url ?? entries.syncSources[name]?.url).map { (name, $0) }
    }
  }

  /// Adds `sources` at the end of `"sources"`: a feed as `{"feed": URL}`, a file as `{"file": PATH}`, with the
  /// labels it has (`title`, `homePage`, `folder`, `fullText`, `maxAge`, and `policy` when cache-first).
  ///
  /// - Throws: ``SubscriptionChangeError/unsupportedKind(_:)`` for a Parse source (its mapping and secrets are
  ///   written by hand); ``SubscriptionChangeError/file(_:)``.
  public func append(_ sources: [NewsSource]) async throws(SubscriptionChangeError) {
    for source in sources { guard case .articles = source.kind else { throw .unsupportedKind(source.name) } }
    let path = path
    let environment = environment
    try edit { edit throws(SubscriptionFileError) in
      // Checked again under the lock: another program may have added a source since the names were planned.
      let current = try Self.read(path: path, environment: environment)
      var names = Set(current.order.map { $0.lowercased() })
      var keys = Set(
        (current.sources.values.map(\.url) + current.syncSources.values.map(\.url)).map(NewsSource.subscriptionKey))
      var added: [(name: String, fields: [(String, JSONFileEdit.FieldValue)])] = []
      for source in sources where keys.insert(source.subscriptionKey).inserted {
        let name = NewsSource.unusedName(source.name, among: names)
        names.insert(name.lowercased())
        added.append((name, Self.fields(of: source)))
      }
      try edit.addSources(added)
    }
  }

  /// Cuts the source `name` out of the file.
  ///
  /// - Throws: ``SubscriptionChangeError/notSubscribed(_:)``; ``SubscriptionChangeError/file(_:)``, e.g. when the
  ///   file's `check` refuses (the `news` configuration's `defaultSource` naming it).
  public func remove(_ name: String) async throws(SubscriptionChangeError) {
    var found = false
    try edit { edit throws(SubscriptionFileError) in found = try edit.removeSource(named: name) }
    if !found { throw .notSubscribed(name) }
  }

  /// Renames the source `name`; a top-level `"defaultSource"` naming it follows.
  ///
  /// - Throws: ``SubscriptionChangeError/notSubscribed(_:)``; ``SubscriptionChangeError/file(_:)``.
  public func rename(_ name: String, to newName: String) async throws(SubscriptionChangeError) {
    var found = false
    try edit { edit throws(SubscriptionFileError) in
      found = try edit.renameSource(name, to: newName)
      if found, try edit.topLevelString("defaultSource") == name {
        try edit.setTopLevel("defaultSource", json: JSONFileEdit.literal(newName))
      }
    }
    if !found { throw .notSubscribed(name) }
  }

  /// Sets the source's `"folder"` (removes it for the top level).
  ///
  /// - Throws: ``SubscriptionChangeError/notSubscribed(_:)``; ``SubscriptionChangeError/file(_:)``.
  public func move(_ name: String, to folder: [String]) async throws(SubscriptionChangeError) {
    var found = false
    try edit { edit throws(SubscriptionFileError) in
      found = try edit.setField(
        "folder", ofSource: name, to: folder.isEmpty ? nil : .string(Self.folderText(folder)))
    }
    if !found { throw .notSubscribed(name) }
  }

  /// Rewrites the source's `"feed"` to `url`; a source of another kind (a NewsAPI `url`, a file, a Parse server) is
  /// left as written.
  ///
  /// - Throws: ``SubscriptionChangeError/file(_:)``.
  public func relink(_ name: String, to url: URL) async throws(SubscriptionChangeError) {
    let entries: Entries
    do {
      entries = try Self.read(path: path, environment: environment)
    } catch {
      throw .file(error)
    }
    guard let entry = entries.syncSources[name], case .feed = entry.kind else { return }
    // Not when the new address is another source's already: that would make two sources of one feed.
    let key = NewsSource.subscriptionKey(for: url)
    let others = entries.sources.values.map(\.url) + entries.syncSources.values.filter { $0.name != name }.map(\.url)
    if others.contains(where: { NewsSource.subscriptionKey(for: $0) == key }) { return }
    try edit { edit throws(SubscriptionFileError) in
      try edit.setField("feed", ofSource: name, to: .string(url.absoluteString))
    }
  }

  /// The folders the file keeps whether or not a source is filed in them: its top-level `"folders"`, an array of
  /// folder texts (`"Tech/Swift"`, as a source's `"folder"`); none when the file or the key is missing.
  ///
  /// - Throws: ``SubscriptionChangeError/file(_:)`` when the file cannot be read or `"folders"` is not an array of
  ///   folder texts (naming the file and the value).
  public func keptFolders() async throws(SubscriptionChangeError) -> [[String]] {
    do {
      guard let snapshot = try cache.snapshot(path: path) else { return [] }
      let path = path
      return try snapshot.product(
        { $0.keptFolders },
        make: {
          Result { () throws(SubscriptionFileError) in try Self.keptFolders(ofText: snapshot.bytes, path: path) }
        },
        keep: { $0.keptFolders = $1 }
      ).get()
    } catch {
      throw .file(error)
    }
  }

  /// The kept folders of the file's text `data` (``keptFolders()``): a text without the key is not parsed.
  ///
  /// - Throws: ``SubscriptionFileError`` naming the file and the value.
  private static func keptFolders(ofText data: Data, path: String) throws(SubscriptionFileError) -> [[String]] {
    guard data.range(of: Data(#""folders""#.utf8)) != nil,
      let root = try jsonValue(data, path: path).object, let value = root["folders"]
    else {
      return []
    }
    return try keptFolders(value, path: path)
  }

  /// Adds `folder` to the file's top-level `"folders"` (made when missing), or removes it; every other byte stays.
  ///
  /// - Throws: ``SubscriptionChangeError/file(_:)``.
  public func setFolderKept(_ folder: [String], kept: Bool) async throws(SubscriptionChangeError) {
    guard !folder.isEmpty else { return }
    let path = path
    try edit { edit throws(SubscriptionFileError) in
      var folders: [[String]] = []
      if FileManager.default.fileExists(atPath: path),
        let root = try Self.jsonValue(Self.contents(path: path), path: path).object,
        let value = root["folders"]
      {
        folders = try Self.keptFolders(value, path: path)
      }
      if kept {
        guard !folders.contains(folder) else { return }
        folders.append(folder)
      } else {
        guard folders.contains(folder) else { return }
        folders.removeAll { $0 == folder }
      }
      let texts = folders.map { JSONFileEdit.literal(Self.folderText($0)) }
      try edit.setTopLevel("folders", json: "[" + texts.joined(separator: ", ") + "]")
    }
  }

  /// The folders of a `"folders"` value: an array of folder texts.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/invalidValue``) naming the file and the value.
  package static func keptFolders(_ value: JSONValue, path: String) throws(SubscriptionFileError) -> [[String]] {
    guard let texts = value.stringArray else {
      throw SubscriptionFileError(
        .invalidValue, path: path, "\(path): \"folders\" must be an array of folder names such as \"Tech/Swift\"")
    }
    var folders: [[String]] = []
    for text in texts {
      guard let folder = folderPath(text) else {
        throw SubscriptionFileError(
          .invalidValue, path: path, "\(path): \"folders\" holds \"\(text)\", which names an empty folder")
      }
      folders.append(folder)
    }
    return folders
  }

  // MARK: Reading

  /// The bytes of the file at `path`.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/unreadable``) naming the file and why, from
  ///   `errno` (no such file, is a directory, permission denied) or its size, with a hint.
  package static func contents(path: String) throws(SubscriptionFileError) -> Data {
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
      throw SubscriptionFileError(
        .unreadable, path: path, "cannot read the configuration file \(path): \(error.reason)", hint: hint)
    }
  }

  /// The JSON value of a file's text (RFC 8259), read by ``JSONValue/parseHandWritten(_:)``, the one JSON reader
  /// of mapping and configuration files: integers exact, booleans apart from numbers, a trailing comma skipped.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/invalidJSON``) naming the file and where the
  ///   text stops being JSON: the byte, line and column, and what was expected there, e.g. `news.json: not valid
  ///   JSON: byte 41 (line 3, column 7): expected "," or "}" after a member of an object, found "]"`.
  package static func jsonValue(_ data: Data, path: String) throws(SubscriptionFileError) -> JSONValue {
    do {
      return try JSONValue.parseHandWritten(data)
    } catch {
      let detail: String
      if case .invalidJSON(let position) = error { detail = position } else { detail = error.description }
      throw SubscriptionFileError(.invalidJSON, path: path, "\(path): not valid JSON: \(detail)")
    }
  }

  /// The names of a `"sources"` object in the order `data` writes them, a name written twice twice (`[]` when it has
  /// none or is not JSON).
  package static func order(of data: Data) -> [String] {
    guard let outline = try? JSONOutline(Array(data)),
      let members = JSONOutline.member("sources", of: outline.root)?.value.members
    else { return [] }
    return members.map(\.key)
  }

  /// The entries of the file at `path` (a missing file has none); keys other than `"sources"` are the app's and are
  /// not looked at.
  ///
  /// - Throws: ``SubscriptionFileError``.
  package static func read(path: String, environment: [String: String]) throws(SubscriptionFileError) -> Entries {
    guard FileManager.default.fileExists(atPath: path) else { return Entries() }
    return try entries(ofText: contents(path: path), path: path, environment: environment)
  }

  /// The entries of the file text `data` (``read(path:environment:)``).
  ///
  /// - Throws: ``SubscriptionFileError``.
  private static func entries(ofText data: Data, path: String, environment: [String: String])
    throws(SubscriptionFileError) -> Entries
  {
    guard let root = try jsonValue(data, path: path).object else {
      throw SubscriptionFileError(.invalidJSON, path: path, "\(path): the top level must be a JSON object")
    }
    guard let sources = root["sources"] else { return Entries() }
    return try entries(sources, order: order(of: data), path: path, environment: environment)
  }

  /// The library's sources of `entries`, in their order.
  ///
  /// - Throws: ``SubscriptionFileError`` naming a Parse source whose mapping cannot be loaded.
  package func newsSources(_ entries: Entries) throws(SubscriptionFileError) -> [NewsSource] {
    var sources: [NewsSource] = []
    for name in entries.order {
      if let entry = entries.sources[name] {
        sources.append(Self.newsSource(entry))
      } else if let entry = entries.syncSources[name] {
        sources.append(try newsSource(entry))
      }
    }
    return sources
  }

  /// A NewsAPI query or file entry as the library's source.
  package static func newsSource(_ entry: Entry) -> NewsSource {
    NewsSource(
      name: entry.name, url: entry.url, title: entry.labels.title, folder: entry.labels.folder,
      homePage: entry.labels.homePage, policy: entry.policy, maxAge: entry.maxAge, fullText: entry.labels.fullText)
  }

  /// A synced entry (a feed, or a Parse Server) as the library's source: its mapping loaded by ``mappings``, its
  /// secrets read from ``environment``; `"policy": "cache-first"` is ``CachePolicy/cacheFirst`` (skipped while
  /// fresh).
  ///
  /// - Throws: ``SubscriptionFileError`` naming the file and the source whose mapping cannot be loaded.
  package func newsSource(_ entry: SyncEntry) throws(SubscriptionFileError) -> NewsSource {
    let labels = entry.labels
    let policy: CachePolicy? = entry.skipsWhileFresh ? .cacheFirst : nil
    switch entry.kind {
    case .feed(let url):
      return NewsSource(
        name: entry.name, url: url, title: labels.title, folder: labels.folder, homePage: labels.homePage,
        policy: policy, maxAge: entry.maxAge, fullText: labels.fullText)
    case .parse(let settings):
      let mapping: ImportMapping
      do {
        mapping = try mappings(entry.mapping)
      } catch {
        let reason = (error as? SubscriptionFileError)?.message ?? "\(error)"
        throw SubscriptionFileError(
          .invalidValue, path: path, "\(path): sources.\(entry.name).mapping: \(reason)",
          hint: (error as? SubscriptionFileError)?.hint)
      }
      let server = ParseServer(
        serverURL: settings.serverURL, applicationID: settings.applicationID,
        restAPIKey: environment[settings.restAPIKeyEnvironment],
        sessionToken: settings.sessionTokenEnvironment.flatMap { environment[$0] })
      let classes = settings.classes.map {
        ParseSource.Class(name: $0.name, pageSize: $0.pageSize, files: $0.files, relations: $0.relations)
      }
      return NewsSource(
        name: entry.name,
        kind: .parse(ParseSource(server: server, classes: classes, mapping: mapping, pageSize: settings.pageSize)),
        title: labels.title, folder: labels.folder, homePage: labels.homePage, policy: policy, maxAge: entry.maxAge,
        fullText: labels.fullText)
    }
  }

  // MARK: Writing

  /// Reads the file, applies `change` and saves it, checked as ``sources()`` reads it and by ``check``.
  private func edit(_ change: (inout JSONFileEdit) throws(SubscriptionFileError) -> Void)
    throws(SubscriptionChangeError)
  {
    do {
      // Read, change and replace under the folder's lock: two edits at once take turns instead of one losing the
      // other's change.
      let lock = try FolderLock(folderOf: path)
      defer { lock.release() }
      var edit = try JSONFileEdit(path: path)
      try change(&edit)
      let environment = environment
      let check = check
      try edit.save { temporary in
        _ = try Self.read(path: temporary, environment: environment)
        try check(temporary)
      }
    } catch {
      throw .file(error)
    }
  }

  /// The fields a source is written with, in order.
  private static func fields(of source: NewsSource) -> [(String, JSONFileEdit.FieldValue)] {
    var fields: [(String, JSONFileEdit.FieldValue)] = []
    if source.url.isFileURL {
      fields.append(("file", .string(source.url.path)))
    } else {
      fields.append(("feed", .string(source.url.absoluteString)))
    }
    if let title = source.title, title != source.name { fields.append(("title", .string(title))) }
    if let homePage = source.homePage { fields.append(("homePage", .string(homePage.absoluteString))) }
    if !source.folder.isEmpty { fields.append(("folder", .string(folderText(source.folder)))) }
    if source.fullText { fields.append(("fullText", .bool(true))) }
    if let maxAge = source.maxAge { fields.append(("maxAge", .number(maxAge))) }
    // A feed entry takes network-first or cache-first (with a max-age); a file entry any policy the file names.
    if let policy = source.policy, CachePolicy.names.contains(policy.name) {
      if source.url.isFileURL || (policy == .cacheFirst && source.maxAge != nil) {
        fields.append(("policy", .string(policy.name)))
      }
    }
    return fields
  }
}
