import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

/// `NewsRepository.markRead(_:matching:)` and `counts(matching:)`: reading state in bulk, by source, by a folder's
/// sources, before a date, or everything, in one statement; and the counts an app shows beside a source or folder.
@Suite("Bulk reading state through the repository")
struct BulkReadingStateTests {
  /// 2024-01-`day` at 10:00 UTC.
  static func day(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_704_103_200 + Double(day - 1) * 86_400) }

  /// `ATP` (3 articles, 1…3 January) and `Swift` (2 articles, 1…2 January), saved as two queries' results.
  static func saved() async throws -> (setup: NewsRepositoryTests.Setup, atp: NewsQuery, swift: NewsQuery) {
    let setup = try NewsRepositoryTests.Setup()
    let atp = NewsQuery(url: try #require(URL(string: "https://atp.example/feed.xml")), source: "ATP")
    let swift = NewsQuery(url: try #require(URL(string: "https://swift.example/feed.xml")), source: "Swift")
    let make = { (host: String, count: Int) in
      (1...count).compactMap { index in
        URL(string: "https://\(host).example/\(index)").map {
          Article(url: $0, title: "\(host) \(index)", publishedAt: Self.day(index))
        }
      }
    }
    try await setup.repository.save(make("atp", 3), for: atp)
    try await setup.repository.save(make("swift", 2), for: swift)
    return (setup, atp, swift)
  }

  @Test("by source, by several sources, before a date, all; only changed articles are counted")
  func markReadInBulk() async throws {
    let (setup, atp, swift) = try await Self.saved()
    defer { setup.server.stop() }
    let repository = setup.repository
    let bySource = ArticleFilter(anyOfSources: [SourceMatch(source: "ATP")])
    #expect(try await repository.markRead(matching: bySource) == 3)
    #expect(try await repository.markRead(matching: bySource) == 0, "already read: nothing changed")
    #expect(try await repository.counts() == ArticleCounts(total: 5, unread: 2))
    #expect(try await repository.counts(matching: bySource) == ArticleCounts(total: 3, unread: 0))

    // A source's articles through its query's last result, whatever their `source` says.
    let byQuery = ArticleFilter(anyOfSources: [SourceMatch(source: "renamed", queries: [swift.cacheKey])])
    #expect(try await repository.counts(matching: byQuery) == ArticleCounts(total: 2, unread: 2))

    // Unread again, of both sources, those published before 2 January only.
    let folder = ArticleFilter(
      anyOfSources: [SourceMatch(source: "ATP", queries: [atp.cacheKey]), SourceMatch(source: "Swift")],
      publishedBefore: Self.day(2))
    #expect(try await repository.markRead(false, matching: folder) == 1)
    let unread = try await repository.read(filter: ArticleFilter(unreadOnly: true)).map(\.title)
    #expect(Set(unread) == ["atp 1", "swift 1", "swift 2"])

    // No source at all selects nothing; `.all` everything.
    #expect(try await repository.markRead(matching: ArticleFilter(anyOfSources: [])) == 0)
    #expect(try await repository.markRead(matching: .all) == 3)
    #expect(try await repository.counts() == ArticleCounts(total: 5, unread: 0))
  }

  @Test("a bulk change is one article change event with the URLs changed")
  func oneChangeEvent() async throws {
    let (setup, _, _) = try await Self.saved()
    defer { setup.server.stop() }
    let changes = setup.storage.changes()
    var iterator = changes.makeAsyncIterator()
    #expect(try await setup.repository.markRead(matching: ArticleFilter(publishedBefore: Self.day(3))) == 4)
    let event = try #require(await iterator.next())
    guard case .change(let change) = event else {
      Issue.record("expected a change, got \(event)")
      return
    }
    #expect(change.entity == "article")
    #expect(Set(change.updated).count == 4)
  }

  @Test("a source is its name and its query's results, not another feed whose publisher bears that name")
  func notByPublisherName() async throws {
    let setup = try NewsRepositoryTests.Setup()
    defer { setup.server.stop() }
    let repository = setup.repository
    // "Daring Fireball" (a source, in a folder) and "Daring Fireball (2)": the same site's other feed, whose articles'
    // publisher is "Daring Fireball" too (a fresh user's report: marking the folder read marked both).
    let first = NewsQuery(url: try #require(URL(string: "https://df.example/atom")), source: "Daring Fireball")
    let second = NewsQuery(url: try #require(URL(string: "https://df.example/rss")), source: "Daring Fireball (2)")
    let article = { (path: String) in
      Article(
        url: URL(string: "https://df.example/\(path)")!, title: path, publishedAt: Self.day(1),
        sourceName: "Daring Fireball")
    }
    try await repository.save([article("a"), article("b")], for: first)
    try await repository.save([article("c")], for: second)
    let folder = ArticleFilter(anyOfSources: [SourceMatch(source: "Daring Fireball", queries: [first.cacheKey])])
    #expect(try await repository.counts(matching: folder) == ArticleCounts(total: 2, unread: 2))
    #expect(try await repository.markRead(matching: folder) == 2)
    #expect(
      try await repository.counts() == ArticleCounts(total: 3, unread: 1), "the (2) source's article stays unread")
    // `ArticleFilter.source` (news list --source TEXT) still matches a publisher by name, as documented.
    #expect(try await repository.counts(matching: ArticleFilter(source: "daring fireball")).total == 3)
  }
}
