import Foundation

/// Parses the command line, prepares the work folder, runs the benchmark and prints the report.
enum BenchCommand {
  static func main(_ arguments: [String]) async -> Int32 {
    let options: Options
    do {
      options = try Options.parse(arguments)
    } catch is HelpRequested {
      print(Options.usage)
      return 0
    } catch {
      progress("\(error)")
      return 64
    }
    let folder: String
    let temporary = options.workFolder == nil
    if let work = options.workFolder {
      folder = URL(fileURLWithPath: work).standardizedFileURL.path
    } else {
      folder =
        FileManager.default.temporaryDirectory.appendingPathComponent(
          "news-bench-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
    }
    defer { if temporary { try? FileManager.default.removeItem(atPath: folder) } }
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let selfPath = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
      let benchmark = Benchmark(options: options, folder: folder, selfPath: selfPath)
      let machine = Machine.describe(outputFolder: folder)
      // Prints `results` as JSON with `--json`, else as `report` writes them.
      func emit<Results: Encodable>(_ results: Results, _ report: (Results) -> String) throws {
        if options.json {
          let encoder = JSONEncoder()
          encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(report(results), terminator: "")
        }
      }
      if let database = options.cliDatabase {
        try emit(
          try await benchmark.runCommandLine(
            machine: machine, database: URL(fileURLWithPath: database).standardizedFileURL.path), Report.commandLine)
      } else if options.extraction {
        try emit(try ExtractionBench(options: options, folder: folder).run(machine: machine), ExtractionBench.report)
      } else if options.serve {
        try emit(try await ServeBench.run(options: options, folder: folder, selfPath: selfPath)) {
          Report.machine(machine, date: $0.date) + ServeBench.report($0)
        }
      } else if options.read {
        try emit(try ReaderBench.make(options, folder: folder, selfPath: selfPath).run()) {
          Report.machine(machine, date: $0.date) + ReaderBench.report($0)
        }
      } else if options.feeds {
        try emit(try FeedBench.feeds(options, folder: folder, selfPath: selfPath).run()) {
          Report.machine(machine, date: $0.date) + FeedBench.report($0)
        }
      } else if options.scaling {
        try emit(try benchmark.runScaling(machine: machine), Report.scaling)
      } else {
        try emit(try await benchmark.run(machine: machine), Report.text)
      }
      return 0
    } catch {
      progress("\(error)")
      return 1
    }
  }
}
