import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Testing

@Suite("Parse Server typed values")
struct ParseTypeTests {
  static func objects() throws -> ImportMapping {
    try mapping(
      """
      {"name": "parse", "records": "results",
       "roots": {"Obj": "obj", "_User": "owner",
                 "_Join:members:Obj": {"join": {"entity": "obj", "relationship": "members",
                                                "owner": "owningId", "target": "relatedId"}}},
       "entities": [
        {"entity": "obj", "identity": ["objectId"],
         "attributes": {"objectId": {"type": "text"}, "when": {"type": "date"}, "photo": {"type": "url"},
                        "raw": {"type": "data"}, "location": {"type": "json"}, "createdAt": {"type": "date"}},
         "relationships": {"owner": {"to": "owner", "kind": "toOne"},
                           "members": {"to": "owner", "kind": "toMany"}}},
        {"entity": "owner", "identity": ["objectId"],
         "attributes": {"objectId": {"type": "text"}, "username": {"type": "text"}}}]}
      """)
  }

  static let object = """
    {"results": [{
      "objectId": "a1",
      "when": {"__type": "Date", "iso": "2022-12-13T09:09:04.845Z"},
      "photo": {"__type": "File", "name": "f1-x.jpg", "url": "https://files.example.com/f1-x.jpg"},
      "raw": {"__type": "Bytes", "base64": "AQID"},
      "location": {"__type": "GeoPoint", "latitude": 40.5, "longitude": -73.25},
      "owner": {"__type": "Pointer", "className": "_User", "objectId": "u1"},
      "members": {"__type": "Relation", "className": "_User"},
      "ACL": {"*": {"read": true}, "u1": {"read": true, "write": true}},
      "createdAt": "2022-12-13T09:09:04.845Z"}]}
    """

  static let a1: TableRow = [
    "objectId": .text("a1"), "when": .integer(1_670_922_544_845), "photo": .text("https://files.example.com/f1-x.jpg"),
    "raw": .blob([1, 2, 3]), "location": .text(#"{"latitude":40.5,"longitude":-73.25}"#),
    "createdAt": .integer(1_670_922_544_845), "owner": .text("u1"),
  ]

  @Test("Date, File (URL kept), Bytes, GeoPoint, Pointer unwrapped; ACL ignored; Relation leaves members alone")
  func typedValues() async throws {
    let parse = try Self.objects()
    let store = try TestStore(parse)
    let report = try await store.run(parse.selecting(root: "Obj"), Self.object)
    #expect(counts(report) == expectedCounts(inserted: 1))
    #expect(report.failures == [] && report.warnings == [])
    #expect(try await store.rows("obj") == [Self.a1])
    #expect(try await store.rows("owner") == [["objectId": .text("u1"), "username": .null]])
    #expect(try await store.links("obj", "members") == [])

    // Members come from the join export.
    let join = try await store.run(
      parse.selecting(root: "_Join:members:Obj"),
      #"{"results": [{"objectId": "j1", "owningId": "a1", "relatedId": "u2"}]}"#)
    #expect(join.failed == 0)
    #expect(try await store.links("obj", "members") == [[.text("a1"), .text("u2")]])
    #expect(
      try await store.rows("owner") == [
        ["objectId": .text("u1"), "username": .null], ["objectId": .text("u2"), "username": .null],
      ])

    // Importing the object again (its Relation again) keeps the members, and the row is unchanged.
    let again = try await store.run(parse.selecting(root: "Obj"), Self.object)
    #expect(counts(again) == expectedCounts(unchanged: 1))
    #expect(try await store.links("obj", "members") == [[.text("a1"), .text("u2")]])
    #expect(try await store.rows("obj") == [Self.a1])

    // The user export fills the placeholder; its ACL is not an attribute.
    let users = try await store.run(
      parse.selecting(root: "_User"),
      #"{"results": [{"objectId": "u1", "username": "ann", "ACL": {"*": {"read": true}}}]}"#)
    #expect(counts(users) == expectedCounts(updated: 1))
    #expect(
      try await store.rows("owner") == [
        ["objectId": .text("u1"), "username": .text("ann")], ["objectId": .text("u2"), "username": .null],
      ])
  }

  @Test("a Date holding null, or a null pointer, clears; an unknown __type is not unwrapped and is reported")
  func oddTypedValues() async throws {
    let parse = try Self.objects()
    let store = try TestStore(parse)
    try await store.run(parse.selecting(root: "Obj"), Self.object)
    let cleared = try await store.run(
      parse.selecting(root: "Obj"),
      #"{"results": [{"objectId": "a1", "when": {"__type": "Date", "iso": null}, "owner": null}]}"#
    )
    #expect(counts(cleared) == expectedCounts(updated: 1))
    var a1 = Self.a1
    a1["when"] = .null
    a1["owner"] = .null
    #expect(try await store.rows("obj") == [a1])

    let mystery = try await store.run(
      parse.selecting(root: "Obj"), #"{"results": [{"objectId": "a1", "photo": {"__type": "Mystery"}}]}"#)
    // Costs the value, not the record: the stored photo stays.
    #expect(counts(mystery) == expectedCounts(unchanged: 1))
    #expect(mystery.warnings.map(\.keyPath) == ["results[0].photo"])
    #expect(mystery.warnings.map(\.identity) == ["a1"])
    #expect(try await store.rows("obj") == [a1])
  }

  @Test("typed values are unwrapped wherever they appear: inside a json attribute too")
  func unwrappedRecursively() async throws {
    let parse = try Self.objects()
    let store = try TestStore(parse)
    let report = try await store.run(
      parse.selecting(root: "Obj"),
      #"""
      {"results": [{"objectId": "a1",
        "location": {"at": {"__type": "Date", "iso": "2022-12-13T09:09:04.845Z"},
                     "by": [{"__type": "Pointer", "className": "_User", "objectId": "u1"}]}}]}
      """#)
    #expect(counts(report) == expectedCounts(inserted: 1))
    let rows = try await store.rows("obj")
    #expect(rows.map { $0["location"] } == [.text(#"{"at":"2022-12-13T09:09:04.845Z","by":["u1"]}"#)])
  }

  @Test("the roots of a mapping are chosen by name or by file name")
  func roots() throws {
    let parse = try Self.objects()
    #expect(parse.root(matchingFileName: "export-Obj.json") == "Obj")
    #expect(parse.root(matchingFileName: "export-_User.json") == "_User")
    #expect(parse.root(matchingFileName: "export-_Join_members_Obj.json") == "_Join:members:Obj")
    #expect(parse.root(matchingFileName: "_Join:members:Obj.json") == "_Join:members:Obj")
    #expect(parse.root(matchingFileName: "export.json") == nil)
    #expect(try parse.selecting(root: "Obj").rootEntity == "obj")
    #expect(try parse.selecting(root: "Obj").join == nil)
    #expect(try parse.selecting(root: "_Join:members:Obj").join?.relationship == "members")
    #expect(throws: ImportError.self) { try parse.selecting(root: "Nope") }
  }
}
