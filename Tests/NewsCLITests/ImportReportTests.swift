import Foundation
import OfflineNews
import TestSupport
import Testing

/// What `news import FILE` reports: saved, and, when the configuration's eviction removes articles right after the
/// save, how many it evicted and how many the cache keeps.
@Suite struct ImportReportTests {
  @Test("fetch and fetch --all say how many articles they left out because eviction or a delete remembers them")
  func refreshSaysWhatItLeftOut() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    try Data(#"{"sources": {"sample": {"file": "\#(sample.path)"}}, "eviction": {"maxArticles": 10}}"#.utf8)
      .write(to: URL(fileURLWithPath: config))
    let records = try newsAPIRecords(sample).filter { ($0["title"] as? String) != "[Removed]" && $0["url"] is String }
    let first = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(first.status == 0, "\(first.err)")
    #expect(!first.out.contains("left out"), "\(first.out)")
    // Eviction kept 10 and remembers the others' keys: the next refresh leaves them out, and says so.
    let left = records.count - 10
    let again = await cli.run("fetch", "--all", "--config", config, "--db", cli.database, "--json")
    let line = (try again.json()["sources"] as? [[String: Any]])?.first
    #expect(line?["remembered"] as? Int == left, "\(again.out)")
    let text = await cli.run("fetch", "--source", "sample", "--config", config, "--db", cli.database)
    #expect(text.status == 0, "\(text.err)")
    // Said by cause (a tester read the deletion's hint after an eviction): the same limit would evict them again.
    let said =
      "; \(left) left out: evicted before by the configuration's \"eviction\" (raise its limits, then "
      + "'news delete --forget-deleted' lets them back)"
    #expect(text.out.contains(said), "\(text.out)")
    #expect(line?["rememberedEvicted"] as? Int == left, "\(again.out)")
  }

  @Test("an import whose --config is not there says that the defaults apply (a typo skipped the real file silently)")
  func missingConfiguration() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    let missing = cli.directory.path("nwes.json")
    let imported = await cli.run("import", sample.path, "--config", missing, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(imported.err.contains("no configuration file \(missing): the defaults apply"), "\(imported.err)")
    #expect(!FileManager.default.fileExists(atPath: missing))
  }

  @Test(
    "fetch --all on a read-only store: each source says the store failed and what the cache serves; exit 74",
    .enabled(if: FaultCapabilities.canMakeFileReadOnly, "as root, needs chattr +i to make a file read-only"))
  func readOnlyStoreRefresh() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    try Data(#"{"sources": {"sample": {"file": "\#(sample.path)"}}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let first = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(first.status == 0, "\(first.err)")
    let listed = articles(try (await cli.run("list", "--config", config, "--db", cli.database, "--json")).json())
    try #require(FaultCapabilities.makeReadOnly(cli.database), "could not make \(cli.database) read-only")
    defer { FaultCapabilities.undoReadOnly(cli.database) }
    let again = await cli.run("fetch", "--all", "--config", config, "--db", cli.database)
    #expect(again.status == 74, "a storage failure, not the network's (69): \(again.out) \(again.err)")
    #expect(again.err.contains("sample: failed: "), "\(again.err)")
    #expect(again.err.contains("serving \(listed.count) cached"), "\(again.err)")
    #expect(!again.err.contains("nothing cached"), "\(again.err)")
    // One source, too, serves what the store holds, then fails as the store did (tester LOW: only the error).
    let one = await cli.run("fetch", "--source", "sample", "--config", config, "--db", cli.database)
    #expect(one.status == 74, "\(one.out) \(one.err)")
    #expect(one.out.hasPrefix("cached — \(listed.count) articles from"), "\(one.out)")
    #expect(one.err.contains("read-only") || one.err.contains("readonly"), "\(one.err)")
  }

  @Test("import under eviction.maxArticles 10 says saved, evicted and kept (text and --json), and list agrees")
  func evictionIsReported() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {}, "eviction": {"maxArticles": 10}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    // The articles the file holds, counted independently: records with a URL, not NewsAPI's "[Removed]".
    let records = try newsAPIRecords(sample).filter { ($0["title"] as? String) != "[Removed]" && $0["url"] is String }
    #expect(records.count > 10)

    let json = await cli.run("import", sample.path, "--config", config, "--db", cli.database, "--json")
    #expect(json.status == 0, "\(json.err)")
    let report = try json.json()
    #expect(report["saved"] as? Int == records.count)
    #expect(report["evicted"] as? Int == records.count - 10)
    #expect(report["cached"] as? Int == 10)

    let text = await cli.run("import", sample.path, "--config", config, "--db", cli.database)
    #expect(text.status == 0, "\(text.err)")
    // The second import saves the 10 kept; the others were evicted, and eviction remembers their keys as a delete
    // does: left out, said so, not saved again as new to be evicted again.
    #expect(
      text.out.contains(
        "saved 10 articles from \(sample.path), skipped \(report["skipped"] as? Int ?? -1); "
          + "\(records.count - 10) left out: evicted before by the configuration's \"eviction\""), "\(text.out)")
    #expect(!text.out.contains("then evicted"), "\(text.out)")
    let listed = await cli.run("list", "--config", config, "--db", cli.database, "--json")
    #expect(articles(try listed.json()).count == 10)

    // Without eviction, nothing more is said, and the keys are there with their empty values.
    let plain = await cli.run("import", sample.path, "--db", cli.directory.path("plain.sqlite"), "--json")
    let plainReport = try plain.json()
    #expect(plainReport["evicted"] as? Int == 0 && plainReport["cached"] is NSNull, "\(plainReport)")
  }

  @Test("a mapped import under eviction.maxArticles 10 says evicted and kept too (text and --json), and list agrees")
  func mappedEvictionIsReported() async throws {
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(#"{"sources": {}, "eviction": {"maxArticles": 10}}"#.utf8).write(to: URL(fileURLWithPath: config))
    let feed = Fixtures.own("jsonfeed-1.0-zoneless-relative.json")
    // The items, counted independently: every one has a url (JSONSerialization, not our reader).
    let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: feed)) as? [String: Any]
    let items = try #require(object?["items"] as? [[String: Any]]).filter { $0["url"] is String }
    #expect(items.count > 10)

    let json = await cli.run(
      "import", feed.path, "--mapping", "jsonfeed", "--config", config, "--db", cli.database, "--json")
    #expect(json.status == 0, "\(json.err)")
    let report = try json.json()
    #expect(report["inserted"] as? Int == items.count, "\(report)")
    #expect(report["evicted"] as? Int == items.count - 10, "\(report)")
    #expect(report["cached"] as? Int == 10, "\(report)")

    let text = await cli.run("import", feed.path, "--mapping", "jsonfeed", "--config", config, "--db", cli.database)
    #expect(text.status == 0, "\(text.err)")
    // The second run finds the 10 rows kept, and leaves out the 16 evicted: eviction remembers their keys, as a
    // delete does, so they do not come back as new (and unread) to be evicted again; said as left out by eviction,
    // not as skipped (which is for records a rule or the mapping left out).
    #expect(text.out.contains("0 inserted, 0 updated, 10 unchanged, 0 skipped"), "\(text.out)")
    #expect(
      text.out.contains(
        "; \(items.count - 10) left out: evicted before by the configuration's \"eviction\" (raise its limits"),
      "\(text.out)")
    #expect(!text.out.contains("then evicted"), "\(text.out)")
    let listed = await cli.run("list", "--config", config, "--db", cli.database, "--json")
    #expect(articles(try listed.json()).count == 10)

    // Without eviction, nothing more is said, and the keys are there with their empty values.
    let plain = await cli.run(
      "import", feed.path, "--mapping", "jsonfeed", "--db", cli.directory.path("plain.sqlite"), "--json")
    let plainReport = try plain.json()
    #expect(plainReport["evicted"] as? Int == 0 && plainReport["cached"] is NSNull, "\(plainReport)")
    let plainText = await cli.run(
      "import", feed.path, "--mapping", "jsonfeed", "--db", cli.directory.path("plain.sqlite"))
    #expect(!plainText.out.contains("evicted"), "\(plainText.out)")
  }
}
