import Foundation
import OfflineNews
import TestSupport
import Testing

@testable import NewsCLI

/// `news import FILE --mapping …`: failures apart from warnings, the exit status, `--delete-missing[-where]`,
/// `--insert-only`, `--update-only`.
@Suite("news import --mapping: warnings and failures, exit status, mirror sync, operation modes")
struct ImportMirrorCommandTests {
  func write(_ cli: CLIHarness, _ name: String, _ text: String) throws -> String {
    let path = cli.directory.path(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  func importFile(_ cli: CLIHarness, _ file: String, mapping: String, _ extra: String...) async -> CLIHarness.Outcome {
    await cli.run(["import", file, "--mapping", mapping, "--config", cli.bundledConfig, "--db", cli.database] + extra)
  }

  static let items = """
    {"name": "items", "records": "items", "root": "item", "entities": [
      {"entity": "item", "identity": ["id"],
       "attributes": {"id": {"type": "integer"}, "feed": {"type": "text"}, "score": {"type": "integer"}}}]}
    """

  @Test("a JSON Feed 1.0 without offsets: all 26 items, each assumed-UTC date a warning, exit 0")
  func zonelessFeed() async throws {
    let cli = CLIHarness()
    let file = Fixtures.own("jsonfeed-1.0-zoneless-relative.json").path
    let outcome = await importFile(cli, file, mapping: "jsonfeed")
    #expect(outcome.status == 0, "\(outcome.err)")
    #expect(
      outcome.out.contains("26 inserted, 0 updated, 0 unchanged, 0 skipped, 0 failed, 33 warnings"), "\(outcome.out)")
    #expect(outcome.err.hasPrefix("33 values not read (the records were kept): "), "\(outcome.err)")
    #expect(!outcome.err.contains("not imported"))
    let verbose = await importFile(cli, file, mapping: "jsonfeed", "--verbose")
    #expect(verbose.err.contains("warning: items[0].date_published"), "\(verbose.err)")
    let json = try (await importFile(cli, file, mapping: "jsonfeed", "--json")).json()
    #expect(json["unchanged"] as? Int == 26)
    #expect((json["failures"] as? [Any])?.count == 0)
    #expect((json["warnings"] as? [[String: Any]])?.count == 33)
  }

  @Test("a lone surrogate through --mapping newsapi: every article saved, the repair a warning, exit 0")
  func loneSurrogate() async throws {
    let cli = CLIHarness()
    let outcome = await importFile(cli, Fixtures.own("newsapi-lone-surrogate.json").path, mapping: "newsapi", "--json")
    #expect(outcome.status == 0, "\(outcome.err)")
    let report = try outcome.json()
    #expect(report["inserted"] as? Int == 3)
    #expect(
      (report["warnings"] as? [[String: Any]])?.compactMap { $0["keyPath"] as? String } == [
        "articles[1].title", "articles[2].description",
      ])
    #expect(!outcome.err.contains("not valid JSON"))
  }

  @Test("failures and warnings are listed apart, in text and --json; a failed record makes the exit status 1")
  func failuresApartFromWarnings() async throws {
    let cli = CLIHarness()
    let mapping = try write(cli, "items-mapping.json", Self.items)
    let file = try write(
      cli, "items.json", #"{"items": [{"id": 1, "score": "many"}, {"feed": "no id"}, {"id": 3, "feed": "a"}]}"#)
    let text = await importFile(cli, file, mapping: mapping)
    #expect(text.status == 1, "\(text.err)")
    #expect(text.out.contains("2 inserted, 0 updated, 0 unchanged, 0 skipped, 1 failed, 1 warning"), "\(text.out)")
    #expect(text.err.contains("1 record not imported: missing identity id"), "\(text.err)")
    #expect(text.err.contains("1 value not read (the records were kept): not an integer"), "\(text.err)")
    #expect(text.err.contains("1 record failed and was not saved; the others were"), "\(text.err)")
    let verbose = await importFile(cli, file, mapping: mapping, "--verbose")
    #expect(verbose.err.contains("items[1].id (item): missing identity id"), "\(verbose.err)")
    #expect(verbose.err.contains("warning: items[0].score (item 1): not an integer"), "\(verbose.err)")
    let json = await importFile(cli, file, mapping: mapping, "--json")
    #expect(json.status == 1)
    let report = try json.json()
    #expect((report["failures"] as? [[String: Any]])?.map { $0["keyPath"] as? String } == ["items[1].id"])
    #expect((report["warnings"] as? [[String: Any]])?.map { $0["keyPath"] as? String } == ["items[0].score"])
    #expect(report["errors"] == nil)
  }

  @Test("--delete-missing of articles keeps the bookmarked ones, as eviction and delete --before do")
  func deleteMissingKeepsBookmarks() async throws {
    let cli = CLIHarness()
    func feed(_ ids: [Int]) -> String {
      let items = ids.map { #"{"id": "\#($0)", "url": "https://mirror.example/\#($0)", "title": "Item \#($0)"}"# }
      return
        #"{"version": "https://jsonfeed.org/version/1.1", "title": "Mirror", "items": [\#(items.joined(separator: ","))]}"#
    }
    let first = try write(cli, "mirror.json", feed([1, 2, 3]))
    #expect(await importFile(cli, first, mapping: "jsonfeed").status == 0)
    // Another source's articles: a mirror of mirror.json must not touch them (a fresh user's 3-item JSON Feed
    // mirrored with --delete-missing deleted all 931 articles of every feed).
    let other = try write(
      cli, "other.json", feed([7, 8]).replacingOccurrences(of: "mirror.example", with: "other.example"))
    #expect(await importFile(cli, other, mapping: "jsonfeed").status == 0)
    let sample = await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database)
    #expect(sample.status == 0, "\(sample.err)")
    let before = try (await cli.run("list", "--db", cli.database, "--limit", "1000", "--json")).json()
    let total = (before["articles"] as? [[String: Any]])?.count ?? 0
    let bookmarked = await cli.run("bookmark", "https://mirror.example/2", "--db", cli.database)
    #expect(bookmarked.status == 0, "\(bookmarked.err)")
    let second = try write(cli, "mirror.json", feed([1]))
    let mirrored = await importFile(cli, second, mapping: "jsonfeed", "--delete-missing", "--json")
    #expect(mirrored.status == 0, "\(mirrored.err)")
    #expect(try mirrored.json()["deleted"] as? Int == 1, "only item 3: item 2 is bookmarked")
    let listed = try (await cli.run("list", "--db", cli.database, "--limit", "1000", "--json")).json()
    let urls = (listed["articles"] as? [[String: Any]])?.compactMap { $0["url"] as? String } ?? []
    #expect(
      urls.filter { $0.hasPrefix("https://mirror.example/") }.sorted() == [
        "https://mirror.example/1", "https://mirror.example/2",
      ])
    #expect(urls.count == total - 1, "every other source's article is kept")
    #expect(urls.contains("https://other.example/7") && urls.contains("https://other.example/8"))
  }

  @Test(
    "--delete-missing mirrors the entity; --delete-missing-where only the matching rows; a bad file deletes nothing")
  func deleteMissing() async throws {
    let cli = CLIHarness()
    let mapping = try write(cli, "items-mapping.json", Self.items)
    let all = try write(
      cli, "all.json",
      #"{"items": [{"id": 1, "feed": "a"}, {"id": 2, "feed": "a"}, {"id": 3, "feed": "b"}, {"id": 4, "feed": "b"}]}"#)
    #expect(await importFile(cli, all, mapping: mapping).status == 0)
    let feedA = try write(cli, "a.json", #"{"items": [{"id": 1, "feed": "a"}]}"#)
    let scoped = await importFile(cli, feedA, mapping: mapping, "--delete-missing-where", "feed=a", "--json")
    #expect(scoped.status == 0, "\(scoped.err)")
    #expect(try scoped.json()["deleted"] as? Int == 1)
    let truncated = try write(cli, "truncated.json", #"{"items": [{"id": 4, "feed": "b"}"#)
    let refused = await importFile(cli, truncated, mapping: mapping, "--delete-missing")
    #expect(refused.status == 65)
    #expect(refused.err.contains("nothing was saved"))
    let onlyFour = try write(cli, "four.json", #"{"items": [{"id": 4, "feed": "b"}]}"#)
    let mirrored = await importFile(cli, onlyFour, mapping: mapping, "--delete-missing")
    #expect(mirrored.status == 0, "\(mirrored.err)")
    #expect(mirrored.out.contains("0 failed, 2 deleted, 0 warnings"), "\(mirrored.out)")
    let rows = await cli.run("records", "item", "--db", cli.database, "--json")
    let list = try JSONSerialization.jsonObject(with: Data(rows.out.utf8)) as? [[String: Any]] ?? []
    #expect(list.compactMap { $0["id"] as? Int } == [4], "\(rows.out)")
  }

  @Test("usage errors: the options need --mapping, exclude each other, and a scope names an attribute")
  func usage() async throws {
    let cli = CLIHarness()
    let mapping = try write(cli, "items-mapping.json", Self.items)
    let file = try write(cli, "items.json", #"{"items": []}"#)
    let cases: [([String], String)] = [
      (["import", file, "--delete-missing"], "--delete-missing needs --mapping"),
      (["import", file, "--insert-only"], "--insert-only needs --mapping"),
      (["import", file, "--mapping", mapping, "--insert-only", "--update-only"], "exclude each other"),
      (
        ["import", file, "--mapping", mapping, "--delete-missing", "--delete-missing-where", "feed=a"],
        "exclude each other"
      ),
      (["import", file, "--mapping", mapping, "--delete-missing-where", "colour=red"], "no attribute \"colour\""),
      (["import", file, "--mapping", mapping, "--delete-missing-where", "id=x"], "not an integer"),
    ]
    for (arguments, message) in cases {
      let outcome = await cli.run(arguments + ["--db", cli.database])
      #expect(outcome.status == 64, "\(arguments)")
      #expect(outcome.err.contains(message), "\(arguments): \(outcome.err)")
    }
  }

  @Test("--insert-only and --update-only")
  func modes() async throws {
    let cli = CLIHarness()
    let mapping = try write(cli, "items-mapping.json", Self.items)
    let first = try write(cli, "first.json", #"{"items": [{"id": 1, "score": 1}]}"#)
    #expect(await importFile(cli, first, mapping: mapping).status == 0)
    let second = try write(cli, "second.json", #"{"items": [{"id": 1, "score": 2}, {"id": 2, "score": 2}]}"#)
    let inserted = await importFile(cli, second, mapping: mapping, "--insert-only")
    #expect(inserted.out.contains("1 inserted, 0 updated, 0 unchanged, 1 skipped"), "\(inserted.out)")
    let third = try write(cli, "third.json", #"{"items": [{"id": 1, "score": 3}, {"id": 3, "score": 3}]}"#)
    let updated = await importFile(cli, third, mapping: mapping, "--update-only")
    #expect(updated.out.contains("0 inserted, 1 updated, 0 unchanged, 1 skipped"), "\(updated.out)")
  }
}
