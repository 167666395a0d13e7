import Foundation
import TestSupport
import Testing

@testable import NewsCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C (SIGINT) during `news import`: the save is one transaction, so the process ends at once, says that nothing
/// of the file was imported, and exits 130; the store holds what it held before.
@Suite("Ctrl-C during an import: a note, exit 130, the store as it was", .timeLimit(.minutes(2)))
struct InterruptedImportTests {
  /// A NewsAPI response of `count` articles, each with a few hundred bytes of text (a file of 4 MiB or more is
  /// streamed: saved batch by batch as it is read, in one transaction).
  static func payload(_ count: Int, prefix: String) -> String {
    let text = String(repeating: "Offline reading of a long story, one sentence after another. ", count: 8)
    let records = (0..<count).map { index in
      #"{"source":{"name":"Wire"},"title":"Story \#(index)","url":"https://example.com/\#(prefix)/\#(index)","#
        + #""description":"\#(text)","publishedAt":"2024-03-01T00:00:00Z"}"#
    }
    return #"{"status":"ok","totalResults":\#(count),"articles":[\#(records.joined(separator: ","))]}"#
  }

  /// Bytes the process has read so far (`rchar` of `/proc/PID/io`): how far a streamed import has read its file.
  static func bytesRead(_ pid: pid_t) -> Int {
    guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
      let line = io.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") })
    else { return 0 }
    return Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) ?? 0
  }

  /// `news import FILE` in a child process, Ctrl-C once it has read half of `file` (`size` bytes: the save of its
  /// first batches under way, in one transaction); returns the run once it has ended, or `nil` when the import ended
  /// before this process saw it halfway (a loaded machine can hold this process's polls back that long).
  static func importInterruptedHalfway(_ cli: CLIHarness, file: String, size: Int) async throws
    -> ServeCommandTests.Run?
  {
    let run = try ServeCommandTests.Run(["import", file, "--db", cli.database], in: cli.directory)
    var read = 0
    for _ in 0..<30_000 where run.child.isRunning {
      read = bytesRead(run.child.processIdentifier)
      if read >= size / 2 { break }
      try await Task.sleep(for: .milliseconds(2))
    }
    guard run.child.isRunning, read >= size / 2 else {
      await run.child.exited()
      return nil
    }
    #expect(kill(run.child.processIdentifier, SIGINT) == 0)
    await run.child.exited()
    return run
  }

  /// Up to three tries, each in a new folder, of `body` with a store, until the import is caught halfway.
  static func caughtHalfway(
    _ body: (CLIHarness) async throws -> ServeCommandTests.Run?
  ) async throws -> (CLIHarness, ServeCommandTests.Run) {
    for _ in 0..<3 {
      let cli = CLIHarness()
      if let run = try await body(cli) { return (cli, run) }
    }
    throw NeverCaughtHalfway()
  }

  /// Three imports in a row ended before this process saw them halfway.
  struct NeverCaughtHalfway: Error, CustomStringConvertible {
    var description: String { "the import was never caught halfway in three tries" }
  }

  @Test(
    "into a store holding an article: interrupted halfway through the file, the store still holds just that one",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/io"), "needs /proc/PID/io (Linux)"))
  func interruptedImport() async throws {
    var large = ""
    let (cli, run) = try await Self.caughtHalfway { cli in
      let first = cli.directory.path("first.json")
      try Data(Self.payload(1, prefix: "before").utf8).write(to: URL(fileURLWithPath: first))
      #expect(await cli.run("import", first, "--db", cli.database).status == 0)
      large = cli.directory.path("large.json")
      let text = Self.payload(20_000, prefix: "large")
      try Data(text.utf8).write(to: URL(fileURLWithPath: large))
      let size = text.utf8.count
      #expect(size >= 8 << 20, "streamed: 4 MiB or more")
      return try await Self.importInterruptedHalfway(cli, file: large, size: size)
    }
    #expect(run.child.terminationReason == .exit, "killed by the signal instead of ending: \(run.errors)")
    #expect(run.child.terminationStatus == 130, "\(run.errors)")
    #expect(
      run.errors.contains("interrupted: nothing of \(large) was imported; the store is as it was"), "\(run.errors)")
    #expect(run.output.isEmpty, "\(run.output)")

    let listed = try await cli.run("list", "--db", cli.database, "--json").json()
    let urls = (listed["articles"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
    #expect(urls == ["https://example.com/before/0"])
    // The store takes the file whole afterwards.
    #expect(await cli.run("import", large, "--db", cli.database, "--quiet").status == 0)
    let stats = try await cli.run("stats", "--db", cli.database, "--json").json()
    let entities = stats["entities"] as? [[String: Any]] ?? []
    #expect(entities.first { $0["name"] as? String == "article" }?["rows"] as? Int == 20_001, "\(stats)")
  }

  @Test(
    "a first import into an empty store (through a rollback journal): interrupted, the store is empty and opens",
    .enabled(if: CrashSafetyTests.newsBinary != nil, "needs the news executable built beside the tests"),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/io"), "needs /proc/PID/io (Linux)"))
  func interruptedFirstImport() async throws {
    var large = ""
    let (cli, run) = try await Self.caughtHalfway { cli in
      large = cli.directory.path("large.json")
      let text = Self.payload(20_000, prefix: "first")
      try Data(text.utf8).write(to: URL(fileURLWithPath: large))
      return try await Self.importInterruptedHalfway(cli, file: large, size: text.utf8.count)
    }
    #expect(run.child.terminationStatus == 130, "\(run.errors)")
    #expect(run.errors.contains("interrupted: nothing of \(large) was imported"), "\(run.errors)")
    let listed = try await cli.run("list", "--db", cli.database, "--json").json()
    #expect((listed["articles"] as? [Any])?.isEmpty == true, "\(listed)")
    #expect(await cli.run("import", large, "--db", cli.database, "--quiet").status == 0)
  }
}
