import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsStorage
import OfflineNewsSync

extension CommandContext {
  /// The configuration file as the library's subscription list (``SubscriptionFile``): the file read, else the one
  /// `news add` creates (``Configuration/userConfigurationPath(environment:)``); a Parse source's mapping loaded as
  /// `--mapping` loads one (``loadMapping(_:)``); every edit checked as `news` reads the whole file.
  var subscriptionFile: SubscriptionFile {
    let context = self
    return SubscriptionFile(
      path: configuration.file ?? Configuration.userConfigurationPath(environment: environment),
      environment: environment,
      mappings: { name in
        do {
          return try context.loadMapping(name)
        } catch {
          let failure = error as? CommandFailure
          throw SubscriptionFileError(.invalidValue, path: "", failure?.message ?? "\(error)", hint: failure?.hint)
        }
      },
      check: { path in _ = try Configuration.read(path: path) })
  }

  /// Every configured source as the library's ``NewsSource``, in the file's order: NewsAPI, file and feed sources as
  /// they are; a Parse source with its mapping loaded and its secrets read from the environment variables it names.
  ///
  /// - Throws: ``CommandFailure`` 78 naming the configuration file and source whose mapping cannot be loaded.
  func newsSources() throws(CommandFailure) -> [NewsSource] {
    var entries = SubscriptionFile.Entries()
    entries.sources = configuration.sources
    entries.syncSources = configuration.syncSources
    entries.order = configuration.sourceOrder
    do {
      return try subscriptionFile.newsSources(entries)
    } catch {
      throw CommandFailure(error)
    }
  }

  /// A NewsAPI query or file source of the configuration as the library's.
  func newsSource(_ source: Configuration.Source) -> NewsSource { SubscriptionFile.newsSource(source) }

  /// A sync source of the configuration (a Parse Server, or a feed) as the library's.
  ///
  /// - Throws: ``CommandFailure`` 78 naming the configuration file and source whose mapping cannot be loaded.
  func newsSource(_ sync: Configuration.SyncSource) throws(CommandFailure) -> NewsSource {
    do {
      return try subscriptionFile.newsSource(sync)
    } catch {
      throw CommandFailure(error)
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
