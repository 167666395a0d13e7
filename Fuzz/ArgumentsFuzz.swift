// libFuzzer target: the `news` argument parser, `ArgumentParser.parse(_:for:)` with every command's `CommandSpec`.
//
// Built by scripts/fuzz.sh against the NewsCLI module compiled with `-enable-testing`. The input is split on NUL
// bytes into arguments (argv cannot hold a NUL, so this is every command line there is). Properties checked, each a
// crash when broken:
// - parsing never traps, and neither do the typed accessors (`integer`, `seconds`) or the help text;
// - a parse that succeeds returns only options the spec declares: values for options with a value, flags for the
//   others, and no more positionals than the spec has (unless help was asked for);
// - a parse that fails is a usage error (exit status 64) with a message.
import Foundation

@testable import NewsCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let arguments = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
    .map { String(decoding: $0, as: UTF8.self) }
  for spec in NewsCommandLine.commands {
    do {
      let parsed = try ArgumentParser.parse(size == 0 ? [] : arguments, for: spec)
      check(parsed, spec)
    } catch {
      guard error.code == .usage, !error.message.isEmpty else {
        fatalError("'news \(spec.name)' failed with \(error.code): \(error.message)")
      }
    }
  }
  return 0
}

private func check(_ parsed: ParsedArguments, _ spec: CommandSpec) {
  for name in parsed.values.keys {
    guard spec.options.contains(where: { $0.name == name && $0.valueName != nil }) else {
      fatalError("'news \(spec.name)': a value for --\(name), which takes none or is not an option")
    }
  }
  for name in parsed.flags {
    guard spec.options.contains(where: { $0.name == name && $0.valueName == nil }) else {
      fatalError("'news \(spec.name)': flag --\(name), which takes a value or is not an option")
    }
  }
  if !parsed.wantsHelp, parsed.positionals.count > spec.positionals.count {
    fatalError("'news \(spec.name)': \(parsed.positionals.count) positionals accepted")
  }
  for name in ["limit", "offset"] {
    do {
      if let number = try parsed.integer(name, minimum: 0), number < 0 { fatalError("--\(name) \(number) accepted") }
    } catch {
      guard error.code == .usage else { fatalError("--\(name): \(error.code)") }
    }
  }
  do {
    if let seconds = try parsed.seconds("timeout"), !(seconds > 0 && seconds.isFinite) {
      fatalError("--timeout \(seconds) accepted")
    }
  } catch {
    guard error.code == .usage else { fatalError("--timeout: \(error.code)") }
  }
  if parsed.wantsHelp, spec.helpText.isEmpty { fatalError("empty help for \(spec.name)") }
}
