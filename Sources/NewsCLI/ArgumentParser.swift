import OfflineNews
import OfflineNewsModel

/// One option a command accepts: a flag (`--json`) or an option with a value (`--db PATH`).
struct OptionSpec: Sendable, Hashable {
  /// The long name without dashes, e.g. `db`.
  var name: String
  /// The value's placeholder, e.g. `PATH`; `nil` for a flag.
  var valueName: String?
  /// One line of help.
  var help: String
  /// What the value must be: the parser reads it to this type once, or refuses it (``ValueType``).
  var type: ValueType = .text

  /// `--db`, `--db PATH` or `--json` as a usage line and the help show it.
  var synopsis: String { "--\(name)" + (valueName.map { " \($0)" } ?? "") }

  /// Whether the value may be a path (`PATH`, `NAME|PATH`, `FILE`): an empty one is a usage error, never the
  /// current folder.
  var takesPath: Bool { valueName.map(isPathPlaceholder) ?? false }
}

/// What an option's value must be. The parser reads each value to its type as it reads the command line, and a value
/// that is not of it is a usage error of one form, `--NAME "VALUE" is not …`, naming the option and the value as
/// typed, with a hint of a good one; the command reads the typed value (``ParsedArguments/integer(_:)``,
/// ``ParsedArguments/seconds(_:)``, ``ParsedArguments/date(_:)``).
enum ValueType: Sendable, Hashable {
  /// Any text (a name, a path, a URL the command checks against its own rules).
  case text
  /// A whole number ≥ the minimum (`--limit N`, `--pick N`).
  case integer(minimum: Int)
  /// A time limit in seconds, 0 < s ≤ 86400 (`--timeout`). 0 is refused rather than read as "no limit": a request
  /// without a time limit could hang for ever, and the cache is served when the limit passes. A day is more than
  /// any request deserves; beyond it, timers overflow.
  case timeLimit
  /// A finite number of seconds ≥ 0 (`--max-age`).
  case duration
  /// An RFC 3339 date or date-time (``commandLineTimestamp(_:)``): `2024-05-01`, `2024-05-01T12:00:00Z`.
  case date
  /// One of these words (`--policy`, `--color`).
  case choice([String])
  /// How often, up to a week: `15m`, `90s`, `2h`, `30` (seconds), or `0`/`off` for never (`--refresh`).
  case interval
  /// Where to listen: `HOST:PORT`, `[V6]:PORT`, or a bare `PORT` on 127.0.0.1 (`--listen`); `localhost` is
  /// 127.0.0.1.
  case listenAddress

  /// Why `text` is not of this type, or `nil` when it is: the words after `--NAME "VALUE"`, and a hint.
  func problem(with text: String, option name: String) -> (message: String, hint: String?)? {
    switch self {
    case .text: return nil
    case .integer(let minimum):
      if let number = Int(text) {
        return number >= minimum ? nil : ("is not a whole number ≥ \(minimum)", nil)
      }
      // Digits beyond Int's range are a whole number too: say that it is too large, not that it is no number.
      let digits = text.hasPrefix("+") ? text.dropFirst() : text[...]
      if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
        return ("is too large: at most \(Int.max)", nil)
      }
      return ("is not a whole number ≥ \(minimum)", nil)
    case .timeLimit:
      guard let number = Double(text), number.isFinite else {
        return ("is not a number of seconds", "e.g. --\(name) 10 or --\(name) 2.5")
      }
      guard number > 0 else {
        return (
          "is not a time limit: it must be more than 0 seconds (at most 86400, a day)",
          "there is no 'no limit': a request without one could hang for ever; give e.g. --\(name) 30"
        )
      }
      return number <= 86_400 ? nil : ("is not a time limit: it is at most 86400 seconds (a day)", "e.g. --\(name) 60")
    case .duration:
      guard let number = Double(text), number >= 0, number.isFinite else {
        return ("is not a number of seconds ≥ 0", "e.g. --\(name) 3600")
      }
      return nil
    case .date:
      return commandLineTimestamp(text) == nil
        ? ("is not an RFC 3339 date", "e.g. 2024-05-01 or 2024-05-01T12:00:00Z") : nil
    case .choice(let words):
      return words.contains(text) ? nil : ("is not one of \(words.joined(separator: ", "))", nil)
    case .interval:
      return Self.interval(text) == nil
        ? ("is not an interval such as 15m, 90s or 2h (or off), at most 7 days", nil) : nil
    case .listenAddress:
      return Self.listenAddress(text) == nil
        ? (
          "is not HOST:PORT",
          "e.g. --\(name) 127.0.0.1:8080, --\(name) [::1]:8080 or --\(name) 0.0.0.0:8080"
        ) : nil
    }
  }

  /// An ``interval`` in seconds (at least 1), `.some(nil)` for never, `nil` when `text` is none.
  static func interval(_ text: String) -> Double?? {
    let lower = text.lowercased()
    if lower == "off" || lower == "0" { return .some(nil) }
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600]
    var number = Substring(lower)
    var factor = 1.0
    if let last = lower.last, let unit = units[last] {
      factor = unit
      number = number.dropLast()
    }
    guard let value = Double(number), value.isFinite, value >= 0, value * factor <= 7 * 86_400 else { return nil }
    return value == 0 ? .some(nil) : max(1, value * factor)
  }

  /// A ``listenAddress``: the host (without brackets) and port, or `nil` when `text` is none.
  static func listenAddress(_ text: String) -> (host: String, port: Int)? {
    if let port = Int(text), (0...65_535).contains(port) { return ("127.0.0.1", port) }
    var host: Substring
    var portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
    }
    guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
    return (host == "localhost" ? "127.0.0.1" : String(host), port)
  }
}

/// Whether a placeholder (`PATH`, `NAME|PATH`, `URL|FILE`, `FILE.html`) names a path.
func isPathPlaceholder(_ name: String) -> Bool {
  name.split(separator: "|").contains { $0 == "PATH" || $0.hasPrefix("FILE") }
}

/// The options shared by several commands, each declared once here; a command lists the ones it takes among its own
/// (``CommandOption``), and ``CommonArguments`` reads them.
enum SharedOption {
  /// `--db PATH`: the database of every command that opens one.
  static let database = OptionSpec(
    name: "db", valueName: "PATH", help: "The database (default: $XDG_DATA_HOME/news/news.sqlite); ~/ is $HOME.")
  /// `--config PATH`: the configuration file.
  static let configuration = OptionSpec(
    name: "config", valueName: "PATH",
    help: "The configuration file (default: $NEWS_CONFIG, else ~/.config/news/news.json, else ./Config/news.json).")
  /// `--json`, whose help names the shape of the document the command prints, e.g. `"{deleted}"`.
  static func json(_ shape: String) -> OptionSpec {
    OptionSpec(name: jsonName, help: "Print JSON: \(shape).")
  }
  /// `--json`'s name.
  static let jsonName = "json"
  /// `--color WHEN`, which every command takes (see ``Console/ColorChoice``).
  static let color = OptionSpec(
    name: "color", valueName: "WHEN",
    help: "auto (default: on a terminal, unless NO_COLOR is set), always or never.",
    type: .choice(Console.ColorChoice.allCases.map(\.rawValue)))
  /// `--verbose`, which every command takes: messages in full (every skipped record, not only their count by reason).
  static let verbose = OptionSpec(
    name: "verbose", help: "List every skipped record and dropped value (fetch, import, sync), not only the counts.")
  /// `--timeout SECONDS`: the time limit of each request (`per`: `request`, or `attempt` where a request is retried).
  static func timeout(per unit: String) -> OptionSpec {
    OptionSpec(
      name: "timeout", valueName: "SECONDS", help: "Time allowed per \(unit) (default: the configuration's, 5).",
      type: .timeLimit)
  }
  /// `--unread`, `--bookmarked`, `--source NAME` and `--folder NAME`: the article filters `list` and `search` share.
  static let unread = OptionSpec(name: "unread", help: "Only articles not marked read.")
  /// See ``unread``.
  static let bookmarked = OptionSpec(name: "bookmarked", help: "Only bookmarked articles.")
  /// See ``unread``.
  static let source = OptionSpec(
    name: "source", valueName: "NAME",
    help:
      "Only articles from this source: a configured source's name, the feed, file or URL, or a publisher (any case).")
  /// See ``unread``.
  static let folder = OptionSpec(
    name: "folder", valueName: "NAME",
    help: "Only articles from the sources in this folder (\"Tech\", \"Tech/Swift\") or a folder below it.")
  /// `--before DATE`: the articles published before an RFC 3339 date (`news delete`, `news mark-read`); `articles`
  /// begins the help ("Delete articles", "Only articles").
  static func before(_ articles: String) -> OptionSpec {
    OptionSpec(
      name: "before", valueName: "DATE",
      help: "\(articles) published before DATE (RFC 3339: 2024-05-01 or 2024-05-01T12:00:00Z).", type: .date)
  }
  /// `--help` (and `-h`), which every command takes.
  static let help = OptionSpec(name: "help", help: "Show this help.")

  /// How every path option and value is read, as the help and docs/CLI.md say it.
  static let tildeRule = "~ and ~/ are your home folder ($HOME), also when quoted; ~user is not expanded"

  /// The options every command takes besides its own.
  static let everywhere = [color, verbose]
}

/// The store-options group, declared once: which of `--db PATH`, `--config PATH` and `--json` (``SharedOption``) a
/// command takes, for a command that reads or changes the store and prints a report. The parser reads them into
/// ``CommonArguments`` (``ParsedArguments/json``), so a command's own ``CommandOption`` cases are its own options only;
/// the help lists the group after them.
struct StoreOptions<Option: CommandOption>: Sendable {
  /// Whether it takes `--db PATH`.
  var database = true
  /// Whether it takes `--config PATH`.
  var configuration = true
  /// The shape of its `--json` document, as its help shows it (e.g. `"{config, removed}"`); `nil`: no `--json`.
  var json: String?
  /// Its own options that `--json` excludes: one group with `--json` (`[--json | --opml]`).
  var jsonExcludes: [Option] = []

  /// None of the group (`news help`).
  static var none: Self { Self(database: false, configuration: false) }

  /// The options of the group the command takes, in the order the help lists them.
  var specs: [OptionSpec] {
    (database ? [SharedOption.database] : []) + (configuration ? [SharedOption.configuration] : [])
      + (json.map { [SharedOption.json($0)] } ?? [])
  }
}

/// The own options of a command that takes only the store options (``StoreOptions``): none.
enum NoOption: CommandOption {
  var spec: OptionSpec { switch self {} }
}

/// A positional argument a command declares, e.g. `FILE`.
struct PositionalSpec: Sendable {
  /// The placeholder shown in the usage line, e.g. `HANDLE|URL`.
  var name: String
  var help: String

  /// `HANDLE|URL`: the cached article a command acts on (`news open`, `news bookmark`).
  static let article = PositionalSpec(
    name: "HANDLE|URL", help: "The article's handle, as `news list` prints it, or its URL.")
}

/// What a command accepts, and its generated usage line and help text: the type-erased form of a ``NewsCommand``'s
/// declaration that the parser, `news help` and the fuzz target read.
struct CommandSpec: Sendable {
  var name: String
  var summary: String
  var positionals: [PositionalSpec] = []
  /// The command's own options, in the order its help lists them (``SharedOption/everywhere`` excluded).
  var options: [OptionSpec]
  /// Options of which at most one may be given (one exactly when `required`), shown `[--a | --b]` or `--a | --b`.
  var groups: [(options: [OptionSpec], required: Bool)] = []
  /// Extra paragraphs printed after the options.
  var details: String = ""

  /// The command's own options and those every command takes.
  var allOptions: [OptionSpec] { options + SharedOption.everywhere }

  /// The words of the usage line after `news NAME`, generated from the declaration: positionals, then each option in
  /// the order declared (a group where its first member stands), e.g. `FILE`, `[--mapping NAME|PATH]`, `[--json]`.
  var usageWords: [String] {
    var words = positionals.map(\.name)
    var shown = Set<String>()
    for option in options where !shown.contains(option.name) {
      if let group = groups.first(where: { $0.options.contains(option) }) {
        let alternatives = group.options.map(\.synopsis).joined(separator: " | ")
        words.append(group.required ? alternatives : "[\(alternatives)]")
        shown.formUnion(group.options.map(\.name))
      } else {
        words.append("[\(option.synopsis)]")
        shown.insert(option.name)
      }
    }
    return words
  }

  /// The usage line after `news NAME` on one line, e.g. `FILE [--mapping NAME|PATH] [--json]`.
  var usage: String { usageWords.joined(separator: " ") }

  /// `Usage: news NAME …`, as help and usage errors print it: wrapped before 117 columns between words, the
  /// continuation lines indented under the first word.
  var usageLine: String {
    let head = "Usage: news \(name)"
    let indent = String(repeating: " ", count: head.count + 1)
    var lines = [head]
    for word in usageWords {
      let last = lines[lines.count - 1]
      if last.count + 1 + word.count > 116, last != head {
        lines.append(indent + word)
      } else {
        lines[lines.count - 1] = last + " " + word
      }
    }
    return lines.joined(separator: "\n")
  }

  var helpText: String {
    var text = "\(summary)\n\n\(usageLine)\n"
    if !positionals.isEmpty {
      text += "\nArguments:\n"
      for positional in positionals { text += "  " + pad(positional.name, 22) + positional.help + "\n" }
    }
    text += "\nOptions:\n"
    for option in allOptions + [SharedOption.help] { text += "  " + pad(option.synopsis, 22) + option.help + "\n" }
    if !details.isEmpty { text += "\n" + details + "\n" }
    return text
  }

  /// A usage error of this command: the message, a hint pointing to its help; the usage line follows it on
  /// standard error (``NewsCommandLine``).
  func usageError(_ message: String, hint: String? = nil) -> CommandFailure {
    let help = "see 'news \(name) --help'"
    var failure = CommandFailure(.usage, message, hint: hint.map { "\($0); \(help)" } ?? help)
    failure.usage = usageLine
    return failure
  }
}

/// What the parser reads for every command, whichever options it declares: the shared options (``SharedOption``).
/// A command that does not declare `--db` or `--config` never has them set (giving one is a usage error).
struct CommonArguments: Sendable {
  /// `--db PATH` as typed.
  var databasePath: String?
  /// `--config PATH` as typed.
  var configurationPath: String?
  /// `--color WHEN` (`auto` when absent; the parser refuses any other word).
  var color: Console.ColorChoice = .auto
  /// `--verbose`.
  var verbose = false
  /// `--json` (of the store options, ``StoreOptions``).
  var json = false
}

/// The parsed command line of one command, read through the command's own ``CommandOption`` cases: a command can
/// read only the options it declares (the compiler checks it), and the help lists every one it declares.
struct ParsedArguments<Option: CommandOption>: Sendable {
  var common = CommonArguments()
  /// The values as typed.
  var values: [Option: String] = [:]
  /// The values of the options of a ``ValueType`` other than text, read to it by the parser.
  private(set) var typed: [Option: TypedValue] = [:]
  var flags: Set<Option> = []
  var positionals: [String] = []
  var wantsHelp = false
  /// The command's usage line, printed after an error about a value (``badValue(_:hint:)``).
  var usageLine: String?

  init(common: CommonArguments = CommonArguments(), usageLine: String? = nil) {
    self.common = common
    self.usageLine = usageLine
  }

  /// A usage error about an option's value (or a positional's): the message names the option and the value; the
  /// command's usage line follows it.
  func badValue(_ message: String, hint: String? = nil) -> CommandFailure {
    var failure = CommandFailure(.usage, message, hint: hint)
    failure.usage = usageLine
    return failure
  }

  /// A value read to its ``ValueType``.
  enum TypedValue: Sendable, Hashable {
    case integer(Int)
    case seconds(Double)
    case date(Timestamp)
    /// An ``ValueType/interval``: `nil` for never.
    case interval(Double?)
    case address(host: String, port: Int)
  }

  func value(_ option: Option) -> String? { values[option] }
  func flag(_ option: Option) -> Bool { flags.contains(option) }
  /// `--verbose`.
  var verbose: Bool { common.verbose }
  /// `--json`.
  var json: Bool { common.json }

  /// The value of an option of type ``ValueType/integer(minimum:)``, or `nil` when absent.
  func integer(_ option: Option) -> Int? {
    guard case .integer(let number)? = typed[option] else { return nil }
    return number
  }

  /// The value of an option of type ``ValueType/timeLimit`` or ``ValueType/duration``, in seconds, or `nil` when
  /// absent.
  func seconds(_ option: Option) -> Double? {
    guard case .seconds(let seconds)? = typed[option] else { return nil }
    return seconds
  }

  /// The value of an option of type ``ValueType/interval`` in seconds (`.some(nil)`: never), or `nil` when absent.
  func interval(_ option: Option) -> Double?? {
    guard case .interval(let seconds)? = typed[option] else { return nil }
    return .some(seconds)
  }

  /// The value of an option of type ``ValueType/listenAddress``, or `nil` when absent.
  func address(_ option: Option) -> (host: String, port: Int)? {
    guard case .address(let host, let port)? = typed[option] else { return nil }
    return (host, port)
  }

  /// The value of an option of type ``ValueType/date``, or `nil` when absent.
  func date(_ option: Option) -> Timestamp? {
    guard case .date(let timestamp)? = typed[option] else { return nil }
    return timestamp
  }
}

/// A small, strict parser for GNU-style long options: `--name value`, `--name=value`, flags, `--` to end options,
/// `-h`/`--help` anywhere. Unknown options, missing values, values on flags and surplus arguments are usage errors
/// naming the offending word and the command, followed by the command's usage line. Synchronous and pure: nothing is
/// read but the words.
enum ArgumentParser {
  static func parse<Option>(_ arguments: [String], for spec: CommandSpec) throws(CommandFailure)
    -> ParsedArguments<Option>
  {
    var parsed = ParsedArguments<Option>(usageLine: spec.usageLine)
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let word = arguments[index]
      index += 1
      if optionsEnded || !word.hasPrefix("-") || word == "-" {
        parsed.positionals.append(word)
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      if word == "-h" || word == "--help" {
        parsed.wantsHelp = true
        continue
      }
      guard word.hasPrefix("--") else { throw spec.usageError("unknown option \(word) for 'news \(spec.name)'") }
      var name = String(word.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard let option = spec.allOptions.first(where: { $0.name == name }) else {
        throw spec.usageError(
          "unknown option --\(name) for 'news \(spec.name)'",
          hint: NameHint.closest(to: name, among: spec.allOptions.map(\.name)).map { "did you mean --\($0)?" })
      }
      if let valueName = option.valueName {
        let value: String
        if let inlineValue {
          value = inlineValue
        } else if index < arguments.count {
          value = arguments[index]
          index += 1
        } else {
          throw spec.usageError("--\(name) needs a value (\(valueName)) for 'news \(spec.name)'")
        }
        if value.isEmpty, option.takesPath {
          throw spec.usageError(
            "--\(name) needs a path (\(valueName)) for 'news \(spec.name)', got an empty value",
            hint: "an empty path is not read as the current folder; \(SharedOption.tildeRule)")
        }
        if let problem = option.type.problem(with: value, option: name) {
          throw spec.usageError("--\(name) \"\(value)\" \(problem.message)", hint: problem.hint)
        }
        parsed.set(option, value)
      } else {
        guard inlineValue == nil else { throw spec.usageError("--\(name) takes no value in 'news \(spec.name)'") }
        parsed.set(option, nil)
      }
    }
    if parsed.wantsHelp { return parsed }
    if parsed.positionals.count > spec.positionals.count {
      let extra = parsed.positionals[spec.positionals.count]
      throw spec.usageError("unexpected argument \"\(extra)\" for 'news \(spec.name)'")
    }
    for (positional, value) in zip(spec.positionals, parsed.positionals)
    where value.isEmpty && isPathPlaceholder(positional.name) {
      throw spec.usageError(
        "\(positional.name) for 'news \(spec.name)' is empty: give a path",
        hint: "an empty path is not read as the current folder")
    }
    return parsed
  }
}

extension ParsedArguments {
  /// Records `option` (a flag when `value` is `nil`): a shared option into ``common``, else the command's own case.
  fileprivate mutating func set(_ option: OptionSpec, _ value: String?) {
    switch option.name {
    case SharedOption.database.name: common.databasePath = value
    case SharedOption.configuration.name: common.configurationPath = value
    case SharedOption.color.name: common.color = value.flatMap(Console.ColorChoice.init(rawValue:)) ?? .auto
    case SharedOption.verbose.name: common.verbose = true
    case SharedOption.jsonName: common.json = true
    default: break
    }
    guard let own = Option.allCases.first(where: { $0.spec.name == option.name }) else { return }
    guard let value else {
      flags.insert(own)
      return
    }
    values[own] = value
    switch option.type {
    case .integer: typed[own] = Int(value).map(TypedValue.integer)
    case .timeLimit, .duration: typed[own] = Double(value).map(TypedValue.seconds)
    case .date: typed[own] = commandLineTimestamp(value).map(TypedValue.date)
    case .interval: typed[own] = ValueType.interval(value).map(TypedValue.interval)
    case .listenAddress: typed[own] = ValueType.listenAddress(value).map { .address(host: $0.host, port: $0.port) }
    case .text, .choice: break
    }
  }
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// A date typed on the command line: RFC 3339 (`2024-05-01`, `2024-05-01T12:00:00Z`), also with a space instead of
/// the `T` (`2024-05-01 12:00:00Z`), which RFC 3339 §5.6 allows "for the sake of readability".
func commandLineTimestamp(_ text: String) -> Timestamp? {
  if let timestamp = Timestamp(rfc3339: text) { return timestamp }
  let characters = Array(text)
  guard characters.count > 11, characters[10] == " " else { return nil }
  var joined = characters
  joined[10] = "T"
  return Timestamp(rfc3339: String(joined))
}
