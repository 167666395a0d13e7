import Foundation
import OfflineNews
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("news compact, and the size line of news stats")
struct CompactCommandTests {
  /// Gives the store at `path` SQLite's default 4 KiB pages, as stores were made before 16 KiB pages.
  static func makeOld(_ path: String) throws {
    let connection = try Connection(path: path)
    for sql in ["PRAGMA journal_mode = DELETE", "PRAGMA page_size = 4096", "VACUUM", "PRAGMA journal_mode = WAL"] {
      _ = try connection.scalarString(sql)
    }
  }

  @Test("an old store after a batch delete: stats says to compact; compact shrinks it, every article and answer kept")
  func compactsAfterDelete() async throws {
    let cli = CLIHarness()
    let db = cli.database
    let bulky = cli.directory.path("bulky.json")
    try StorageFaultCLITests.writeBulkyResponse(1200, prefix: "bulky", to: bulky)
    for file in [StorageFaultCLITests.sample, bulky] {
      let imported = await cli.run("import", file, "--db", db, "--config", cli.bundledConfig)
      #expect(imported.status == 0, "\(imported.err)")
    }
    let kept = try #require(try articles(await cli.run("list", "--db", db, "--json").json()).first?["url"] as? String)
    #expect(await cli.run("bookmark", kept, "--db", db).status == 0)
    #expect(await cli.run("mark-read", "https://example.com/bulky/7", "--db", db).status == 0)
    let deleted = await cli.run("delete", "--before", "2025-01-01T00:00:55Z", "--db", db)
    #expect(deleted.status == 0, "\(deleted.err)")
    #expect(
      deleted.out.hasSuffix(
        " (bookmarked ones kept)\n"
          + "the database file keeps its size (later saves reuse the space); 'news compact' shrinks it\n"),
      "\(deleted.out)")
    try Self.makeOld(db)

    let stats = await cli.run("stats", "--db", db)
    #expect(stats.status == 0, "\(stats.err)")
    let sizeLine = stats.out.split(separator: "\n").first { $0.hasPrefix("size") }.map(String.init) ?? ""
    #expect(sizeLine.contains("4 KiB pages ('news compact' moves the store to 16 KiB pages"), "\(sizeLine)")
    let listed = await cli.run("list", "--db", db, "--json").out
    let searched = await cli.run("search", "headline", "--limit", "500", "--db", db, "--json").out
    #expect(searched.contains("bulky headline 57"))

    let compacted = await cli.run("compact", "--db", db, "--json")
    #expect(compacted.status == 0, "\(compacted.err)")
    let report = try compacted.json()
    #expect(report["database"] as? String == db)
    #expect(report["pageSizeBefore"] as? Int == 4096)
    #expect(report["pageSizeAfter"] as? Int == 16_384)
    let before = try #require(report["bytesBefore"] as? Int)
    let after = try #require(report["bytesAfter"] as? Int)
    #expect(after < before, "\(report)")

    #expect(await cli.run("list", "--db", db, "--json").out == listed)
    #expect(await cli.run("search", "headline", "--limit", "500", "--db", db, "--json").out == searched)
    let bookmarked = try articles(await cli.run("list", "--bookmarked", "--db", db, "--json").json())
    #expect(bookmarked.compactMap { $0["url"] as? String } == [kept])
    let statsAfter = try await cli.run("stats", "--db", db, "--json").json()
    #expect(statsAfter["pageSize"] as? Int == 16_384)
    #expect(statsAfter["freeBytes"] as? Int == 0)
    let humanAfter = await cli.run("stats", "--db", db).out
    #expect(humanAfter.contains(", 16 KiB pages\n"), "\(humanAfter)")
    #expect(!humanAfter.contains("news compact"))

    // Again, in words: nothing more to give back, the pages as they are.
    let again = await cli.run("compact", "--db", db)
    #expect(again.status == 0, "\(again.err)")
    #expect(again.out.hasPrefix("compacted \(db): "), "\(again.out)")
    #expect(again.out.hasSuffix(" (16 KiB pages)\n"), "\(again.out)")
    // The store works on.
    #expect(await cli.run("import", StorageFaultCLITests.sample, "--db", db).status == 0)
  }

  @Test("no database: exit 66, nothing created; a store open elsewhere: exit 74 with a hint, left as it was")
  func refusals() async throws {
    let cli = CLIHarness()
    let missing = await cli.run("compact", "--db", cli.database)
    #expect(missing.status == 66)
    #expect(missing.err.contains("no database at \(cli.database)"), "\(missing.err)")
    #expect(!FileManager.default.fileExists(atPath: cli.database))

    #expect(await cli.run("import", StorageFaultCLITests.sample, "--db", cli.database).status == 0)
    let listed = await cli.run("list", "--db", cli.database, "--json").out
    let open = try StorageContext(path: cli.database)
    #expect(try await open.articleCount() == 20)
    let refused = await cli.run("compact", "--db", cli.database)
    #expect(refused.status == 74)
    #expect(refused.err.contains("locked by another process"), "\(refused.err)")
    #expect(refused.err.contains("hint: another 'news' command (or app) has the store open"), "\(refused.err)")
    #expect(refused.out.isEmpty)
    await open.close()
    #expect(await cli.run("list", "--db", cli.database, "--json").out == listed)
    #expect(await cli.run("compact", "--db", cli.database).status == 0)
  }
}
