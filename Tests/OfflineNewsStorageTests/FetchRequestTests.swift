import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// Books whose titles and notes hold SQL metacharacters and LIKE wildcards.
private enum Books {
  static let entity = EntityDescription(
    name: "book", identity: ["id"],
    attributes: [
      Attribute("id", .integer), Attribute("title", .text, optional: false), Attribute("pages", .integer),
      Attribute("rating", .real), Attribute("available", .bool), Attribute("published", .date),
      Attribute("note", .text),
    ],
    relationships: [Relationship("authors", to: "writer", .toMany)])

  /// id, title, pages, rating, available, published, note.
  static let rows: [[DatabaseValue]] = [
    [.integer(1), .text("50% off"), .integer(100), .real(4.5), .integer(1), .integer(t0), .text("sale")],
    [.integer(2), .text("50X off"), .integer(200), .real(3), .integer(0), .integer(t0 + 1000), .null],
    [.integer(3), .text("a_b"), .integer(300), .null, .integer(1), .integer(t0 + 2000), .text("under_score")],
    [.integer(4), .text("aXb"), .integer(150), .real(2.5), .integer(0), .null, .null],
    [.integer(5), .text("O'Reilly"), .integer(250), .real(5), .integer(1), .integer(t0 - 1000), .text("quote's")],
    [.integer(6), .text("back\\slash"), .integer(50), .real(1), .null, .integer(t0 + 3000), .text("100%")],
    [
      .integer(7), .text("' OR 1=1 --"), .integer(75), .null, .integer(0), .integer(t0),
      .text("x'); DROP TABLE book; --"),
    ],
    [.integer(8), .text("\u{C9}clair \u{E9}t\u{E9}"), .integer(120), .real(4), .integer(1), .integer(t0 + 500), .null],
    [.integer(9), .text("drop table"), .null, .null, .null, .null, .null],
  ]
  static let columns = ["id", "title", "pages", "rating", "available", "published", "note"]

  static let authors: [Int64: [String]] = [1: ["w1", "w2"], 2: ["w1"], 4: ["w3"], 5: ["w2"], 7: ["w4"]]

  static func seeded(_ database: TestDatabase) async throws -> StorageContext {
    let storage = try database.open(entities: [entity])
    let records = rows.map { row in
      var record = Record(entity: "book", values: Dictionary(uniqueKeysWithValues: zip(columns, row)))
      if case .integer(let id) = row[0], let names = authors[id] {
        record.toMany["authors"] = names.map(DatabaseValue.text)
      }
      return record
    }
    #expect(try await storage.save(ChangeSet(upserts: records)) == ["book": SaveSummary(inserted: 9)])
    return storage
  }
}

@Suite("Fetch requests: predicates, sorting, paging, counting, batch delete")
struct FetchRequestTests {
  private func ids(_ storage: StorageContext, _ request: FetchRequest) async throws -> [Int64] {
    try await storage.fetch(request).map { record in
      if case .integer(let id) = record["id"] { return id }
      return -1
    }
  }

  private func ids(_ storage: StorageContext, where predicate: FetchPredicate?) async throws -> [Int64] {
    try await ids(storage, FetchRequest(entity: "book", predicate: predicate, sortDescriptors: [.init("id")]))
  }

  private static let all: [Int64] = Array(1...9)

  /// Predicates and the ids they select.
  static let cases: [(predicate: FetchPredicate, ids: [Int64])] = [
    (.attribute("title") == "O'Reilly", [5]),
    (.attribute("title") == "' OR 1=1 --", [7]),
    (.attribute("title") == "x' OR '1'='1", []),
    (.attribute("note") == "x'); DROP TABLE book; --", [7]),
    (.attribute("title") == "back\\slash", [6]),
    (.attribute("pages") == 100, [1]),
    (.attribute("pages") == DatabaseValue.null, []),
    (.attribute("pages") != 100, [2, 3, 4, 5, 6, 7, 8]),
    (.attribute("pages") < 100, [6, 7]),
    (.attribute("pages") <= 100, [1, 6, 7]),
    (.attribute("pages") > 200, [3, 5]),
    (.attribute("pages") >= 200, [2, 3, 5]),
    (.attribute("rating") >= 4.0, [1, 5, 8]),
    (.attribute("rating") < 3, [4, 6]),
    (.attribute("available") == true, [1, 3, 5, 8]),
    (.attribute("available") == false, [2, 4, 7]),
    (.attribute("published") >= Timestamp(millisecondsSince1970: t0).date, [1, 2, 3, 6, 7, 8]),
    (.attribute("published") < Timestamp(millisecondsSince1970: t0), [5]),
    (.attribute("id").in([1, 3, 99]), [1, 3]),
    (.attribute("title").in(["a_b", "aXb", "nope", "%"]), [3, 4]),
    (.attribute("id").in([Int]()), []),
    (!.attribute("id").in([Int]()), all),
    (.attribute("title").like("50% off"), [1, 2]),
    (.attribute("title").like("50\\% off"), [1]),
    (.attribute("title").like("a_b"), [3, 4]),
    (.attribute("title").like("a\\_b"), [3]),
    (.attribute("title").like("back\\\\slash"), [6]),
    (.attribute("title").like("o'r%"), [5]),
    (.attribute("title").like("%"), all),
    (.attribute("title").contains("%"), [1]),
    (.attribute("note").contains("%"), [6]),
    (.attribute("title").contains("_"), [3]),
    (.attribute("note").contains("_"), [3]),
    (.attribute("title").contains("\\"), [6]),
    (.attribute("title").contains("'"), [5, 7]),
    (.attribute("note").contains("x'); drop"), [7]),
    (.attribute("title").contains("OFF"), [1, 2]),
    (.attribute("title").contains("0% o"), [1]),
    (.attribute("title").contains("\u{C9}clair"), [8]),
    (.attribute("note").isNull, [2, 4, 8, 9]),
    (.attribute("note").isNotNull, [1, 3, 5, 6, 7]),
    (.attribute("available") == true && .attribute("pages") > 100, [3, 5, 8]),
    (.attribute("pages") < 60 || .attribute("rating") == 5.0, [5, 6]),
    // SQL semantics: NOT of a comparison with NULL is not true.
    (!(.attribute("available") == true), [2, 4, 7]),
    (
      (.attribute("title").contains("o") || .attribute("title").like("a%")) && !.attribute("pages").in([150]),
      [1, 2, 3, 5, 7]
    ),
    (.and([]), all),
    (.or([]), []),
    (.not(.and([])), []),
    (.not(.or([])), all),
    (.and([.attribute("id") > 2, .attribute("id") < 8, .attribute("id") != 5]), [3, 4, 6, 7]),
    (.or([.attribute("id") == 1, .attribute("id") == 9, .attribute("title") == "aXb"]), [1, 4, 9]),
  ]

  @Test(
    "each predicate selects exactly its rows; values are bound, never spliced",
    arguments: 0..<FetchRequestTests.cases.count)
  func predicate(_ index: Int) async throws {
    let (predicate, expected) = Self.cases[index]
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    #expect(try await ids(storage, where: predicate) == expected, "\(predicate)")
    #expect(try await storage.count(FetchRequest(entity: "book", predicate: predicate)) == expected.count)
    // Nothing ran but the read: every row and join row is still there.
    #expect(try await storage.int("SELECT count(*) FROM book") == 9)
    #expect(try await storage.int("SELECT count(*) FROM book_authors") == 6)
  }

  @Test("sort descriptors order by several attributes, ascending and descending, NULLs first ascending")
  func sorting() async throws {
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    #expect(
      try await ids(
        storage, FetchRequest(entity: "book", sortDescriptors: [.init("available", ascending: false), .init("pages")]))
        == [1, 8, 5, 3, 7, 4, 2, 9, 6])
    #expect(
      try await ids(storage, FetchRequest(entity: "book", sortDescriptors: [.init("title")])) == [
        7, 1, 2, 5, 4, 3, 6, 9, 8,
      ])
    #expect(
      try await ids(storage, FetchRequest(entity: "book", sortDescriptors: [FetchPredicate.attribute("id").descending]))
        == [9, 8, 7, 6, 5, 4, 3, 2, 1])
    #expect(
      try await ids(
        storage,
        FetchRequest(
          entity: "book",
          sortDescriptors: [FetchPredicate.attribute("rating").ascending, FetchPredicate.attribute("id").descending]))
        == [9, 7, 3, 6, 4, 2, 8, 1, 5])
  }

  @Test("limit and offset page through the sorted rows; count ignores them")
  func paging() async throws {
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    func page(_ limit: Int?, _ offset: Int) async throws -> [Int64] {
      try await ids(storage, FetchRequest(entity: "book", sortDescriptors: [.init("id")], limit: limit, offset: offset))
    }
    #expect(try await page(3, 0) == [1, 2, 3])
    #expect(try await page(3, 2) == [3, 4, 5])
    #expect(try await page(3, 8) == [9])
    #expect(try await page(3, 9) == [])
    #expect(try await page(0, 0) == [])
    #expect(try await page(nil, 7) == [8, 9])
    #expect(try await page(2, -5) == [1, 2])
    let available = FetchRequest(
      entity: "book", predicate: .attribute("available") == true, sortDescriptors: [.init("pages", ascending: false)],
      limit: 2, offset: 1)
    #expect(try await ids(storage, available) == [5, 8])
    #expect(try await storage.count(available) == 4)
    #expect(try await storage.count(FetchRequest(entity: "book")) == 9)
  }

  static let unknownAttributes: [(label: String, request: FetchRequest)] = [
    ("compare", FetchRequest(entity: "book", predicate: .attribute("nope") == 1)),
    ("in", FetchRequest(entity: "book", predicate: .attribute("nope").in([1]))),
    ("empty in", FetchRequest(entity: "book", predicate: .attribute("nope").in([Int]()))),
    ("like", FetchRequest(entity: "book", predicate: .attribute("nope").like("%"))),
    ("contains", FetchRequest(entity: "book", predicate: .attribute("nope").contains("x"))),
    ("isNull", FetchRequest(entity: "book", predicate: .attribute("nope").isNull)),
    ("isNotNull", FetchRequest(entity: "book", predicate: .attribute("nope").isNotNull)),
    ("nested", FetchRequest(entity: "book", predicate: .attribute("id") == 1 || !(.attribute("nope") == 1))),
    ("sort", FetchRequest(entity: "book", sortDescriptors: [.init("id"), .init("nope")])),
    ("to-many as attribute", FetchRequest(entity: "book", predicate: .attribute("authors").isNotNull)),
    ("injection", FetchRequest(entity: "book", predicate: .attribute("title = '' OR 1=1 --") == "x")),
    ("injection in isNull", FetchRequest(entity: "book", predicate: .attribute("1=1 OR title").isNull)),
    ("injection in sort", FetchRequest(entity: "book", sortDescriptors: [.init("(SELECT 1); DROP TABLE book; --")])),
    ("quoted name", FetchRequest(entity: "book", predicate: .attribute("title\" OR \"1\"=\"1") == "x")),
  ]

  @Test(
    "an unknown attribute, or SQL as an attribute name, is refused with .invalidRequest and nothing runs",
    arguments: 0..<FetchRequestTests.unknownAttributes.count)
  func unknownAttribute(_ index: Int) async throws {
    let (label, request) = Self.unknownAttributes[index]
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    let changes = try await storage.totalChanges()
    // count and batchDelete use no sort descriptors (and a batch delete with no predicate deletes every row).
    let operations = request.predicate == nil ? ["fetch"] : ["fetch", "count", "batchDelete"]
    for operation in operations {
      let message = await invalidRequest {
        switch operation {
        case "fetch": _ = try await storage.fetch(request)
        case "count": _ = try await storage.count(request)
        default: try await storage.batchDelete(request)
        }
      }
      #expect(message?.contains("entity book has no attribute") == true, "\(label) \(operation): \(message ?? "")")
    }
    #expect(try await storage.totalChanges() == changes)
    #expect(try await storage.int("SELECT count(*) FROM book") == 9)
    #expect(try await storage.int("SELECT count(*) FROM book_authors") == 6)
  }

  @Test("an unknown entity is refused with .invalidRequest", arguments: ["ghost", "book\" WHERE 1=1 --", "BOOK", ""])
  func unknownEntity(_ name: String) async throws {
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    for operation in ["fetch", "count", "batchDelete"] {
      let request = FetchRequest(entity: name)
      let message = await invalidRequest {
        switch operation {
        case "fetch": _ = try await storage.fetch(request)
        case "count": _ = try await storage.count(request)
        default: try await storage.batchDelete(request)
        }
      }
      #expect(message?.contains("no entity named") == true, "\(operation): \(message ?? "")")
    }
    #expect(try await storage.int("SELECT count(*) FROM book") == 9)
  }

  @Test("batchDelete removes exactly the matching rows and their join rows, and returns the count")
  func batchDelete() async throws {
    let database = TestDatabase()
    let storage = try await Books.seeded(database)
    let joinRows = "SELECT owner, target FROM book_authors ORDER BY owner, target"
    #expect(
      try await storage.batchDelete(FetchRequest(entity: "book", predicate: .attribute("available") == false)) == 3)
    #expect(try await ids(storage, where: nil) == [1, 3, 5, 6, 8, 9])
    #expect(
      try await storage.rows(joinRows) == [
        [.integer(1), .text("w1")], [.integer(1), .text("w2")], [.integer(5), .text("w2")],
      ])
    // The remaining rows are untouched.
    let remaining = try await storage.rows("SELECT \(Books.columns.joined(separator: ", ")) FROM book ORDER BY id")
    #expect(remaining == Books.rows.filter { row in [1, 3, 5, 6, 8, 9].map(DatabaseValue.integer).contains(row[0]) })

    // A literal value with SQL in it deletes the one row holding exactly that value.
    #expect(
      try await storage.batchDelete(FetchRequest(entity: "book", predicate: .attribute("title") == "' OR 1=1 --")) == 0)
    #expect(
      try await storage.batchDelete(FetchRequest(entity: "book", predicate: .attribute("title").contains("%"))) == 1)
    #expect(try await ids(storage, where: nil) == [3, 5, 6, 8, 9])
    #expect(try await storage.rows(joinRows) == [[.integer(5), .text("w2")]])
    // Nothing matches: nothing deleted.
    #expect(try await storage.batchDelete(FetchRequest(entity: "book", predicate: .or([]))) == 0)
    #expect(try await storage.int("SELECT count(*) FROM book") == 5)
    // The limit is not a batch delete's concern: no predicate deletes every row.
    #expect(try await storage.batchDelete(FetchRequest(entity: "book", limit: 1)) == 5)
    #expect(try await storage.int("SELECT count(*) FROM book") == 0)
    #expect(try await storage.rows(joinRows) == [])
  }

  @Test("batchDelete on the article entity removes the articles and their places in query results")
  func batchDeleteArticles() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles(
      [
        makeArticle("old", publishedAt: t0 - 1000), makeArticle("new", publishedAt: t0),
        makeArticle("x'y", publishedAt: t0),
      ],
      forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: t0))
    let request = FetchRequest(
      entity: "article", predicate: .attribute("publishedAt") < Timestamp(millisecondsSince1970: t0))
    #expect(try await storage.batchDelete(request) == 1)
    #expect(slugs(try await storage.articles()) == ["new", "x'y"])
    #expect(slugs(try await storage.articles(forQuery: "q")) == ["new", "x'y"])
    #expect(try await storage.int("SELECT count(*) FROM query_result") == 2)
    #expect(
      try await storage.batchDelete(FetchRequest(entity: "article", predicate: .attribute("url").contains("x'y"))) == 1)
    #expect(slugs(try await storage.articles()) == ["new"])
  }
}
