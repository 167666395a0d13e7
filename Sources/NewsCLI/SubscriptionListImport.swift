import Foundation
import OfflineNews
import OfflineNewsFeeds

/// `news import FILE` for a subscription list (told apart by its content: OPML, or a newsboat `urls` file read by
/// ``NewsboatURLs``): its feeds become `feed` sources in the configuration file, with their folders, as `news add`
/// makes them.
struct SubscriptionListImport {
  struct Report: Encodable {
    var file: String
    var config: String
    var added: [NewSource]
    var existing: [ExistingSource]
    var issues: [String]
  }

  var context: CommandContext
  var arguments: ParsedArguments<ImportCommand.Option>

  func run(file: String, path: String, list: OPMLDocument) async throws -> ExitCode {
    let subscriptions = context.subscriptionFile
    let changes = try await subscriptions.importOPML(list)
    let config = subscriptions.path
    // The store too, empty, as a feed's import makes it: `news read` then opens on the subscriptions (each never
    // fetched; `r` reloads them, as newsboat's `R`) and `news list` says there is nothing yet, instead of both
    // refusing a missing database (tester MED).
    _ = try context.makeRepository(arguments.common)
    let added = changes.added.map(NewSource.init)
    let existing = ExistingSource.all(changes)
    let console = context.console
    if arguments.json {
      console.out(
        OutputFormat.json(
          Report(
            file: path, config: config, added: added, existing: existing,
            issues: list.issues.map(\.description))))
      return .success
    }
    let count = added.count
    console.out(
      OutputFormat.sanitized(
        "added \(count) source\(count == 1 ? "" : "s") from \(file) to \(config), \(existing.count) already there")
        + "\n")
    for issue in list.issues { console.printNote("  \(issue)") }
    return .success
  }
}
