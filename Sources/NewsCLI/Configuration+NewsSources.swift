import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsStorage
import OfflineNewsSync

extension CommandContext {
  /// Every configured source as the library's ``NewsSource``, sorted by name: NewsAPI, file and feed sources as they
  /// are; a Parse source with its mapping loaded (``loadMapping(_:)``) and its secrets read from the environment
  /// variables it names.
  ///
  /// - Throws: ``CommandFailure`` 78 naming the configuration file and source whose mapping cannot be loaded.
  func newsSources() throws(CommandFailure) -> [NewsSource] {
    var sources = configuration.sources.map { newsSource($0.key, $0.value) }
    for sync in configuration.syncSources.values { sources.append(try newsSource(sync)) }
    return sources.sorted { $0.name < $1.name }
  }

  /// A NewsAPI query or file source of the configuration as the library's.
  func newsSource(_ name: String, _ source: Configuration.Source) -> NewsSource {
    NewsSource(
      name: name, url: source.url, title: source.labels.title, folder: source.labels.folder,
      homePage: source.labels.homePage, policy: source.policy, maxAge: source.maxAge,
      fullText: source.labels.fullText)
  }

  /// A sync source of the configuration (a Parse Server, or a feed) as the library's; a `"policy": "cache-first"`
  /// is ``CachePolicy/cacheFirst`` (skipped while fresh).
  ///
  /// - Throws: ``CommandFailure`` 78 naming the configuration file and source whose mapping cannot be loaded.
  func newsSource(_ sync: Configuration.SyncSource) throws(CommandFailure) -> NewsSource {
    let labels = sync.labels
    let policy: CachePolicy? = sync.skipsWhileFresh ? .cacheFirst : nil
    switch sync.kind {
    case .feed(let url):
      return NewsSource(
        name: sync.name, url: url, title: labels.title, folder: labels.folder, homePage: labels.homePage,
        policy: policy, maxAge: sync.maxAge, fullText: labels.fullText)
    case .parse(let settings):
      let mapping: ImportMapping
      do {
        mapping = try loadMapping(sync.mapping)
      } catch {
        let file = configuration.file ?? "the configuration"
        throw CommandFailure(.config, "\(file): sources.\(sync.name).mapping: \(error.message)", hint: error.hint)
      }
      let server = ParseServer(
        serverURL: settings.serverURL, applicationID: settings.applicationID,
        restAPIKey: environment[settings.restAPIKeyEnvironment],
        sessionToken: settings.sessionTokenEnvironment.flatMap { environment[$0] })
      let classes = settings.classes.map {
        ParseSource.Class(name: $0.name, pageSize: $0.pageSize, files: $0.files, relations: $0.relations)
      }
      return NewsSource(
        name: sync.name,
        kind: .parse(ParseSource(server: server, classes: classes, mapping: mapping, pageSize: settings.pageSize)),
        title: labels.title, folder: labels.folder, homePage: labels.homePage, policy: policy, maxAge: sync.maxAge,
        fullText: labels.fullText)
    }
  }

  /// The entities the store must be opened with to refresh `sources`: every Parse source's mapping and the sync's
  /// bookkeeping.
  static func entities(of sources: [NewsSource]) -> [EntityDescription] {
    var entities: [EntityDescription] = []
    var names = Set<String>()
    for source in sources {
      guard case .parse(let parse) = source.kind else { continue }
      for entity in parse.entities where names.insert(entity.name).inserted { entities.append(entity) }
    }
    return entities
  }

  /// How a run of `news fetch` or `news sync` refreshes: `timeout` seconds per request, the HTTP transport for
  /// whole texts and Parse Servers when this `news` has the network (3 attempts within twice the timeout), and
  /// Parse files under `files/` beside the database.
  func refreshOptions(_ arguments: CommonArguments, timeout: Double?) -> RefreshOptions {
    let seconds = timeout ?? configuration.timeoutSeconds
    var options = RefreshOptions()
    if network.reachesHTTP { options.transport = network.httpTransport(seconds, SyncCommand.retry(seconds), []) }
    options.fileFolder = URL(fileURLWithPath: databasePath(arguments)).deletingLastPathComponent()
      .appendingPathComponent("files")
    if let afterPageStaged = faults.afterPageStaged { options.afterPageStaged = { afterPageStaged() } }
    return options
  }
}
