import Foundation
import OfflineNews
import OfflineNewsFeeds

/// `news add URL|FILE`: subscribes to a feed — a feed's URL as it is, or the feed(s) a web page announces — by
/// adding a source to the configuration file.
struct AddCommand: NewsCommand {
  static let name = "add"
  static let summary = "Subscribe to a feed: a feed URL, a web page that announces feeds, or a feed file."
  static let positionals = [
    PositionalSpec(
      name: "URL|FILE", help: "A feed (RSS, Atom, RDF, JSON Feed) or a web page; an http(s) URL or a file.")
  ]
  static let groups: [(options: [Option], required: Bool)] = [([.pick, .all], false)]
  static let configurationUse = ConfigurationUse.creatable
  static let details = """
    The document is read once (one GET for a URL, redirects followed) to tell what it is from its content: a feed
    is added as it is, named by its title; a web page is read for the feeds it announces (<link rel="alternate">
    with an RSS, Atom or JSON Feed type): one is added, several are listed and need --pick N or --all. A file that
    is a feed becomes a "file" source; a saved page gives the feeds it links to absolutely. The source is written
    into the configuration file (created when there is none: $XDG_CONFIG_HOME/news/news.json), keeping everything
    else in it as it was. A feed configured already is not added again. Nothing is fetched into the database:
    'news fetch' does that. Exit status: 0 added (or nothing new), 64 usage (several feeds and no --pick/--all,
    a --name taken, an OPML file), 65 not a feed nor a page announcing one, 69 the network failed, 78 the
    configuration file cannot be written.
    """

  enum Option: CommandOption {
    case name, folder, pick, all, dryRun, timeout, db, config, json
    var spec: OptionSpec {
      switch self {
      case .name:
        OptionSpec(
          name: "name", valueName: "NAME", help: "The source's name (default: the feed's or the page's title).")
      case .folder:
        OptionSpec(name: "folder", valueName: "FOLDER", help: "File the source in a folder (nested: \"Tech/Swift\").")
      case .pick: OptionSpec(name: "pick", valueName: "N", help: "Of the feeds a page announces, add the Nth (from 1).")
      case .all: OptionSpec(name: "all", help: "Add every feed a page announces.")
      case .dryRun: OptionSpec(name: "dry-run", help: "Print what would be added; change nothing.")
      case .timeout:
        OptionSpec(
          name: "timeout", valueName: "SECONDS", help: "Time allowed per request (default: the configuration's, 5).")
      // Taken as by every command (a script may pass it to all), though subscribing opens no database.
      case .db: SharedOption.database
      case .config: SharedOption.configuration
      case .json:
        SharedOption.json(
          "{config, dryRun, added: [{name, feed, file, title, homePage, folder}], existing: [{name, url}], "
            + "announced: [{url, title, type}]}")
      }
    }
  }

  /// The JSON document of `--json`.
  struct Report: Encodable {
    var config: String
    var dryRun: Bool
    var added: [NewSource]
    var existing: [ExistingSource]
    var announced: [Announced]

    struct Announced: Encodable {
      var url: String
      var title: String?
      var type: String

      enum CodingKeys: String, CodingKey { case url, title, type }
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(title, forKey: .title)
        try c.encode(type, forKey: .type)
      }
    }
  }

  /// A document read for `add`: its bytes, where they came from, and the `charset` they were served with.
  struct Document {
    var body: Data
    /// The URL the document was read from at last (after redirects), or the file's URL.
    var url: URL
    /// The URL to subscribe to: the one given, or where it permanently moved (301/308).
    var sourceURL: URL
    var charset: String?
    var isFile: Bool
  }

  /// The most a document may have (16 MiB).
  static let maximumBody = 16 << 20

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let target = arguments.positionals.first else {
      throw CommandFailure(.usage, "what to add? usage: news add \(Self.spec.usage)")
    }
    let pick = try arguments.integer(.pick, minimum: 1)
    let all = arguments.flag(.all)
    if pick != nil, all { throw CommandFailure(.usage, "--pick and --all exclude each other") }
    if all, arguments.value(.name) != nil {
      throw CommandFailure(.usage, "--name names one source; with --all each feed is named by its title")
    }
    var folder: String?
    if let text = arguments.value(.folder) {
      guard let path = Configuration.folderPath(text) else {
        throw arguments.badValue("--folder needs a folder name, or folders separated by \"/\", got \"\(text)\"")
      }
      folder = Configuration.folderText(path)
    }
    let document = try await read(target)
    var announced: [DiscoveredFeed] = []
    var sources: [NewSource] = []
    switch FeedFormatSniffer.kind(of: document.body) {
    case .xmlFeed:
      let feed: ParsedFeed
      do {
        feed = try FeedParser.parse(document.body, feedURL: document.url, charset: document.charset)
      } catch {
        throw CommandFailure(.badInput, "\(target): \(error)")
      }
      sources = [source(for: document, title: feed.title, homePage: feed.homePageURL, folder: folder)]
    case .jsonFeed:
      let object = (try? JSONSerialization.jsonObject(with: document.body)) as? [String: Any]
      let home = (object?["home_page_url"] as? String).flatMap(URL.init(string:))
      sources = [source(for: document, title: object?["title"] as? String, homePage: home, folder: folder)]
    case .html:
      let page = FeedDiscovery.read(document.body, pageURL: document.url, charset: document.charset)
      announced = page.feeds
      // A saved page's relative feed link (`href="/feeds/main"`) resolves only against its web address, which a
      // file does not have: such a page announces a feed, though `read` can list none.
      let unresolved = document.isFile && page.feeds.isEmpty && FeedDiscovery.announcesFeeds(document.body)
      let chosen = try choose(from: page, target: target, pick: pick, all: all, unresolvedLinks: unresolved)
      sources = chosen.map { feed in
        // One feed is the page's; of several, each is "page — link title".
        let parts = page.feeds.count == 1 ? [page.title ?? feed.title] : [page.title, feed.title]
        let title = parts.compactMap { $0 }.joined(separator: " — ")
        let home = document.isFile ? nil : document.url
        return NewSource(
          name: arguments.value(.name) ?? (title.isEmpty ? feed.url.host ?? "feed" : title),
          feed: feed.url.absoluteString, title: nil, homePage: home?.absoluteString, folder: folder)
      }
    case .opml:
      // `news import` reads files only: a list at a URL is saved first.
      throw CommandFailure(
        .usage, "\(target) is an OPML subscription list, not a feed",
        hint: FailureHint.subscriptionList(target, isFile: document.isFile))
    case .json, .unknown:
      throw CommandFailure(
        .badInput, "\(target) is not a feed (RSS, Atom, RDF, JSON Feed) nor a web page that announces one")
    }
    var plan = SubscriptionPlan(configuration: context.configuration)
    for source in sources { try plan.add(source, exactName: arguments.value(.name) != nil) }
    let dryRun = arguments.flag(.dryRun)
    let config =
      dryRun
      ? context.configuration.file ?? Configuration.userConfigurationPath(environment: context.environment)
      : try plan.write(configuration: context.configuration, environment: context.environment)
    report(plan, config: config, dryRun: dryRun, announced: announced)
    return .success
  }

  /// A source for the document itself (a feed): named by `--name`, else its title, else its host or file name.
  private func source(for document: Document, title: String?, homePage: URL?, folder: String?) -> NewSource {
    let fallback =
      document.isFile ? document.url.deletingPathExtension().lastPathComponent : document.url.host ?? "feed"
    let name = arguments.value(.name) ?? title.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    return NewSource(
      name: name, feed: document.isFile ? nil : document.sourceURL.absoluteString,
      file: document.isFile ? document.url.path : nil, title: title == name ? nil : title,
      homePage: homePage?.absoluteString, folder: folder)
  }

  /// The announced feeds to add: the only one, the `--pick`ed one, or all with `--all`. `unresolvedLinks`: the page
  /// (a saved file) has feed links that only its web address resolves.
  private func choose(
    from page: FeedDiscovery.Page, target: String, pick: Int?, all: Bool, unresolvedLinks: Bool = false
  ) throws(CommandFailure) -> [DiscoveredFeed] {
    let feeds = page.feeds
    if feeds.isEmpty, unresolvedLinks {
      throw CommandFailure(
        .badInput,
        "\(target) announces its feed by a link relative to the page's web address, which a saved file does not have",
        hint: "'news add URL' with the web address the page was saved from finds the feed"
      )
    }
    guard !feeds.isEmpty else {
      throw CommandFailure(
        .badInput, "\(target) is a web page that announces no feed",
        hint: "look for an RSS or Atom link on the page and add that URL")
    }
    if let pick {
      guard pick <= feeds.count else {
        throw CommandFailure(
          .usage, "--pick \(pick): the page announces \(feeds.count) feed\(feeds.count == 1 ? "" : "s")")
      }
      return [feeds[pick - 1]]
    }
    if all || feeds.count == 1 { return feeds }
    if !arguments.flag(.json) {
      var list = "\(target) announces \(feeds.count) feeds:\n"
      for (index, feed) in feeds.enumerated() {
        list += "  \(index + 1)  \(OutputFormat.sanitized(feed.title ?? "(untitled)"))  \(feed.type)  \(feed.url)\n"
      }
      context.console.out(list)
    }
    throw CommandFailure(
      .usage, "the page announces \(feeds.count) feeds", hint: "add one with --pick N (1–\(feeds.count)), or --all")
  }

  /// Reads `target`: an http(s) URL with one GET (redirects followed, to any origin, up to 5), else a file.
  private func read(_ target: String) async throws(CommandFailure) -> Document {
    if let url = URL(string: target), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) {
      return try await get(url)
    }
    let path = context.resolvedPath(target)
    let body: Data
    do {
      body = try LocalFile.read(path, maxBytes: Self.maximumBody)
    } catch {
      if let scheme = URL(string: target)?.scheme, scheme.count > 1, !error.isTooLarge {
        throw CommandFailure(.usage, "\(target): only http(s) URLs and files can be added")
      }
      throw CommandFailure(
        .badInput, "cannot read \(path): \(error.reason)",
        hint: error.isTooLarge ? "a feed is rarely more than a few MiB" : nil)
    }
    let url = URL(fileURLWithPath: path)
    return Document(body: body, url: url, sourceURL: url, charset: nil, isFile: true)
  }

  /// One GET, following redirects to any origin (no secret is sent): the document's URL is where it ended, the
  /// source's the end of the permanent redirects (`301`, `308`) from `start`, as RFC 9110 §15.4.2 asks.
  private func get(_ start: URL) async throws(CommandFailure) -> Document {
    try context.requireNetwork(for: [start], command: Self.name)
    let timeout = try arguments.seconds(.timeout) ?? context.configuration.timeoutSeconds
    let transport = context.network.httpTransport(timeout, SyncCommand.retry(timeout), [])
    let request = HTTPRequest(
      url: start,
      headers: [
        "Accept":
          "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, "
          + "text/html;q=0.8, */*;q=0.5"
      ], maxBodyBytes: Self.maximumBody, redirects: .anyOrigin)
    let response: HTTPResponse
    do {
      response = try await transport.send(request)
    } catch {
      throw CommandFailure(.unavailable, "GET \(start.absoluteString): \(error)")
    }
    let url = response.url
    if response.bodyLimitExceeded != nil {
      let size = response.bodyLimitExceeded.map { LocalFile.byteCount(Int64($0)) } ?? "?"
      throw CommandFailure(
        .badInput,
        "\(url.absoluteString): \(size), more than the limit of \(LocalFile.byteCount(Int64(Self.maximumBody))) "
          + "a feed or page may have; not added")
    }
    guard (200..<300).contains(response.status) else {
      throw CommandFailure(.unavailable, "GET \(url.absoluteString): HTTP \(response.status)")
    }
    return Document(
      body: response.body, url: url, sourceURL: response.permanentURL,
      charset: FeedParser.charset(fromContentType: response.header("Content-Type")), isFile: false)
  }

  private func report(_ plan: SubscriptionPlan, config: String, dryRun: Bool, announced: [DiscoveredFeed]) {
    let console = context.console
    if arguments.flag(.json) {
      let document = Report(
        config: config, dryRun: dryRun, added: plan.added, existing: plan.existing,
        announced: announced.map { .init(url: $0.url.absoluteString, title: $0.title, type: $0.type) })
      console.out(OutputFormat.json(document))
      return
    }
    var text = ""
    for source in plan.added {
      var line = "\(dryRun ? "would add" : "added") \"\(source.name)\": \(source.location)"
      if let folder = source.folder { line += " (folder \(folder))" }
      text += OutputFormat.sanitized(line) + "\n"
    }
    console.out(text)
    for source in plan.existing { console.printNote("already a source: \"\(source.name)\" (\(source.url))") }
    if !plan.added.isEmpty {
      console.printNote(dryRun ? "dry run: nothing written to \(config)" : "written to \(config)")
    }
  }
}
