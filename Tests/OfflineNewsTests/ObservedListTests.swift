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

  @Test("a list of .listing fields holds what a list shows, not the bodies; article(url:) reads one whole")
  func listingFields() async throws {
    let setup = try NewsRepositoryTests.Setup()
    defer { setup.server.stop() }
    let repository = setup.repository
    let query = NewsQuery(url: try #require(URL(string: "https://body.example/feed.xml")), source: "Body")
    let link = try #require(URL(string: "https://body.example/1"))
    let image = try #require(URL(string: "https://body.example/1.jpg"))
    let audio = try #require(URL(string: "https://body.example/1.mp3"))
    let saved = Article(
      url: link, title: "With a body", author: "Ann", summary: "<p>The summary</p>", imageURL: image,
      publishedAt: BulkReadingStateTests.day(1), content: "<p>The content</p>", sourceName: "Body Times",
      tags: ["one", "two"], enclosures: [Enclosure(url: audio, type: "audio/mpeg", length: 10)])
    try await repository.save([saved], for: query)
    try await repository.bookmark(true, url: link.absoluteString)

    let whole = try #require(try await repository.read(limit: 1).first)
    #expect(whole.summary == "<p>The summary</p>" && whole.content == "<p>The content</p>")
    #expect(whole.tags == ["one", "two"] && whole.enclosures.count == 1)
    let listed = try #require(try await repository.read(limit: 1, fields: .listing).first)
    #expect(listed.summary == nil && listed.content == nil && listed.fullTextHTML == nil && listed.fullText == nil)
    #expect(listed.tags.isEmpty && listed.enclosures.isEmpty)
    // Everything else as the whole article has it: what a list shows, its state, and where it links.
    var expected = whole
    expected.summary = nil
    expected.content = nil
    expected.summaryText = nil
    expected.contentText = nil
    expected.tags = []
    expected.enclosures = []
    #expect(listed == expected)
    #expect(listed.isBookmarked && listed.author == "Ann" && listed.imageURL == image && listed.link == link)
    #expect(try await repository.article(url: link.absoluteString) == whole)

    var lists = repository.observe(.all, limit: 10, fields: .listing).makeAsyncIterator()
    #expect(try await lists.next() == [expected])
  }
}
