import Foundation
import TestSupport
import Testing

/// A feed cut off in transit or on disk is refused whole: a part must never pass for the feed, replacing the cache
/// (found by the new-user test: an Atom feed cut at 6 KB, served with 200, replaced 48 cached articles by 4).
@Suite("A truncated feed: refused, the cache kept")
struct TruncatedFeedTests {
  static let feed = """
    <?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom"><title>Cut</title><id>urn:cut</id><updated>2026-11-30T10:00:00Z</updated>
    <entry><title>First</title><id>urn:1</id><link href="https://cut.example/1"/><updated>2026-11-30T09:00:00Z</updated></entry>
    <entry><title>Second</title><id>urn:2</id><link href="https://cut.example/2"/><updated>2026-11-30T08:00:00Z</updated></entry>
    <entry><title>Third</title><id>urn:3</id><link href="https://cut.example/3"/><updated>2026-11-30T07:00:00Z</updated></entry>
    </feed>
    """

  @Test("fetch: the whole feed, then a cut copy of it: the cut one is an error, the three articles stay cached")
  func fetchKeepsCache() async throws {
    let cli = CLIHarness()
    let whole = Data(Self.feed.utf8)
    let server = try LoopbackHTTPServer(
      .respond(status: 200, headers: ["Content-Type": "application/atom+xml"], body: whole))
    defer { server.stop() }
    let url = server.url("/cut.atom").absoluteString
    let first = await cli.run("fetch", "--url", url, "--db", cli.database, "--json")
    #expect(first.status == 0, "\(first.err)")
    #expect((try first.json()["articles"] as? [Any])?.count == 3)

    let cut = whole.prefix(whole.count * 2 / 3)  // inside the second or third entry
    server.behaviour = .respond(status: 200, headers: ["Content-Type": "application/atom+xml"], body: Data(cut))
    let second = await cli.run("fetch", "--url", url, "--db", cli.database, "--json")
    #expect(second.status == 0, "served from the cache: \(second.err)")
    let document = try second.json()
    #expect(document["origin"] as? String == "cache")
    #expect((document["networkError"] as? String)?.contains("cut off") == true, "\(document)")
    #expect((document["articles"] as? [Any])?.count == 3)
  }

  @Test("import of a cut file: exit 65 naming the file and the place, nothing saved")
  func importRefused() async throws {
    let cli = CLIHarness()
    let file = cli.directory.path("cut.atom")
    let whole = Data(Self.feed.utf8)
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--db", cli.database)
    #expect(imported.status == 65, "\(imported.out) \(imported.err)")
    #expect(imported.err.contains("cut.atom") && imported.err.contains("cut off"), "\(imported.err)")
    // Nothing saved: not even the store was created, so a read says there is none (exit 66).
    #expect(!FileManager.default.fileExists(atPath: cli.database))
    let listed = await cli.run("list", "--db", cli.database, "--json")
    #expect(listed.status == 66 && listed.err.contains("no database at"), "\(listed.err)")
  }

  @Test("import of a cut OPML list: exit 65, cut off, no source added; the whole list is still read")
  func cutSubscriptionList() async throws {
    let cli = CLIHarness()
    let whole = try Data(contentsOf: Fixtures.own("feeds/subscriptions.opml"))
    let config = cli.directory.path("news.json")
    for fraction in [1.0 / 3, 1.0 / 2, 9.0 / 10] {
      let file = cli.directory.path("cut.opml")
      try whole.prefix(Int(Double(whole.count) * fraction)).write(to: URL(fileURLWithPath: file))
      let imported = await cli.run("import", file, "--config", config, "--db", cli.database)
      #expect(imported.status == 65, "\(fraction): \(imported.out) \(imported.err)")
      #expect(imported.err.contains("cut.opml") && imported.err.contains("cut off"), "\(imported.err)")
      #expect(imported.err.contains("nothing was added"), "\(imported.err)")
      #expect(!FileManager.default.fileExists(atPath: config), "no configuration written")
    }
    let file = cli.directory.path("whole.opml")
    try whole.write(to: URL(fileURLWithPath: file))
    let imported = await cli.run("import", file, "--config", config, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(FileManager.default.fileExists(atPath: config))
  }
}
