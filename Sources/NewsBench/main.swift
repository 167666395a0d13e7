import Foundation

// news-bench: the performance benchmark of issue 6 (docs/PERFORMANCE.md). `swift run -c release news-bench --help`.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child-import" {
  guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: news-bench --child-import FILE DB\n".utf8))
    exit(64)
  }
  exit(await ChildImport.run(file: arguments[1], database: arguments[2]))
}
exit(await BenchCommand.main(arguments))
