import Foundation
import OfflineNews
import OfflineNewsFeeds
import TestSupport
import Testing

/// A file or body over the 64 MiB a news source is read whole up to is refused by its size before it is read, with
/// a message that names it, its size and the limit, and a hint for feeds; a cut-off NewsAPI file says it is cut off.
@Suite struct SizeLimitTests {
  /// A sparse file of `size` bytes that starts with `head` (no disk space, nothing to read but the head).
  static func sparseFile(_ path: String, head: String, size: Int) throws {
    try Data(head.utf8).write(to: URL(fileURLWithPath: path))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: UInt64(size))
    try handle.close()
  }

  static let size = 150_000_000

  @Test("a 143 MiB feed or OPML file: import and fetch --url refuse it by its size, naming it, its size and the limit")
  func largeFile() async throws {
    let cli = CLIHarness()
    let feed = cli.directory.path("big.rss")
    try Self.sparseFile(
      feed, head: #"<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>"#, size: Self.size)
    let opml = cli.directory.path("big.opml")
    try Self.sparseFile(opml, head: #"<?xml version="1.0"?><opml version="2.0"><head/><body>"#, size: Self.size)
    let runs: [(path: String, words: [String], status: Int32)] = [
      (feed, ["import", feed], 65), (feed, ["fetch", "--url", feed], 69), (opml, ["import", opml], 65),
    ]
    for run in runs {
      let result = await cli.run(run.words + ["--db", cli.database])
      #expect(result.status == run.status, "\(run.words): \(result.err)")
      #expect(result.err.contains(run.path), "\(result.err)")
      #expect(result.err.contains("143.1 MiB (\(Self.size) bytes)"), "\(result.err)")
      #expect(result.err.contains("more than the limit of 64 MiB"), "\(result.err)")
      #expect(result.err.contains("a feed is rarely more than a few MiB"), "\(result.err)")
      #expect(!result.err.contains("--mapping") && !result.err.contains("NewsAPI response"), "\(result.err)")
    }
  }

  @Test("an HTTP feed whose Content-Length is over the limit, or that passes it without one, is refused by the cap")
  func largeBody() async throws {
    let cli = CLIHarness()
    let announced = try LoopbackHTTPServer(
      .truncated(status: 200, body: Data("<rss version=\"2.0\">".utf8), declaredLength: Self.size))
    defer { announced.stop() }
    let url = announced.url("/feed.xml").absoluteString
    let outcome = await cli.run("fetch", "--url", url, "--db", cli.database)
    #expect(outcome.status == 69, "\(outcome.err)")
    #expect(outcome.err.contains(url), "\(outcome.err)")
    #expect(outcome.err.contains("143.1 MiB (\(Self.size) bytes), more than the limit of 64 MiB"), "\(outcome.err)")
    #expect(outcome.err.contains("check that the URL is the feed's"), "\(outcome.err)")

    let endless = try LoopbackHTTPServer(.endless(status: 200, contentType: "application/rss+xml"))
    defer { endless.stop() }
    let unannounced = await cli.run("fetch", "--url", endless.url("/feed.xml").absoluteString, "--db", cli.database)
    #expect(unannounced.status == 69, "\(unannounced.err)")
    #expect(unannounced.err.contains(": more than the limit of 64 MiB"), "\(unannounced.err)")
  }

  @Test("a cut-off NewsAPI file says it is cut off (not: give a mapping)")
  func truncatedNewsAPI() async throws {
    try await Self.expectCutOff(Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json"))
  }

  @Test(
    "every real NewsAPI capture cut in half says it is cut off",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func truncatedRealNewsAPI() async throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.sharedRealDirectory.path)
      .filter { $0.hasPrefix("newsapi-") && $0.hasSuffix(".json") }
    #expect(!names.isEmpty)
    for name in names { try await Self.expectCutOff(try Fixtures.sharedReal(name)) }
  }

  /// `news import` of the first half of `file`: 65, the truncation's own message, its size counted here.
  static func expectCutOff(_ file: URL) async throws {
    let cli = CLIHarness()
    let data = try Data(contentsOf: file)
    let cut = cli.directory.path("cut-" + file.lastPathComponent)
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
    let outcome = await cli.run("import", cut, "--db", cli.database)
    #expect(outcome.status == 65, "\(file.lastPathComponent): \(outcome.err)")
    #expect(outcome.err.contains("not valid JSON: truncated: it ends after"), "\(outcome.err)")
    #expect(outcome.err.contains("after \(data.count / 2) bytes"), "\(outcome.err)")
    #expect(outcome.err.contains("the file is cut off"), "\(outcome.err)")
    #expect(!outcome.err.contains("--mapping"), "\(outcome.err)")
  }
}
