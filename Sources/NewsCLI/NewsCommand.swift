/// The options a command declares: one case per option, in the order its help lists them. The command reads its
/// parsed arguments through these cases only (``ParsedArguments``), so it cannot read an option it did not declare,
/// and its help, usage line and parser are generated from `allCases`.
///
/// For example:
/// ```swift
/// enum Option: CommandOption {
///   case limit
///   var spec: OptionSpec {
///     switch self {
///     case .limit: OptionSpec(name: "limit", valueName: "N", help: "Show at most N articles.")
///     }
///   }
/// }
/// ```
/// `--db`, `--config` and `--json` are not cases: a command declares them as a group (``NewsCommand/storeOptions``).
protocol CommandOption: CaseIterable, Hashable, Sendable {
  /// The option's name, value placeholder and help (a ``SharedOption`` for an option several commands take).
  var spec: OptionSpec { get }
}

/// The configuration a command needs before it runs.
enum ConfigurationUse: Sendable {
  /// None: the command reads only its arguments (`news extract`).
  case none
  /// The configuration found as usual (``Configuration/load(explicitPath:environment:currentDirectory:creatable:)``).
  case existing
  /// As `existing`, and a `--config PATH` that does not exist yet is a new, empty configuration the command creates
  /// (the commands that write sources: `news add`, `news import`).
  case creatable
  /// As `existing`, but a `--config PATH` that does not exist yet is an empty configuration, as for `creatable`;
  /// the package's sample is not copied (`news import` of articles, which writes no configuration).
  case newFileAllowed
}

/// A `news` subcommand, declared once: its name, summary, positionals, typed options and details. Its usage line,
/// `--help`, `news help NAME`, the overview's line and the parser all come from this declaration
/// (``CommandSpec``), and ``CommandRegistry`` lists every command once.
///
/// A command only throws: a ``CommandFailure`` for what it checks itself (usage, missing input, …), any other error
/// as it comes (a repository's, the storage's); ``CommandFailure/init(_:currentDirectory:)`` turns it into the
/// message and the exit status, in one place.
protocol NewsCommand: Sendable {
  associatedtype Option: CommandOption
  static var name: String { get }
  /// One line, as the overview lists it.
  static var summary: String { get }
  static var positionals: [PositionalSpec] { get }
  /// Options of which at most one may be given (exactly one when `required`).
  static var groups: [(options: [Option], required: Bool)] { get }
  /// Which of `--db`, `--config` and `--json` it takes (``StoreOptions``); none by default.
  static var storeOptions: StoreOptions<Option> { get }
  /// Paragraphs printed after the options (details, exit statuses).
  static var details: String { get }
  static var configurationUse: ConfigurationUse { get }
  /// The configuration use of one invocation: ``configurationUse`` unless the arguments decide (`news import` edits
  /// the configuration only for an OPML file). `resolve` makes a typed path absolute as ``CommandContext`` does.
  static func configurationUse(for arguments: ParsedArguments<Option>, resolve: (String) -> String)
    -> ConfigurationUse

  init(context: CommandContext, arguments: ParsedArguments<Option>)
  func run() async throws -> ExitCode
}

extension NewsCommand {
  static var positionals: [PositionalSpec] { [] }
  static var groups: [(options: [Option], required: Bool)] { [] }
  static var storeOptions: StoreOptions<Option> { .none }
  static var details: String { "" }
  static var configurationUse: ConfigurationUse { .existing }
  static func configurationUse(for arguments: ParsedArguments<Option>, resolve: (String) -> String)
    -> ConfigurationUse
  { configurationUse }

  /// The declaration in the form the parser and the help read.
  static var spec: CommandSpec {
    let store = storeOptions
    var specGroups = groups.map { (options: $0.options.map(\.spec), required: $0.required) }
    if let json = store.json, !store.jsonExcludes.isEmpty {
      specGroups.append((options: [SharedOption.json(json)] + store.jsonExcludes.map(\.spec), required: false))
    }
    return CommandSpec(
      name: name, summary: summary, positionals: positionals, options: Option.allCases.map(\.spec) + store.specs,
      groups: specGroups, details: details)
  }

  /// Parses `words` (the arguments after the command's name) for this command. Synchronous: no storage, no network.
  static func parse(_ words: [String]) throws(CommandFailure) -> ParsedArguments<Option> {
    try ArgumentParser.parse(words, for: spec)
  }
}
