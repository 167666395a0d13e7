import Foundation
import Synchronization
import TestSupport
import Testing

@testable import NewsCLI

/// `news read` reloads in a child `news fetch … --json-lines` (``ReaderReload``): what that prints, and the child
/// run from the built `news` as the reader runs it.
@Suite("news read's reloads: fetch --json-lines in a child process")
struct ReaderReloadTests {
  /// A configuration of two file sources (our HTML feed, in the folder Coast, and a feed with one item) and one
  /// feed on a closed port of the loopback address (nothing listens on port 9, discard).
  static func configuration(in cli: CLIHarness, closedFeed: Bool = false) throws -> String {
    let path = cli.directory.path("news.json")
    let small = cli.directory.path("small.rss")
    try Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>Small</title><link>https://small.example/</link>
      <item><title>Only story</title><link>https://small.example/1</link><guid>https://small.example/1</guid>
      <pubDate>Wed, 25 Nov 2026 09:00:00 +0000</pubDate></item></channel></rss>
      """.utf8
    ).write(to: URL(fileURLWithPath: small))
    let closed = closedFeed ? #", "closed": {"feed": "http://127.0.0.1:9/feed.xml"}"# : ""
    try Data(
      """
      {"sources": {"harbour": {"file": "\(Fixtures.own("feeds/html-text.rss").path)", "folder": "Coast"},
      "small": {"file": "\(small)"}\(closed)}, "timeoutSeconds": 2}
      """.utf8
    ).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Each line of `out`, parsed as a JSON object.
  static func lines(_ out: String) throws -> [[String: Any]] {
    try out.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
    }
  }

  @Test("fetch --all --json-lines: one line per source with --json's keys; --source and --folder select as --all")
  func jsonLines() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    let config = try Self.configuration(in: cli)
    let all = await cli.run("fetch", "--all", "--json-lines", "--config", config, "--db", cli.database)
    #expect(all.status == 0, "\(all.err)")
    let lines = try Self.lines(all.out)
    #expect(Set(lines.compactMap { $0["source"] as? String }) == ["harbour", "small"], "\(all.out)")
    let keys: Set<String> = [
      "source", "kind", "status", "inserted", "updated", "unchanged", "remembered", "rememberedEvicted", "evicted",
      "cached", "ageSeconds", "error",
    ]
    #expect(lines.allSatisfy { Set($0.keys) == keys }, "\(all.out)")
    let small = try #require(lines.first { $0["source"] as? String == "small" })
    #expect(small["inserted"] as? Int == 1 && small["status"] as? String == "new", "\(small)")
    // The same sources as --json's document, which prints them at the end.
    let document = await cli.run("fetch", "--all", "--json", "--config", config, "--db", cli.database)
    let sources = try #require(try document.json()["sources"] as? [[String: Any]])
    #expect(Set(sources.compactMap { $0["source"] as? String }) == ["harbour", "small"])

    let one = await cli.run("fetch", "--source", "SMALL", "--json-lines", "--config", config, "--db", cli.database)
    #expect(one.status == 0, "\(one.err)")
    #expect(try Self.lines(one.out).map { $0["source"] as? String } == ["small"], "\(one.out)")
    #expect(try Self.lines(one.out).first?["status"] as? String == "unchanged", "\(one.out)")
    let folder = await cli.run("fetch", "--folder", "coast", "--json-lines", "--config", config, "--db", cli.database)
    #expect(folder.status == 0, "\(folder.err)")
    #expect(try Self.lines(folder.out).map { $0["source"] as? String } == ["harbour"], "\(folder.out)")
  }

  @Test("fetch --json-lines refuses what is not a refresh of configured sources (64), naming what to give")
  func jsonLinesUsage() async throws {
    var cli = CLIHarness()
    cli.network = .filesOnly
    let config = try Self.configuration(in: cli)
    let runs: [([String], String)] = [
      (["--json-lines"], "give --all, --folder or --source with it"),
      (["--url", Fixtures.own("feeds/html-text.rss").path, "--json-lines"], "not --url"),
      (["--source", "nope", "--json-lines"], #"no source named "nope""#),
      (["--all", "--json", "--json-lines"], "--json"),
    ]
    for (words, message) in runs {
      let outcome = await cli.run(["fetch"] + words + ["--config", config, "--db", cli.database])
      #expect(outcome.status == 64, "\(words): \(outcome.err)")
      #expect(outcome.err.contains(message), "\(words): \(outcome.err)")
      #expect(outcome.out.isEmpty, "\(words): \(outcome.out)")
    }
  }

  @Test("the reload the reader starts: the built news runs fetch, each source's line as progress, then the outcome")
  func childReload() async throws {
    let news = try #require(CrashSafetyTests.newsBinary, "the news executable is built beside the tests")
    let cli = CLIHarness()
    let config = try Self.configuration(in: cli, closedFeed: true)
    let environment = ["HOME": cli.directory.path("home"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    func reload(_ selection: ReaderReload.Selection) async throws -> (ReaderReload.Outcome, [Int]) {
      let progress = Progress()
      let outcome = try await withCheckedThrowingContinuation { continuation in
        do {
          _ = try ReaderReload(
            program: news.path, selection, arguments: ["--db", cli.database, "--config", config],
            environment: environment, progress: { done, _ in progress.add(done) },
            finished: { continuation.resume(returning: $0) })
        } catch {
          continuation.resume(throwing: error)
        }
      }
      return (outcome, progress.values)
    }
    // Every source: the two files saved, the closed feed failed with nothing cached (75: some unavailable).
    let (all, done) = try await reload(.all)
    #expect(all.status == 75, "\(all)")
    #expect(all.failure == nil)
    #expect(Set(all.sources.map(\.source)) == ["closed", "harbour", "small"], "\(all)")
    #expect(done == [1, 2, 3])
    let closed = try #require(all.sources.first { $0.source == "closed" })
    #expect(closed.status == "failed" && closed.error?.isEmpty == false, "\(closed)")
    let summary = ReadCommand.Session.summary(all)
    let inserted = all.sources.reduce(0) { $0 + $1.inserted }
    #expect(inserted > 1)
    #expect(summary.hasPrefix("reloaded 3 sources: \(inserted) new, 1 failed (closed: "), "\(summary)")

    let (small, _) = try await reload(.source("small"))
    #expect(small.status == 0 && small.sources.map(\.source) == ["small"], "\(small)")
    #expect(ReadCommand.Session.summary(small) == "reloaded 1 source: 0 new", "\(small)")
    let (coast, _) = try await reload(.folder("Coast"))
    #expect(coast.sources.map(\.source) == ["harbour"], "\(coast)")

    // A reload that refreshes nothing says why, as `news fetch` would have.
    let (unknown, _) = try await reload(.source("gone-from-the-file"))
    #expect(unknown.status == 64 && unknown.sources.isEmpty, "\(unknown)")
    #expect(unknown.failure == #"no source named "gone-from-the-file""#, "\(unknown)")
    #expect(ReadCommand.Session.summary(unknown) == #"reload failed: no source named "gone-from-the-file""#)
  }

  /// The progress calls a reload made, in order.
  final class Progress: Sendable {
    private let done = Mutex<[Int]>([])
    func add(_ count: Int) { done.withLock { $0.append(count) } }
    var values: [Int] { done.withLock { $0 } }
  }
}
