import Foundation
import OfflineNewsStorage
import TestSupport
import Testing

@testable import NewsCLI

@Suite("news CLI on files")
struct NewsCommandLineTests {
  @Test("the README's main job: `news fetch` on the bundled default source, then `news list`")
  func fetchBundledDefault() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    let expected = try newsAPIRecords(sample).filter { ($0["title"] as? String) != "[Removed]" }
    #expect(expected.count >= 15)

    let fetched = await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database, "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    let document = try fetched.json()
    #expect(document["origin"] as? String == "network")
    #expect(document["networkError"] is NSNull)
    #expect(articles(document).count == expected.count)
    let published = articles(document).compactMap { $0["publishedAt"] as? String }
    #expect(published == published.sorted(by: >), "newest first")
    #expect(published.allSatisfy { $0.hasSuffix("Z") && $0.count == 24 }, "RFC 3339 UTC with milliseconds")

    let human = await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database, "--limit", "3")
    #expect(human.status == 0)
    let lines = human.out.split(separator: "\n")
    #expect(lines.count == 4, "a header and three articles:\n\(human.out)")
    #expect(lines.first?.hasPrefix("read — \(expected.count) articles from sample") == true, "\(human.out)")

    let listed = await cli.run("list", "--db", cli.database, "--json")
    #expect(listed.status == 0)
    #expect(try articles(listed.json()).count == expected.count)
  }

  @Test("`news list --limit` heads what it shows, not the cache's size, and names the offset of the next page")
  func listHeadingOfAPage() async throws {
    let cli = CLIHarness()
    let fetched = await cli.run("fetch", "--config", cli.bundledConfig, "--db", cli.database, "--json")
    #expect(fetched.status == 0, "\(fetched.err)")
    let cached = articles(try fetched.json()).count
    #expect(cached > 5)
    func heading(_ arguments: String...) async -> String {
      let outcome = await cli.run(["list", "--db", cli.database] + arguments)
      #expect(outcome.status == 0, "\(outcome.err)")
      return outcome.out.split(separator: "\n").first.map(String.init) ?? ""
    }
    let first = await heading("--limit", "3")
    #expect(first.hasPrefix("cache — 3 articles, newest first, last fetch "), "\(first)")
    #expect(first.hasSuffix("; more with --offset 3"), "\(first)")
    let second = await heading("--limit", "3", "--offset", "3")
    #expect(second.hasPrefix("cache — articles 4–6, newest first"), "\(second)")
    #expect(second.hasSuffix("; more with --offset 6"), "\(second)")
    // The last page, and the whole cache: nothing more to name.
    let last = await heading("--limit", "\(cached)", "--offset", "\(cached - 2)")
    #expect(last.hasPrefix("cache — articles \(cached - 1)–\(cached), newest first"), "\(last)")
    #expect(!last.contains("more with"), "\(last)")
    let exact = await heading("--limit", "\(cached)")
    #expect(exact.hasPrefix("cache — \(cached) articles") && !exact.contains("more with"), "\(exact)")
    let all = await heading()
    #expect(all.hasPrefix("cache — \(cached) articles") && !all.contains("more with"), "\(all)")
    let one = await heading("--limit", "1", "--offset", "\(cached - 1)")
    #expect(one.hasPrefix("cache — article \(cached), newest first"), "\(one)")
    // Past the end: how many there are; a filter that matches nothing says so, whatever the offset.
    let beyond = await cli.run("list", "--db", cli.database, "--limit", "5", "--offset", "\(cached + 10)")
    #expect(beyond.status == 0 && beyond.out.isEmpty)
    #expect(
      beyond.err == "no cached articles past the first \(cached + 10): the cache holds \(cached)\n", "\(beyond.err)")
    let atEnd = await cli.run("list", "--db", cli.database, "--offset", "\(cached)")
    #expect(atEnd.err == "no cached articles past the first \(cached): the cache holds \(cached)\n", "\(atEnd.err)")
    let unmatched = await cli.run("list", "--db", cli.database, "--bookmarked", "--offset", "2")
    #expect(unmatched.status == 0 && unmatched.err == "no cached article matches the filter\n", "\(unmatched.err)")
    // A source that names nothing is a mistake (as --folder), not an empty selection.
    let unknown = await cli.run("list", "--db", cli.database, "--source", "no-such-source", "--offset", "2")
    #expect(unknown.status == 64 && unknown.err.contains("\"no-such-source\""), "\(unknown.err)")
    let filteredBeyond = await cli.run("list", "--db", cli.database, "--unread", "--offset", "\(cached)")
    #expect(
      filteredBeyond.err == "no cached articles that match the filter past the first \(cached)\n",
      "\(filteredBeyond.err)")
  }

  @Test("the default database lives under $XDG_DATA_HOME/news/")
  func defaultDatabaseLocation() async throws {
    let cli = CLIHarness()
    let fetched = await cli.run("fetch", "--config", cli.bundledConfig)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(FileManager.default.fileExists(atPath: cli.directory.path("data/news/news.sqlite")))
  }

  @Test(
    "every real NewsAPI capture imports with its exact count and instants",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
  func importRealCaptures() async throws {
    let cli = CLIHarness()
    let files: [(name: String, saved: Int, skipped: Int)] = [
      ("newsapi-top-headlines-2020-empty-author-malformed-url.json", 20, 0),
      ("newsapi-top-headlines-2021-mixed-date-formats-cross-source-dupes.json", 20, 0),
      ("newsapi-top-headlines-2023-arabic-google-news.json", 20, 0),
      ("newsapi-top-headlines-2023-removed-article.json", 19, 1),
    ]
    var total = 0
    for file in files {
      let url = try Fixtures.sharedReal(file.name)
      let imported = await cli.run("import", url.path, "--db", cli.database, "--json")
      #expect(imported.status == 0, "\(file.name): \(imported.err)")
      let report = try imported.json()
      #expect(report["saved"] as? Int == file.saved, "\(file.name)")
      #expect(report["skipped"] as? Int == file.skipped, "\(file.name)")
      total += file.saved

      // The cached rows of this file are exactly its valid records, with the right instants.
      let fetched = await cli.run("fetch", "--url", url.path, "--db", cli.database, "--json")
      let rows = try articles(fetched.json())
      #expect(rows.count == file.saved)
      var expected: [String: Int64] = [:]
      for record in try newsAPIRecords(url) where (record["title"] as? String) != "[Removed]" {
        if let link = record["url"] as? String, let date = record["publishedAt"] as? String {
          expected[link] = foundationMilliseconds(date)
        }
      }
      for row in rows {
        let link = try #require(row["url"] as? String)
        let published = try #require(row["publishedAt"] as? String)
        #expect(foundationMilliseconds(published) == expected[link], "\(link): \(published)")
      }
    }
    let listed = await cli.run("list", "--db", cli.database, "--json")
    #expect(try articles(listed.json()).count == total)

    // The 7-digit fraction is kept to the millisecond, truncated.
    let ft = try articles(listed.json()).first { ($0["url"] as? String)?.contains("c89594c1-1d85") == true }
    #expect(ft?["publishedAt"] as? String == "2021-08-29T06:52:24.291Z")
    #expect(ft?["author"] is NSNull)
  }

  @Test("`news delete --before` removes exactly the older rows; `--all` the rest")
  func batchDelete() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    #expect(await cli.run("import", sample.path, "--db", cli.database).status == 0)
    let rows = try articles(await cli.run("list", "--db", cli.database, "--json").json())
    let instants = rows.compactMap { ($0["publishedAt"] as? String).flatMap(foundationMilliseconds) }.sorted()
    #expect(instants.count == rows.count)
    // Cut between the 5th and 6th oldest distinct instants.
    let distinct = Array(Set(instants)).sorted()
    let cut = distinct[distinct.count / 2]
    let older = instants.filter { $0 < cut }.count
    let cutText = Date(timeIntervalSince1970: Double(cut) / 1000).formatted(
      Date.ISO8601FormatStyle(includingFractionalSeconds: true))

    let deleted = await cli.run("delete", "--before", cutText, "--db", cli.database, "--json")
    #expect(deleted.status == 0, "\(deleted.err)")
    #expect(try deleted.json()["deleted"] as? Int == older)
    let remaining = try articles(await cli.run("list", "--db", cli.database, "--json").json())
    #expect(remaining.count == rows.count - older)
    #expect(remaining.allSatisfy { (($0["publishedAt"] as? String).flatMap(foundationMilliseconds) ?? 0) >= cut })

    let all = await cli.run("delete", "--all", "--db", cli.database)
    #expect(all.status == 0)
    #expect(all.out == "deleted \(remaining.count) articles\n")
    #expect(try articles(await cli.run("list", "--db", cli.database, "--json").json()).isEmpty)
  }

  @Test("bad input files exit 65 and write nothing")
  func importBadFiles() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    #expect(await cli.run("import", sample.path, "--db", cli.database).status == 0)
    let before = await cli.run("list", "--db", cli.database, "--json").out

    let truncated = cli.directory.path("truncated.json")
    let full = try Data(contentsOf: sample)
    try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: truncated))
    let errorBody = cli.directory.path("error.json")
    try Data(#"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid."}"#.utf8)
      .write(to: URL(fileURLWithPath: errorBody))
    let html = cli.directory.path("page.html")
    try Data("<html><body>502 Bad Gateway</body></html>".utf8).write(to: URL(fileURLWithPath: html))

    for (file, says) in [
      (truncated, "not valid JSON"), (errorBody, "apiKeyInvalid"),
      (html, "an HTML page (41 bytes) that announces no feed"),
      (cli.directory.path("missing.json"), "no such file"),
    ] {
      let outcome = await cli.run("import", file, "--db", cli.database)
      #expect(outcome.status == 65, "\(file)")
      #expect(outcome.err.contains(says), "\(outcome.err)")
      #expect(outcome.err.contains("nothing was saved"))
    }
    #expect(await cli.run("list", "--db", cli.database, "--json").out == before)
  }

  @Test("usage errors exit 64 with a message naming the problem; --help works everywhere")
  func usage() async throws {
    let cli = CLIHarness()
    let cases: [([String], String)] = [
      ([], "Usage: news <command>"),
      (["frobnicate"], "unknown command 'frobnicate'"),
      (["fetch", "--nope"], "unknown option --nope"),
      (["fetch", "--limit"], "--limit needs a value"),
      (["fetch", "--limit", "ten"], "--limit \"ten\" is not a whole number"),
      (["list", "extra"], "unexpected argument \"extra\""),
      (["delete", "--db", cli.database], "give --all or --before DATE"),
      (["delete", "--all", "--before", "2024-01-01", "--db", cli.database], "give one of --all, --before DATE"),
      (["delete", "--before", "last tuesday", "--db", cli.database], "not an RFC 3339 date"),
      (["import", "--db", cli.database], "which file?"),
      (["fetch", "--url", "ftp://example.com/x.json", "--db", cli.database], "use an http(s) URL or a file"),
      // What was likely meant: the nearest name, or what other readers call the command.
      (["lsit"], "did you mean 'news list'?"),
      (["subscribe", "https://example.com/feed"], "did you mean 'news add'?"),
      (["refresh"], "did you mean 'news fetch'?"),
      (["list", "--unred"], "did you mean --unread?"),
    ]
    for (arguments, message) in cases {
      let outcome = await cli.run(arguments)
      #expect(outcome.status == 64, "\(arguments)")
      #expect(outcome.err.contains(message), "\(arguments): \(outcome.err)")
      #expect(outcome.out.isEmpty)
    }
    for command in ["fetch", "list", "import", "delete"] {
      let help = await cli.run(command, "--help")
      #expect(help.status == 0)
      #expect(help.out.contains("Usage: news \(command)"))
      #expect(help.out.contains("--db PATH"))
    }
    #expect(await cli.run("--help").out.contains("Commands:"))
    // Nothing near: no guess.
    #expect(!(await cli.run("frobnicate").err.contains("did you mean")))
    #expect(!(await cli.run("list", "--zzzzzz").err.contains("did you mean")))
  }

  @Test("a configuration with an unknown key or a wrong type exits 78 naming the key")
  func badConfiguration() async throws {
    let cli = CLIHarness()
    let cases = [
      (#"{"defaultSource":"sample","sources":{"sample":{"file":"x.json"}},"timeout":5}"#, "unknown key \"timeout\""),
      (#"{"timeoutSeconds":"5"}"#, "\"timeoutSeconds\" must be a number"),
      (#"{"defaultSource":"nope","sources":{}}"#, "names \"nope\", which is not in \"sources\""),
      (#"{"sources":{"a":{"url":"https://x.org","qurey":{}}}}"#, "sources.a: unknown key \"qurey\""),
      ("{not json", "not valid JSON"),
    ]
    for (text, message) in cases {
      let path = cli.directory.path("config.json")
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      let outcome = await cli.run("fetch", "--config", path, "--db", cli.database)
      #expect(outcome.status == 78, "\(text)")
      #expect(outcome.err.contains(message), "\(outcome.err)")
      #expect(outcome.err.contains(path))
    }
  }

  @Test("a configuration that cannot be read says which file and why (errno); bad JSON says the line and column")
  func unreadableConfiguration() async throws {
    let cli = CLIHarness()
    let missing = cli.directory.path("nowhere/news.json")
    let folder = cli.directory.path("a-folder")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let locked = cli.directory.path("locked.json")
    try Data("{}".utf8).write(to: URL(fileURLWithPath: locked))
    try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
    var cases = [(missing, "no such file"), (folder, "is a directory")]
    if !FaultCapabilities.isRoot { cases.append((locked, "permission denied")) }
    for (path, reason) in cases {
      // Every way a configuration is read: --config, NEWS_CONFIG, and news add's edit of it.
      var byEnvironment = cli
      byEnvironment.environment["NEWS_CONFIG"] = path
      for outcome in [
        await cli.run("list", "--config", path, "--db", cli.database),
        await byEnvironment.run("list", "--db", cli.database),
        await cli.run("remove", "x", "--config", path, "--db", cli.database),
      ] where !(path == missing && outcome.err.contains("no source")) {
        #expect(outcome.status == 78, "\(path): \(outcome.err)")
        #expect(outcome.err.contains("cannot read the configuration file \(path): \(reason)"), "\(outcome.err)")
        #expect(outcome.err.contains("hint: "), "\(outcome.err)")
      }
    }
    // Bad JSON: the position (line and column, counted here from the text itself) and what was expected there.
    let text = "{\n  \"defaultSource\": \"sample\",\n  \"sources\": {\"sample\": {\"file\": \"x.json\"}]\n}\n"
    let path = cli.directory.path("broken.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let line = try #require(lines.firstIndex { $0.contains("]") }) + 1
    let column = try #require(lines[line - 1].firstIndex(of: "]")).utf16Offset(in: lines[line - 1]) + 1
    for words in [["list"], ["remove", "sample"], ["add", cli.directory.path("none.xml")]] {
      let outcome = await cli.run(words + ["--config", path, "--db", cli.database])
      #expect(outcome.status == 78, "\(words): \(outcome.err)")
      #expect(outcome.err.contains("\(path): not valid JSON: "), "\(outcome.err)")
      #expect(outcome.err.contains("(line \(line), column \(column)"), "\(outcome.err)")
      #expect(outcome.err.contains("expected"), "\(outcome.err)")
    }
  }

  @Test("a store of an older schema is read as it is, migrated by the next write, which says so once on stderr")
  func olderDatabaseSaysItMigrates() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    #expect(await cli.run("import", sample.path, "--db", cli.database).status == 0)
    let listed = await cli.run("list", "--db", cli.database)
    try await StorageContextOpener.setUserVersion(11, at: cli.database)
    // Migration 12 keeps reads: `list` reads version 11 as it is and migrates nothing.
    let read = await cli.run("list", "--db", cli.database)
    #expect(read.status == 0 && read.err.isEmpty && read.out == listed.out)
    #expect(
      await cli.run("stats", "--db", cli.database).out.contains(
        "schema    version 11 (updated to \(StorageContext.schemaVersion) at the next write, or by 'news compact')\n"))
    let write = await cli.run("import", sample.path, "--db", cli.database)
    #expect(write.status == 0)
    #expect(
      write.err.hasPrefix(
        "news: updating the store from schema version 11 to \(StorageContext.schemaVersion), once…\n"), "\(write.err)")
    #expect(
      await cli.run("stats", "--db", cli.database).out.contains("schema    version \(StorageContext.schemaVersion)"))
    let again = await cli.run("import", sample.path, "--db", cli.database)
    #expect(again.status == 0 && !again.err.contains("updating the store"))
    #expect(await cli.run("list", "--db", cli.database).out == listed.out)
  }

  @Test("a database from a newer version is refused with exit 74, untouched")
  func newerDatabase() async throws {
    let cli = CLIHarness()
    let sample = Fixtures.configDirectory.appendingPathComponent("sample/top-headlines.json")
    #expect(await cli.run("import", sample.path, "--db", cli.database).status == 0)
    try await StorageContextOpener.setUserVersion(42, at: cli.database)
    let before = try Data(contentsOf: URL(fileURLWithPath: cli.database))
    let outcome = await cli.run("list", "--db", cli.database)
    #expect(outcome.status == 74)
    #expect(outcome.err.contains(cli.database))
    #expect(outcome.err.contains("newer version"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: cli.database)) == before)
  }
}
