import Foundation
import TestSupport
import Testing

@testable import NewsCLI

/// `news --version` prints the version and the commit (issue 30, install): the commit is baked in before each build
/// by `scripts/build-commit.sh` (the BuildCommit plugin), from git when the package is a checkout, and the build
/// never depends on git: without it, or in a tarball, the commit is "unknown commit".
@Suite("news --version: the version and the commit")
struct VersionTests {
  static let script = Fixtures.packageRoot.appendingPathComponent("scripts/build-commit.sh").path
  static let git = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  static let hasGit = git != nil

  /// Runs `program arguments…` with `environment` (only it) in `folder`; its status and standard output.
  static func run(
    _ program: String, _ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"],
    in folder: String? = nil
  ) throws -> ProgramRun {
    try ProgramRun.runBlocking(program, arguments, environment: environment, in: folder)
  }

  /// The commit the script bakes in for `package` (`nil`: unknown), read back from the file it writes.
  static func bakedCommit(package: String, environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws
    -> String?
  {
    let output = TemporaryDirectory("build-commit").path("Generated/BuildCommit.swift")
    let result = try run("/bin/sh", [script, package, output], environment: environment)
    #expect(result.status == 0)
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(text.contains("extension NewsCommandLine {"))
    if text.contains("static let commit: String? = nil") { return nil }
    let line = try #require(text.split(separator: "\n").first { $0.contains("static let commit: String? = \"") })
    return line.split(separator: "\"").dropFirst().first.map(String.init)
  }

  @Test("news --version prints the version and the commit baked in, one of this checkout's when it is one")
  func versionLine() async throws {
    let outcome = await CLIHarness().run("--version")
    #expect(outcome.status == 0)
    let pattern = #/news (\d+)\.(\d+)\.(\d+) \(([0-9A-Za-z._+-]+|unknown commit)\)\n/#
    let match = try #require(try pattern.wholeMatch(in: outcome.out), "\(outcome.out)")
    #expect(outcome.out == "news \(NewsCommandLine.version) (\(NewsCommandLine.commit ?? "unknown commit"))\n")
    let root = Fixtures.packageRoot.path
    // Built from a git checkout (CI, a clone): the commit is one of its commits, not "unknown commit".
    if let git = Self.git, FileManager.default.fileExists(atPath: root + "/.git"),
      case let top = try Self.run(git, ["-C", root, "rev-parse", "--show-toplevel"]), top.status == 0,
      URL(fileURLWithPath: top.out.trimmingCharacters(in: .newlines)).standardizedFileURL.path
        == URL(fileURLWithPath: root).standardizedFileURL.path
    {
      let commit = String(match.output.4)
      #expect(commit != "unknown commit")
      let verified = try Self.run(git, ["-C", root, "rev-parse", "--verify", "--quiet", "\(commit)^{commit}"])
      #expect(verified.status == 0, "\(commit) is not a commit of \(root)")
    }
  }

  @Test("without git, outside a checkout or inside another repository's folder: unknown commit; NEWS_COMMIT wins")
  func fallbacks() throws {
    let folder = TemporaryDirectory("build-commit-package")
    let package = folder.path("tarball")
    try FileManager.default.createDirectory(atPath: package + "/scripts", withIntermediateDirectories: true)
    #expect(try Self.bakedCommit(package: package) == nil, "a folder that is no checkout")
    // A shell whose PATH has the tools the script uses but no git.
    let tools = folder.path("bin")
    try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
    for tool in ["tr", "cmp", "mkdir", "cat", "mv", "rm", "dirname"] {
      let path = ["/usr/bin/\(tool)", "/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) }
      try FileManager.default.createSymbolicLink(atPath: "\(tools)/\(tool)", withDestinationPath: try #require(path))
    }
    #expect(
      try Self.bakedCommit(package: Fixtures.packageRoot.path, environment: ["PATH": tools]) == nil,
      "no git on PATH: unknown, and the build goes on")
    #expect(
      try Self.bakedCommit(package: package, environment: ["PATH": tools, "NEWS_COMMIT": "a7d60e1"]) == "a7d60e1")
    #expect(
      try Self.bakedCommit(package: package, environment: ["PATH": tools, "NEWS_COMMIT": "a\"); exit(1) //"]) == nil,
      "only a plain name goes into the Swift literal")
    // A `git archive` tarball: export-subst filled scripts/commit.txt in; unfilled (a checkout), it is ignored.
    try "$Format:%h$\n".write(toFile: package + "/scripts/commit.txt", atomically: true, encoding: .utf8)
    #expect(try Self.bakedCommit(package: package, environment: ["PATH": tools]) == nil)
    try "0123abc\n".write(toFile: package + "/scripts/commit.txt", atomically: true, encoding: .utf8)
    #expect(try Self.bakedCommit(package: package, environment: ["PATH": tools]) == "0123abc")
  }

  @Test(
    "in a git checkout, its short HEAD; a package unpacked in another repository's folder does not take its commit",
    .enabled(if: hasGit, "needs git"))
  func fromGit() throws {
    let git = try #require(Self.git)
    let folder = TemporaryDirectory("build-commit-git")
    let repository = folder.path("repository")
    try FileManager.default.createDirectory(atPath: repository + "/inner", withIntermediateDirectories: true)
    let environment = [
      "PATH": "/usr/bin:/bin", "HOME": folder.path("."), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
      "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1",
    ]
    for arguments in [["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]] {
      #expect(try Self.run(git, arguments, environment: environment, in: repository).status == 0)
    }
    let head = try Self.run(git, ["rev-parse", "--short", "HEAD"], environment: environment, in: repository)
    let expected = head.out.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!expected.isEmpty)
    #expect(try Self.bakedCommit(package: repository, environment: environment) == expected)
    #expect(try Self.bakedCommit(package: repository + "/inner", environment: environment) == nil)
  }

  @Test("the file is rewritten only when the commit changes, so an unchanged commit rebuilds nothing")
  func unchangedFileKept() throws {
    let folder = TemporaryDirectory("build-commit-same")
    let output = folder.path("BuildCommit.swift")
    let environment = ["PATH": "/usr/bin:/bin", "NEWS_COMMIT": "a7d60e1"]
    #expect(try Self.run("/bin/sh", [Self.script, folder.path("."), output], environment: environment).status == 0)
    let old = Date(timeIntervalSince1970: 1_000_000_000)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: output)
    #expect(try Self.run("/bin/sh", [Self.script, folder.path("."), output], environment: environment).status == 0)
    let kept = try FileManager.default.attributesOfItem(atPath: output)[.modificationDate] as? Date
    #expect(kept == old)
    let changed = ["PATH": "/usr/bin:/bin", "NEWS_COMMIT": "b8e71f2"]
    #expect(try Self.run("/bin/sh", [Self.script, folder.path("."), output], environment: changed).status == 0)
    #expect(try String(contentsOfFile: output, encoding: .utf8).contains("\"b8e71f2\""))
    #expect(!FileManager.default.fileExists(atPath: output + ".partial"))
  }
}
