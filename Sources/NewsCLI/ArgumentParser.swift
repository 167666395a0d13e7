import OfflineNews

/// One option a command accepts: a flag (`--json`) or an option with a value (`--db PATH`).
struct OptionSpec: Sendable {
  /// The long name without dashes, e.g. `db`.
  var name: String
  /// The value's placeholder, e.g. `PATH`; `nil` for a flag.
  var valueName: String?
  /// One line of help.
  var help: String

  /// `--db PATH`, which every command that opens the database takes.
  static let database = OptionSpec(
    name: "db", valueName: "PATH", help: "The database (default: $XDG_DATA_HOME/news/news.sqlite).")
  /// `--config PATH`, which every command takes.
  static let configuration = OptionSpec(
    name: "config", valueName: "PATH", help: "The configuration file (default: Config/news.json).")
  /// `--color WHEN`, which every command takes (see ``Console/ColorChoice``).
  static let color = OptionSpec(
    name: "color", valueName: "WHEN",
    help: "auto (default: on a terminal, unless NO_COLOR is set), always or never.")
  /// `--verbose`, which every command takes: messages in full (every skipped record, not only their count by reason).
  static let verbose = OptionSpec(
    name: "verbose", help: "List every skipped record and dropped value (fetch, import, sync), not only the counts.")
}

/// What a command accepts, and its help text.
struct CommandSpec: Sendable {
  var name: String
  var summary: String
  /// The usage line after `news NAME`, e.g. `FILE [--db PATH] [--json]`.
  var usage: String
  var positionals: [(name: String, help: String)] = []
  var options: [OptionSpec]
  /// Extra paragraphs printed after the options.
  var details: String = ""

  /// The options every command takes besides its own, declared once here.
  static let commonOptions: [OptionSpec] = [.color, .verbose]

  /// The command's own options and the ``commonOptions``.
  var allOptions: [OptionSpec] { options + Self.commonOptions }

  var helpText: String {
    var text = "\(summary)\n\nUsage: news \(name) \(usage)\n"
    if !positionals.isEmpty {
      text += "\nArguments:\n"
      for positional in positionals { text += "  " + pad(positional.name, 22) + positional.help + "\n" }
    }
    text += "\nOptions:\n"
    for option in allOptions + [OptionSpec(name: "help", help: "Show this help.")] {
      let left = "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
      text += "  " + pad(left, 22) + option.help + "\n"
    }
    if !details.isEmpty { text += "\n" + details + "\n" }
    return text
  }
}

/// The parsed command line of one command.
struct ParsedArguments: Sendable {
  var values: [String: String] = [:]
  var flags: Set<String> = []
  var positionals: [String] = []
  var wantsHelp = false

  func value(_ name: String) -> String? { values[name] }
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The value of an option that must be a whole number ≥ `minimum`, or `nil` when absent.
  func integer(_ name: String, minimum: Int) throws(CommandFailure) -> Int? {
    guard let text = values[name] else { return nil }
    guard let number = Int(text), number >= minimum else {
      throw CommandFailure(.usage, "--\(name) needs a whole number ≥ \(minimum), got \"\(text)\"")
    }
    return number
  }

  /// The value of an option that must be a number of seconds in 0 < s ≤ 86400, or `nil` when absent.
  ///
  /// 0 is refused rather than read as "no limit": a request without a time limit could hang for ever, and the
  /// cache is served when the limit passes. A day is more than any request deserves; beyond it, timers overflow.
  func seconds(_ name: String) throws(CommandFailure) -> Double? {
    guard let text = values[name] else { return nil }
    guard let number = Double(text), number.isFinite else {
      throw CommandFailure(
        .usage, "--\(name) needs a number of seconds, got \"\(text)\"", hint: "e.g. --\(name) 10 or --\(name) 2.5")
    }
    guard number > 0 else {
      throw CommandFailure(
        .usage, "--\(name) \(text): the time limit must be more than 0 seconds (at most 86400, a day)",
        hint: "there is no 'no limit': a request without one could hang for ever; give e.g. --\(name) 30")
    }
    guard number <= 86_400 else {
      throw CommandFailure(
        .usage, "--\(name) \(text): the time limit is at most 86400 seconds (a day)", hint: "e.g. --\(name) 60")
    }
    return number
  }

  /// `--color WHEN` (`auto` when absent).
  func colorChoice() throws(CommandFailure) -> Console.ColorChoice {
    guard let text = values["color"] else { return .auto }
    guard let choice = Console.ColorChoice(rawValue: text) else {
      throw CommandFailure(.usage, "--color must be auto, always or never, got \"\(text)\"")
    }
    return choice
  }
}

/// A small, strict parser for GNU-style long options: `--name value`, `--name=value`, flags, `--` to end options,
/// `-h`/`--help` anywhere. Unknown options, missing values and surplus arguments are usage errors naming the
/// offending word.
enum ArgumentParser {
  static func parse(_ arguments: [String], for spec: CommandSpec) throws(CommandFailure) -> ParsedArguments {
    var parsed = ParsedArguments()
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
      guard word.hasPrefix("--") else {
        throw CommandFailure(
          .usage, "unknown option \(word) for 'news \(spec.name)'", hint: "see 'news \(spec.name) --help'")
      }
      var name = String(word.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard let option = spec.allOptions.first(where: { $0.name == name }) else {
        throw CommandFailure(
          .usage, "unknown option --\(name) for 'news \(spec.name)'", hint: "see 'news \(spec.name) --help'")
      }
      if let valueName = option.valueName {
        let value: String
        if let inlineValue {
          value = inlineValue
        } else if index < arguments.count {
          value = arguments[index]
          index += 1
        } else {
          throw CommandFailure(.usage, "--\(name) needs a value (\(valueName))", hint: "see 'news \(spec.name) --help'")
        }
        parsed.values[name] = value
      } else {
        guard inlineValue == nil else { throw CommandFailure(.usage, "--\(name) takes no value") }
        parsed.flags.insert(name)
      }
    }
    if parsed.wantsHelp { return parsed }
    if parsed.positionals.count > spec.positionals.count {
      let extra = parsed.positionals[spec.positionals.count]
      throw CommandFailure(
        .usage, "unexpected argument \"\(extra)\" for 'news \(spec.name)'", hint: "see 'news \(spec.name) --help'")
    }
    return parsed
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
