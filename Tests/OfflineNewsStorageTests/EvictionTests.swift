import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

private let hour: Int64 = 3_600_000
/// "Now" in these tests: ten days after t0.
private let now: Int64 = t0 + 240 * hour
/// 2000-01-01T00:00:00Z.
private let year2000: Int64 = 946_684_800_000

@Suite("Eviction: at most N articles, at most D days since last fetched, never bookmarks")
struct EvictionTests {
  private func at(_ ms: Int64) -> Timestamp { Timestamp(millisecondsSince1970: ms) }

  private func url(_ slug: String) -> String { articleURL(slug).absoluteString }

  /// The slugs of every stored article, sorted.
  private func stored(_ storage: StorageContext) async throws -> [String] {
    slugs(try await storage.articles()).sorted()
  }

  @Test("maxArticles keeps the newest N articles that are not bookmarked, and every bookmarked one")
  func maxArticles() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [], eviction: EvictionPolicy(maxArticles: 3))
    let log = ChangeLog(storage)
    let first = try await storage.saveArticles(
      (0..<5).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }, forQuery: "q", fetchedAt: at(now))
    #expect(first.evicted == 2)
    #expect(try await stored(storage) == ["a2", "a3", "a4"])
    #expect(sortedSlugs(await log.next().first?.deleted ?? []) == ["a0", "a1"])
    #expect(slugs(try await storage.articles(forQuery: "q")) == ["a4", "a3", "a2"])

    // Bookmarks do not count toward N and are never evicted, however old.
    try await storage.setBookmarked(true, url: url("a2"))
    _ = await log.next()
    let second = try await storage.saveArticles(
      [makeArticle("a5", publishedAt: t0 + 5000), makeArticle("a6", publishedAt: t0 + 6000)], forQuery: "q2",
      fetchedAt: at(now))
    #expect(counts(second) == [2, 2, 0, 0, 1])
    #expect(try await stored(storage) == ["a2", "a4", "a5", "a6"])
    #expect(
      await log.next() == [
        StorageChange(
          entity: "article", inserted: [Identity(.text(url("a5"))), Identity(.text(url("a6")))],
          deleted: [Identity(.text(url("a3")))])
      ])

    // An article older than the N kept goes as soon as it is saved; the bookmarked one still stays.
    let third = try await storage.saveArticles(
      [makeArticle("ancient", publishedAt: year2000)], forQuery: "q3", fetchedAt: at(now))
    #expect(third.evicted == 1)
    #expect(try await stored(storage) == ["a2", "a4", "a5", "a6"])
    #expect(sortedSlugs(await log.next().first?.deleted ?? []) == ["ancient"])

    // Everything bookmarked: nothing is evicted.
    for slug in ["a4", "a5", "a6"] { try await storage.setBookmarked(true, url: url(slug)) }
    let fourth = try await storage.saveArticles(
      [makeArticle("a7", publishedAt: t0 + 7000)], forQuery: "q4", fetchedAt: at(now))
    #expect(fourth.evicted == 0)
    #expect(try await stored(storage) == ["a2", "a4", "a5", "a6", "a7"])
  }

  @Test("an evicted article does not come back when its feed still lists it: eviction remembers its key")
  func evictedStayGone() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [], eviction: EvictionPolicy(maxArticles: 3))
    let feed = (0..<5).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }
    #expect(try await storage.saveArticles(feed, forQuery: "q", fetchedAt: at(now)).evicted == 2)
    #expect(try await storage.setRead(true, url: url("a4")))
    // The feed lists the same five again: the two evicted are not saved as new, and nothing is evicted again.
    let again = try await storage.saveArticles(feed, forQuery: "q", fetchedAt: at(now + hour))
    #expect(again.inserted == 0 && again.evicted == 0, "\(again)")
    #expect(try await stored(storage) == ["a2", "a3", "a4"])
    #expect(try await storage.articles().first { $0.url.absoluteString == url("a4") }?.isRead == true)
  }

  @Test("maxAge evicts by last fetch, not by publication: stale results and orphans go, bookmarks stay")
  func maxAge() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [], eviction: EvictionPolicy(maxAge: 48 * 3600))
    let log = ChangeLog(storage)
    // 60 h ago: "gone" returned y, k and b (all published long ago).
    let y = makeArticle("y", publishedAt: year2000)
    let k = makeArticle("k", publishedAt: year2000 + 1000)
    let b = makeArticle("b", publishedAt: year2000 + 2000)
    #expect(try await storage.saveArticles([y, k, b], forQuery: "gone", fetchedAt: at(now - 60 * hour)).evicted == 0)
    try await storage.setBookmarked(true, url: url("b"), at: at(now - 59 * hour).date)
    // 50 h ago: "stale" returned z; it is never fetched again.
    #expect(
      try await storage.saveArticles(
        [makeArticle("z", publishedAt: now - 50 * hour)], forQuery: "stale", fetchedAt: at(now - 50 * hour)
      )
      .evicted == 0)
    // 20 h ago: "gone" returned only k (unchanged): y and b are in no result list any more.
    #expect(try await storage.saveArticles([k], forQuery: "gone", fetchedAt: at(now - 20 * hour)).evicted == 0)
    #expect(try await stored(storage) == ["b", "k", "y", "z"])
    _ = await log.next(3)  // the two inserts and the bookmark; the unchanged refresh of k published nothing

    // Now: an article published in 2000 is fetched.
    let result = try await storage.saveArticles(
      [makeArticle("x", publishedAt: year2000 - 5000)], forQuery: "now", fetchedAt: at(now))
    #expect(counts(result) == [1, 1, 0, 0, 2])
    // x: fetched just now. k: last fetched 20 h ago (unchanged then). b: bookmarked.
    // y: in no result list, last written 60 h ago. z: its query was last fetched 50 h ago.
    #expect(try await stored(storage) == ["b", "k", "x"])
    let change = await log.next()
    #expect(change.first?.inserted == [Identity(.text(url("x")))])
    #expect(sortedSlugs(change.first?.deleted ?? []) == ["y", "z"])
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query = 'stale'") == 0)
  }

  @Test("maxAge evicts exactly the rows its rule names (last seen before the cutoff), on random fetch histories")
  func maxAgeMatchesTheRule() async throws {
    var random = SplitMix64(seed: 32)
    var named = 0
    for round in 0..<25 {
      let database = TestDatabase()
      do {
        // Five queries, each saved one to four times within the last 100 hours, each time with a random few of 40
        // articles: some stay listed, some depart (their rows stay, listed by another query or by none).
        let storage = try database.open()
        var saves: [(query: String, hours: Int64)] = []
        for query in 0..<5 {
          for _ in 0..<Int.random(in: 1...4, using: &random) {
            saves.append(("q\(query)", Int64.random(in: 1...100, using: &random)))
          }
        }
        for save in saves.sorted(by: { $0.hours > $1.hours }) {
          let picked = (0..<40).filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
          guard !picked.isEmpty else { continue }
          try await storage.saveArticles(
            picked.map { makeArticle("r\(round)a\($0)", publishedAt: t0 + Int64($0)) }, forQuery: save.query,
            fetchedAt: at(now - save.hours * hour))
        }
      }
      let cutoff = now - 48 * hour
      // The rule, over every row (as the eviction read it before it looked at candidates only).
      let rule = try await database.open().read { db in
        try db.makeStatement(
          """
          SELECT url FROM article WHERE bookmarkedAt IS NULL AND coalesce(
            (SELECT max(f.fetchedAt) FROM query_result r JOIN query_fetch f ON f.query = r.query WHERE r.url = article.url),
            fetchedAt) < ?1
          """
        ).fetchAll([.integer(cutoff)]) { $0.string(0) ?? "" }
      }
      let storage = try database.open(entities: [], eviction: EvictionPolicy(maxAge: 48 * 3600))
      let log = ChangeLog(storage)
      let result = try await storage.saveArticles(
        [makeArticle("r\(round)new", publishedAt: t0)], forQuery: "now", fetchedAt: at(now))
      let change = await log.next()
      let evicted = (change.first?.deleted ?? []).compactMap { identity -> String? in
        if case .text(let url) = identity.values.first { url } else { nil }
      }
      #expect(Set(evicted) == Set(rule), "round \(round)")
      #expect(result.evicted == rule.count, "round \(round)")
      named += rule.count
    }
    #expect(named > 0, "the histories leave rows to evict")
  }

  @Test("maxAge counts a fetch that returned an article unchanged as a fetch of it")
  func maxAgeUnchangedRefetch() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [], eviction: EvictionPolicy(maxAge: 24 * 3600))
    let article = makeArticle("seen", publishedAt: t0)
    try await storage.saveArticles([article], forQuery: "q", fetchedAt: at(now - 30 * hour))
    // 20 h ago the query returned it again, unchanged.
    let again = try await storage.saveArticles([article], forQuery: "q", fetchedAt: at(now - 20 * hour))
    #expect(again.unchanged == 1 && again.evicted == 0)
    // Now the query no longer returns it. It was last fetched 20 h ago, within the 24 h kept.
    let result = try await storage.saveArticles(
      [makeArticle("other", publishedAt: t0)], forQuery: "q", fetchedAt: at(now))
    #expect(result.evicted == 0, "evicted by the time of its first save (30 h ago), not of its last fetch (20 h ago)")
    #expect(try await stored(storage) == ["other", "seen"])
  }

  @Test("both limits together; a save with no policy evicts nothing")
  func combinedAndNone() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open()
      try await storage.saveArticles(
        (0..<4).map { makeArticle("old\($0)", publishedAt: t0 + Int64($0)) }, forQuery: "old",
        fetchedAt: at(now - 100 * hour))
      let result = try await storage.saveArticles(
        (0..<4).map { makeArticle("new\($0)", publishedAt: t0 + 100 + Int64($0)) }, forQuery: "new", fetchedAt: at(now))
      #expect(result.evicted == 0)
      #expect(try await storage.articleCount() == 8)
    }
    let storage = try database.open(entities: [], eviction: EvictionPolicy(maxArticles: 3, maxAge: 24 * 3600))
    try await storage.setBookmarked(true, url: url("old0"))
    let result = try await storage.saveArticles(
      [makeArticle("new0", publishedAt: t0 + 100)], forQuery: "new", fetchedAt: at(now))
    // maxAge removes old1…old3 (old0 is bookmarked); maxArticles then keeps new3, new2, new1 of the others.
    #expect(result.evicted == 4)
    #expect(try await stored(storage) == ["new1", "new2", "new3", "old0"])
  }

  @Test("an unlimited maxAge (infinity, or more days than Int64 milliseconds hold) does not crash a save")
  func hugeMaxAge() async {
    await #expect(processExitsWith: .success) {
      for maxAge in [Double.infinity, 1e300, 9.3e15] {
        let database = TestDatabase()
        let storage = try database.open(entities: [], eviction: EvictionPolicy(maxAge: maxAge))
        let result = try await storage.saveArticles(
          [makeArticle("a", publishedAt: t0)], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
        guard result.evicted == 0 else { exit(1) }
      }
    }
  }
}
