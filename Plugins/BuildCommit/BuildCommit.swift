import Foundation
import PackagePlugin

/// Bakes the commit `news --version` prints into NewsCLI: before every build, `scripts/build-commit.sh` writes
/// `BuildCommit.swift` (`NewsCommandLine.commit`) into the plugin's work folder, which SwiftPM compiles with the
/// target. The script asks git when the package folder is the top of a git checkout, else takes `NEWS_COMMIT` or the
/// commit `git archive` writes into `scripts/commit.txt`, else `nil` ("unknown commit"): the build never depends on
/// git, the network or a registry, and the file is rewritten only when the commit changes (no rebuild otherwise).
@main
struct BuildCommit: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("Generated", isDirectory: true)
    let package = context.package.directoryURL
    var environment: [String: String] = [:]
    if let commit = ProcessInfo.processInfo.environment["NEWS_COMMIT"] { environment["NEWS_COMMIT"] = commit }
    if let path = ProcessInfo.processInfo.environment["PATH"] { environment["PATH"] = path }
    return [
      .prebuildCommand(
        displayName: "Naming the commit of \(target.name)",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [
          package.appendingPathComponent("scripts/build-commit.sh").path, package.path,
          output.appendingPathComponent("BuildCommit.swift").path,
        ],
        environment: environment,
        outputFilesDirectory: output)
    ]
  }
}
