import Foundation

/// What the figures were measured on.
struct Machine: Codable, Sendable {
  var cpu: String
  var cores: Int
  var memoryGB: Double
  var kernel: String
  var sqlite: String
  var pythonSQLite: String
  var python: String
  /// The installed `sqlite-utils` (PyPI) version, when there is one.
  var sqliteUtils: String?
  var swift: String
  /// The git revision of the working copy in the current folder (`git describe --always --dirty`), when there is one.
  var source: String?

  static func describe(outputFolder folder: String) -> Machine {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
    let memoryKiB =
      meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
      .flatMap { Int($0.filter(\.isNumber)) } ?? 0
    // The first line a command prints, trimmed; `nil` when it cannot run or fails.
    func firstLine(_ arguments: [String]) -> String? {
      commandOutput(arguments, outputFolder: folder)?.split(separator: "\n").first
        .map { $0.trimmingCharacters(in: .whitespaces) }
    }
    let sqliteLine = firstLine(["sqlite3", "--version"]) ?? "not found"
    return Machine(
      cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
      memoryGB: (Double(memoryKiB) / 1_048_576 * 10).rounded() / 10,
      kernel: firstLine(["uname", "-sr"]) ?? "not found",
      sqlite: sqliteLine.split(separator: " ").first.map(String.init) ?? sqliteLine,
      pythonSQLite: firstLine(["python3", "-c", "import sqlite3; print(sqlite3.sqlite_version)"]) ?? "not found",
      python: firstLine(["python3", "--version"]) ?? "not found",
      sqliteUtils: firstLine(["python3", "-c", "import importlib.metadata as m; print(m.version('sqlite-utils'))"]),
      swift: firstLine(["swift", "--version"]) ?? "not found",
      source: firstLine(["git", "describe", "--always", "--dirty"]))
  }
}
