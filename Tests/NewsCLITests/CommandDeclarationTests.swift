import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync
import TestSupport
import Testing

@testable import NewsCLI

/// The declarative command line: every command's help, usage line and parser come from its declaration
/// (``NewsCommand``), one registry lists the commands, and errors become exit statuses in one place.
@Suite("news: command declarations")
struct CommandDeclarationTests {
  /// Every registered command's declaration, opened.
  static let specs: [CommandSpec] = CommandRegistry.commands.map { $0.spec }

  @Test("the registry holds each command once, and the overview lists every one with its summary")
  func registry() async {
    let names = Self.specs.map(\.name)
    #expect(Set(names).count == names.count, "\(names)")
    #expect(names.count == 20)
    let overview = await CLIHarness().run("--help").out
    for spec in Self.specs {
      #expect(overview.contains("  " + pad(spec.name, 10) + spec.summary + "\n"), "\(spec.name)")
    }
  }

  @Test("every command's --help is generated from its declaration and lists each declared option")
  func helpListsEveryOption() async {
    let cli = CLIHarness()
    for command in CommandRegistry.commands {
      let spec = command.spec
      let help = await cli.run(spec.name, "--help")
      #expect(help.status == 0, "\(spec.name)")
      #expect(help.err.isEmpty, "\(spec.name): \(help.err)")
      #expect(help.out == spec.helpText, "\(spec.name)")
      #expect(help.out.hasPrefix(spec.summary + "\n\nUsage: news \(spec.name) "), "\(spec.name)")
      #expect(await cli.run("help", spec.name).out == help.out, "news help \(spec.name)")
      for option in spec.options + SharedOption.everywhere + [SharedOption.help] {
        #expect(help.out.contains("\n  " + pad(option.synopsis, 22) + option.help + "\n"), "\(spec.name) \(option)")
      }
      for option in spec.options {
        #expect(spec.usage.contains(option.synopsis), "the usage line of \(spec.name) shows --\(option.name)")
      }
      for positional in spec.positionals {
        #expect(spec.usage.hasPrefix(positional.name), "\(spec.name) \(positional.name)")
        #expect(help.out.contains("  " + pad(positional.name, 22) + positional.help), "\(spec.name)")
      }
    }
  }

  @Test("--db, --config and --json are the shared declarations wherever a command takes them")
  func sharedOptions() {
    for spec in Self.specs {
      for option in spec.options {
        switch option.name {
        case "db": #expect(option == SharedOption.database, "\(spec.name)")
        case "config": #expect(option == SharedOption.configuration, "\(spec.name)")
        case "json": #expect(option.valueName == nil && option.help.hasPrefix("Print "), "\(spec.name)")
        default: break
        }
      }
      let names = spec.allOptions.map(\.name)
      #expect(Set(names).count == names.count, "\(spec.name) declares an option twice: \(names)")
    }
  }

  @Test("a command takes --config exactly when it loads the configuration")
  func configurationOption() {
    for command in CommandRegistry.commands {
      let declares = command.spec.options.contains(SharedOption.configuration)
      #expect(declares == (command.configurationUse != .none), "\(command.name)")
    }
  }

  /// The files whose code reads a command's parsed arguments.
  static let readers: [String: [String]] = [
    "fetch": ["FetchCommand.swift", "FetchCommand+All.swift"],
    "import": ["ImportCommand.swift", "MappedImport.swift", "SubscriptionListImport.swift"],
    "mark-read": ["LocalStateCommands.swift"], "bookmark": ["LocalStateCommands.swift"],
    "entities": ["RecordsCommands.swift"], "records": ["RecordsCommands.swift"],
  ]

  /// Commands that take `--db` as every command does, though they open no database (they write the configuration).
  static let databaseUnused: Set<String> = ["add", "remove"]

  @Test("every option a command declares is read by its code (reading an undeclared one does not compile)")
  func declaredOptionsAreRead() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/NewsCLI")
    for command in CommandRegistry.commands {
      let name = command.name
      let files = Self.readers[name] ?? ["\(String(describing: command)).swift"]
      let code = try files.map { try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8) }
        .joined(separator: "\n")
        .split(separator: "\n")
        // The declaration itself is not a read: the `case .x:` lines of `spec`, the groups.
        .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("case .") && !$0.contains("groups") }
        .joined(separator: "\n")
      for option in Self.cases(of: command) {
        switch option.spec.name {
        case "db":
          guard !Self.databaseUnused.contains(name) else { continue }
          #expect(code.contains("arguments.common"), "news \(name) declares --db but never opens the store")
        case "config":
          continue  // read for every command that loads the configuration (configurationOption above)
        default:
          let identifier = String(describing: option)
          let read = code.range(of: "\\.\(identifier)\\b", options: .regularExpression) != nil
          #expect(read, "news \(name) declares --\(option.spec.name) (.\(identifier)) but never reads it")
        }
      }
    }
  }

  static func cases<Command: NewsCommand>(of command: Command.Type) -> [any CommandOption] {
    Command.Option.allCases.map { $0 }
  }

  @Test("an unknown option, a missing value or a value on a flag names the option and the command, then the usage")
  func usageErrorsNameTheCommand() async {
    let cli = CLIHarness()
    for spec in Self.specs {
      let unknown = await cli.run(spec.name, "--no-such-option")
      #expect(unknown.status == 64, "\(spec.name)")
      #expect(unknown.out.isEmpty)
      #expect(
        unknown.err == "news: unknown option --no-such-option for 'news \(spec.name)'\n"
          + "hint: see 'news \(spec.name) --help'\n\(spec.usageLine)\n", "\(unknown.err)")
      if let valued = spec.options.first(where: { $0.valueName != nil }) {
        let missing = await cli.run(spec.name, "--\(valued.name)")
        #expect(missing.status == 64, "\(spec.name)")
        #expect(
          missing.err.hasPrefix(
            "news: --\(valued.name) needs a value (\(valued.valueName ?? "")) for 'news \(spec.name)'"),
          "\(missing.err)")
        #expect(missing.err.hasSuffix("\n\(spec.usageLine)\n"), "\(missing.err)")
      }
      if let flag = spec.options.first(where: { $0.valueName == nil }) {
        let valued = await cli.run(spec.name, "--\(flag.name)=yes")
        #expect(valued.status == 64, "\(spec.name)")
        #expect(valued.err.contains("--\(flag.name) takes no value in 'news \(spec.name)'"), "\(valued.err)")
      }
    }
  }

  @Test("a bad value is a usage error naming the option and the value, then the command's usage")
  func badValues() async {
    let cli = CLIHarness()
    let cases: [([String], String)] = [
      (["list", "--limit", "ten"], "--limit \"ten\" is not a whole number ≥ 0"),
      (["fetch", "--timeout", "soon"], "--timeout \"soon\" is not a number of seconds"),
      (["fetch", "--policy", "sometimes"], "--policy \"sometimes\" is not one of network-first, cache-first"),
      (["delete", "--before", "yesterday"], "--before \"yesterday\" is not an RFC 3339 date"),
      (["search", "x", "--since", "May"], "--since \"May\" is not an RFC 3339 date"),
      (["stats", "--color", "purple"], "--color \"purple\" is not one of auto, always, never"),
      (["serve", "--refresh", "soon"], "--refresh \"soon\" is not an interval such as 15m, 90s or 2h"),
      (["serve", "--listen", "8080:x"], "--listen \"8080:x\" is not HOST:PORT"),
      (["add", "https://example.com/", "--pick", "0"], "--pick \"0\" is not a whole number ≥ 1"),
      (["fetch", "--max-age", "inf"], "--max-age \"inf\" is not a number of seconds ≥ 0"),
    ]
    for (arguments, message) in cases {
      let outcome = await cli.run(arguments + ["--db", cli.database])
      let spec = CommandRegistry.command(named: arguments[0])?.spec
      #expect(outcome.status == 64, "\(arguments)")
      #expect(outcome.err.hasPrefix("news: " + message), "\(arguments): \(outcome.err)")
      #expect(outcome.err.hasSuffix("\n\(spec?.usageLine ?? "?")\n"), "\(arguments): \(outcome.err)")
    }
  }

  @Test("each option is read to the type its placeholder names, once, by the parser")
  func valueTypesMatchPlaceholders() {
    for spec in Self.specs {
      for option in spec.allOptions {
        switch option.valueName {
        case "N":
          guard case .integer = option.type else {
            Issue.record("\(spec.name) --\(option.name) is not read as a whole number")
            continue
          }
        case "DATE": #expect(option.type == .date, "\(spec.name) --\(option.name)")
        case "SECONDS": #expect([.timeLimit, .duration].contains(option.type), "\(spec.name) --\(option.name)")
        case "POLICY", "WHEN":
          guard case .choice(let words) = option.type, !words.isEmpty else {
            Issue.record("\(spec.name) --\(option.name) has no choices")
            continue
          }
        case "INTERVAL": #expect(option.type == .interval, "\(spec.name) --\(option.name)")
        case "HOST:PORT": #expect(option.type == .listenAddress, "\(spec.name) --\(option.name)")
        default: #expect(option.type == .text, "\(spec.name) --\(option.name) \(option.valueName ?? "flag")")
        }
      }
    }
  }

  @Test("the parser gives the typed values: whole numbers, seconds, dates, intervals, addresses, choices")
  func typedValues() throws {
    let list: ParsedArguments<ListCommand.Option> = try ListCommand.parse(["--limit", "+5", "--offset=0"])
    #expect(list.integer(.limit) == 5 && list.integer(.offset) == 0)
    let fetch: ParsedArguments<FetchCommand.Option> = try FetchCommand.parse(
      ["--timeout", "2.5", "--max-age", "0", "--policy", "cache-only", "--color", "never"])
    #expect(fetch.seconds(.timeout) == 2.5 && fetch.seconds(.maxAge) == 0)
    #expect(FetchCommand.policy(fetch) == .cacheOnly && fetch.common.color == .never)
    let search: ParsedArguments<SearchCommand.Option> = try SearchCommand.parse(
      ["x", "--since", "2024-05-01 12:00:00Z", "--until", "2024-05-02"])
    #expect(search.date(.since) == Timestamp(rfc3339: "2024-05-01T12:00:00Z"))
    #expect(search.date(.until) == Timestamp(rfc3339: "2024-05-02T00:00:00Z"))
    let serve: ParsedArguments<ServeCommand.Option> = try ServeCommand.parse([
      "--refresh", "2h", "--listen", "[::1]:80",
    ])
    #expect(serve.interval(.refresh) == .some(7_200))
    #expect(serve.address(.listen).map { "\($0.host) \($0.port)" } == "::1 80")
    let never: ParsedArguments<ServeCommand.Option> = try ServeCommand.parse(["--refresh", "off", "--listen", "81"])
    #expect(never.interval(.refresh) == .some(nil))
    #expect(never.address(.listen).map { "\($0.host) \($0.port)" } == "127.0.0.1 81")
    let absent: ParsedArguments<ServeCommand.Option> = try ServeCommand.parse([])
    #expect(absent.interval(.refresh) == nil && absent.address(.listen) == nil)
  }

  @Test("a value not of its option's type fails the parse in one form: --NAME \"VALUE\" is …, with the usage line")
  func typedErrors() {
    let cases: [([String], String, String?)] = [
      (["--timeout", "0"], "--timeout \"0\" is not a time limit: it must be more than 0 seconds", "no 'no limit'"),
      (["--timeout", "86401"], "--timeout \"86401\" is not a time limit: it is at most 86400 seconds", "e.g."),
      (["--timeout", "nan"], "--timeout \"nan\" is not a number of seconds", "e.g. --timeout 10"),
      (["--max-age", "-0.5"], "--max-age \"-0.5\" is not a number of seconds ≥ 0", "e.g. --max-age 3600"),
      (["--limit", "-1"], "--limit \"-1\" is not a whole number ≥ 0", nil),
      (["--limit", "1e3"], "--limit \"1e3\" is not a whole number ≥ 0", nil),
      (["--limit", "99999999999999999999"], "--limit \"99999999999999999999\" is too large: at most", nil),
      (["--policy", "Cache-Only"], "--policy \"Cache-Only\" is not one of network-first", nil),
      (["--color=yes"], "--color \"yes\" is not one of auto, always, never", nil),
    ]
    for (words, message, hint) in cases {
      do {
        let _: ParsedArguments<FetchCommand.Option> = try FetchCommand.parse(words)
        Issue.record("\(words) parsed")
      } catch {
        #expect(error.code == .usage, "\(words)")
        #expect(error.message.hasPrefix(message), "\(words): \(error.message)")
        #expect(error.hint?.contains(hint ?? "see 'news fetch --help'") == true, "\(words): \(error.hint ?? "")")
        #expect(error.usage == FetchCommand.spec.usageLine, "\(words)")
      }
    }
    for words in [["--refresh", "8d"], ["--refresh", "-1m"], ["--listen", "[::1]"], ["--listen", "host:70000"]] {
      #expect(throws: CommandFailure.self, "\(words)") {
        let _: ParsedArguments<ServeCommand.Option> = try ServeCommand.parse(words)
      }
    }
  }

  @Test("a usage line is wrapped between words before 117 columns, continued under its first word")
  func usageLineWrapping() {
    for spec in Self.specs {
      let lines = spec.usageLine.split(separator: "\n")
      #expect(lines.allSatisfy { $0.count <= 116 }, "\(spec.usageLine)")
      let indent = String(repeating: " ", count: "Usage: news \(spec.name) ".count)
      #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(indent) && !$0.hasPrefix(indent + " ") })
      let words = spec.usageLine.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(words == "Usage: news \(spec.name) \(spec.usage)")
    }
  }

  @Test("usage lines: groups of alternatives, required ones bare, positionals first")
  func usageLines() {
    let usage = Dictionary(uniqueKeysWithValues: Self.specs.map { ($0.name, $0.usage) })
    #expect(
      usage["delete"]
        == "--all | --before DATE | --forget-deleted [--include-bookmarked] [--db PATH] [--config PATH] [--json]")
    #expect(usage["sources"] == "[--json | --opml] [--db PATH] [--config PATH]")
    #expect(usage["extract"] == "FILE.html [--url URL] [--json]")
    #expect(usage["fetch"]?.hasPrefix("[--url URL | --source NAME | --all | --folder FOLDER] ") == true)
  }

  @Test(
    "errors map to exit statuses in one place, by type",
    arguments: [
      (CommandFailure(.noInput, "x") as any Error, ExitCode.noInput),
      (CommandFailure(.usage, "x"), .usage),
      (
        NewsRepositoryError.networkFailedAndCacheEmpty(
          query: NewsQuery(url: URL(fileURLWithPath: "/tmp/x.json")),
          network: .unreadableFile(path: "/tmp/x.json", reason: "no such file")), .unavailable
      ),
      (
        NewsRepositoryError.networkFailed(
          query: NewsQuery(url: URL(fileURLWithPath: "/tmp/feed.xml")),
          network: .transport(.connectionRefused, detail: "refused")), .unavailable
      ),
      (
        NewsRepositoryError.storage(StorageError(kind: .diskFull, path: "/tmp/news.sqlite"), network: nil),
        .storage
      ),
      (StorageError(kind: .readOnly, path: "/tmp/news.sqlite"), .storage),
      (CocoaError(.fileReadUnknown), .storage),
    ] as [(any Error, ExitCode)])
  func exitStatus(_ error: any Error, _ status: ExitCode) {
    let failure = CommandFailure(error, currentDirectory: "/tmp")
    #expect(failure.code == status, "\(error)")
    #expect(!failure.message.isEmpty)
  }

  @Test(
    "a sync's failure kinds map to exit statuses by type; the worst kind among the classes decides",
    arguments: [
      ([SyncError.Kind.network], ExitCode.unavailable), ([.server], .unavailable), ([.invalidPage], .badInput),
      ([.importFailed], .badInput), ([.storage], .storage), ([.network, .importFailed], .badInput),
      ([.server, .storage, .invalidPage], .storage), ([], .success),
    ] as [([SyncError.Kind], ExitCode)])
  func syncExitStatus(_ kinds: [SyncError.Kind], _ status: ExitCode) {
    let classes = kinds.enumerated().map { index, kind in
      var part = SyncReport.ClassReport(className: "C\(index)", entity: "e")
      part.errorKind = kind
      return part
    }
    #expect(SyncCommand.exitCode(classes + [SyncReport.ClassReport(className: "ok", entity: "e")]) == status)
  }

  @Test("a failure names its input: the file's path, or the database file")
  func failureMessagesNameTheInput() {
    let missing = CommandFailure(
      NewsRepositoryError.networkFailedAndCacheEmpty(
        query: NewsQuery(url: URL(fileURLWithPath: "/tmp/none/x.json")),
        network: .unreadableFile(path: "/tmp/none/x.json", reason: "no such file")),
      currentDirectory: "/tmp")
    #expect(missing.message.hasPrefix("/tmp/none/x.json: "), "\(missing.message)")
    #expect(missing.message.hasSuffix("; nothing is cached for it"), "\(missing.message)")
    #expect(missing.hint?.contains("no folder /tmp/none either") == true, "\(missing.hint ?? "")")
    let storage = CommandFailure(StorageError(kind: .readOnly, path: "/tmp/news.sqlite"), currentDirectory: "/tmp")
    #expect(storage.message.contains("/tmp/news.sqlite"), "\(storage.message)")
  }

  @Test("every `news …` example in the README and docs/CLI.md parses: its command and options exist")
  func examplesParse() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    var examples: [[String]] = []
    for file in ["README.md", "docs/CLI.md"] {
      let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      var inBlock = false
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("```") {
          inBlock.toggle()
          continue
        }
        guard inBlock else { continue }
        let command = line.hasPrefix("$ ") ? line.dropFirst(2) : line[...]
        // A usage block (`news NAME [--x]`) is checked by `documentation`; these are command lines.
        guard command.hasPrefix("news "), !command.contains(" [") else { continue }
        examples += Self.shellCommands(String(command)).filter {
          // `news COMMAND --help` stands for any command.
          $0.first == "news" && $0.dropFirst().first.map { $0 != $0.uppercased() } ?? true
        }
      }
    }
    #expect(examples.count > 40, "\(examples.count) examples")
    let (console, captured) = Console.capturing()
    let cli = NewsCommandLine(environment: [:], currentDirectory: "/nonexistent", console: console, network: .filesOnly)
    for example in examples {
      if case .finished(let status) = cli.prepare(Array(example.dropFirst())) {
        #expect(status == 0, "\(example.joined(separator: " ")): \(captured.err)")
      }
    }
  }

  /// The commands of a line of shell: words split at blanks, quotes removed, cut at `;`, and ended by `#`, `>` or
  /// `|` (a comment, a redirection, a pipe).
  static func shellCommands(_ line: String) -> [[String]] {
    var commands: [[String]] = [[]]
    var word: String?
    var quote: Character?
    func endWord() {
      if let finished = word { commands[commands.count - 1].append(finished) }
      word = nil
    }
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { word = (word ?? "") + String(character) }
        continue
      }
      switch character {
      case "'", "\"":
        quote = character
        word = word ?? ""
      case " ", "\t": endWord()
      case ";":
        endWord()
        commands.append([])
      case "#", ">", "|":
        endWord()
        return commands.filter { !$0.isEmpty }
      default: word = (word ?? "") + String(character)
      }
    }
    endWord()
    return commands.filter { !$0.isEmpty }
  }

  @Test("docs/CLI.md: its command table and each command's usage block are the registry's")
  func documentation() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // The table: `| [`name`](#anchor) | … |`, in the registry's order.
    let tabled = lines.compactMap { line -> String? in
      guard line.hasPrefix("| [`"), let end = line.dropFirst(4).firstIndex(of: "`") else { return nil }
      return String(line[line.index(line.startIndex, offsetBy: 4)..<end])
    }
    #expect(tabled == Self.specs.map(\.name))
    // The usage blocks: a line `news NAME …` in a code block, continued by indented lines.
    var synopses: [String: String] = [:]
    var index = 0
    var inBlock = false
    while index < lines.count {
      let line = lines[index]
      index += 1
      if line.hasPrefix("```") {
        inBlock.toggle()
        continue
      }
      guard inBlock, line.hasPrefix("news "), let name = line.split(separator: " ").dropFirst().first else { continue }
      var joined = line
      while index < lines.count, lines[index].hasPrefix("    ") {
        joined += " " + lines[index].trimmingCharacters(in: .whitespaces)
        index += 1
      }
      if synopses[String(name)] == nil { synopses[String(name)] = joined }
    }
    for spec in Self.specs {
      #expect(synopses[spec.name] == "news \(spec.name) \(spec.usage)", "docs/CLI.md, news \(spec.name)")
    }
  }

  @Test("docs/CLI.md: a command's option table has a row for each of its own options (delete --include-bookmarked…)")
  func documentedOptions() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let shared = Set(
      [SharedOption.database, SharedOption.configuration, SharedOption.color, SharedOption.verbose].map(\.name))
    for spec in Self.specs {
      guard let start = lines.firstIndex(where: { $0.hasPrefix("## ") && $0.contains("`news \(spec.name)`") }) else {
        Issue.record("docs/CLI.md has no section for news \(spec.name)")
        continue
      }
      let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.count
      let rows = lines[start..<end].filter { $0.hasPrefix("| `--") }
      // A section that describes its options in prose has no table to check.
      guard !rows.isEmpty else { continue }
      for option in spec.options where !shared.contains(option.name) {
        #expect(
          rows.contains { $0.hasPrefix("| `--\(option.name)`") || $0.hasPrefix("| `--\(option.name) ") },
          "docs/CLI.md, news \(spec.name): no row for --\(option.name)")
      }
    }
  }
}
