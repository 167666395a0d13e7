import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsStorage
import TestSupport
import Testing

/// Feeds that move: a permanent redirect (`301`, `308`) seen on consecutive refreshes re-links the subscription — in
/// the store's list and in the configuration file, every other byte of it kept — and a temporary one (`302`, `307`)
/// does not; a feed that moved to another origin (http → https, a new host) is followed, not refused (before, a
/// redirect to another origin failed the feed on every refresh). RFC 9110 §15.4.2 ("clients with link-editing
/// capabilities ought to automatically re-link references to the effective request URI"), §15.4.9; issue 29, item 5.
/// Consecutive, not the first: a captive portal's redirect rewrote every subscription for good in readers that
/// re-linked at once (lwindolf/liferea#915 "hotel proxy hell", AntennaPod/AntennaPod#5324); RSSOwlnix#32 notes
/// NewsBlur counts the same redirect ten times before re-linking. So the store's fetch log keeps the pending move
/// between runs (migration 16), and a refresh answered from the old address forgets it.
@Suite("Feeds that moved: permanent redirects re-link, temporary ones do not")
struct MovedFeedTests {
  static func rss(_ title: String) -> Data {
    Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>\(title)</title><link>https://example.org/</link>
      <item><title>\(title) post</title><link>https://example.org/\(title)/post</link>
      <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>
      """.utf8)
  }

  /// `old` answers `status` to `target` (another server: another origin), which serves the feed.
  static func servers(status: Int) throws -> (old: LoopbackHTTPServer, new: LoopbackHTTPServer) {
    let new = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: rss("moved")))
    let old = try LoopbackHTTPServer(
      .respond(status: status, headers: ["Location": new.url("/feed.xml").absoluteString], body: Data()))
    return (old, new)
  }

  @Test(
    "news fetch --all: a 301 or 308 on two refreshes in a row rewrites the feed in news.json; on one, or a 302, not")
  func configurationFile() async throws {
    for status in [301, 308, 302, 307] {
      let (old, new) = try Self.servers(status: status)
      defer {
        old.stop()
        new.stop()
      }
      let cli = CLIHarness()
      let config = cli.directory.path("news.json")
      // Hand-written: its layout and key order must stay as they are.
      let text = """
        {
          "sources": {
            "Moved":   { "feed": "\(old.url("/feed.xml").absoluteString)",   "folder": "Tech" },
            "Other": { "file": "/nonexistent/feed.xml" }
          },
          "timeoutSeconds": 5
        }

        """
      try text.write(toFile: config, atomically: true, encoding: .utf8)
      let first = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      #expect(first.out.contains("Moved: 1 new"), "\(status): \(first.out) \(first.err)")
      #expect(try String(contentsOfFile: config, encoding: .utf8) == text, "\(status): one refresh changes nothing")
      let second = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      let after = try String(contentsOfFile: config, encoding: .utf8)
      if status == 301 || status == 308 {
        #expect(
          first.err.contains("Moved: moved permanently to \(new.url("/feed.xml").absoluteString) (1 of 2 refreshes"),
          "\(first.err)")
        #expect(
          after
            == text.replacingOccurrences(
              of: old.url("/feed.xml").absoluteString, with: new.url("/feed.xml").absoluteString),
          "\(status): only the feed's URL changes:\n\(after)")
        #expect(
          second.err.contains(
            "Moved: moved permanently to \(new.url("/feed.xml").absoluteString); \(config) now says so"),
          "\(second.err)")
        // The old address is the source's own history, not a URL read once (tester LOW: listed as a second source).
        _ = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
        let sources = try await cli.run("sources", "--config", config, "--db", cli.database, "--json").json()
        let listed = (sources["sources"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        let also = (sources["alsoCached"] as? [[String: Any]] ?? []).map { "\($0)" }
        #expect(!listed.contains(old.url("/feed.xml").absoluteString), "\(status): \(sources)")
        #expect(!also.contains { $0.contains(old.url("/feed.xml").absoluteString) }, "\(status): \(sources)")
      } else {
        #expect(after == text, "\(status): a temporary redirect leaves the file as it was")
        #expect(!first.err.contains("moved permanently") && !second.err.contains("moved permanently"), "\(second.err)")
      }
    }
  }

  @Test("a feed moved onto another source's address is named as the same feed once per change; never re-linked")
  func movedOntoAnotherSource() async throws {
    let (old, new) = try Self.servers(status: 301)
    defer {
      old.stop()
      new.stop()
    }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let target = new.url("/feed.xml").absoluteString
    let text = """
      {"sources": {"Moved": {"feed": "\(old.url("/feed.xml").absoluteString)"}, "Other": {"feed": "\(target)"}}}

      """
    try text.write(toFile: config, atomically: true, encoding: .utf8)
    let notice =
      "Moved: moved permanently to \(target), the feed of Other: the two sources are one feed, read twice by "
      + "every refresh; 'news remove Moved' keeps Other (the cached articles stay)"
    for run in 1...3 {
      let outcome = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      #expect(outcome.status == 0, "\(run): \(outcome.err)")
      // Said when found, not at every refresh (newsboat and NetNewsWire users expect one notice, not noise).
      if run == 1 {
        #expect(outcome.err.contains(notice), "\(run): \(outcome.err)")
      } else {
        #expect(!outcome.err.contains("moved permanently"), "\(run): \(outcome.err)")
      }
      #expect(!outcome.err.contains("refreshes in a row"), "\(run): \(outcome.err)")
      #expect(try String(contentsOfFile: config, encoding: .utf8) == text, "\(run): the file is left as it was")
    }
    // The situation changes (the other source is renamed by hand): said again, once, of the new name.
    let renamed = text.replacingOccurrences(of: "\"Other\"", with: "\"Another\"")
    try renamed.write(toFile: config, atomically: true, encoding: .utf8)
    for run in 4...5 {
      let outcome = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
      #expect(outcome.status == 0, "\(run): \(outcome.err)")
      #expect(
        outcome.err.contains("Moved: moved permanently to \(target), the feed of Another: ") == (run == 4),
        "\(run): \(outcome.err)")
    }
    // Once removed, the one left is read once and nothing more is said.
    #expect(await cli.run("remove", "Moved", "--config", config, "--db", cli.database).status == 0)
    let after = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(!after.err.contains("moved permanently"), "\(after.err)")
  }

  /// A repository on a store in `directory`, over the real HTTP stack.
  static func repository(_ directory: TemporaryDirectory) throws -> NewsRepository {
    NewsRepository(
      storage: try StorageContext(path: directory.path("news.sqlite")),
      network: HTTPNewsNetwork(apiKey: nil, timeout: 5))
  }

  @Test("the store's subscription list: a 301 on two refreshes in a row moves the subscription, a 307 never")
  func storedSubscription() async throws {
    for status in [301, 307] {
      let (old, new) = try Self.servers(status: status)
      defer {
        old.stop()
        new.stop()
      }
      let directory = TemporaryDirectory("moved-feed")
      let repository = try Self.repository(directory)
      try await repository.subscribe(NewsSource(name: "Moved", url: old.url("/feed.xml")))
      let first = try await repository.refreshSubscriptions()
      #expect(first.sources.first?.status == .new, "\(status): \(String(describing: first.sources.first?.failure))")
      #expect(try await repository.subscription(named: "moved")?.url == old.url("/feed.xml"))
      #expect(first.relinked.isEmpty)
      let second = try await repository.refreshSubscriptions()
      let url = try await repository.subscription(named: "moved")?.url
      if status == 301 {
        #expect(first.sources.first?.movedPermanently == new.url("/feed.xml"))
        #expect(first.sources.first?.permanentRedirects == 1)
        #expect(second.sources.first?.permanentRedirects == 2)
        #expect(second.relinked.map(\.source) == ["Moved"])
        #expect(url == new.url("/feed.xml"))
      } else {
        #expect(first.sources.first?.movedPermanently == nil && second.sources.first?.movedPermanently == nil)
        #expect(url == old.url("/feed.xml"))
      }
    }
  }

  @Test("a refresh answered from the old address breaks the run: the move must be seen twice in a row again")
  func runBroken() async throws {
    let (old, new) = try Self.servers(status: 301)
    defer {
      old.stop()
      new.stop()
    }
    let directory = TemporaryDirectory("moved-feed-broken")
    let repository = try Self.repository(directory)
    try await repository.subscribe(NewsSource(name: "Moved", url: old.url("/feed.xml")))
    var seen: [Int] = []
    // redirected, answered at the old address, redirected, redirected
    old.enqueue(
      .respond(status: 301, headers: ["Location": new.url("/feed.xml").absoluteString], body: Data()),
      .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: Self.rss("stayed")))
    for _ in 0..<3 {
      let report = try await repository.refreshSubscriptions()
      #expect(report.sources.first?.failure == nil)
      seen.append(report.sources.first?.permanentRedirects ?? -1)
      if seen.count < 3 {
        #expect(try await repository.subscription(named: "moved")?.url == old.url("/feed.xml"), "\(seen)")
      }
    }
    #expect(seen == [1, 0, 1])
    let last = try await repository.refreshSubscriptions()
    #expect(last.sources.first?.permanentRedirects == 2)
    #expect(try await repository.subscription(named: "moved")?.url == new.url("/feed.xml"))
  }

  @Test("a refresh that fails neither counts nor breaks the run; a 304 through the redirect counts")
  func failureAndNotModified() async throws {
    let feed = Self.rss("moved")
    let new = try LoopbackHTTPServer(.conditional(etag: "\"v1\"", lastModified: nil, body: feed))
    let old = try LoopbackHTTPServer(
      .respond(status: 308, headers: ["Location": new.url("/feed.xml").absoluteString], body: Data()))
    defer {
      old.stop()
      new.stop()
    }
    let directory = TemporaryDirectory("moved-feed-304")
    let repository = try Self.repository(directory)
    try await repository.subscribe(NewsSource(name: "Moved", url: old.url("/feed.xml")))
    let first = try await repository.refreshSubscriptions()
    #expect(first.sources.first?.permanentRedirects == 1)
    // The new address fails once: nothing is counted, nothing forgotten.
    new.enqueue(.respond(status: 503, body: Data("down".utf8)))
    let failed = try await repository.refreshSubscriptions()
    #expect(failed.sources.first?.status == .failed)
    #expect(failed.relinked.isEmpty)
    #expect(try await repository.subscription(named: "moved")?.url == old.url("/feed.xml"))
    // Conditional through the redirect: the 304 says where it came from, and it is the second in a row.
    let confirmed = try await repository.refreshSubscriptions()
    #expect(confirmed.sources.first?.status == .notModified, "\(String(describing: confirmed.sources.first))")
    #expect(confirmed.sources.first?.movedPermanently == new.url("/feed.xml"))
    #expect(confirmed.sources.first?.permanentRedirects == 2)
    #expect(try await repository.subscription(named: "moved")?.url == new.url("/feed.xml"))
  }
}
