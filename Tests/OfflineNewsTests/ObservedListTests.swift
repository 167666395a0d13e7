import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// `NewsRepository.observe(_:limit:)`: the list a UI shows, yielded at once and again after each change that
/// changes it — a save, a mark read, a delete — and not after one that leaves it as it was.
@Suite("An observed list of articles")
struct ObservedListTests {
  @Test("the unread list: at once, after a save, after a mark read; a change elsewhere yields nothing")
  func unreadList() async throws {
    let (setup, atp, _) = try await BulkReadingStateTests.saved()
    defer { setup.server.stop() }
    let repository = setup.repository
    let unreadATP = ArticleFilter(unreadOnly: true, anyOfSources: [SourceMatch(source: "ATP", queries: [atp.cacheKey])])
    var lists = repository.observe(unreadATP, limit: 10).makeAsyncIterator()
    #expect(try await lists.next()?.map(\.title) == ["atp 3", "atp 2", "atp 1"])

    // A change to another source's articles leaves the list as it was: nothing is yielded for it, so the next list
    // is the one after the mark read below.
    _ = try await repository.markRead(matching: ArticleFilter(anyOfSources: [SourceMatch(source: "Swift")]))
    _ = try await repository.markRead(url: "https://atp.example/2")
    #expect(try await lists.next()?.map(\.title) == ["atp 3", "atp 1"])

    // A refresh that saves a new article.
    let fourth = try #require(URL(string: "https://atp.example/4"))
    let articles = [1, 2, 3].compactMap { URL(string: "https://atp.example/\($0)") }.map {
      Article(
        url: $0, title: "atp \($0.lastPathComponent)",
        publishedAt: BulkReadingStateTests.day(Int($0.lastPathComponent) ?? 1))
    }
    try await repository.save(
      articles + [Article(url: fourth, title: "atp 4", publishedAt: BulkReadingStateTests.day(4))], for: atp)
    #expect(try await lists.next()?.map(\.title) == ["atp 4", "atp 3", "atp 1"])
  }

  @Test("the stream ends when the storage context is closed")
  func endsWithTheStore() async throws {
    let (setup, _, _) = try await BulkReadingStateTests.saved()
    defer { setup.server.stop() }
    var lists = setup.repository.observe().makeAsyncIterator()
    #expect(try await lists.next()?.count == 5)
    await setup.storage.close()
    #expect(try await lists.next() == nil)
  }

  @Test("another process's commit to the same file is seen: the list is read again and yielded")
  func anotherConnectionsCommit() async throws {
    let (setup, atp, _) = try await BulkReadingStateTests.saved()
    defer { setup.server.stop() }
    let filter = ArticleFilter(unreadOnly: true, anyOfSources: [SourceMatch(source: "ATP", queries: [atp.cacheKey])])
    var lists = setup.repository.observe(filter).makeAsyncIterator()
    #expect(try await lists.next()?.map(\.title) == ["atp 3", "atp 2", "atp 1"])
    // A second storage context on the file stands for another process (`news mark-read` in another shell): its
    // commit is not published to the first context's change stream, only written to the file.
    let other = try StorageContext(path: setup.storage.path)
    let otherRepository = NewsRepository(storage: other, network: FileNewsNetwork())
    #expect(try await otherRepository.markRead(url: "https://atp.example/3"))
    await other.close()
    #expect(try await lists.next()?.map(\.title) == ["atp 2", "atp 1"])
  }
}
