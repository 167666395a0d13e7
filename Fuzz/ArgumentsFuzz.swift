// libFuzzer target: the `news` argument parser, `ArgumentParser.parse(_:for:)` for every registered command.
//
// Built by scripts/fuzz.sh against the NewsCLI module compiled with `-enable-testing`. The input is split on NUL
// bytes into arguments (argv cannot hold a NUL, so this is every command line there is). Properties checked, each a
// crash when broken:
// - parsing never traps, and neither do the typed accessors (`integer`, `seconds`) or the help text;
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
  for option in Option.allCases where ["limit", "offset"].contains(option.spec.name) {
    do {
      if let number = try parsed.integer(option, minimum: 0), number < 0 {
        fatalError("--\(option.spec.name) \(number) accepted")
      }
    } catch {
      guard error.code == .usage else { fatalError("--\(option.spec.name): \(error.code)") }
    }
  }
  for option in Option.allCases where option.spec.name == "timeout" {
    do {
      if let seconds = try parsed.seconds(option), !(seconds > 0 && seconds.isFinite) {
        fatalError("--timeout \(seconds) accepted")
      }
    } catch {
      guard error.code == .usage else { fatalError("--timeout: \(error.code)") }
    }
  }
  if parsed.wantsHelp, spec.helpText.isEmpty { fatalError("empty help for \(spec.name)") }
}
