import Foundation
import OfflineNews
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// Conditional requests (RFC 9110 §13.1): validators stored with a good response are sent back, and a `304 Not
/// Modified` refreshes the fetch time without rewriting a row.
@Suite("Conditional requests: ETag, Last-Modified, 304")
struct ConditionalRequestTests {
  static let firstBody = Data(NewsRepositoryTests.firstBody.utf8)
  static let laterBody = Data(NewsRepositoryTests.laterBody.utf8)

  /// The article rows as stored, every column (local state and fetch times included).
  static func articleRows(_ storage: StorageContext) async throws -> [[String]] {
    try await storage.read { db in
      try db.makeStatement("SELECT * FROM article ORDER BY url").fetchAll { row in
        (0..<row.count).map { row.isNull($0) ? "NULL" : row.string($0) ?? "?" }
      }
    }
  }

  @Test("ETag: the next request sends If-None-Match; a 304 refreshes fetchedAt, rewrites no row")
  func etagThen304() async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    let first = try await setup.repository.articles(for: setup.query)
    #expect(first.origin == .network)
    #expect(setup.server.requests.first?.header("If-None-Match") == nil)
    var record = try await setup.record()
    #expect(record?.etag == #""v1""#)
    #expect(record?.lastModified == nil)
    let rowsBefore = try await Self.articleRows(setup.storage)
    let writes = Mutex<[String]>([])
    try await setup.storage.traceWrites { sql in writes.withLock { $0.append(sql) } }

    setup.clock.advance(seconds: 3600)
    let second = try await setup.repository.articles(for: setup.query)

    #expect(setup.server.requests.count == 2)
    #expect(setup.server.requests.last?.header("If-None-Match") == #""v1""#)
    #expect(second.origin == .network)
    #expect(second.revalidated)
    #expect(second.fetchedTimestamp == setup.clock.now)
    #expect(second.age == 0)
    #expect(second.articles == first.articles)
    #expect(try await Self.articleRows(setup.storage) == rowsBefore)
    #expect(!writes.withLock { $0 }.contains { $0.contains("article") }, "\(writes.withLock { $0 })")
    record = try await setup.record()
    #expect(record?.fetchedAt == setup.clock.now)
    #expect(record?.etag == #""v1""#)
    #expect(record?.articleCount == 3)
  }

  /// An entity tag that is not UTF-8: `"caf` `E9 FF FE` `"` (RFC 9110 §5.5 `obs-text`; tester11's `/nonutf8`).
  static let latinTag: [UInt8] = Array(#""caf"#.utf8) + [0xE9, 0xFF, 0xFE, 0x22]

  /// The octets of field `name` (any letter case) in a request head's bytes, as sent; `nil` when it has none.
  static func field(_ name: String, in head: Data) -> [UInt8]? {
    let bytes = [UInt8](head)
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    for index in bytes.indices where bytes[index] == 0x0A {
      lines.append(bytes[start..<(index > start && bytes[index - 1] == 0x0D ? index - 1 : index)])
      start = index + 1
    }
    lines.append(bytes[start...])
    for line in lines {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
        String(decoding: line[..<colon], as: UTF8.self).lowercased() == name.lowercased()
      else { continue }
      let value = line[line.index(after: colon)...].drop { $0 == 0x20 || $0 == 0x09 }
      return Array(value.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
    }
    return nil
  }

  @Test("an ETag that is not UTF-8 goes back byte for byte, through the store: the second read is a 304")
  func nonUTF8ETag() async throws {
    let setup = try PolicySetup()
    defer { setup.server.stop() }
    let tag = Self.latinTag
    let body = Self.firstBody
    // The server compares the bytes of If-None-Match with its own entity tag, as an origin server does.
    setup.server.router = { request in
      if Self.field("If-None-Match", in: request.head) == tag {
        return .raw(Data("HTTP/1.1 304 Not Modified\r\nETag: ".utf8) + tag + Data("\r\nConnection: close\r\n\r\n".utf8))
      }
      let head =
        Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: ".utf8) + tag
        + Data("\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
      return .raw(head + body)
    }
    let first = try await setup.repository.articles(for: setup.query)
    #expect(first.origin == .network)
    #expect(!first.revalidated)
    #expect(try await setup.record()?.etag?.unicodeScalars.map(\.value) == tag.map(UInt32.init))
    setup.clock.advance(seconds: 3600)
    let second = try await setup.repository.articles(for: setup.query)
    #expect(setup.server.requests.count == 2)
    #expect(Self.field("If-None-Match", in: setup.server.requests.last?.head ?? Data()) == tag)
    #expect(second.revalidated, "a 304: the server saw its own entity tag")
    #expect(second.articles == first.articles)
  }

  @Test("Last-Modified: the next request sends If-Modified-Since with the same date")
  func lastModifiedThen304() async throws {
    let date = "Wed, 21 Oct 2015 07:28:00 GMT"
    let setup = try PolicySetup(.conditional(etag: nil, lastModified: date, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.clock.advance(seconds: 1)
    let second = try await setup.repository.articles(for: setup.query)

    #expect(setup.server.requests.last?.header("If-Modified-Since") == date)
    #expect(setup.server.requests.last?.header("If-None-Match") == nil)
    #expect(second.revalidated)
    #expect(try await setup.record()?.lastModified == date)
  }

  @Test("a changed resource answers 200 to the conditional request: the rows and the ETag are replaced")
  func changedResource() async throws {
    let setup = try PolicySetup(.conditional(etag: #"W/"a""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.server.behaviour = .conditional(etag: #"W/"b""#, lastModified: nil, body: Self.laterBody)

    let result = try await setup.repository.articles(for: setup.query)

    #expect(setup.server.requests.last?.header("If-None-Match") == #"W/"a""#)
    #expect(!result.revalidated)
    #expect(result.articles.map(\.title) == CachePolicyTests.laterTitles)
    #expect(try await setup.record()?.etag == #"W/"b""#)
  }

  @Test("a 200 without validators clears the stored ones: the request after is unconditional")
  func validatorsCleared() async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    setup.server.behaviour = .json(NewsRepositoryTests.laterBody)
    _ = try await setup.repository.articles(for: setup.query)
    #expect(try await setup.record()?.etag == nil)
    _ = try await setup.repository.articles(for: setup.query)
    #expect(setup.server.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#, nil])
  }

  @Test("validators are sent when some of the query's rows were deleted: a 304 keeps the rest, which a 200 would")
  func partlyDeletedIsConditional() async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    let deleted = try await setup.repository.delete(publishedBefore: Date(timeIntervalSince1970: 1_699_950_000))
    #expect(deleted == 1)

    let result = try await setup.repository.articles(for: setup.query)

    #expect(setup.server.requests.last?.header("If-None-Match") == #""v1""#)
    #expect(result.revalidated)
    // The deleted article stays deleted (its key is remembered), as a 200 would have left it out too.
    #expect(result.articles.count == 2)
  }

  /// The tester's report: once every item of a feed was deleted (`news delete --before`) or evicted, the next
  /// refreshes were unconditional, every time (the empty result list made the validators look unusable).
  @Test(
    "every row deleted or evicted: each later refresh sends If-None-Match and a 304 keeps the empty list",
    arguments: ["deleted", "evicted"])
  func emptiedListStaysConditional(_ how: String) async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    // Evicted: a second store on the same file whose eviction keeps no article (as `"eviction"` configured).
    let storage =
      how == "evicted"
      ? try StorageContext(path: setup.directory.path("news.sqlite"), eviction: EvictionPolicy(maxArticles: 0))
      : setup.storage
    let clock = setup.clock
    let repository = NewsRepository(storage: storage, network: setup.network, clock: { clock.now })
    _ = try await repository.articles(for: setup.query)
    if how == "deleted" {
      #expect(try await repository.delete(publishedBefore: Date(timeIntervalSince1970: 2_000_000_000)) == 3)
    }
    #expect(try await repository.cachedArticles(for: setup.query).articles.isEmpty)
    // A 200 of the same items first (a server that ignores validators): every item is left out, none is saved.
    setup.server.behaviour = .respond(
      status: 200, headers: ["Content-Type": "application/json", "ETag": #""v1""#], body: Self.firstBody)
    let full = try await repository.articles(for: setup.query)
    #expect(full.saved?.remembered == 3)
    #expect(full.articles.isEmpty)
    setup.server.behaviour = .conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody)

    for _ in 0..<2 {
      clock.advance(seconds: 600)
      let result = try await repository.articles(for: setup.query)
      #expect(result.revalidated)
      #expect(result.origin == .network)
      #expect(result.articles.isEmpty)
      #expect(result.fetchedTimestamp == clock.now)
    }
    #expect(setup.server.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#, #""v1""#, #""v1""#])
    #expect(try await repository.cachedArticles(for: setup.query).articles.isEmpty)
  }

  @Test("forgetting the deleted articles forgets the validators: the next refresh is unconditional and saves them")
  func forgetDeletedIsUnconditional() async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query)
    #expect(try await setup.repository.delete(publishedBefore: Date(timeIntervalSince1970: 2_000_000_000)) == 3)
    #expect(try await setup.repository.forgetDeletedArticles() == 3)
    #expect(try await setup.record()?.etag == nil)

    let result = try await setup.repository.articles(for: setup.query)

    #expect(setup.server.requests.map { $0.header("If-None-Match") } == [nil, nil])
    #expect(!result.revalidated)
    #expect(result.articles.count == 3)
    #expect(try await setup.record()?.etag == #""v1""#)
  }

  @Test("cache-first with stale rows revalidates: a 304 makes them fresh again")
  func cacheFirstRevalidates() async throws {
    let setup = try PolicySetup(.conditional(etag: #""v1""#, lastModified: nil, body: Self.firstBody))
    defer { setup.server.stop() }
    _ = try await setup.repository.articles(for: setup.query, policy: .cacheFirst, maxAge: 60)
    setup.clock.advance(seconds: 120)
    let stale = try await setup.repository.articles(for: setup.query, policy: .cacheOnly)
    #expect(stale.isStale)

    let result = try await setup.repository.articles(for: setup.query, policy: .cacheFirst)
    #expect(result.revalidated)
    #expect(!result.isStale)
    let after = try await setup.repository.articles(for: setup.query, policy: .cacheFirst)
    #expect(after.origin == .cache)
    #expect(!after.isStale)
    #expect(setup.server.requests.count == 2)
  }

  @Test("a 304 to an unconditional request is an invalid response, not a success")
  func unsolicited304() async throws {
    let setup = try PolicySetup(.respond(status: 304, headers: ["ETag": #""x""#], body: Data()))
    defer { setup.server.stop() }
    let error = await repositoryError { () async throws(NewsRepositoryError) in
      try await setup.repository.articles(for: setup.query)
    }
    #expect(
      error?.networkError
        == .invalidResponse(BodyProblem(.protocolViolation, "304 Not Modified to an unconditional request")))
    #expect(try await setup.storage.articleCount() == 0)
  }
}
