import Foundation

// news-bench: the performance benchmark of issue 6 (docs/PERFORMANCE.md). `swift run -c release news-bench --help`.

let arguments = Array(CommandLine.arguments.dropFirst())

/// Ends a child mode called with the wrong arguments: its usage line on standard error, exit status 64.
func usage(_ line: String) -> Never {
  FileHandle.standardError.write(Data("usage: \(line)\n".utf8))
  exit(64)
}

if arguments.first == "--child-import" {
  let sqliteMemory = arguments.count == 4 && arguments[3] == "--sqlite-memory"
  guard arguments.count == 3 || sqliteMemory else { usage("news-bench --child-import FILE DB [--sqlite-memory]") }
  exit(await ChildImport.run(file: arguments[1], database: arguments[2], sqliteMemory: sqliteMemory))
}
if arguments.first == "--serve-child" {
  // `news-bench --serve-child DB`: the server of `--serve`, in its own process (ServeBench.child).
  guard arguments.count == 2 else { usage("news-bench --serve-child DB") }
  exit(await ServeBench.child(database: arguments[1]))
}
if arguments.first == "--generate" {
  // `news-bench --generate N FILE`: only the payload of N articles (default seed), for ad-hoc runs of
  // `--child-import` (docs/PERFORMANCE.md).
  guard arguments.count == 3, let count = Int(arguments[1]), count > 0 else { usage("news-bench --generate N FILE") }
  do {
    let summary = try PayloadGenerator(count: count, seed: Options().seed).write(to: arguments[2])
    print("\(count) articles, \(summary.bytes) bytes")
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("news-bench --generate: \(error)\n".utf8))
    exit(1)
  }
}
exit(await BenchCommand.main(arguments))
