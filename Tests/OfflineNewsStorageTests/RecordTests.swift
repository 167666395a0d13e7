import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

@Suite("Records: save(ChangeSet) and fetch")
struct RecordTests {
  /// p1 with every attribute given, p2 with only its name; two tags; one visit.
  private static let ada = People.person(
    "p1",
    [
      "name": .text("Ada"), "age": .integer(36), "score": .real(9.5), "active": .integer(1),
      "born": .integer(-4_701_974_400_000), "homepage": .text("https://example.com/ada"), "avatar": .blob([1, 2, 3]),
      "prefs": .text(#"{"theme":"dark"}"#), "employer": .text("c1"),
    ], friends: ["p2", "p3"], tags: ["math", "code"])
  private static let bob = People.person("p2", ["name": .text("Bob")])

  private static let adaRow: [DatabaseValue] = [
    .text("p1"), .text("Ada"), .integer(36), .real(9.5), .integer(1), .integer(-4_701_974_400_000),
    .text("https://example.com/ada"), .blob([1, 2, 3]), .text(#"{"theme":"dark"}"#), .null, .text("c1"),
  ]
  private static let bobRow: [DatabaseValue] = [
    .text("p2"), .text("Bob"), .null, .null, .null, .null, .null, .null, .null, .null, .null,
  ]

  /// A store holding ada, bob, two tags and a visit.
  private func seeded(_ database: TestDatabase) async throws -> StorageContext {
    let storage = try database.open(entities: People.all)
    let summary = try await storage.save(
      ChangeSet(upserts: [
        Self.ada, People.tag("math", color: "red"), Self.bob, People.tag("code"), People.visit("p1", day: t0),
      ]))
    #expect(
      summary == [
        "person": SaveSummary(inserted: 2), "tag": SaveSummary(inserted: 2), "visit": SaveSummary(inserted: 1),
      ])
    return storage
  }

  @Test("save inserts every attribute type, to-one and to-many; fetch reads them back, lists in order")
  func insertAndFetch() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let tables = try await PeopleTables(storage)
    #expect(tables.person == [Self.adaRow, Self.bobRow])
    #expect(
      tables.friends == [[.text("p1"), .text("p2"), .integer(0)], [.text("p1"), .text("p3"), .integer(1)]])
    #expect(tables.tags == [[.text("p1"), .text("code")], [.text("p1"), .text("math")]])
    #expect(tables.tag == [[.text("code"), .null], [.text("math"), .text("red")]])
    #expect(tables.visit == [[.text("p1"), .integer(t0), .null]])

    let records = try await storage.fetch(FetchRequest(entity: "person", sortDescriptors: [.init("id")]))
    #expect(
      records == [
        Record(
          entity: "person", values: Dictionary(uniqueKeysWithValues: zip(People.personColumns, Self.adaRow)),
          toMany: ["friends": [.text("p2"), .text("p3")], "tags": [.text("code"), .text("math")]]),
        Record(
          entity: "person", values: Dictionary(uniqueKeysWithValues: zip(People.personColumns, Self.bobRow)),
          toMany: ["friends": [], "tags": []]),
      ])
    #expect(
      try await storage.fetch(FetchRequest(entity: "visit")) == [
        Record(entity: "visit", values: ["person": .text("p1"), "day": .integer(t0), "minutes": .null])
      ])
  }

  @Test("an update writes only the keys given: a missing key keeps its value, .null clears it")
  func updateOnlyGivenKeys() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let summary = try await storage.save(
      ChangeSet(upserts: [
        People.person("p1", ["name": .text("Ada L."), "age": .null, "homepage": .text("https://example.com/al")]),
        People.visit("p1", day: t0, minutes: .integer(30)),
      ]))
    #expect(summary == ["person": SaveSummary(updated: 1), "visit": SaveSummary(updated: 1)])
    var expected = Self.adaRow
    expected[1] = .text("Ada L.")
    expected[2] = .null
    expected[6] = .text("https://example.com/al")
    let tables = try await PeopleTables(storage)
    #expect(tables.person == [expected, Self.bobRow])
    #expect(tables.visit == [[.text("p1"), .integer(t0), .integer(30)]])
    // The to-many lists were not given: they are as they were.
    #expect(tables.friends.count == 2)
    #expect(tables.tags.count == 2)
  }

  @Test("an update that omits a required (NOT NULL) attribute keeps its stored value")
  func updateOmittingRequiredAttribute() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    // `name` is NOT NULL and not given: the row keeps it. (An INSERT … ON CONFLICT DO UPDATE checks NOT NULL on the
    // row it would insert before it finds the conflict.)
    let summary = try await storage.save(ChangeSet(upserts: [People.person("p1", ["age": .integer(37)])]))
    #expect(summary == ["person": SaveSummary(updated: 1)])
    var expected = Self.adaRow
    expected[2] = .integer(37)
    #expect(try await PeopleTables(storage).person == [expected, Self.bobRow])
  }

  @Test("re-saving identical records reports them unchanged and writes nothing")
  func identicalResave() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let before = try await PeopleTables(storage)
    let changes = try await storage.totalChanges()
    var adaWithoutLists = Self.ada
    adaWithoutLists.toMany = [:]
    let summary = try await storage.save(
      ChangeSet(upserts: [
        adaWithoutLists, Self.bob, People.tag("math", color: "red"), People.tag("code"), People.visit("p1", day: t0),
        // A subset of the stored values, equal to them.
        People.person("p1", ["name": .text("Ada"), "age": .integer(36)]),
      ]))
    #expect(
      summary == [
        "person": SaveSummary(unchanged: 2), "tag": SaveSummary(unchanged: 2), "visit": SaveSummary(unchanged: 1),
      ])
    #expect(try await storage.totalChanges() == changes, "an unchanged save wrote rows")
    #expect(try await PeopleTables(storage) == before)
  }

  @Test("re-saving a record with the same to-many lists writes nothing")
  func identicalToManyResave() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let before = try await PeopleTables(storage)
    let changes = try await storage.totalChanges()
    let summary = try await storage.save(ChangeSet(upserts: [Self.ada]))
    #expect(summary == ["person": SaveSummary(unchanged: 1)])
    #expect(try await PeopleTables(storage) == before)
    #expect(
      try await storage.totalChanges() == changes,
      "the unchanged to-many lists were deleted and inserted again (join rows rewritten)")
  }

  @Test("a record whose only change is a to-many list is reported updated")
  func toManyOnlyChangeIsAnUpdate() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let summary = try await storage.save(ChangeSet(upserts: [People.person("p2", friends: ["p1"])]))
    #expect(
      try await storage.rows("SELECT owner, target, position FROM person_friends WHERE owner = 'p2'") == [
        [.text("p2"), .text("p1"), .integer(0)]
      ])
    #expect(summary == ["person": SaveSummary(updated: 1)], "p2's friends changed, but it was counted unchanged")
  }

  @Test("a real attribute given an integer is stored as real, and re-saving it is unchanged")
  func realGivenInteger() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let record = People.person("p2", ["name": .text("Bob"), "score": .integer(3)])
    #expect(try await storage.save(ChangeSet(upserts: [record])) == ["person": SaveSummary(updated: 1)])
    #expect(
      try await storage.rows("SELECT score, typeof(score) FROM person WHERE id = 'p2'") == [[.real(3), .text("real")]])
    let changes = try await storage.totalChanges()
    #expect(
      try await storage.save(ChangeSet(upserts: [record])) == ["person": SaveSummary(unchanged: 1)],
      "the stored 3.0 was compared with the given integer 3")
    #expect(try await storage.totalChanges() == changes)
  }

  @Test("an empty data value is stored as an empty blob, not NULL")
  func emptyBlob() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let record = People.person("p2", ["avatar": .blob([]), "name": .text("Bob")])
    try await storage.save(ChangeSet(upserts: [record]))
    #expect(
      try await storage.rows("SELECT typeof(avatar), length(avatar) FROM person WHERE id = 'p2'") == [
        [.text("blob"), .integer(0)]
      ])
    #expect(try await storage.save(ChangeSet(upserts: [record])) == ["person": SaveSummary(unchanged: 1)])
  }

  @Test("duplicates of one identity in a save are merged into one row: later keys win, earlier ones kept")
  func duplicatesMerged() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let summary = try await storage.save(
      ChangeSet(upserts: [
        People.person("p3", ["name": .text("Cy"), "age": .integer(1)], friends: ["p1"]),
        People.tag("new"),
        People.person("p1", ["name": .text("Ada"), "age": .integer(40)]),
        People.person("p3", ["age": .integer(2), "score": .real(0.5)]),
        People.person("p1", ["name": .text("Ada"), "active": .integer(0)], tags: []),
        People.person("p3", ["name": .text("Cyrus")], friends: ["p2", "p1"]),
        People.visit("p1", day: t0, minutes: .integer(5)), People.visit("p1", day: t0 + 1),
        People.visit("p1", day: t0, minutes: .integer(6)),
      ]))
    #expect(
      summary == [
        "person": SaveSummary(inserted: 1, updated: 1), "tag": SaveSummary(inserted: 1),
        "visit": SaveSummary(inserted: 1, updated: 1),
      ])
    var ada = Self.adaRow
    ada[2] = .integer(40)
    ada[4] = .integer(0)
    let cyrus: [DatabaseValue] = [
      .text("p3"), .text("Cyrus"), .integer(2), .real(0.5), .null, .null, .null, .null, .null, .null, .null,
    ]
    let tables = try await PeopleTables(storage)
    #expect(tables.person == [ada, Self.bobRow, cyrus])
    #expect(
      tables.friends == [
        [.text("p1"), .text("p2"), .integer(0)], [.text("p1"), .text("p3"), .integer(1)],
        [.text("p3"), .text("p2"), .integer(0)], [.text("p3"), .text("p1"), .integer(1)],
      ])
    #expect(tables.tags == [])
    #expect(tables.tag == [[.text("code"), .null], [.text("math"), .text("red")], [.text("new"), .null]])
    #expect(tables.visit == [[.text("p1"), .integer(t0), .integer(6)], [.text("p1"), .integer(t0 + 1), .null]])
  }

  @Test("a to-many list given replaces the stored one: order kept, duplicates once, [] empties, absent keeps")
  func toManyReplacement() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    try await storage.save(
      ChangeSet(upserts: [People.person("p1", friends: ["p3", "p2", "p4", "p3"]), People.person("p2", tags: ["x"])]))
    var tables = try await PeopleTables(storage)
    #expect(
      tables.friends == [
        [.text("p1"), .text("p3"), .integer(0)], [.text("p1"), .text("p2"), .integer(1)],
        [.text("p1"), .text("p4"), .integer(2)],
      ])
    #expect(tables.tags == [[.text("p1"), .text("code")], [.text("p1"), .text("math")], [.text("p2"), .text("x")]])
    let fetched = try await storage.fetch(FetchRequest(entity: "person", predicate: .attribute("id") == "p1"))
    #expect(
      fetched.map(\.toMany) == [
        ["friends": [.text("p3"), .text("p2"), .text("p4")], "tags": [.text("code"), .text("math")]]
      ])

    try await storage.save(ChangeSet(upserts: [People.person("p1", friends: [], tags: ["code"])]))
    tables = try await PeopleTables(storage)
    #expect(tables.friends == [])
    #expect(tables.tags == [[.text("p1"), .text("code")], [.text("p2"), .text("x")]])
    #expect(tables.person == [Self.adaRow, Self.bobRow])
  }

  @Test("a delete removes the row by identity with its join rows; a missing identity deletes nothing")
  func deletes() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    try await storage.save(ChangeSet(upserts: [People.person("p2", friends: ["p1"], tags: ["math"])]))
    let summary = try await storage.save(
      ChangeSet(
        upserts: [People.tag("kept")],
        deletes: [
          ("person", Identity(.text("p1"))), ("person", Identity(.text("nobody"))),
          ("visit", Identity([.text("p1"), .integer(t0)])), ("tag", Identity(.text("absent"))),
        ]))
    #expect(summary["person"] == SaveSummary(deleted: 1))
    #expect(summary["visit"] == SaveSummary(deleted: 1))
    #expect(summary["tag"] == SaveSummary(inserted: 1))
    let tables = try await PeopleTables(storage)
    #expect(tables.person == [Self.bobRow])
    // p1's own lists are gone; p2's list still names p1 (references are identities, not foreign keys).
    #expect(tables.friends == [[.text("p2"), .text("p1"), .integer(0)]])
    #expect(tables.tags == [[.text("p2"), .text("math")]])
    #expect(tables.visit == [])
    #expect(tables.tag.count == 3)
  }

  /// A change set holding valid work first (a new tag, an update of p2), then one invalid part.
  private static func withValidWork(_ upserts: [Record], deletes: [(entity: String, identity: Identity)] = [])
    -> ChangeSet
  {
    ChangeSet(
      upserts: [People.tag("fresh"), People.person("p2", ["name": .text("Robert")], friends: ["p1"])] + upserts,
      deletes: [("visit", Identity([.text("p1"), .integer(t0)]))] + deletes)
  }

  static let invalidChanges: [(label: String, changes: ChangeSet, mentions: String)] = [
    ("unknown entity", withValidWork([Record(entity: "ghost", values: ["id": .text("g")])]), "ghost"),
    ("unknown attribute", withValidWork([People.person("p1", ["nickname": .text("A")])]), "nickname"),
    (
      "attribute name with SQL", withValidWork([People.person("p1", ["name = '' OR 1=1 --": .text("A")])]),
      "name = '' OR 1=1 --"
    ),
    ("text into integer", withValidWork([People.person("p1", ["age": .text("forty")])]), "age"),
    ("2 into bool", withValidWork([People.person("p1", ["active": .integer(2)])]), "active"),
    ("-1 into bool", withValidWork([People.person("p1", ["active": .integer(-1)])]), "active"),
    ("real into bool", withValidWork([People.person("p1", ["active": .real(1)])]), "active"),
    ("integer into text", withValidWork([People.person("p1", ["name": .integer(5)])]), "name"),
    ("real into integer", withValidWork([People.person("p1", ["age": .real(1.5)])]), "age"),
    ("text into date", withValidWork([People.person("p1", ["born": .text("2020-01-01")])]), "born"),
    ("text into data", withValidWork([People.person("p1", ["avatar": .text("AQID")])]), "avatar"),
    ("blob into json", withValidWork([People.person("p1", ["prefs": .blob([123, 125])])]), "prefs"),
    ("local-only attribute", withValidWork([People.person("p1", ["note": .text("mine")])]), "note"),
    ("missing identity", withValidWork([Record(entity: "person", values: ["name": .text("X")])]), "id"),
    ("null identity", withValidWork([Record(entity: "person", values: ["id": .null, "name": .text("X")])]), "id"),
    (
      "wrong identity type",
      withValidWork([Record(entity: "person", values: ["id": .integer(1), "name": .text("X")])]),
      "id"
    ),
    (
      "missing part of a composite identity", withValidWork([Record(entity: "visit", values: ["person": .text("p1")])]),
      "day"
    ),
    ("unknown to-many", withValidWork([People.person("p1", friends: nil).with(toMany: "enemies")]), "enemies"),
    ("to-one given as to-many", withValidWork([People.person("p1").with(toMany: "employer")]), "employer"),
    ("to-many given as a value", withValidWork([People.person("p1", ["friends": .text("p2")])]), "friends"),
    ("delete of an unknown entity", withValidWork([], deletes: [("ghost", Identity(.text("g")))]), "ghost"),
    ("delete with too few identity values", withValidWork([], deletes: [("visit", Identity(.text("p1")))]), "visit"),
  ]

  @Test(
    "an invalid record or delete throws .invalidRequest naming it, and nothing is written",
    arguments: 0..<RecordTests.invalidChanges.count)
  func invalidChangeSet(_ index: Int) async throws {
    let (label, changes, mentions) = Self.invalidChanges[index]
    let database = TestDatabase()
    let storage = try await seeded(database)
    let before = try await PeopleTables(storage)
    let message = await invalidRequest { try await storage.save(changes) }
    #expect(message?.contains(mentions) == true, "\(label): \(message ?? "no message")")
    #expect(try await PeopleTables(storage) == before, "\(label)")
    // The writer is usable afterwards.
    #expect(try await storage.save(ChangeSet(upserts: [People.tag("after")])) == ["tag": SaveSummary(inserted: 1)])
  }

  @Test("a NOT NULL or CHECK failure rolls the whole save back", arguments: ["null name", "invalid JSON"])
  func constraintFailureRollsBack(_ label: String) async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let before = try await PeopleTables(storage)
    let bad =
      label == "null name"
      ? People.person("p1", ["name": .null]) : People.person("p9", ["name": .text("N"), "prefs": .text("{oops")])
    let error = await storageError { try await storage.save(Self.withValidWork([bad])) }
    #expect(error?.underlying?.code == SQLiteError.constraint, "\(String(describing: error))")
    #expect(error?.path == database.path)
    #expect(try await PeopleTables(storage) == before)
    #expect(try writeLockIsFree(storage.path))
  }

  @Test("a new record without a required attribute is rejected with its reason; the rest of the save is written")
  func newRecordMissingRequiredIsRejected() async throws {
    let database = TestDatabase()
    let storage = try await seeded(database)
    let summary = try await storage.save(
      ChangeSet(upserts: [
        People.person("p8", ["age": .integer(1)]), People.person("p9", ["name": .null]),
        People.person("p2", ["name": .text("Robert")]), People.tag("fresh"),
      ]))
    let reason = "a new person row needs name, which is missing or null"
    #expect(summary["person"]?.rejected.map(\.identity) == [Identity(.text("p8")), Identity(.text("p9"))])
    #expect(summary["person"]?.rejected.map(\.reason) == [reason, reason])
    var person = summary["person"]
    person?.rejected = []
    #expect(person == SaveSummary(updated: 1))
    #expect(summary["tag"] == SaveSummary(inserted: 1))
    var robert = Self.bobRow
    robert[1] = .text("Robert")
    let tables = try await PeopleTables(storage)
    #expect(tables.person == [Self.adaRow, robert])
    #expect(tables.tag.map(\.first) == [.text("code"), .text("fresh"), .text("math")])
  }

  @Test("save refuses to-many lists on an entity with a composite identity")
  func toManyNeedsSingleIdentity() async throws {
    let database = TestDatabase()
    let entity = EntityDescription(
      name: "pair", identity: ["a", "b"], attributes: [Attribute("a", .text), Attribute("b", .text)],
      relationships: [Relationship("links", to: "pair", .toMany)])
    let storage = try database.open(entities: [entity])
    let message = await invalidRequest {
      try await storage.save(
        ChangeSet(upserts: [Record(entity: "pair", values: ["a": .text("x"), "b": .text("y")], toMany: ["links": []])]))
    }
    #expect(message?.contains("single-attribute identity") == true)
    #expect(try await storage.int("SELECT count(*) FROM pair") == 0)
  }
}

extension Record {
  /// This record with an empty list for the relationship `name`.
  fileprivate func with(toMany name: String) -> Record {
    var record = self
    record.toMany[name] = []
    return record
  }
}
