import Foundation
import OfflineNews

/// `news remove NAME`: removes a source from the configuration file, keeping everything else in it.
struct RemoveCommand: NewsCommand {
  static let name = "remove"
  static let summary = "Remove a source from the configuration (its cached articles stay)."
  static let positionals = [
    PositionalSpec(name: "NAME", help: "The source's name, as 'news sources' lists it, or a feed subscription's URL.")
  ]
  static let details = """
    The source's entry is cut out of the configuration file; every other byte of the file stays as it was. The
    articles fetched from it stay in the database ('news delete' removes articles). The default source cannot be
    removed while "defaultSource" names it. Exit status: 0 removed, 64 the default source, 66 no source of that
    name, 78 the configuration file cannot be written.
    """

  /// `--db` is taken as by every command (a script may pass it to all), though removing a source opens no database.
  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(json: "{config, removed}")

  struct Report: Encodable {
    var config: String
    var removed: String
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let typed = arguments.positionals.first else {
      throw CommandFailure(.usage, "which source? usage: news remove \(Self.spec.usage)")
    }
    let configuration = context.configuration
    // Source names match without regard to case (an exact match first); else a feed subscription is named by its
    // feed's URL, in any equivalent spelling: the URL a person subscribed to, though the name shows it otherwise (a
    // password masked as `user:***@`, a title the feed gave it since).
    let name = configuration.sourceName(matchingOrFeedURL: typed) ?? typed
    guard let file = configuration.file, configuration.allSourceNames.contains(name) else {
      throw CommandFailure(.noInput, "no source named \"\(name)\"", hint: configuration.knownSourcesHint(typed: name))
    }
    if configuration.defaultSource == name {
      throw CommandFailure(
        .usage, "\"\(name)\" is the default source", hint: "set \"defaultSource\" to another source in \(file) first")
    }
    let list = context.subscriptionFile
    do {
      try await list.remove(name)
    } catch {
      guard case .notSubscribed = error else { throw CommandFailure(error) }
      throw CommandFailure(.noInput, "no source named \"\(name)\" in \(file)")
    }
    if arguments.json {
      context.console.out(OutputFormat.json(Report(config: list.path, removed: name)))
    } else {
      context.console.out(OutputFormat.sanitized("removed \"\(name)\" from \(list.path)") + "\n")
    }
    return .success
  }
}
