import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import NewsCLI

/// `news import` streams files of 4 MB or more (decoding batches while the previous one is saved): the result must
/// be the one the whole-file path gives, and a bad file must leave the cache as it was.
@Suite("news import: streaming a large file")
struct StreamingImportTests {
  /// A 4 MB+ response with a duplicate URL, a record without a title and a `[Removed]` placeholder.
  static func writeResponse(_ path: String, count: Int = 12_000) throws {
    var records: [String] = []
    for index in 0..<count {
      switch index {
      case 7:
        records.append(#"{"title":null,"url":"https://example.com/s/7","publishedAt":"2024-05-01T10:00:00Z"}"#)
      case 8:
        records.append(
          #"{"title":"[Removed]","url":"https://removed.com","publishedAt":"1970-01-01T00:00:00Z","content":"[Removed]"}"#
        )
      case 9000:
        records.append(
          #"{"title":"Later copy of 3","url":"https://example.com/s/3","publishedAt":"2024-05-02T10:00:00Z"}"#)
      default:
        records.append(
          """
          {"source":{"id":null,"name":"Wire \(index % 17)"},"author":"Reporter \\"\(index % 101)\\"",\
          "title":"Headline \(index) \\u00e9\\ud83d\\ude80","description":"Summary \(index)",\
          "url":"https://example.com/s/\(index)","urlToImage":null,\
          "publishedAt":"2024-05-0\(1 + index % 9)T10:\(String(format: "%02d", index % 60)):00.123456Z",\
          "content":"\(String(repeating: "Body text. ", count: 30))[+900 chars]"}
          """)
      }
    }
    let text = #"{"status":"ok","totalResults":\#(count),"articles":["# + records.joined(separator: ",") + "]}"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test("a large file is saved exactly as the whole-file decode and save would save it")
  func sameAsWholeFile() async throws {
    let cli = CLIHarness()
    let path = cli.directory.path("big.json")
    try Self.writeResponse(path)
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(data.count >= NewsAPIFileStream.defaultMinimumSize)

    let outcome = await cli.run("import", path, "--db", cli.database, "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let report = try outcome.json()
    let page = try NewsAPIDecoder().decode(data)
    #expect(report["saved"] as? Int == page.articles.count)
    #expect(report["skipped"] as? Int == page.skippedCount)
    #expect((report["issues"] as? [Any])?.count == page.issues.count)

    let key = NewsQuery(url: URL(fileURLWithPath: path)).cacheKey
    let reference = TemporaryDirectory("news-reference")
    let expectedStorage = try StorageContext(path: reference.path("news.sqlite"))
    try await expectedStorage.saveArticles(page.articles, forQuery: key, source: path, fetchedAt: Timestamp(cli.now))
    let storage = try StorageContext(path: cli.database)
    #expect(try await storage.articles(forQuery: key) == (try await expectedStorage.articles(forQuery: key)))
    let positions = "SELECT url, position FROM query_result ORDER BY position"
    let read: @Sendable (Connection) throws -> [String] = { db in
      try db.makeStatement(positions).fetchAll { "\($0.string(0) ?? "") \($0.int64(1) ?? -1)" }
    }
    #expect(try await storage.read(read) == (try await expectedStorage.read(read)))

    // Again: nothing changed, nothing is rewritten.
    let again = await cli.run("import", path, "--db", cli.database, "--json")
    #expect(again.status == 0)
    #expect(try await storage.articleCount() == page.articles.count)
  }

  @Test("a large file whose articles were all deleted since: none saved again, and the report says why (left out)")
  func deletedArticlesOfALargeFileAreSaidLeftOut() async throws {
    let cli = CLIHarness()
    let path = cli.directory.path("big.json")
    try Self.writeResponse(path)
    let first = try await cli.run("import", path, "--db", cli.database, "--json").json()
    let saved = try #require(first["saved"] as? Int)
    // --before remembers the keys (a refresh does not bring them back); --all forgets everything.
    #expect(await cli.run("delete", "--before", "2100-01-01", "--db", cli.database).status == 0)
    let again = await cli.run("import", path, "--db", cli.database, "--json")
    #expect(again.status == 0, "\(again.err)")
    let report = try again.json()
    #expect(report["saved"] as? Int == 0, "\(report)")
    // Every record of a deleted article, a repeated URL's too (the file repeats one): at least those saved before.
    let left = try #require(report["remembered"] as? Int, "\(report)")
    #expect(left >= saved && left <= saved + 2, "\(report)")
    let text = await cli.run("import", path, "--db", cli.database)
    #expect(
      text.out.contains("; \(left) left out: deleted before ('news delete --forget-deleted' lets them back)"),
      "\(text.out)")
  }

  @Test("a truncated or invalid large file is refused with status 65 and the cache left as it was")
  func badFileLeavesCache() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json").path
    #expect(await cli.run("import", sample, "--db", cli.database).status == 0)
    let storage = try StorageContext(path: cli.database)
    let before = try await storage.articles()

    let path = cli.directory.path("big.json")
    try Self.writeResponse(path)
    let full = try Data(contentsOf: URL(fileURLWithPath: path))
    for (name, body) in [
      ("truncated", full.prefix(full.count - 100)),
      ("a stray quote near the end", full.prefix(full.count - 5000) + Data(#"""#.utf8) + full.suffix(5000)),
      (
        "status error",
        Data(
          String(decoding: full, as: UTF8.self).replacingOccurrences(of: #""status":"ok""#, with: #""status":"error""#)
            .utf8)
      ),
    ] {
      try body.write(to: URL(fileURLWithPath: path))
      let outcome = await cli.run("import", path, "--db", cli.database)
      #expect(outcome.status == 65, "\(name): \(outcome.err)")
      #expect(outcome.err.contains("nothing was saved"), "\(name): \(outcome.err)")
      #expect(try await storage.articles() == before, "\(name)")
    }
  }

  @Test("a file cut short while it is being saved fails the save and leaves the cache as it was")
  func fileTruncatedDuringSave() async throws {
    let directory = TemporaryDirectory("news-stream-cut")
    let path = directory.path("big.json")
    try Self.writeResponse(path)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let storage = try StorageContext(path: directory.path("cache.sqlite"))
    let stream = try #require(try NewsAPIFileStream(path: path, batchSize: 500, readSize: 64 * 1024))
    defer { stream.cancel() }
    let batches = Counter()
    await #expect(throws: NewsNetworkError.self) {
      _ = try await storage.saveArticles(
        forQuery: "cut", fetchedAt: Timestamp(millisecondsSince1970: 1_700_000_000_000),
        batches: {
          let batch = try stream.next()
          // After the first batch is saved, the file loses its second half.
          if batches.increment() == 2 { #expect(truncate(path, off_t(size / 2)) == 0) }
          return batch
        })
    }
    #expect(try await storage.articleCount() == 0)
    #expect(try await storage.fetchRecord(forQuery: "cut") == nil)
  }
}

/// A counter shared with a `@Sendable` closure.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func increment() -> Int {
    lock.withLock {
      value += 1
      return value
    }
  }
}
