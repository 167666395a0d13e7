import Foundation
import TestSupport
import Testing

@testable import NewsCLI

/// `news --completions bash|zsh|fish` and `news --man` are generated from the command declarations: each command
/// and each of its options appears, and bash's own completion machinery completes them.
@Suite("shell completions and the man page")
struct ShellIntegrationTests {
  static let bash = "/bin/bash"

  /// What bash's `complete -F _news` offers for the words of a command line, the last one being completed.
  static func bashCompletions(_ words: [String]) throws -> [String] {
    let folder = TemporaryDirectory("news-completion")
    let script = folder.path("news.bash")
    try ShellIntegration.bashScript.write(toFile: script, atomically: true, encoding: .utf8)
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let run = try ProgramRun.runBlocking(
      bash,
      [
        "-c",
        "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _news; printf '%s\\n' \"${COMPREPLY[@]}\"",
      ])
    #expect(run.status == 0, "\(run.err)")
    return run.out.split(separator: "\n").map(String.init)
  }

  @Test(
    "bash completes every command by its prefix, and each command's options exactly as declared",
    .enabled(if: FileManager.default.isExecutableFile(atPath: bash), "needs /bin/bash"))
  func bashCompletesTheDeclarations() throws {
    for spec in ShellIntegration.specs {
      let byPrefix = try Self.bashCompletions(["news", String(spec.name.prefix(3))])
      #expect(byPrefix.contains(spec.name), "\(spec.name): \(byPrefix)")
      let options = try Self.bashCompletions(["news", spec.name, "--"])
      #expect(
        Set(options) == Set(ShellIntegration.options(spec).map { "--\($0.name)" }), "\(spec.name): \(options)")
    }
    #expect(try Self.bashCompletions(["news", "list", "--color", ""]) == ["auto", "always", "never"])
    #expect(try Self.bashCompletions(["news", "--completions", "z"]) == ["zsh"])
  }

  @Test("zsh and fish scripts and the man page name every command and every option it takes")
  func everyDeclarationIsInEveryScript() {
    let zsh = ShellIntegration.zshScript
    let fish = ShellIntegration.fishScript
    let man = ShellIntegration.manPage
    #expect(zsh.hasPrefix("#compdef news\n"))
    for spec in ShellIntegration.specs {
      #expect(zsh.contains("    \(spec.name))\n"), "\(spec.name)")
      #expect(fish.contains(" -a \(spec.name) -d '"), "\(spec.name)")
      #expect(man.contains(".SS \"\(ShellIntegration.roffQuoted(spec.name))\"\n"), "\(spec.name)")
      for option in ShellIntegration.options(spec) {
        #expect(zsh.contains("'--\(option.name)["), "\(spec.name) --\(option.name)")
        #expect(
          fish.contains("__fish_seen_subcommand_from \(spec.name)\" -l \(option.name)"), "\(spec.name) --\(option.name)"
        )
        #expect(man.contains("\\-\\-\(ShellIntegration.roffQuoted(option.name))"), "\(spec.name) --\(option.name)")
      }
    }
    // roff: no raw character beyond ASCII (each is a \[uXXXX] escape).
    #expect(!man.unicodeScalars.contains { !$0.isASCII })
  }

  @Test("news --man and news --completions SHELL print them; another shell is a usage error")
  func printedByTheCommandLine() async {
    let cli = CLIHarness()
    let man = await cli.run("--man")
    #expect(man.status == 0 && man.out == ShellIntegration.manPage)
    for shell in ShellIntegration.shells {
      let printed = await cli.run("--completions", shell)
      #expect(printed.status == 0 && printed.out == ShellIntegration.completionScript(for: shell), "\(shell)")
    }
    let other = await cli.run("--completions", "tcsh")
    #expect(other.status == 64 && other.err.contains("bash|zsh|fish"), "\(other.err)")
  }
}
