import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("Relationships: nested objects and arrays, foreign keys, ids, pointers, placeholders")
struct RelationshipTests {
  /// Posts, users, comments and tags; one records key (`data`) and a root per entity.
  static func blog() throws -> ImportMapping {
    try mapping(
      """
      {"name": "blog", "records": "data",
       "roots": {"Post": "post", "User": "user", "Comment": "comment"},
       "entities": [
        {"entity": "post", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "title": {"type": "text"}},
         "relationships": {
           "userId": {"to": "user", "kind": "toOne"},
           "editor": {"to": "user", "kind": "toOne"},
           "comments": {"to": "comment", "kind": "toMany", "ordered": true},
           "likes": {"to": "user", "kind": "toMany", "mode": "add"},
           "tagIds": {"to": "tag", "kind": "toMany"}}},
        {"entity": "user", "identity": ["id"], "attributes": {"id": {"type": "integer"}, "name": {"type": "text"}}},
        {"entity": "comment", "identity": ["id"],
         "attributes": {"id": {"type": "integer"}, "body": {"type": "text"}},
         "relationships": {"author": {"to": "user", "kind": "toOne"}}},
        {"entity": "tag", "identity": ["slug"], "attributes": {"slug": {"type": "text"}}}]}
      """)
  }

  static func post(
    _ id: Int64, title: DatabaseValue = .null, userId: DatabaseValue = .null, editor: DatabaseValue = .null
  ) -> TableRow {
    ["id": .integer(id), "title": title, "userId": userId, "editor": editor]
  }

  static func user(_ id: Int64, _ name: DatabaseValue = .null) -> TableRow { ["id": .integer(id), "name": name] }

  @Test("nested object (to-one): imported with its entity's mapping and referenced")
  func nestedObject() async throws {
    let blog = try Self.blog()
    let posts = try blog.selecting(root: "Post")
    let store = try TestStore(blog)
    let report = try await store.run(posts, #"{"data": [{"id": 1, "title": "T", "editor": {"id": 7, "name": "Ed"}}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 1))
    #expect(report.entities["user"]?.inserted == 1)
    #expect(try await store.rows("post") == [Self.post(1, title: .text("T"), editor: .integer(7))])
    #expect(try await store.rows("user") == [Self.user(7, .text("Ed"))])
    // A later nested copy with fewer keys leaves the missing ones.
    try await store.run(posts, #"{"data": [{"id": 1, "editor": {"id": 7}}]}"#)
    #expect(try await store.rows("user") == [Self.user(7, .text("Ed"))])
  }

  @Test("nested array: replace mode replaces the list (in order), add mode adds to it")
  func nestedArrays() async throws {
    let blog = try Self.blog()
    let posts = try blog.selecting(root: "Post")
    let store = try TestStore(blog)
    try await store.run(
      posts,
      #"{"data": [{"id": 1, "comments": [{"id": 12, "body": "b", "author": {"id": 7}}, {"id": 11, "body": "a"}], "likes": [7, 8]}]}"#
    )
    #expect(
      try await store.orderedLinks("post", "comments") == [
        [.integer(1), .integer(12), .integer(0)], [.integer(1), .integer(11), .integer(1)],
      ])
    #expect(try await store.links("post", "likes") == [[.integer(1), .integer(7)], [.integer(1), .integer(8)]])
    #expect(
      try await store.rows("comment") == [
        ["id": .integer(11), "body": .text("a"), "author": .null],
        ["id": .integer(12), "body": .text("b"), "author": .integer(7)],
      ])
    #expect(try await store.rows("user") == [Self.user(7), Self.user(8)])

    try await store.run(posts, #"{"data": [{"id": 1, "comments": [{"id": 13, "body": "c"}], "likes": [9, 8]}]}"#)
    #expect(try await store.orderedLinks("post", "comments") == [[.integer(1), .integer(13), .integer(0)]])
    #expect(
      try await store.links("post", "likes") == [
        [.integer(1), .integer(7)], [.integer(1), .integer(8)], [.integer(1), .integer(9)],
      ])
    // Replaced comments stay as rows.
    #expect(try await store.count("comment") == 3)
    #expect(try await store.rows("user") == [Self.user(7), Self.user(8), Self.user(9)])
    #expect(try await store.rows("post") == [Self.post(1)])
  }

  @Test("flat foreign key: userId is read from UserId or user_id, \"7\" and 7 alike")
  func flatForeignKey() async throws {
    let blog = try Self.blog()
    let posts = try blog.selecting(root: "Post")
    let store = try TestStore(blog)
    let report = try await store.run(
      posts, #"{"data": [{"id": 1, "UserId": 7}, {"id": 2, "user_id": "8"}, {"id": 3, "userId": 7.0}]}"#)
    #expect(counts(report) == expectedCounts(inserted: 3))
    #expect(
      try await store.rows("post") == [
        Self.post(1, userId: .integer(7)), Self.post(2, userId: .integer(8)), Self.post(3, userId: .integer(7)),
      ])
    #expect(try await store.rows("user") == [Self.user(7), Self.user(8)])
  }

  @Test("arrays of ids (tag_ids → tagIds) and arrays of Parse pointers")
  func arraysOfIDs() async throws {
    let blog = try Self.blog()
    let posts = try blog.selecting(root: "Post")
    let store = try TestStore(blog)
    try await store.run(
      posts,
      #"""
      {"data": [{"id": 1, "tag_ids": ["swift", "sqlite", "swift"],
                 "likes": [{"__type": "Pointer", "className": "_User", "objectId": "7"}]}]}
      """#)
    #expect(
      try await store.links("post", "tagIds") == [[.integer(1), .text("sqlite")], [.integer(1), .text("swift")]])
    #expect(try await store.rows("tag") == [["slug": .text("sqlite")], ["slug": .text("swift")]])
    #expect(try await store.links("post", "likes") == [[.integer(1), .integer(7)]])
    #expect(try await store.rows("user") == [Self.user(7)])
  }

  @Test("a value that is not a reference is reported and leaves the relationship as it was")
  func notAReference() async throws {
    let blog = try Self.blog()
    let posts = try blog.selecting(root: "Post")
    let store = try TestStore(blog)
    try await store.run(posts, #"{"data": [{"id": 1, "editor": 7}]}"#)
    let report = try await store.run(posts, #"{"data": [{"id": 1, "editor": true, "title": "t"}]}"#)
    #expect(report.failures == [])
    #expect(report.warnings.map(\.keyPath) == ["data[0].editor"])
    // Reported as the post's problem: its entity and identity, so that the record can be found.
    #expect(report.warnings.map(\.entity) == ["post"])
    #expect(report.warnings.map(\.identity) == ["1"])
    #expect(report.warnings.first?.reason.contains("left as it was") == true)
    #expect(try await store.rows("post") == [Self.post(1, title: .text("t"), editor: .integer(7))])
  }

  @Test("an identifier before its object creates a placeholder that a later import fills in")
  func placeholderFilledLater() async throws {
    let blog = try Self.blog()
    let store = try TestStore(blog)
    try await store.run(blog.selecting(root: "Post"), #"{"data": [{"id": 1, "UserId": 7, "title": "T"}]}"#)
    #expect(try await store.rows("user") == [Self.user(7)])
    let users = try await store.run(blog.selecting(root: "User"), #"{"data": [{"id": 7, "name": "Ann"}]}"#)
    #expect(counts(users) == expectedCounts(updated: 1))
    #expect(try await store.rows("user") == [Self.user(7, .text("Ann"))])
    // A later reference does not clear the filled-in row.
    try await store.run(blog.selecting(root: "Post"), #"{"data": [{"id": 2, "UserId": 7}]}"#)
    #expect(try await store.rows("user") == [Self.user(7, .text("Ann"))])
    #expect(
      try await store.rows("post") == [
        Self.post(1, title: .text("T"), userId: .integer(7)), Self.post(2, userId: .integer(7)),
      ])
  }

  @Test("any import order gives the same graph")
  func anyOrder() async throws {
    let blog = try Self.blog()
    let payloads: [(String, String)] = [
      ("User", #"{"data": [{"id": 7, "name": "Ann"}, {"id": 8, "name": "Bo"}]}"#),
      ("Comment", #"{"data": [{"id": 11, "body": "a", "author": 8}]}"#),
      (
        "Post",
        #"{"data": [{"id": 1, "title": "T", "UserId": 7, "editor": 8, "comments": [11, 12], "likes": [8], "tagIds": ["x"]}]}"#
      ),
    ]
    func graph(_ order: [Int]) async throws -> [[TableRow]] {
      let store = try TestStore(blog)
      for index in order { try await store.run(blog.selecting(root: payloads[index].0), payloads[index].1) }
      var tables: [[TableRow]] = []
      for entity in ["post", "user", "comment", "tag"] { tables.append(try await store.rows(entity)) }
      tables.append(
        try await store.orderedLinks("post", "comments").map { ["link": .text("\($0)")] }
          + store.links("post", "likes").map { ["like": .text("\($0)")] }
          + store.links("post", "tagIds").map { ["tag": .text("\($0)")] })
      return tables
    }
    let reference = try await graph([0, 1, 2])
    #expect(
      reference[0] == [Self.post(1, title: .text("T"), userId: .integer(7), editor: .integer(8))])
    #expect(reference[1] == [Self.user(7, .text("Ann")), Self.user(8, .text("Bo"))])
    #expect(
      reference[2] == [
        ["id": .integer(11), "body": .text("a"), "author": .integer(8)],
        ["id": .integer(12), "body": .null, "author": .null],
      ])
    for order in [[2, 1, 0], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2]] {
      #expect(try await graph(order) == reference, "order \(order)")
    }
  }
}
