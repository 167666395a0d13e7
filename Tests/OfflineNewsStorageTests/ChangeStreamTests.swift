import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// Article identities (their URLs) for slugs.
private func articleIDs(_ slugs: String...) -> [Identity] {
  slugs.map { Identity(.text(articleURL($0).absoluteString)) }
}

private func ids(_ values: String...) -> [Identity] { values.map { Identity(.text($0)) } }

private let event = EntityDescription(
  name: "event", identity: ["id"], attributes: [Attribute("id", .text), Attribute("n", .integer)])

@Suite("Change stream: one StorageChange per entity per committed transaction", .timeLimit(.minutes(5)))
struct ChangeStreamTests {
  private let at = Timestamp(millisecondsSince1970: t0)

  /// Makes a write that publishes one known change and expects it to be the next one: whatever was published
  /// before it (by a write that should have published nothing) would come first.
  private func expectNothingBefore(
    sentinel number: Int, _ storage: StorageContext, _ log: ChangeLog,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let id = "sentinel-\(number)"
    try await storage.save(ChangeSet(upserts: [Record(entity: "event", values: ["id": .text(id)])]))
    let next = await log.next()
    #expect(next == [StorageChange(entity: "event", inserted: ids(id))], sourceLocation: sourceLocation)
  }

  @Test("saveArticles publishes inserted and updated URLs; unchanged articles are not listed")
  func saveArticles() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    let log = ChangeLog(storage)
    let a = makeArticle("a", publishedAt: t0)
    let b = makeArticle("b", publishedAt: t0 + 1)
    try await storage.saveArticles([a, b], forQuery: "q", fetchedAt: at)
    #expect(await log.next() == [StorageChange(entity: "article", inserted: articleIDs("a", "b"))])

    let changedB = makeArticle("b", title: "B, corrected", publishedAt: t0 + 1)
    let c = makeArticle("c", publishedAt: t0 + 2)
    let result = try await storage.saveArticles([c, a, changedB], forQuery: "q", fetchedAt: at)
    #expect(counts(result) == [3, 1, 1, 1, 0])
    #expect(
      await log.next() == [StorageChange(entity: "article", inserted: articleIDs("c"), updated: articleIDs("b"))])

    // All unchanged: no change at all.
    try await storage.saveArticles([c, a, changedB], forQuery: "q2", fetchedAt: at)
    try await expectNothingBefore(sentinel: 1, storage, log)
    await storage.close()
    #expect(await log.rest() == [])
  }

  @Test("setRead and setBookmarked publish the URL as updated; an unknown URL publishes nothing")
  func localState() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    try await storage.saveArticles([makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: at)
    let log = ChangeLog(storage)
    #expect(try await storage.setRead(true, url: articleURL("a").absoluteString))
    #expect(await log.next() == [StorageChange(entity: "article", updated: articleIDs("a"))])
    #expect(try await storage.setBookmarked(true, url: articleURL("b").absoluteString, at: at.date))
    #expect(await log.next() == [StorageChange(entity: "article", updated: articleIDs("b"))])
    #expect(try await storage.setBookmarked(false, url: articleURL("b").absoluteString))
    #expect(await log.next() == [StorageChange(entity: "article", updated: articleIDs("b"))])
    #expect(try await storage.setRead(true, url: articleURL("nowhere").absoluteString) == false)
    #expect(try await storage.setBookmarked(true, url: articleURL("nowhere").absoluteString) == false)
    try await expectNothingBefore(sentinel: 1, storage, log)
  }

  @Test("deleteArticles(publishedBefore:), batchDelete and deleteAllArticles publish the deleted URLs")
  func deletions() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    try await storage.saveArticles(
      (0..<6).map { makeArticle("a\($0)", publishedAt: t0 + Int64($0) * 1000) }, forQuery: "q", fetchedAt: at)
    let log = ChangeLog(storage)

    #expect(try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0 + 2000).date) == 2)
    var change = await log.next()
    #expect(change.map(\.entity) == ["article"])
    #expect(sortedSlugs(change.first?.deleted ?? []) == ["a0", "a1"])
    #expect(change.first?.inserted == [] && change.first?.updated == [])

    #expect(try await storage.deleteArticles(publishedBefore: Timestamp(millisecondsSince1970: t0).date) == 0)
    try await expectNothingBefore(sentinel: 1, storage, log)

    let request = FetchRequest(entity: "article", predicate: .attribute("publishedAt") >= t0 + 4000)
    #expect(try await storage.batchDelete(request) == 2)
    change = await log.next()
    #expect(change.map(\.entity) == ["article"])
    #expect(sortedSlugs(change.first?.deleted ?? []) == ["a4", "a5"])
    #expect(try await storage.batchDelete(request) == 0)
    try await expectNothingBefore(sentinel: 2, storage, log)

    #expect(try await storage.deleteAllArticles() == 2)
    change = await log.next()
    #expect(change.map(\.entity) == ["article"])
    #expect(sortedSlugs(change.first?.deleted ?? []) == ["a2", "a3"])
    #expect(try await storage.deleteAllArticles() == 0)
    try await expectNothingBefore(sentinel: 3, storage, log)
    await storage.close()
    #expect(await log.rest() == [])
  }

  @Test("save(ChangeSet) publishes one change per entity with inserted, updated and deleted identities")
  func changeSet() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: People.all + [event])
    let log = ChangeLog(storage)
    try await storage.save(
      ChangeSet(upserts: [
        People.person("p1", ["name": .text("Ada")]), People.tag("t1"), People.person("p2", ["name": .text("Bob")]),
        People.person("p1", ["age": .integer(3)]),
      ]))
    #expect(
      await log.next(2) == [
        StorageChange(entity: "person", inserted: ids("p1", "p2")), StorageChange(entity: "tag", inserted: ids("t1")),
      ])

    try await storage.save(
      ChangeSet(
        upserts: [
          People.person("p2", ["name": .text("Bob")]), People.tag("t2"), People.person("p1", ["name": .text("Ada L.")]),
        ],
        deletes: [("tag", Identity(.text("t1"))), ("person", Identity(.text("p3"))), ("person", Identity(.text("p2")))])
    )
    #expect(
      await log.next(2) == [
        StorageChange(entity: "person", updated: ids("p1"), deleted: ids("p2")),
        StorageChange(entity: "tag", inserted: ids("t2"), deleted: ids("t1")),
      ])

    // Deletes only.
    try await storage.save(ChangeSet(deletes: [("tag", Identity(.text("t2")))]))
    #expect(await log.next() == [StorageChange(entity: "tag", deleted: ids("t2"))])

    // Nothing changed: nothing published.
    try await storage.save(
      ChangeSet(upserts: [People.person("p1", ["name": .text("Ada L.")])], deletes: [("tag", Identity(.text("t2")))]))
    try await expectNothingBefore(sentinel: 1, storage, log)
    await storage.close()
    #expect(await log.rest() == [])
  }

  @Test("a record whose only change is a to-many list is published as updated")
  func toManyOnlyChange() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: People.all + [event])
    try await storage.save(ChangeSet(upserts: [People.person("p1", ["name": .text("Ada")])]))
    let log = ChangeLog(storage)
    try await storage.save(ChangeSet(upserts: [People.person("p1", friends: ["p2"])]))
    #expect(
      try await storage.rows("SELECT owner, target FROM person_friends") == [[.text("p1"), .text("p2")]])
    let next = await log.next()
    #expect(next == [StorageChange(entity: "person", updated: ids("p1"))], "the friends of p1 changed unannounced")
  }

  @Test("a rolled-back write publishes nothing")
  func rolledBack() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: People.all + [event])
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: at)
    try await storage.save(ChangeSet(upserts: [People.person("p1", ["name": .text("A")])]))
    try await storage.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER poison BEFORE INSERT ON article WHEN NEW.url LIKE '%/poison'
          BEGIN SELECT RAISE(ABORT, 'poisoned row'); END
          """)
    }
    let log = ChangeLog(storage)

    // A save of articles that fails on its last row.
    _ = await storageError {
      try await storage.saveArticles(
        [makeArticle("a", title: "changed"), makeArticle("b"), makeArticle("poison")], forQuery: "q", fetchedAt: at)
    }
    try await expectNothingBefore(sentinel: 1, storage, log)

    // A change set whose last record violates NOT NULL.
    _ = await storageError {
      try await storage.save(
        ChangeSet(upserts: [
          People.tag("t"), People.person("p2", ["name": .text("B")]), People.person("p1", ["name": .null]),
        ]))
    }
    try await expectNothingBefore(sentinel: 2, storage, log)

    // A change set refused by validation.
    await invalidRequest {
      try await storage.save(ChangeSet(upserts: [People.tag("t"), People.person("p1", ["note": .text("x")])]))
    }
    try await expectNothingBefore(sentinel: 3, storage, log)

    // A raw write that throws publishes nothing.
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.write { db in
        try db.execute("UPDATE article SET isRead = 1")
        throw Boom()
      }
    }
    try await expectNothingBefore(sentinel: 4, storage, log)
    #expect(try await storage.int("SELECT count(*) FROM article") == 1)
    #expect(try await storage.int("SELECT count(*) FROM tag") == 0)
    #expect(try await storage.int("SELECT count(*) FROM person") == 1)
    await storage.close()
    #expect(await log.rest() == [])
  }

  @Test("every observer gets every change; a stream made later gets only later changes")
  func severalObservers() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    let first = ChangeLog(storage)
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: at)
    let second = ChangeLog(storage)
    try await storage.saveArticles([makeArticle("b")], forQuery: "q", fetchedAt: at)
    #expect(
      await first.next(2) == [
        StorageChange(entity: "article", inserted: articleIDs("a")),
        StorageChange(entity: "article", inserted: articleIDs("b")),
      ])
    #expect(await second.next() == [StorageChange(entity: "article", inserted: articleIDs("b"))])
    try await expectNothingBefore(sentinel: 1, storage, second)
  }

  @Test("changes arrive in commit order when writes run concurrently")
  func commitOrder() async throws {
    let rounds = 16
    let perRound = 250
    let count = rounds * perRound
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    let log = ChangeLog(storage, bufferLimit: count)
    // The race is between one writer's publication and the next writer's commit: several rounds of many
    // concurrent one-row saves make it show reliably.
    for round in 0..<rounds {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<perRound {
          group.addTask {
            try await storage.save(
              ChangeSet(upserts: [Record(entity: "event", values: ["id": .text("e\(round)-\(index)")])]))
          }
        }
        try await group.waitForAll()
      }
    }
    let published = await log.next(count).flatMap(\.inserted).map(\.description)
    // Each transaction inserted one row; rowids grow in commit order.
    let committed = try await storage.read { db in
      try db.makeStatement("SELECT id FROM event ORDER BY rowid").fetchAll { $0.string(0) ?? "" }
    }
    #expect(committed.count == count)
    #expect(Set(published) == Set(committed))
    let firstDifference = published.indices.first { $0 < committed.count && published[$0] != committed[$0] }
    let from = firstDifference ?? 0
    #expect(
      firstDifference == nil,
      "published out of commit order from position \(from): \(published[from...].prefix(4)) vs \(committed[from...].prefix(4))"
    )
  }

  @Test("a raw write is published too: rows it inserts, updates and deletes, and to-many links as an update")
  func rawWrite() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: People.all + [event])
    try await storage.saveArticles([makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: at)
    try await storage.save(ChangeSet(upserts: [People.person("p1", ["name": .text("Ada")])]))
    let log = ChangeLog(storage)

    let a = articleURL("a").absoluteString
    let b = articleURL("b").absoluteString
    try await storage.write { db in
      try db.execute("UPDATE article SET isRead = 1 WHERE url = ?1", [.text(a)])
      try db.execute("DELETE FROM article WHERE url = ?1", [.text(b)])
      try db.execute("INSERT INTO event (id, n) VALUES ('e1', 1), ('e2', 2)")
      // Inserted and deleted in the same transaction: nothing to report.
      try db.execute("INSERT INTO event (id) VALUES ('gone')")
      try db.execute("DELETE FROM event WHERE id = 'gone'")
      try db.execute("UPDATE event SET n = 3 WHERE id = 'e1'")  // still an insert of e1
      try db.execute("INSERT INTO person_friends (owner, target, position) VALUES ('p1', 'p2', 0)")
    }
    #expect(
      await log.next(3) == [
        StorageChange(entity: "article", updated: articleIDs("a"), deleted: articleIDs("b")),
        StorageChange(entity: "event", inserted: ids("e1", "e2")),
        StorageChange(entity: "person", updated: ids("p1")),
      ])

    // A raw write of tables that are no entity's (the fetch log) publishes nothing.
    try await storage.write { db in try db.execute("DELETE FROM query_fetch") }
    // Writes that report their own changes are not captured twice.
    try await storage.saveArticles([makeArticle("c")], forQuery: "q", fetchedAt: at)
    #expect(await log.next() == [StorageChange(entity: "article", inserted: articleIDs("c"))])
    try await expectNothingBefore(sentinel: 1, storage, log)
    await storage.close()
    #expect(await log.rest() == [])
  }

  @Test("a slow observer's buffer is bounded: it gets .missedChanges in place of what it did not take, then the rest")
  func boundedBuffer() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    let slow = ChangeLog(storage, bufferLimit: 3)
    let fast = ChangeLog(storage)
    for index in 0..<10 {
      try await storage.save(ChangeSet(upserts: [Record(entity: "event", values: ["id": .text("e\(index)")])]))
      // The fast observer takes each change as it comes.
      #expect(await fast.next() == [StorageChange(entity: "event", inserted: ids("e\(index)"))])
    }
    // At most 3 events wait: e0–e2 waited when e3 came, and were dropped for one .missedChanges; so on, until
    // e9 came to find .missedChanges, e7 and e8 waiting.
    #expect(
      await slow.nextEvents(2) == [.missedChanges, .change(StorageChange(entity: "event", inserted: ids("e9")))])
    try await storage.save(ChangeSet(upserts: [Record(entity: "event", values: ["id": .text("e10")])]))
    #expect(await slow.next() == [StorageChange(entity: "event", inserted: ids("e10"))])
    await storage.close()
    #expect(await slow.rest() == [])
    #expect(await fast.rest() == [StorageEvent.change(StorageChange(entity: "event", inserted: ids("e10")))])
  }

  @Test("close() ends every stream, and a stream made after it is empty")
  func closeEndsStreams() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [event])
    let log = ChangeLog(storage)
    try await storage.save(ChangeSet(upserts: [Record(entity: "event", values: ["id": .text("e")])]))
    await storage.close()
    // What was published before the close is still delivered; then the stream ends.
    #expect(await log.rest() == [.change(StorageChange(entity: "event", inserted: ids("e")))])
    var later = storage.changes().makeAsyncIterator()
    #expect(await later.next() == nil)
  }

  @Test("a write that fails right before COMMIT (an injected fault) keeps the old rows and publishes nothing")
  func failedCommitPublishesNothing() async throws {
    let database = TestDatabase()
    let failures = Countdown(2)
    let storage = try StorageContext(
      path: database.path, entities: [event],
      faults: StorageFaults(beforeWriteCommit: { if failures.take() { throw Boom() } }))
    let log = ChangeLog(storage)
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: at)
    }
    await #expect(throws: Boom.storageError(storage)) {
      try await storage.write { db in try db.execute("INSERT INTO event (id) VALUES ('raw')") }
    }
    #expect(try await storage.articleCount() == 0)
    #expect(try await storage.int("SELECT count(*) FROM event") == 0)
    try await expectNothingBefore(sentinel: 1, storage, log)
  }

  @Test("an entity recorded in the database whose table was dropped does not stop the open; raw writes still publish")
  func recordedEntityWithoutTable() async throws {
    let database = TestDatabase()
    let first = try database.open(entities: People.all + [event])
    await first.close()
    let connection = try Connection(path: database.path)
    try connection.execute(sql: "DROP TABLE tag")
    let storage = try database.open(entities: [event])
    #expect(storage.entities.contains { $0.name == "tag" }, "still recorded in schema_entity")
    let log = ChangeLog(storage)
    try await storage.write { db in try db.execute("INSERT INTO event (id) VALUES ('e')") }
    #expect(await log.next() == [StorageChange(entity: "event", inserted: ids("e"))])
  }
}
