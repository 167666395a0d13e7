import Foundation
import OfflineNews
import OfflineNewsModel
import TestSupport
import Testing

@testable import NewsCLI

/// Short handles (issue 15 point 1): every article printed has one, unique in the database and longer where needed,
/// accepted by show, mark-read, bookmark and open beside the URL.
@Suite("Article handles")
struct HandleTests {
  /// Two article URLs whose handles share their first `digits` hex digits, found by trying URLs in order (the
  /// handle is a hash of the key: ``ArticleIdentity/handle(forKey:)``).
  static func collidingURLs(digits: Int) -> (String, String) {
    var seen: [Substring: String] = [:]
    for index in 0..<1_000_000 {
      let url = "https://example.com/story/\(index)"
      let prefix = ArticleIdentity.handle(forKey: url).prefix(digits)
      if let earlier = seen[prefix] { return (earlier, url) }
      seen[prefix] = url
    }
    return ("", "")
  }

  static func newsAPI(_ urls: [String]) -> String {
    let records = urls.enumerated().map { index, url in
      #"{"source":{"name":"S"},"title":"Story \#(index)","url":"\#(url)","publishedAt":"2024-01-0\#(index + 1)T00:00:00Z"}"#
    }
    return #"{"status":"ok","totalResults":\#(urls.count),"articles":[\#(records.joined(separator: ","))]}"#
  }

  @Test("list prints a handle per article; show, mark-read, bookmark and open take it; --json has the whole one")
  func handlesEverywhere() async throws {
    var cli = CLIHarness()
    let (a, b) = Self.collidingURLs(digits: 6)
    let file = cli.directory.path("colliding.json")
    try Data(Self.newsAPI([a, b, "https://example.com/other"]).utf8).write(to: URL(fileURLWithPath: file))
    #expect(await cli.run("import", file, "--db", cli.database).status == 0)

    let listed = await cli.run("list", "--db", cli.database)
    let shown = listed.out.split(separator: "\n").dropFirst().map {
      $0.split(separator: " ").first.map(String.init) ?? ""
    }
    #expect(shown.count == 3)
    let fullA = ArticleIdentity.handle(forKey: a)
    let fullB = ArticleIdentity.handle(forKey: b)
    // The two that share six digits are printed with seven or more, each unique; the other with six.
    let handleA = try #require(shown.first { fullA.hasPrefix($0) })
    let handleB = try #require(shown.first { fullB.hasPrefix($0) })
    #expect(handleA.count >= 7 && handleB.count >= 7 && handleA != handleB, "\(shown)")
    #expect(shown.contains { $0.count == 6 && !fullA.hasPrefix($0) && !fullB.hasPrefix($0) }, "\(shown)")

    let json = articles(try await cli.run("list", "--db", cli.database, "--json").json())
    #expect(Set(json.compactMap { $0["handle"] as? String }).isSuperset(of: [fullA, fullB]))

    let show = await cli.run("show", handleA, "--db", cli.database, "--json")
    #expect(show.status == 0, "\(show.err)")
    #expect(try show.json()["id"] as? String == a)
    #expect(await cli.run("bookmark", handleB, "--db", cli.database).status == 0)
    #expect(await cli.run("mark-read", fullB, "--undo", "--db", cli.database).status == 0)
    let marks = articles(try await cli.run("list", "--bookmarked", "--db", cli.database, "--json").json())
    #expect(marks.map { $0["id"] as? String } == [b])

    // Six shared digits name two articles: a usage error that lists them.
    let ambiguous = await cli.run("show", String(fullA.prefix(6)), "--db", cli.database)
    #expect(ambiguous.status == 64)
    #expect(
      ambiguous.err.contains("ambiguous") && ambiguous.err.contains("Story 0") && ambiguous.err.contains("Story 1"))
    // One candidate a line (tester LOW: the hint's lines were flattened into one).
    let candidates = ambiguous.err.split(separator: "\n").filter { $0.contains("Story 0") || $0.contains("Story 1") }
    #expect(candidates.count == 2, "\(ambiguous.err)")
    let missing = await cli.run("show", "ffffffffffff", "--db", cli.database)
    #expect(missing.status == 66, "\(missing.err)")

    // open: the system opener gets the link.
    let log = cli.directory.path("opened.txt")
    let opener = cli.directory.path("opener.sh")
    try Data("#!/bin/sh\necho \"$1\" > \(log)\n".utf8).write(to: URL(fileURLWithPath: opener))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener)
    cli.environment["NEWS_OPENER"] = opener
    let opened = await cli.run("open", handleA, "--db", cli.database, "--json")
    #expect(opened.status == 0, "\(opened.err)")
    #expect(try opened.json()["url"] as? String == a)
    #expect((try? String(contentsOfFile: log, encoding: .utf8)) == a + "\n")  // news open waits for its opener
    // An opener that runs and fails (xdg-open with no browser exits 3) is a failure, not "opened".
    cli.environment["NEWS_OPENER"] = "false"
    let failed = await cli.run("open", handleA, "--db", cli.database)
    #expect(failed.status == 69, "\(failed.out) \(failed.err)")
    #expect(failed.err.contains("false failed (exit status 1)"), "\(failed.err)")
    #expect(!failed.out.contains("opened"))
    // Without an opener the link is printed.
    cli.environment["NEWS_OPENER"] = nil
    cli.environment["PATH"] = cli.directory.path("empty-path")
    let printed = await cli.run("open", handleB, "--db", cli.database)
    #expect(printed.status == 0)
    #expect(printed.out == b + "\n")
  }

  @Test("handles survive a re-import and are the same in another database (a hash of the key)")
  func stable() async throws {
    let one = CLIHarness()
    let two = CLIHarness()
    let body = Self.newsAPI(["https://example.com/a", "https://example.com/b"])
    for cli in [one, two] {
      let file = cli.directory.path("h.json")
      try Data(body.utf8).write(to: URL(fileURLWithPath: file))
      #expect(await cli.run("import", file, "--db", cli.database).status == 0)
      #expect(await cli.run("import", file, "--db", cli.database).status == 0)
    }
    let first = articles(try await one.run("list", "--db", one.database, "--json").json()).compactMap {
      $0["handle"] as? String
    }
    let second = articles(try await two.run("list", "--db", two.database, "--json").json()).compactMap {
      $0["handle"] as? String
    }
    #expect(first == second && first.count == 2)
  }
}
