// libFuzzer target: the `news` argument parser, `ArgumentParser.parse(_:for:)` for every registered command.
//
// Built by scripts/fuzz.sh against the NewsCLI module compiled with `-enable-testing`. The input is split on NUL
// bytes into arguments (argv cannot hold a NUL, so this is every command line there is). Properties checked, each a
// crash when broken:
// - parsing never traps, and neither do the typed accessors or the help text;
// - every value of a typed option (``ValueType``) was read to its type, within its range;
// - a parse that succeeds returns only the command's own options (its `Option` cases): values for options with a
//   value, flags for the others, and no more positionals than the spec has (unless help was asked for);
// - a parse that fails is a usage error (exit status 64) with a message.
import Foundation

@testable import NewsCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let arguments = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
    .map { String(decoding: $0, as: UTF8.self) }
  for command in CommandRegistry.commands { fuzz(command, size == 0 ? [] : arguments) }
  return 0
}

private func fuzz<Command: NewsCommand>(_ command: Command.Type, _ arguments: [String]) {
  let spec = Command.spec
  do {
    check(try Command.parse(arguments), spec)
  } catch {
    guard error.code == .usage, !error.message.isEmpty else {
      fatalError("'news \(spec.name)' failed with \(error.code): \(error.message)")
    }
  }
}

private func check<Option>(_ parsed: ParsedArguments<Option>, _ spec: CommandSpec) {
  for option in parsed.values.keys where option.spec.valueName == nil {
    fatalError("'news \(spec.name)': a value for --\(option.spec.name), which takes none")
  }
  for option in parsed.flags where option.spec.valueName != nil {
    fatalError("'news \(spec.name)': flag --\(option.spec.name), which takes a value")
  }
  if !parsed.wantsHelp, parsed.positionals.count > spec.positionals.count {
    fatalError("'news \(spec.name)': \(parsed.positionals.count) positionals accepted")
  }
  // Every value of a typed option was read to its type, within its range.
  for (option, text) in parsed.values {
    let name = "'news \(spec.name)' --\(option.spec.name) \(text)"
    switch option.spec.type {
    case .text: break
    case .integer(let minimum):
      guard let number = parsed.integer(option), number >= minimum else { fatalError("\(name): no whole number") }
    case .timeLimit:
      guard let seconds = parsed.seconds(option), seconds > 0, seconds <= 86_400 else { fatalError("\(name) accepted") }
    case .duration:
      guard let seconds = parsed.seconds(option), seconds >= 0, seconds.isFinite else { fatalError("\(name) accepted") }
    case .date:
      guard parsed.date(option) != nil else { fatalError("\(name): no date") }
    case .choice(let words):
      guard words.contains(text) else { fatalError("\(name) accepted") }
    case .interval:
      guard let interval = parsed.interval(option), (interval ?? 1) >= 1 else { fatalError("\(name) accepted") }
    case .listenAddress:
      guard let address = parsed.address(option), (0...65_535).contains(address.port) else {
        fatalError("\(name) accepted")
      }
    }
  }
  if parsed.wantsHelp, spec.helpText.isEmpty { fatalError("empty help for \(spec.name)") }
}
