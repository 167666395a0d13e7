import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsModel

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
    with an RSS, Atom or JSON Feed type): one is added, several are listed and need --pick N or --all; each feed
    chosen is read (one GET) to be named after its own title. A file that is a feed becomes a "file" source; a
    saved page gives the feeds it links to absolutely. The source is written into the configuration file (created
    when there is none: $XDG_CONFIG_HOME/news/news.json), keeping everything else in it as it was. A feed
    configured already (by any equivalent spelling of its URL) is not added again. Nothing is fetched into the
    database: 'news fetch' does that. Exit status: 0 added (or nothing new), 64 usage (several feeds and no
    --pick/--all, a --name taken, an OPML file), 65 not a feed nor a page announcing one, 69 the network failed, 78 the
    configuration file cannot be written.
    """

  static let storeOptions = StoreOptions<Option>(
    json: "{config, dryRun, added: [{name, feed, file, title, homePage, folder}], existing: [{name, url}], "
      + "announced: [{url, title, type}]}")

  enum Option: CommandOption {
    case name, folder, pick, all, dryRun, timeout
    var spec: OptionSpec {
      switch self {
      case .name:
        OptionSpec(
          name: "name", valueName: "NAME", help: "The source's name (default: the feed's own title).")
      case .folder:
        OptionSpec(name: "folder", valueName: "FOLDER", help: "File the source in a folder (nested: \"Tech/Swift\").")
      case .pick:
        OptionSpec(
          name: "pick", valueName: "N", help: "Of the feeds a page announces, add the Nth (from 1).",
          type: .integer(minimum: 1))
      case .all: OptionSpec(name: "all", help: "Add every feed a page announces.")
      case .dryRun: OptionSpec(name: "dry-run", help: "Print what would be added; change nothing.")
      case .timeout: SharedOption.timeout(per: "request")
      // Taken as by every command (a script may pass it to all), though subscribing opens no database.
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
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let typed = arguments.positionals.first else {
      throw CommandFailure(.usage, "what to add? usage: news add \(Self.spec.usage)")
    }
    let pick = arguments.integer(.pick)
    let all = arguments.flag(.all)
    if pick != nil, all { throw CommandFailure(.usage, "--pick and --all exclude each other") }
    if all, arguments.value(.name) != nil {
      throw CommandFailure(.usage, "--name names one source; with --all each feed is named by its title")
    }
    var folder: [String] = []
    if let text = arguments.value(.folder) {
      guard let path = SubscriptionFile.folderPath(text) else {
        throw arguments.badValue("--folder needs a folder name, or folders separated by \"/\", got \"\(text)\"")
      }
      folder = path
    }
    let location = try location(of: typed)
    // Messages name the target as typed, but for a password in it (`NewsQuery.shown`).
    let target = NewsQuery.shown(typed)
    let list = context.subscriptionFile
    let current = try await list.subscribed()
    let subscribed = Set(current.map { NewsSource.subscriptionKey(for: $0.url) })
    // A feed configured already (by any equivalent spelling) is said so at once, with no request.
    let key = NewsSource.subscriptionKey(for: location)
    if let existing = current.first(where: { NewsSource.subscriptionKey(for: $0.url) == key }) {
      report(
        SubscriptionChanges(existing: [(existing.name, location)]), config: list.path, dryRun: arguments.flag(.dryRun),
        announced: [])
      return .success
    }
    let subscriber = try subscriber(for: location)
    let answer: Subscribable
    do {
      answer = try await subscriber.inspect(location)
    } catch {
      throw failure(error, target: target)
    }
    var announced: [DiscoveredFeed] = []
    let candidates: [SubscriptionCandidate]
    switch answer {
    case .feed(let feed):
      candidates = [feed]
    case .page(let page):
      announced = page.feeds
      // Each chosen feed is read, to be named after its own title, unless it is configured already.
      var chosen = try choose(from: page, target: target, pick: pick, all: all)
      for (index, candidate) in chosen.enumerated() where !subscribed.contains(candidate.source.subscriptionKey) {
        chosen[index] = await subscriber.resolve(candidate)
      }
      // An announced link the server answers with an error status, or with no feed, is a broken link: not added
      // (as `news add` of that URL itself is refused). One that could not be reached is added under its fallback
      // name (the network may be down), and a note says so below.
      let broken = chosen.filter { $0.failure.map(Self.isBrokenLink) ?? false }
      for candidate in broken {
        context.console.printNote(
          "not added: \(NewsQuery.shown(candidate.source.url)), announced by \(target): "
            + (candidate.failure.map { "\($0)" } ?? ""))
      }
      candidates = chosen.filter { !($0.failure.map(Self.isBrokenLink) ?? false) }
      if candidates.isEmpty, let failure = broken.first?.failure {
        throw CommandFailure(
          .unavailable, "\(target) announces \(broken.count == 1 ? "a feed" : "feeds") that cannot be read: \(failure)",
          hint: "the page's feed link is broken: look on the site for another RSS or Atom link")
      }
    case .subscriptionList:
      throw subscriptionListFailure(target, isFile: location.isFileURL)
    }
    let sources = candidates.map { source(for: $0, folder: folder) }
    let dryRun = arguments.flag(.dryRun)
    let exactName = arguments.value(.name) != nil
    let changes =
      dryRun
      ? try await list.planSubscribing(sources, exactName: exactName)
      : try await list.subscribe(sources, exactName: exactName)
    report(changes, config: list.path, dryRun: dryRun, announced: announced)
    for candidate in candidates {
      guard let failure = candidate.failure,
        let added = changes.added.first(where: { $0.url == candidate.source.url })
      else { continue }
      context.console.printNote(
        "could not read \(NewsQuery.shown(candidate.source.url)) for its title (\(failure)); named \"\(added.name)\"")
    }
    return .success
  }

  /// Whether a candidate's failure is the link's own (an error status, no feed there) rather than the network's.
  static func isBrokenLink(_ failure: SubscriptionError) -> Bool {
    switch failure {
    case .httpStatus, .notAFeed, .notText, .unreadableFeed, .noFeedAnnounced, .unreadableSubscriptionList, .tooLarge:
      return true
    case .network, .relativeFeedLinks, .unreadableFile, .unsupportedURL, .noTransport:
      return false
    }
  }

  /// The configuration's source for a candidate: named by `--name`, else as the library named it (the feed's own
  /// title, else its fallback); the feed's title kept when the name differs from it.
  private func source(for candidate: SubscriptionCandidate, folder: [String]) -> NewsSource {
    var source = candidate.source
    source.name = arguments.value(.name) ?? source.name
    source.title = candidate.feedTitle
    source.folder = folder
    return source
  }

  /// The announced feeds to add: the only one, the `--pick`ed one, or all with `--all`; of several and no choice,
  /// the list is printed and the command refused.
  private func choose(from page: AnnouncingPage, target: String, pick: Int?, all: Bool) throws(CommandFailure)
    -> [SubscriptionCandidate]
  {
    let feeds = page.feeds
    if let pick {
      guard pick <= feeds.count else {
        throw CommandFailure(
          .usage, "--pick \(pick): the page announces \(feeds.count) feed\(feeds.count == 1 ? "" : "s")")
      }
      return [page.candidates[pick - 1]]
    }
    if all || feeds.count == 1 { return page.candidates }
    if !arguments.json {
      var list = "\(target) announces \(feeds.count) feeds:\n"
      for (index, feed) in feeds.enumerated() {
        list +=
          "  \(index + 1)  \(OutputFormat.sanitized(feed.title ?? "(untitled)"))  \(feed.type)  \(NewsQuery.shown(feed.url))\n"
      }
      context.console.out(list)
    }
    throw CommandFailure(
      .usage, "the page announces \(feeds.count) feeds", hint: "add one with --pick N (1–\(feeds.count)), or --all")
  }

  /// What `target` names: an http(s) URL as it is, else a file (its path resolved) as a `file:` URL.
  private func location(of target: String) throws(CommandFailure) -> URL {
    if let url = URL(string: URLReference.unwrappingFeedScheme(target)), url.isWebURL {
      return url
    }
    return URL(fileURLWithPath: context.resolvedPath(target))
  }

  /// The library's subscriber: for an http(s) URL with this `news`'s HTTP transport (whole-request timeout,
  /// retries), after checking that it has the network.
  ///
  /// - Throws: ``CommandFailure`` 78 when this `news` has no network (``NetworkProgram``); 64 for a bad `--timeout`.
  private func subscriber(for location: URL) throws(CommandFailure) -> FeedSubscriber {
    let timeout = arguments.seconds(.timeout) ?? context.configuration.timeoutSeconds
    guard !location.isFileURL else {
      // A saved page's announced feeds are on the web: this news reads them for their titles when it has the
      // network (news-online); without it they keep the names the page gives them.
      let transport =
        context.network.reachesHTTP ? context.network.httpTransport(timeout, SyncCommand.retry(timeout), []) : nil
      return FeedSubscriber(transport: transport)
    }
    try context.requireNetwork(for: [location], command: Self.name)
    return FeedSubscriber(transport: context.network.httpTransport(timeout, SyncCommand.retry(timeout), []))
  }

  /// The command's failure for the library's error, in the words of `target` as typed.
  private func failure(_ error: SubscriptionError, target: String) -> CommandFailure {
    switch error {
    case .unreadableFeed(_, let cause):
      return CommandFailure(.badInput, "\(target): \(cause)")
    case .notAFeed:
      return CommandFailure(
        .badInput, "\(target) is not a feed (RSS, Atom, RDF, JSON Feed) nor a web page that announces one")
    case .notText(let url, let problem):
      return CommandFailure(
        .badInput, "\(target): \(problem.detail), not a feed",
        hint: FailureHint.hint(for: problem.kind, reading: NewsQuery(url: url), command: Self.name))
    case .noFeedAnnounced:
      return CommandFailure(
        .badInput, "\(target) is a web page that announces no feed",
        hint: "look for an RSS or Atom link on the page and add that URL")
    case .relativeFeedLinks:
      return CommandFailure(
        .badInput,
        "\(target) announces its feed by a link relative to the page's web address, which a saved file does not have",
        hint: "'news add URL' with the web address the page was saved from finds the feed")
    case .unreadableSubscriptionList(let url, _):
      return subscriptionListFailure(target, isFile: url.isFileURL)
    case .network(let url, let cause):
      return CommandFailure(.unavailable, "GET \(NewsQuery.shown(url)): \(cause)")
    case .httpStatus(let url, let status):
      return CommandFailure(.unavailable, "GET \(NewsQuery.shown(url)): HTTP \(status)")
    case .tooLarge(let url, let bytes, let limit):
      return CommandFailure(
        .badInput,
        "\(NewsQuery.shown(url)): \(LocalFile.byteCount(Int64(bytes))), more than the limit of "
          + "\(LocalFile.byteCount(Int64(limit))) a feed or page may have; not added")
    case .unreadableFile(let url, let reason, let tooLarge):
      if let scheme = URL(string: target)?.scheme, scheme.count > 1, !tooLarge {
        return CommandFailure(.usage, "\(target): only http(s) URLs and files can be added")
      }
      return CommandFailure(
        .badInput, "cannot read \(url.path): \(reason)", hint: tooLarge ? "a feed is rarely more than a few MiB" : nil)
    case .unsupportedURL:
      return CommandFailure(.usage, "\(target): only http(s) URLs and files can be added")
    case .noTransport(let url):
      return NetworkProgram.missing(command: Self.name, url: url)
    }
  }

  /// An OPML list is refused: `news import` reads it (from a file: a list at a URL is saved first).
  private func subscriptionListFailure(_ target: String, isFile: Bool) -> CommandFailure {
    CommandFailure(
      .usage, "\(target) is an OPML subscription list, not a feed",
      hint: FailureHint.subscriptionList(target, isFile: isFile))
  }

  private func report(_ changes: SubscriptionChanges, config: String, dryRun: Bool, announced: [DiscoveredFeed]) {
    let console = context.console
    let added = changes.added.map(NewSource.init)
    let existing = ExistingSource.all(changes)
    if arguments.json {
      let document = Report(
        config: config, dryRun: dryRun, added: added, existing: existing,
        announced: announced.map { .init(url: NewsQuery.shown($0.url), title: $0.title, type: $0.type) })
      console.out(OutputFormat.json(document))
      return
    }
    var text = ""
    for source in added {
      var line = "\(dryRun ? "would add" : "added") \"\(source.name)\": \(source.feed ?? source.file ?? "")"
      if let folder = source.folder { line += " (folder \(folder))" }
      text += OutputFormat.sanitized(line) + "\n"
    }
    console.out(text)
    for source in existing { console.printNote("already a source: \"\(source.name)\" (\(source.url))") }
    if !added.isEmpty {
      console.printNote(dryRun ? "dry run: nothing written to \(config)" : "written to \(config)")
    }
  }
}
