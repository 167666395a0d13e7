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
      FileHandle.standardError.write(Data("news-bench: \(error)\n".utf8))
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
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      if let database = options.cliDatabase {
        let results = try await benchmark.runCommandLine(
          machine: machine, database: URL(fileURLWithPath: database).standardizedFileURL.path)
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.commandLine(results), terminator: "")
        }
      } else if options.extraction {
        let results = try ExtractionBench(options: options, folder: folder).run(machine: machine)
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(ExtractionBench.report(results), terminator: "")
        }
      } else if options.serve {
        let results = try await ServeBench.run(options: options, folder: folder, selfPath: selfPath)
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.machine(machine, date: results.date) + ServeBench.report(results), terminator: "")
        }
      } else if options.read {
        let results = try ReaderBench.make(options, folder: folder, selfPath: selfPath).run()
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.machine(machine, date: results.date) + ReaderBench.report(results), terminator: "")
        }
      } else if options.feeds {
        let results = try FeedBench.feeds(options, folder: folder, selfPath: selfPath).run()
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.machine(machine, date: results.date) + FeedBench.report(results), terminator: "")
        }
      } else if options.scaling {
        let results = try benchmark.runScaling(machine: machine)
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.scaling(results), terminator: "")
        }
      } else {
        let results = try await benchmark.run(machine: machine)
        if options.json {
          print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
          print(Report.text(results), terminator: "")
        }
      }
      return 0
    } catch {
      FileHandle.standardError.write(Data("news-bench: \(error)\n".utf8))
      return 1
    }
  }
}
