import Foundation
import OfflineNews
import OfflineNewsModel
import TestSupport
import Testing

@testable import NewsCLI

/// `news import FILE --mapping NAME|PATH [--root NAME] [--json]`, `news entities`, `news records ENTITY`.
@Suite("news import --mapping, news entities, news records")
struct ImportMappingCommandTests {
  /// Writes `text` to `name` in the harness's folder; returns its path.
  func write(_ cli: CLIHarness, _ name: String, _ text: String) throws -> String {
    let path = cli.directory.path(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// `news import FILE --mapping MAPPING … --json` with the bundled configuration (so `NAME` finds
  /// `Config/mappings/NAME.json`).
  func importFile(_ cli: CLIHarness, _ file: String, mapping: String, _ extra: String...) async -> CLIHarness.Outcome {
    await cli.run(
      ["import", file, "--mapping", mapping, "--config", cli.bundledConfig, "--db", cli.database, "--json"] + extra)
  }

  /// A JSON array printed on standard output.
  func array(_ outcome: CLIHarness.Outcome) throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: Data(outcome.out.utf8)) as? [[String: Any]] ?? []
  }

  /// Row counts by entity, from `news entities --json`.
  func rowCounts(_ cli: CLIHarness) async throws -> [String: Int] {
    let listed = await cli.run("entities", "--db", cli.database, "--json")
    #expect(listed.status == 0, "\(listed.err)")
    var counts: [String: Int] = [:]
    for entry in try array(listed) {
      if let name = entry["name"] as? String, let rows = entry["rows"] as? Int { counts[name] = rows }
    }
    return counts
  }

  static let newsAPI = #"""
    {"status": "ok", "totalResults": 3, "articles": [
      {"source": {"id": null, "name": "[Removed]"}, "title": "[Removed]", "url": "https://removed.com",
       "publishedAt": "1970-01-01T00:00:00Z"},
      {"source": {"id": "s", "name": "S"}, "author": "Ann", "title": "One", "url": "https://example.com/1",
       "urlToImage": "not a url", "publishedAt": "2024-01-02T03:04:05Z"},
      {"source": {"id": "s", "name": "S"}, "title": "Two", "url": "https://example.com/2",
       "publishedAt": "2024-01-02T03:04:06.5+01:00"}]}
    """#

  @Test("--json prints the report: counts and errors with entity, identity, keyPath, reason; exit 0 with skips")
  func jsonReport() async throws {
    let cli = CLIHarness()
    let file = try write(cli, "headlines.json", Self.newsAPI)
    let imported = await importFile(cli, file, mapping: "newsapi")
    #expect(imported.status == 0, "\(imported.err)")
    let report = try imported.json()
    #expect(report["inserted"] as? Int == 2)
    #expect(report["updated"] as? Int == 0)
    #expect(report["unchanged"] as? Int == 0)
    #expect(report["skipped"] as? Int == 1)
    #expect(report["failed"] as? Int == 0)
    #expect((report["failures"] as? [Any])?.isEmpty == true)
    // A bad image URL costs that value: a warning, the article saved.
    let errors = report["warnings"] as? [[String: Any]] ?? []
    #expect(errors.count == 1)
    #expect(errors.first?["entity"] as? String == "article")
    #expect(errors.first?["identity"] as? String == "https://example.com/1")
    #expect(errors.first?["keyPath"] as? String == "articles[1].urlToImage")
    #expect((errors.first?["reason"] as? String)?.contains("not a url") == true)

    let again = await importFile(cli, file, mapping: "newsapi")
    #expect(again.status == 0)
    let second = try again.json()
    #expect(second["unchanged"] as? Int == 2)
    #expect(second["inserted"] as? Int == 0)
    #expect(try await rowCounts(cli)["article"] == 2)
  }

  @Test("an error without an identity still has the identity key (null)")
  func errorWithoutIdentity() async throws {
    let cli = CLIHarness()
    let file = try write(cli, "items.json", #"[{"id": 1, "title": "ok"}, {"title": "no id"}]"#)
    let imported = await importFile(cli, file, mapping: "hackernews")
    // A failed record: exit 1 (the rest saved), the report still printed.
    #expect(imported.status == 1, "\(imported.err)")
    let report = try imported.json()
    #expect(report["inserted"] as? Int == 1)
    #expect(report["failed"] as? Int == 1)
    let errors = report["failures"] as? [[String: Any]] ?? []
    #expect(errors.count == 1)
    #expect(errors.first?["keyPath"] as? String == "[1]")  // an article's key comes from its url or its id
    #expect(Set(errors.first?.keys.map { $0 } ?? []) == ["entity", "identity", "keyPath", "reason"])
    #expect(errors.first?["identity"] is NSNull)
  }

  @Test("a null item of a Hacker News export (a missing item) is skipped with the reason: exit 0 (issue 30)")
  func nullItem() async throws {
    let cli = CLIHarness()
    let file = try write(
      cli, "items.json",
      #"[{"id": 1, "type": "story", "title": "One", "url": "https://one.example/"}, null, {"id": 2, "type": "story", "title": "Two"}]"#
    )
    let imported = await importFile(cli, file, mapping: "hackernews")
    #expect(imported.status == 0, "\(imported.err)")
    let report = try imported.json()
    #expect(report["inserted"] as? Int == 2)
    #expect(report["skipped"] as? Int == 1)
    #expect(report["failed"] as? Int == 0)
    #expect(try await rowCounts(cli)["article"] == 2)
  }

  @Test("the human report: one line of counts; errors on stderr")
  func humanReport() async throws {
    let cli = CLIHarness()
    let file = try write(cli, "headlines.json", Self.newsAPI)
    let imported = await cli.run(
      "import", file, "--mapping", "newsapi", "--config", cli.bundledConfig, "--db", cli.database)
    #expect(imported.status == 0, "\(imported.err)")
    #expect(imported.out.contains("2 inserted, 0 updated, 0 unchanged, 1 skipped, 0 failed"), "\(imported.out)")
    // A bad optional value costs that value: a warning, counted by reason on stderr.
    #expect(
      imported.err == "1 value not read (the records were kept): not an absolute URL (--verbose lists it)\n",
      "\(imported.err)")
    let verbose = await cli.run(
      "import", file, "--mapping", "newsapi", "--config", cli.bundledConfig, "--db", cli.database, "--verbose")
    #expect(verbose.err.contains("articles[1].urlToImage"), "\(verbose.err)")
    #expect(!verbose.err.contains("--verbose lists"), "\(verbose.err)")
  }

  @Test("exit 65 for a file that is not JSON or not the mapping's shape; nothing written")
  func badInput() async throws {
    let cli = CLIHarness()
    let good = try write(cli, "items.json", #"[{"id": 1, "title": "one"}]"#)
    #expect(await importFile(cli, good, mapping: "hackernews").status == 0)
    let before = try await rowCounts(cli)
    #expect(before["article"] == 1)

    let cases: [(String, String, String)] = [
      ("page.html", "<html><body>Bad gateway</body></html>", "hackernews"),
      ("truncated.json", #"[{"id": 2, "title": "two"}, {"id": 3, "ti"#, "hackernews"),
      ("object.json", #"{"items": [{"id": 2}]}"#, "hackernews"),
      ("error.json", #"{"status": "error", "code": "apiKeyInvalid", "message": "no"}"#, "newsapi"),
      ("scalar.json", #"{"articles": 3}"#, "newsapi"),
      ("empty.json", "", "hackernews"),
    ]
    for (name, text, mapping) in cases {
      let file = try write(cli, name, text)
      let outcome = await importFile(cli, file, mapping: mapping)
      #expect(outcome.status == 65, "\(name): \(outcome.out) \(outcome.err)")
      #expect(outcome.err.contains("nothing was saved"), "\(name): \(outcome.err)")
    }
    let missing = await importFile(cli, cli.directory.path("nope.json"), mapping: "hackernews")
    #expect(missing.status == 65)
    #expect(try await rowCounts(cli) == before)
  }

  @Test("exit 78 for an invalid mapping file, naming the key; 64 for an unknown mapping name")
  func invalidMappingFile() async throws {
    let cli = CLIHarness()
    let data = try write(cli, "items.json", #"[{"id": 1}]"#)
    let mapping = try write(
      cli, "broken.json",
      #"""
      {"name": "broken", "records": "", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer", "tpye": "text"}}}]}
      """#)
    let outcome = await importFile(cli, data, mapping: mapping)
    #expect(outcome.status == 78, "\(outcome.err)")
    #expect(outcome.err.contains("entities[0].attributes.id.tpye"), "\(outcome.err)")
    let notJSON = try write(cli, "notjson-mapping.json", "{name")
    #expect(await importFile(cli, data, mapping: notJSON).status == 78)
    let unknown = await importFile(cli, data, mapping: "no-such-mapping")
    #expect(unknown.status == 64, "\(unknown.err)")
    #expect(!FileManager.default.fileExists(atPath: cli.database), "no database is opened for a bad mapping")
  }

  @Test("--root chooses the root; without it the file name does; neither: exit 64")
  func roots() async throws {
    let cli = CLIHarness()
    let categories = #"""
      {"results": [
        {"objectId": "c1", "name": "Arts", "author": {"__type": "Pointer", "className": "_User", "objectId": "u1"},
         "createdAt": "2022-12-13T09:03:17.232Z", "updatedAt": "2022-12-13T09:03:17.232Z"}]}
      """#
    let byName = try write(cli, "backup-ArticleCategory.json", categories)
    let named = await importFile(cli, byName, mapping: "parse-server")
    #expect(named.status == 0, "\(named.err)")
    #expect(try named.json()["inserted"] as? Int == 1)

    let anonymous = try write(cli, "export.json", categories.replacingOccurrences(of: "c1", with: "c2"))
    let unmatched = await importFile(cli, anonymous, mapping: "parse-server")
    #expect(unmatched.status == 64, "\(unmatched.out)")
    #expect(unmatched.err.contains("--root"), "\(unmatched.err)")
    let chosen = await importFile(cli, anonymous, mapping: "parse-server", "--root", "ArticleCategory")
    #expect(chosen.status == 0, "\(chosen.err)")
    #expect(try chosen.json()["inserted"] as? Int == 1)
    let wrong = await importFile(cli, anonymous, mapping: "parse-server", "--root", "Nope")
    #expect(wrong.status == 64)
    #expect(try await rowCounts(cli)["parse_category"] == 2)
    #expect(try await rowCounts(cli)["parse_user"] == 1)

    let join = try write(
      cli, "x-_Join_tags_Article.json", #"{"results": [{"objectId": "j", "owningId": "a1", "relatedId": "t1"}]}"#)
    let joined = await importFile(cli, join, mapping: "parse-server")
    #expect(joined.status == 0, "\(joined.err)")
    // The link waits in the join table for its article (never a placeholder article: it needs a title).
    #expect(try await rowCounts(cli)["article"] == 0)
    #expect(try await rowCounts(cli)["parse_tag"] == 1)
  }

  @Test(
    "the real Parse export through the CLI, then news entities and news records --json",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func entitiesAndRecords() async throws {
    let cli = CLIHarness()
    for name in ["_User", "ArticleCategory", "ArticleTag", "Article", "_Join_tags_Article"] {
      let url = try Fixtures.sharedReal("parse-back4app-\(name).json")
      let outcome = await importFile(cli, url.path, mapping: "parse-server")
      #expect(outcome.status == 0, "\(name): \(outcome.err)")
    }
    let counts = try await rowCounts(cli)
    #expect(counts["article"] == 3)
    #expect(counts["parse_category"] == 4)
    #expect(counts["parse_tag"] == 4)
    #expect(counts["parse_user"] == 1)

    let human = await cli.run("entities", "--db", cli.database)
    #expect(human.status == 0)
    #expect(human.out.split(separator: "\n").contains { $0.hasPrefix("article") && $0.hasSuffix("3 rows") })

    let listed = await cli.run("entities", "--db", cli.database, "--json")
    let article = try array(listed).first { $0["name"] as? String == "article" }
    #expect(article?["identity"] as? [String] == ["url"])
    #expect((article?["attributes"] as? [String: String])?["parseUpdatedAt"] == "date")
    #expect((article?["relationships"] as? [String: String])?["parseTags"] == "toMany parse_tag")

    let records = await cli.run("records", "article", "--db", cli.database, "--json")
    #expect(records.status == 0, "\(records.err)")
    let rows = try array(records).sorted {
      ($0["parseObjectId"] as? String ?? "") < ($1["parseObjectId"] as? String ?? "")
    }
    #expect(rows.map { $0["parseObjectId"] as? String } == ["gJLB1GSQao", "oRwkdx7KgX", "ySe4ox45zs"])
    let voting = rows.first { $0["parseObjectId"] as? String == "oRwkdx7KgX" }
    #expect(voting?["url"] as? String == "news-item:parse:Article/oRwkdx7KgX")
    #expect(voting?["title"] as? String == "Voting 2022 has ended!")
    #expect(voting?["category"] as? String == "FYxzrBlCBC")
    #expect(voting?["parseAuthor"] as? String == "UZ76K07znv")
    #expect(voting?["parseTags"] as? [String] == ["JT4cTmZIOW"])
    #expect(voting?["publishedAt"] as? String == "2022-12-13T09:09:04.845Z")
    #expect(voting?["imageURL"] is NSNull)
    #expect(rows.first?["parseTags"] as? [String] == ["JT4cTmZIOW", "tkaOKKvHZc"])
    #expect(rows.last?["parseTags"] as? [String] == [])

    let limited = await cli.run("records", "parse_tag", "--db", cli.database, "--json", "--limit", "2")
    #expect(try array(limited).map { $0["objectId"] as? String } == ["JT4cTmZIOW", "WK4Kq7V9Gr"])
    let unknown = await cli.run("records", "nope", "--db", cli.database)
    #expect(unknown.status == 64)
  }

  @Test("news records --json: integers, booleans, JSON and URLs as JSON values")
  func recordValues() async throws {
    let cli = CLIHarness()
    let file = try write(
      cli, "items.json",
      #"""
      [{"id": 9007199254740993, "type": "story", "time": 1573504106, "kids": [1, 2],
        "url": "https://example.com/a", "title": "A &amp; B"}]
      """#)
    #expect(await importFile(cli, file, mapping: "hackernews").status == 0)
    let records = await cli.run("records", "article", "--db", cli.database, "--json")
    let row = try array(records).first
    #expect(records.out.contains(#""hnID":9007199254740993"#), "\(records.out)")
    #expect(row != nil)
    #expect(row?["publishedAt"] as? String == "2019-11-11T20:28:26.000Z")
    #expect(row?["hnKids"] as? [Int] == [1, 2])
    #expect(row?["url"] as? String == "https://example.com/a")
    #expect(row?["title"] as? String == "A & B")
    #expect(row?["hnComments"] is NSNull)
  }
}
