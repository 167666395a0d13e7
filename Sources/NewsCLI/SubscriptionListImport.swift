import Foundation
import OfflineNews
import OfflineNewsFeeds

/// `news import FILE` for an OPML subscription list (told apart by its content): its feeds become `feed` sources in
/// the configuration file, with their folders, as `news add` makes them.
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

  func run(file: String, path: String, data: Data) throws(CommandFailure) -> ExitCode {
    let list: OPMLDocument
    do {
      list = try OPML.read(data, url: URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure(.badInput, "\(file): \(error); nothing was added")
    }
    var plan = SubscriptionPlan(configuration: context.configuration)
    for subscription in list.subscriptions {
      try plan.add(
        NewSource(
          name: subscription.title, feed: subscription.feedURL.absoluteString, title: nil,
          homePage: subscription.homePageURL?.absoluteString,
          folder: subscription.folder.isEmpty ? nil : Configuration.folderText(subscription.folder)))
    }
    let config = try plan.write(configuration: context.configuration, environment: context.environment)
    let console = context.console
    if arguments.flag(.json) {
      console.out(
        OutputFormat.json(
          Report(
            file: path, config: config, added: plan.added, existing: plan.existing,
            issues: list.issues.map(\.description))))
      return .success
    }
    let count = plan.added.count
    console.out(
      OutputFormat.sanitized(
        "added \(count) source\(count == 1 ? "" : "s") from \(file) to \(config), \(plan.existing.count) already there")
        + "\n")
    for issue in list.issues { console.printNote("  \(issue)") }
    return .success
  }
}
