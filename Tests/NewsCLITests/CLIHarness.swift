import Foundation
import NewsCLI
import OfflineNews
import OfflineNewsCurl
import OfflineNewsNetwork
import TestSupport

/// Runs `news` in-process with a captured console, a private HOME/XDG folder and a fixed clock.
struct CLIHarness {
  let directory = TemporaryDirectory("news-cli")
  var environment: [String: String]
  var now: Date
  /// How the command line makes its networks: URLSession's, as `news-online`; `.filesOnly` as `news`.
  var network = NetworkStack.curl

  init(now: Date = Date(timeIntervalSince1970: 1_764_400_000), environment extra: [String: String] = [:]) {
    self.now = now
    environment = ["HOME": directory.path("home"), "XDG_DATA_HOME": directory.path("data")]
    environment.merge(extra) { $1 }
  }

  var database: String { directory.path("news.sqlite") }
  var bundledConfig: String { Fixtures.configDirectory.appendingPathComponent("news.json").path }

  struct Outcome {
    var status: Int32
    var out: String
    var err: String

    /// Standard output parsed as a JSON object.
    func json() throws -> [String: Any] {
      let object = try JSONSerialization.jsonObject(with: Data(out.utf8))
      guard let dictionary = object as? [String: Any] else { throw HarnessError.notAnObject(out) }
      return dictionary
    }
  }

  enum HarnessError: Error { case notAnObject(String) }

  /// Runs `news ARGUMENTS…` in the temporary folder.
  func run(_ arguments: String...) async -> Outcome {
    await run(arguments)
  }

  func run(_ arguments: [String]) async -> Outcome {
    let (console, captured) = Console.capturing()
    let fixed = now
    let cli = NewsCommandLine(
      environment: environment, currentDirectory: directory.url.path, console: console, now: { fixed },
      network: network)
    let status = await cli.run(arguments)
    return Outcome(status: status, out: captured.out, err: captured.err)
  }

  /// Runs `news ARGUMENTS…` as the `news` executable does: a command line made `oneThread`, its command run by
  /// `runOnCallingThread` on a thread of its own (as the program's main thread), which it blocks until the end.
  func runOnOneThread(_ arguments: [String]) async -> Outcome {
    let (console, captured) = Console.capturing()
    let fixed = now
    let cli = NewsCommandLine(
      environment: environment, currentDirectory: directory.url.path, console: console, now: { fixed },
      network: network, oneThread: true)
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      Thread {
        switch cli.prepare(arguments) {
        case .finished(let status): continuation.resume(returning: status)
        case .command(let command): continuation.resume(returning: cli.runOnCallingThread(command))
        }
      }
      .start()
    }
    return Outcome(status: status, out: captured.out, err: captured.err)
  }
}

/// The articles array of a `--json` document.
func articles(_ document: [String: Any]) -> [[String: Any]] {
  document["articles"] as? [[String: Any]] ?? []
}

/// An oracle independent of the code under test: Foundation's ISO 8601 parser, floored to whole milliseconds.
func foundationMilliseconds(_ text: String) -> Int64? {
  let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
  guard let date = (try? withFraction.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) else { return nil }
  return Int64((date.timeIntervalSince1970 * 1000 + 1e-3).rounded(.down))
}

/// The records of a NewsAPI file, read with JSONSerialization (independently of the decoder under test).
func newsAPIRecords(_ url: URL) throws -> [[String: Any]] {
  let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
  return object?["articles"] as? [[String: Any]] ?? []
}
