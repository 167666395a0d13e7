import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("Local-only state: read and bookmarks survive refreshes")
struct LocalStateTests {
  private func at(_ ms: Int64) -> Timestamp { Timestamp(millisecondsSince1970: ms) }

  private func url(_ slug: String) -> String { articleURL(slug).absoluteString }

  /// url slug, title, isRead, bookmarkedAt: every article row.
  private func table(_ storage: StorageContext) async throws -> [[DatabaseValue]] {
    try await storage.rows("SELECT substr(url, 26), title, isRead, bookmarkedAt FROM article ORDER BY url")
  }

  @Test("looking many texts up at once finds what article(url:) finds, one by one: keys, equivalent forms, links")
  func lookupsAtOnce() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let linked = try #require(URL(string: "https://example.com/linked"))
    let scoped = try #require(URL(string: "news-item:feed/7"))
    try await storage.saveArticles(
      [
        makeArticle("a"), makeArticle("b"),
        Article(key: scoped, link: linked, title: "L", publishedAt: Timestamp(millisecondsSince1970: t0).date),
      ],
      forQuery: "q", fetchedAt: at(t0))
    // More than a chunk (500), with finds in both chunks and texts repeated.
    var texts = (0..<600).map { "https://example.com/none/\($0)" }
    texts.insert(url("a"), at: 3)
    texts.insert("HTTPS://EXAMPLE.com:443/news/b#top", at: 520)
    texts.insert(linked.absoluteString, at: 560)
    texts += ["not a url", "", url("a"), scoped.absoluteString]
    var oneByOne: [String: String] = [:]
    for text in texts { oneByOne[text] = try await storage.article(url: text)?.url.absoluteString }
    #expect(oneByOne.count == 4, "\(oneByOne)")
    #expect(try await storage.keys(findingArticles: texts) == oneByOne)
    #expect(try await storage.keys(findingArticles: []).isEmpty)
  }

  @Test("with itemIDs, a text that is an article's item identifier finds that article's key (a link post's guid)")
  func lookupsByItemID() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    // A link post: keyed by its own page, its item identifier the guid scoped to the feed.
    var post = makeArticle("post")
    post.itemID = "news-item:daringfireball.net/tag:daringfireball.net,2026:/linked/1"
    try await storage.saveArticles([post], forQuery: "q", fetchedAt: at(t0))
    let id = try #require(post.itemID)
    #expect(try await storage.keys(findingArticles: [id, url("none")], itemIDs: true) == [id: url("post")])
    #expect(try await storage.keys(findingArticles: [id]).isEmpty, "item identifiers only when asked")
    #expect(try await storage.keys(findingArticles: [url("post")], itemIDs: true) == [url("post"): url("post")])
  }

  @Test("a refresh of the same URLs with changed content keeps isRead and bookmarkedAt")
  func survivesRefresh() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(
      [
        makeArticle("a", publishedAt: t0), makeArticle("b", publishedAt: t0 + 1), makeArticle("c", publishedAt: t0 + 2),
      ],
      forQuery: "q", fetchedAt: at(t0))
    #expect(try await storage.setRead(true, url: url("a")))
    #expect(try await storage.setBookmarked(true, url: url("b"), at: at(t0 + 500).date))
    #expect(
      try await table(storage) == [
        [.text("a"), .text("Title a"), .integer(1), .null],
        [.text("b"), .text("Title b"), .integer(0), .integer(t0 + 500)],
        [.text("c"), .text("Title c"), .integer(0), .null],
      ])

    // The source serves a and b again with new titles, and says nothing of local state (its articles are unread
    // and not bookmarked as far as it knows) — or even claims the opposite.
    var claimsRead = makeArticle("b", title: "B, updated", publishedAt: t0 + 1)
    claimsRead.isRead = true
    claimsRead.bookmarkedAt = at(t0 + 999).date
    let result = try await storage.saveArticles(
      [makeArticle("a", title: "A, updated", publishedAt: t0), claimsRead, makeArticle("c", publishedAt: t0 + 2)],
      forQuery: "q2", fetchedAt: at(t0 + 60_000))
    #expect(counts(result) == [3, 0, 2, 1, 0])
    #expect(
      try await table(storage) == [
        [.text("a"), .text("A, updated"), .integer(1), .null],
        [.text("b"), .text("B, updated"), .integer(0), .integer(t0 + 500)],
        [.text("c"), .text("Title c"), .integer(0), .null],
      ])
    let a = try await storage.article(url: url("a"))
    #expect(a?.isRead == true)
    #expect(a?.title == "A, updated")
    #expect(try await storage.article(url: url("b"))?.bookmarkedAt == at(t0 + 500).date)

    // Undo both.
    #expect(try await storage.setRead(false, url: url("a")))
    #expect(try await storage.setBookmarked(false, url: url("b")))
    #expect(
      try await storage.rows("SELECT isRead, bookmarkedAt FROM article ORDER BY url")
        == Array(repeating: [.integer(0), .null], count: 3))
  }

  @Test("articles(filter:) selects unread, bookmarked, or both, newest first, with limit and offset")
  func filters() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(
      (0..<5).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }, forQuery: "q", fetchedAt: at(t0))
    try await storage.setRead(true, url: url("a1"))
    try await storage.setRead(true, url: url("a3"))
    try await storage.setBookmarked(true, url: url("a3"), at: at(t0).date)
    try await storage.setBookmarked(true, url: url("a0"), at: at(t0).date)

    #expect(slugs(try await storage.articles()) == ["a4", "a3", "a2", "a1", "a0"])
    #expect(slugs(try await storage.articles(filter: ArticleFilter(unreadOnly: true))) == ["a4", "a2", "a0"])
    #expect(slugs(try await storage.articles(filter: ArticleFilter(bookmarkedOnly: true))) == ["a3", "a0"])
    #expect(slugs(try await storage.articles(filter: ArticleFilter(unreadOnly: true, bookmarkedOnly: true))) == ["a0"])
    #expect(slugs(try await storage.articles(limit: 1, offset: 1, filter: ArticleFilter(unreadOnly: true))) == ["a2"])
    #expect(try await storage.articles(filter: ArticleFilter(bookmarkedOnly: true)).allSatisfy(\.isBookmarked))
    #expect(try await storage.articles(filter: ArticleFilter(unreadOnly: true)).allSatisfy { !$0.isRead })
  }

  @Test("setRead and setBookmarked on an unknown URL return false and change nothing")
  func unknownURL() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: at(t0))
    let before = try await table(storage)
    let changes = try await storage.totalChanges()
    #expect(try await storage.setRead(true, url: url("missing")) == false)
    #expect(try await storage.setBookmarked(true, url: url("missing")) == false)
    // Not a prefix or pattern match either.
    #expect(try await storage.setRead(true, url: "https://example.com/news/%") == false)
    #expect(try await storage.setRead(true, url: "") == false)
    #expect(try await table(storage) == before)
    #expect(try await storage.totalChanges() == changes)
  }

  @Test("local-only attributes cannot be written by save(ChangeSet)")
  func notWritableByChangeSet() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: at(t0))
    let before = try await table(storage)
    for key in ["isRead", "bookmarkedAt"] {
      let message = await invalidRequest {
        try await storage.save(
          ChangeSet(upserts: [Record(entity: "article", values: ["url": .text(url("a")), key: .integer(1)])]))
      }
      #expect(message?.contains("local-only") == true, "\(message ?? "")")
    }
    #expect(try await table(storage) == before)
  }
}
