import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync
import Synchronization
import TestSupport
import Testing

@Suite("Parse Server incremental sync")
struct ParseSyncEngineTests {
  /// Three categories/users and five articles, two per page.
  func seeded() throws -> SyncFixture {
    let fixture = try SyncFixture()
    let stub = fixture.stub
    stub.put("ArticleCategory", objectId: "cat1", updatedAt: parseDate(second: 1), fields: ["name": "World"])
    stub.put("ArticleCategory", objectId: "cat2", updatedAt: parseDate(second: 2), fields: ["name": "Tech"])
    stub.put("_User", objectId: "u1", updatedAt: parseDate(second: 1), fields: ["username": "ada"])
    for index in 1...5 {
      putArticle(
        stub, "a\(index)", title: "Title \(index)", second: 10 + index, category: "cat\(index % 2 + 1)",
        author: "u1")
    }
    return fixture
  }

  @Test("a first sync imports every object of every class, page by page, pointed-to classes first")
  func firstSync() async throws {
    let fixture = try seeded()
    let storage = try fixture.openStorage()
    let engine = fixture.engine(storage, classes: try fixture.classes())
    // ArticleCategory points at _User (its author), Article at both.
    #expect(engine.classes.map(\.className) == ["_User", "ArticleCategory", "Article"])
    let report = await engine.sync()
    #expect(report.succeeded, "\(report)")
    let article = try #require(report.classes.first { $0.className == "Article" })
    #expect(article.pages == 3)  // 2 + 2 + 1, then an empty page
    #expect(article.objects == 5)
    #expect(article.inserted == 5)
    #expect(article.cursor == "\(parseDate(second: 15)) a5")
    #expect(
      try await fixture.rows("article", "title") == [
        "a1": "Title 1", "a2": "Title 2", "a3": "Title 3", "a4": "Title 4", "a5": "Title 5",
      ])
    #expect(try await fixture.rows("parse_category", "name") == ["cat1": "World", "cat2": "Tech"])
    #expect(try await fixture.rows("parse_user", "username") == ["u1": "ada"])
    #expect(try await fixture.count("sync_page") == 0)
    // Article requests: no cursor, then after a2, after a4, after a5 (empty).
    let articleQueries = fixture.stub.queries.filter { $0.className == "Article" }
    #expect(articleQueries.count == 4)
    #expect(articleQueries.first?.whereClause == nil)
    #expect(articleQueries.allSatisfy { $0.limit == 2 })
    #expect(articleQueries.last?.whereClause?.contains(#""$gt":"a5""#) == true)
    // Every request carries the application id.
    #expect(fixture.stub.http.requests.allSatisfy { $0.header("X-Parse-Application-Id") == "test-app" })
  }

  @Test("a second sync asks only for what changed after the cursor, and rewrites nothing else")
  func incremental() async throws {
    let fixture = try seeded()
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes()).sync()
    let before = fixture.stub.http.requests.count

    // Nothing changed: one empty page per class.
    let quiet = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes()).sync()
    #expect(quiet.succeeded)
    #expect(quiet.classes.allSatisfy { $0.pages == 0 && $0.objects == 0 })
    #expect(fixture.stub.http.requests.count == before + 3)

    // One article edited, one added: only those two come back.
    putArticle(fixture.stub, "a2", title: "Title 2, edited", second: 30, category: "cat1")
    putArticle(fixture.stub, "a6", title: "Title 6", second: 31)
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes()).sync()
    let article = try #require(report.classes.first { $0.className == "Article" })
    #expect(article.objects == 2)
    #expect(article.inserted == 1)
    #expect(article.updated == 1)
    let rows = try await fixture.rows("article", "title")
    #expect(rows.count == 6)
    #expect(rows["a2"] == "Title 2, edited")
    #expect(rows["a6"] == "Title 6")
  }

  @Test("objects sharing one updatedAt across a page boundary are neither skipped nor repeated")
  func sameUpdatedAt() async throws {
    let fixture = try SyncFixture()
    for index in 1...7 { putArticle(fixture.stub, "s\(index)", title: "Same \(index)", second: 5) }
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    let article = try #require(report.classes.first)
    #expect(article.error == nil)
    #expect(article.objects == 7)
    #expect(article.inserted == 7)
    #expect(try await fixture.count("article") == 7)
  }

  @Test("a server that caps limit below the page size does not end the sync early")
  func cappedLimit() async throws {
    let fixture = try seeded()
    fixture.stub.maxLimit = 1
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"], pageSize: 3))
      .sync()
    #expect(report.classes.first?.objects == 5)
    #expect(try await fixture.count("article") == 5)
  }

  @Test("a crash between staging and import loses nothing: the next sync imports the staged page, once")
  func resumeAfterCrash() async throws {
    let fixture = try seeded()
    var engine = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    let staged = Atomic(0)
    engine.pageStaged = { _ in
      // "The process dies" right after the 2nd page is staged.
      if staged.add(1, ordering: .relaxed).newValue == 2 { throw CancellationError() }
    }
    let interrupted = await engine.sync()
    #expect(interrupted.classes.first?.error != nil)
    #expect(try await fixture.count("sync_page") == 1)
    #expect(try await fixture.rows("article", "title").keys.sorted() == ["a1", "a2"])
    // The cursor stayed at the last imported object.
    let storage = try fixture.openStorage()
    #expect(try await SyncBookkeeping.cursor(source: "stub", className: "Article", in: storage)?.objectId == "a2")

    // The server is gone: the staged page is imported all the same, then the class stops on the network.
    fixture.stub.http.stop()
    let offline = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    let part = try #require(offline.classes.first)
    #expect(part.resumedPages == 1)
    #expect(part.objects == 2)
    #expect(part.error?.contains("connection refused") == true, "\(part.error ?? "")")
    #expect(try await fixture.rows("article", "title").keys.sorted() == ["a1", "a2", "a3", "a4"])
    #expect(try await fixture.count("sync_page") == 0)
  }

  @Test("resuming after a crash then finishing: every object exactly once")
  func resumeThenFinish() async throws {
    let fixture = try seeded()
    var engine = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    engine.pageStaged = { page in if page.sequence == 1 { throw CancellationError() } }
    _ = await engine.sync()
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    let part = try #require(report.classes.first)
    #expect(part.error == nil)
    #expect(part.resumedPages == 1)
    #expect(part.inserted == 5)
    #expect(part.updated == 0)
    #expect(try await fixture.count("article") == 5)
    #expect(try await fixture.count("sync_page") == 0)
  }
}

@Suite("Parse Server sync: faults")
struct ParseSyncFaultTests {
  func fixture() throws -> SyncFixture {
    let fixture = try SyncFixture()
    for index in 1...3 { putArticle(fixture.stub, "a\(index)", title: "Title \(index)", second: index) }
    return fixture
  }

  /// Syncs the Article class once and returns its report and the rows.
  func syncArticles(_ fixture: SyncFixture, retry: RetryPolicy = .none) async throws -> (
    SyncReport.ClassReport, [String: String]
  ) {
    let report = await fixture.engine(
      try fixture.openStorage(), classes: try fixture.classes(["Article"]), retry: retry
    )
    .sync()
    return (try #require(report.classes.first), try await fixture.rows("article", "title"))
  }

  @Test(
    "a bad response is never staged and moves nothing",
    arguments: [
      ("truncated JSON", LoopbackHTTPServer.Behaviour.json(#"{"results":[{"objectId":"x1","updatedAt":"2024"#)),
      ("HTML", .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>hi</html>".utf8))),
      ("no results", .json(#"{"count":3}"#)),
      ("empty body", .respond(status: 200, body: Data())),
      ("cut mid-body", .truncated(status: 200, body: Data(#"{"results":[{"objectId":"#.utf8), declaredLength: 500)),
      ("reset mid-body", .resetMidBody(status: 200, body: Data(#"{"results":["#.utf8), declaredLength: 500)),
      ("500", .json(#"{"code":1,"error":"Internal server error."}"#, status: 500)),
      ("Parse error", .json(#"{"code":209,"error":"Invalid session token"}"#, status: 400)),
    ])
  func badResponse(_ label: String, _ behaviour: LoopbackHTTPServer.Behaviour) async throws {
    let fixture = try fixture()
    // A first page imported, then the fault on the next request.
    var engine = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    let stub = fixture.stub
    let staged = Atomic(0)
    engine.pageStaged = { _ in if staged.add(1, ordering: .relaxed).newValue == 1 { stub.inject(behaviour) } }
    let report = await engine.sync()
    let part = try #require(report.classes.first)
    #expect(part.error != nil, "\(label)")
    #expect(part.pages == 1, "\(label)")
    #expect(try await fixture.rows("article", "title").keys.sorted() == ["a1", "a2"], "\(label)")
    #expect(try await fixture.count("sync_page") == 0, "\(label)")
    let storage = try fixture.openStorage()
    #expect(try await SyncBookkeeping.cursor(source: "stub", className: "Article", in: storage)?.objectId == "a2")
    // The error is recorded with the class, and the next sync finishes the job.
    let (next, rows) = try await syncArticles(fixture)
    #expect(next.error == nil, "\(label): \(next.error ?? "")")
    #expect(rows.keys.sorted() == ["a1", "a2", "a3"], "\(label)")
  }

  @Test("Parse's error body is reported with its code and message")
  func parseError() async throws {
    let fixture = try fixture()
    fixture.stub.inject(.json(#"{"code":209,"error":"Invalid session token"}"#, status: 400))
    let (part, rows) = try await syncArticles(fixture)
    #expect(part.error == "Article: the server answered HTTP 400, code 209: Invalid session token")
    #expect(rows.isEmpty)
  }

  @Test("a wrong application id is a server error, not an empty result")
  func wrongApplicationID() async throws {
    let fixture = try fixture()
    let storage = try fixture.openStorage()
    let engine = ParseSyncEngine(
      source: "stub", server: ParseServer(serverURL: fixture.stub.serverURL, applicationID: "wrong"),
      classes: try fixture.classes(["Article"]), storage: storage, transport: CurlHTTPTransport())
    let report = await engine.sync()
    #expect(report.classes.first?.error?.contains("HTTP 403") == true)
    #expect(try await fixture.count("article") == 0)
  }

  @Test("503 and 429 with Retry-After are retried; the page then imports once")
  func retried() async throws {
    let fixture = try fixture()
    fixture.stub.inject(
      .json(#"{"code":1,"error":"busy"}"#, status: 503),
      .respond(status: 429, headers: ["Retry-After": "0"], body: Data(#"{"code":155,"error":"slow down"}"#.utf8)))
    let retry = RetryPolicy(maxAttempts: 3, initialDelay: 0.01, maxDelay: 0.05)
    let (part, rows) = try await syncArticles(fixture, retry: retry)
    #expect(part.error == nil, "\(part.error ?? "")")
    #expect(rows.count == 3)
    #expect(fixture.stub.queries.filter { $0.whereClause == nil }.count == 3)  // 2 failures + the success
  }

  @Test("a 401 is not retried")
  func notRetried() async throws {
    let fixture = try fixture()
    fixture.stub.inject(.json(#"{"code":101,"error":"unauthorized"}"#, status: 401))
    let retry = RetryPolicy(maxAttempts: 3, initialDelay: 0.01, maxDelay: 0.05)
    let (part, _) = try await syncArticles(fixture, retry: retry)
    #expect(part.error?.contains("HTTP 401") == true)
    #expect(fixture.stub.http.requests.count == 1)
  }

  @Test("a hung server times out; nothing is staged")
  func hang() async throws {
    let fixture = try fixture()
    fixture.stub.inject(.hang)
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]), timeout: 1)
      .sync()
    #expect(report.classes.first?.error?.contains("timed out") == true, "\(report)")
    #expect(try await fixture.count("sync_page") == 0)
  }

  @Test("a server that ignores the cursor is caught instead of looping")
  func ignoredWhere() async throws {
    let fixture = try fixture()
    fixture.stub.ignoreWhere = true
    let (part, rows) = try await syncArticles(fixture)
    #expect(part.error?.contains("is `where` ignored?") == true, "\(part.error ?? "")")
    #expect(rows.count == 2)  // the first page is fine
    #expect(fixture.stub.http.requests.count == 2)
  }

  @Test("a bad value is reported as a warning and costs only that value; the page and the cursor move on")
  func badObject() async throws {
    let fixture = try fixture()
    fixture.stub.put(
      "Article", objectId: "bad", updatedAt: parseDate(second: 2, millisecond: 500),
      fields: ["title": "Bad", "createdAt": "yesterday"])
    let (part, rows) = try await syncArticles(fixture)
    #expect(part.error == nil)
    #expect(part.objects == 4)
    #expect(part.failed == 0)
    #expect(part.errors == [])
    #expect(part.warnings.first?.identity == "news-item:parse:Article/bad")
    #expect(part.warnings.first?.keyPath.hasSuffix("createdAt") == true)
    #expect(rows.keys.sorted() == ["a1", "a2", "a3", "bad"])
  }

  @Test("the REST key is sent and never appears in an error")
  func secretRedacted() async throws {
    let fixture = try fixture()
    let key = "rest-key-0123456789abcdef"
    fixture.stub.inject(.json(#"{"code":141,"error":"echo \#(key)"}"#, status: 400))
    let engine = ParseSyncEngine(
      source: "stub",
      server: ParseServer(serverURL: fixture.stub.serverURL, applicationID: "test-app", restAPIKey: key),
      classes: try fixture.classes(["Article"]), storage: try fixture.openStorage(),
      transport: CurlHTTPTransport(secrets: [key]))
    let report = await engine.sync()
    let error = try #require(report.classes.first?.error)
    #expect(!error.contains(key))
    #expect(error.contains("<redacted>"))
    #expect(fixture.stub.http.requests.first?.header("X-Parse-REST-API-Key") == key)
  }
}

@Suite("Parse Server sync: what real servers do")
struct ParseSyncServerQuirkTests {
  @Test("a server that collates objectIds ignoring case (PostgreSQL) is followed in its own order")
  func caseInsensitiveCollation() async throws {
    let fixture = try SyncFixture()
    fixture.stub.caseInsensitiveObjectIds = true
    fixture.stub.maxLimit = 1
    for id in ["Zz01", "aa02", "AB03", "ab04", "Ba05", "bB06", "zz07"] {
      putArticle(fixture.stub, id, title: id, second: 7)
    }
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    #expect(report.classes.first?.error == nil, "\(report)")
    #expect(try await fixture.count("article") == 7)
  }

  @Test("a 200 carrying a Parse error body is a server error with its code")
  func errorBodyWith200() async throws {
    let fixture = try SyncFixture()
    putArticle(fixture.stub, "a1", title: "One", second: 1)
    fixture.stub.inject(.json(#"{"code":141,"error":"Cloud code failed"}"#))
    let report = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    #expect(report.classes.first?.error == "Article: the server answered HTTP 200, code 141: Cloud code failed")
    #expect(report.classes.first?.errorKind == .server)
  }

  @Test("a page over the size limit stops the transfer and imports nothing")
  func pageOverLimit() async throws {
    let fixture = try SyncFixture()
    for index in 1...20 {
      putArticle(fixture.stub, "a\(index)", title: String(repeating: "long title ", count: 50), second: index)
    }
    var classes = try fixture.classes(["Article"], pageSize: 100)
    classes[0].maxPageBytes = 2_000
    let report = await fixture.engine(try fixture.openStorage(), classes: classes).sync()
    #expect(report.classes.first?.error?.contains("over the limit") == true, "\(report)")
    #expect(try await fixture.count("article") == 0)
  }

  @Test("a successful sync with nothing new clears the class's last error and records the time")
  func clearsLastError() async throws {
    let fixture = try SyncFixture()
    putArticle(fixture.stub, "a1", title: "One", second: 1)
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    fixture.stub.inject(.json(#"{"code":1,"error":"down"}"#, status: 500))
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    let storage = try fixture.openStorage()
    let failed = try await storage.fetch(FetchRequest(entity: "sync_cursor"))
    #expect(failed.first?["lastError"] != .null)
    var engine = fixture.engine(storage, classes: try fixture.classes(["Article"]))
    engine.now = { Date(timeIntervalSince1970: 1_900_000_000) }
    let report = await engine.sync()
    #expect(report.succeeded)
    let row = try #require(try await storage.fetch(FetchRequest(entity: "sync_cursor")).first)
    #expect(row["lastError"] == .null)
    #expect(row["syncedAt"] == .integer(1_900_000_000_000))
  }

  @Test("a cursor taken on another server is not used: a moved source starts over")
  func serverMoved() async throws {
    let fixture = try SyncFixture()
    putArticle(fixture.stub, "a1", title: "One", second: 50)
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    let other = try ParseServerStub()
    putArticle(other, "b1", title: "Older elsewhere", second: 10)
    let engine = ParseSyncEngine(
      source: "stub", server: ParseServer(serverURL: other.serverURL, applicationID: other.applicationID),
      classes: try fixture.classes(["Article"]), storage: try fixture.openStorage(),
      transport: CurlHTTPTransport())
    let report = await engine.sync()
    #expect(report.classes.first?.inserted == 1)
    #expect(try await fixture.rows("article", "title").keys.sorted() == ["a1", "b1"])
  }

  @Test("fromTheBeginning (news sync --full) asks for everything again and rewrites nothing unchanged")
  func full() async throws {
    let fixture = try SyncFixture()
    for index in 1...3 { putArticle(fixture.stub, "a\(index)", title: "T\(index)", second: index) }
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    var engine = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    engine.fromTheBeginning = true
    let report = await engine.sync()
    let part = try #require(report.classes.first)
    #expect(part.objects == 3)
    #expect(part.unchanged == 3)
    #expect(part.cursor == "\(parseDate(second: 3)) a3")
  }

  @Test("a full sync with deleteMissing removes what the server deleted; an incremental or interrupted one never does")
  func deleteMissing() async throws {
    let fixture = try SyncFixture()
    for index in 1...5 { putArticle(fixture.stub, "a\(index)", title: "T\(index)", second: index) }
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    fixture.stub.remove("Article", objectId: "a2")
    fixture.stub.remove("Article", objectId: "a5")

    // Incremental: nothing to see.
    _ = await fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"])).sync()
    #expect(try await fixture.count("article") == 5)

    // Full, but the second page fails: nothing deleted.
    var interrupted = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    interrupted.fromTheBeginning = true
    interrupted.deleteMissing = true
    let stub = fixture.stub
    interrupted.pageStaged = { _ in stub.inject(.json(#"{"code":1,"error":"down"}"#, status: 500)) }
    let failed = await interrupted.sync()
    #expect(failed.classes.first?.error != nil)
    #expect(failed.classes.first?.deleted == 0)
    #expect(try await fixture.count("article") == 5)

    var full = fixture.engine(try fixture.openStorage(), classes: try fixture.classes(["Article"]))
    full.fromTheBeginning = true
    full.deleteMissing = true
    let report = await full.sync()
    #expect(report.classes.first?.error == nil)
    #expect(report.classes.first?.deleted == 2)
    #expect(try await fixture.rows("article", "title").keys.sorted() == ["a1", "a3", "a4"])
  }

  @Test("an eager file that failed is retried by the next sync, though its object did not change")
  func fileRetried() async throws {
    let fixture = try SyncFixture()
    let url = fixture.stub.http.url("/files/later.png")
    putArticle(fixture.stub, "a1", title: "One", second: 1, image: url)
    let policy = FileDownloads(attributes: ["image"], mode: .eager)
    let first = await fixture.engine(
      try fixture.openStorage(), classes: try fixture.classes(["Article"], files: policy)
    )
    .sync()
    #expect(first.classes.first?.fileErrors.count == 1)  // 404, tried once in the run
    fixture.stub.putFile("later.png", contentType: "image/png", body: Data([1, 2, 3]))
    let second = await fixture.engine(
      try fixture.openStorage(), classes: try fixture.classes(["Article"], files: policy)
    )
    .sync()
    #expect(second.classes.first?.pages == 0)
    #expect(second.classes.first?.filesDownloaded == 1)
  }
}

@Suite("Parse Server sync: relations")
struct ParseSyncRelationTests {
  @Test("Relation members are synced as the object's whole to-many list, and follow the server's changes")
  func relations() async throws {
    let fixture = try SyncFixture()
    let stub = fixture.stub
    for tag in ["t1", "t2", "t3"] {
      stub.put("ArticleTag", objectId: tag, updatedAt: parseDate(second: 1), fields: ["name": "Tag \(tag)"])
    }
    let relation: [String: Any] = ["__type": "Relation", "className": "ArticleTag"]
    for index in 1...3 {
      stub.put(
        "Article", objectId: "a\(index)", updatedAt: parseDate(second: 10 + index),
        fields: ["title": "Title \(index)", "tags": relation])
    }
    stub.relate("Article", "a1", key: "tags", members: ["t1", "t2"])
    stub.relate("Article", "a2", key: "tags", members: ["t3"])
    var classes = try fixture.classes(["ArticleTag", "Article"])
    classes[1].relations = ["tags"]
    let first = await fixture.engine(try fixture.openStorage(), classes: classes).sync()
    #expect(first.succeeded, "\(first)")
    #expect(try await tags(fixture) == ["a1": ["t1", "t2"], "a2": ["t3"], "a3": []])
    // 3 relation queries, one per article.
    #expect(stub.http.requests.filter { $0.target.contains("relatedTo") }.count == 3)

    // On the server, a1 loses t1 and gains t3 (its updatedAt moves, as Parse does).
    stub.relate("Article", "a1", key: "tags", members: ["t2", "t3"])
    stub.put(
      "Article", objectId: "a1", updatedAt: parseDate(second: 30), fields: ["title": "Title 1", "tags": relation])
    let second = await fixture.engine(try fixture.openStorage(), classes: classes).sync()
    #expect(second.classes.last?.objects == 1)
    #expect(try await tags(fixture) == ["a1": ["t2", "t3"], "a2": ["t3"], "a3": []])
  }

  /// Each article's tags, from the join table of `article.parseTags`.
  func tags(_ fixture: SyncFixture) async throws -> [String: [String]] {
    let storage = try fixture.openStorage()
    let rows = try await storage.read { db in
      try db.makeStatement("SELECT owner, target FROM article_parseTags ORDER BY owner, target").fetchAll {
        // The owner is the article's key, its objectId scoped to parse:Article.
        (($0.string(0) ?? "").replacingOccurrences(of: "news-item:parse:Article/", with: ""), $0.string(1) ?? "")
      }
    }
    var result: [String: [String]] = [:]
    for article in try await fixture.rows("article", "title").keys { result[article] = [] }
    for (owner, target) in rows { result[owner, default: []].append(target) }
    return result
  }
}
