import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// An app entity with every attribute type, a composite identity, an index, a to-one and an ordered to-many
/// relationship; and the variants of it that a later build might declare.
private enum Item {
  static let attributes = [
    Attribute("feed", .text), Attribute("number", .integer), Attribute("title", .text, optional: false),
    Attribute("score", .real), Attribute("pinned", .bool, optional: false, default: .integer(0)),
    Attribute("createdAt", .date), Attribute("link", .url), Attribute("payload", .data), Attribute("meta", .json),
  ]
  static let relationships = [
    Relationship("author", to: "person", .toOne), Relationship("tags", to: "tag", .toMany, ordered: true),
  ]
  static let indexes = [EntityIndex("item_by_createdAt", on: ["createdAt", "title"])]

  static let v1 = EntityDescription(
    name: "item", identity: ["feed", "number"], attributes: attributes, relationships: relationships,
    indexes: indexes)

  /// v1 plus an optional attribute, a required one with a default, a to-one, an unordered to-many and an index.
  static let v2 = EntityDescription(
    name: "item", identity: ["feed", "number"],
    attributes: attributes + [
      Attribute("subtitle", .text), Attribute("rank", .integer, optional: false, default: .integer(7)),
    ],
    relationships: relationships + [
      Relationship("editor", to: "person", .toOne), Relationship("related", to: "item", .toMany),
    ],
    indexes: indexes + [EntityIndex("item_by_score", on: ["score", "rank"], unique: false)])

  /// v1 with the attribute `name` replaced (or removed, for `nil`).
  static func replacing(_ name: String, with attribute: Attribute?) -> EntityDescription {
    EntityDescription(
      name: "item", identity: ["feed", "number"],
      attributes: attributes.compactMap { $0.name == name ? attribute : $0 },
      relationships: relationships, indexes: indexes)
  }

  /// A row of v1, as a raw insert.
  static let insertSQL = """
    INSERT INTO item (feed, number, title, score, pinned, createdAt, link, payload, meta, author)
    VALUES ('f', 1, 'One', 0.5, 1, 1700000000000, 'https://example.com/1', x'00FF', '{"a":[1,2]}', 'p1'),
           ('f', 2, 'Two', NULL, 0, NULL, NULL, NULL, NULL, NULL);
    INSERT INTO item_tags (owner, target, position) VALUES ('f', 'news', 0), ('f', 'world', 1);
    """
}

private let person = EntityDescription(
  name: "person", identity: ["id"], attributes: [Attribute("id", .text), Attribute("name", .text)])

@Suite("Entities: declared tables, lightweight migration and refusal")
struct EntityTests {
  private func schema(_ storage: StorageContext) async throws -> [[DatabaseValue]] {
    try await storage.rows(
      """
      SELECT type, name, tbl_name FROM sqlite_schema
      WHERE tbl_name IN ('item', 'item_tags', 'person') OR name LIKE 'item%' OR name LIKE 'person%'
      ORDER BY type, name
      """)
  }

  private func columns(_ storage: StorageContext, _ table: String) async throws -> [[DatabaseValue]] {
    try await storage.rows(
      "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid", [.text(table)])
  }

  private func indexColumns(_ storage: StorageContext, _ index: String) async throws -> [String] {
    try await storage.read { db in
      try db.makeStatement("SELECT name FROM pragma_index_info(?1) ORDER BY seqno").fetchAll([.text(index)]) {
        $0.string(0) ?? ""
      }
    }
  }

  private func recordedDescription(_ storage: StorageContext, _ name: String) async throws -> EntityDescription? {
    guard
      let json = try await storage.read({ db in
        try db.makeStatement("SELECT definition FROM schema_entity WHERE name = ?1").fetchOne([.text(name)]) {
          $0.string(0)
        } ?? nil
      })
    else { return nil }
    return try JSONDecoder().decode(EntityDescription.self, from: Data(json.utf8))
  }

  @Test("an entity with every attribute type, composite identity, index and relationships is created at open")
  func createdAtOpen() async throws {
    let database = TestDatabase()
    let storage = try database.open(entities: [Item.v1, person])
    #expect(storage.entities.map(\.name) == ["article", "item", "person"])

    #expect(
      try await schema(storage) == [
        [.text("index"), .text("item_by_author"), .text("item")],
        [.text("index"), .text("item_by_createdAt"), .text("item")],
        [.text("index"), .text("item_tags_by_target"), .text("item_tags")],
        [.text("index"), .text("sqlite_autoindex_item_1"), .text("item")],
        [.text("index"), .text("sqlite_autoindex_person_1"), .text("person")],
        [.text("table"), .text("item"), .text("item")],
        [.text("table"), .text("item_tags"), .text("item_tags")],
        [.text("table"), .text("person"), .text("person")],
      ])
    #expect(
      try await columns(storage, "item") == [
        [.text("feed"), .text("TEXT"), .integer(1), .null, .integer(1)],
        [.text("number"), .text("INTEGER"), .integer(1), .null, .integer(2)],
        [.text("title"), .text("TEXT"), .integer(1), .null, .integer(0)],
        [.text("score"), .text("REAL"), .integer(0), .null, .integer(0)],
        [.text("pinned"), .text("INTEGER"), .integer(1), .text("0"), .integer(0)],
        [.text("createdAt"), .text("INTEGER"), .integer(0), .null, .integer(0)],
        [.text("link"), .text("TEXT"), .integer(0), .null, .integer(0)],
        [.text("payload"), .text("BLOB"), .integer(0), .null, .integer(0)],
        [.text("meta"), .text("TEXT"), .integer(0), .null, .integer(0)],
        [.text("author"), .text(""), .integer(0), .null, .integer(0)],
      ])
    // The ordered to-many join table: owner, target, position; keyed by (owner, target), without rowid.
    #expect(
      try await columns(storage, "item_tags") == [
        [.text("owner"), .text(""), .integer(1), .null, .integer(1)],
        [.text("target"), .text(""), .integer(1), .null, .integer(2)],
        [.text("position"), .text("INTEGER"), .integer(1), .null, .integer(0)],
      ])
    #expect(try await storage.int("SELECT \"wr\" FROM pragma_table_list WHERE name = 'item_tags'") == 1)
    #expect(try await indexColumns(storage, "item_by_createdAt") == ["createdAt", "title"])
    #expect(try await indexColumns(storage, "item_by_author") == ["author"])
    #expect(try await indexColumns(storage, "item_tags_by_target") == ["target"])

    // The constraints the types imply: bool is 0 or 1, json is valid JSON, the identity is unique.
    try await storage.write { db in try db.execute(sql: Item.insertSQL) }
    for bad in [
      "INSERT INTO item (feed, number, title, pinned) VALUES ('g', 1, 'x', 2)",
      "INSERT INTO item (feed, number, title, meta) VALUES ('g', 1, 'x', '{not json')",
      "INSERT INTO item (feed, number, title) VALUES ('f', 1, 'again')",
      "INSERT INTO item (feed, number) VALUES ('g', 1)",
    ] {
      let error = await storageError { try await storage.write { db in try db.execute(sql: bad) } }
      #expect(error?.underlying?.code == SQLiteError.constraint, "\(bad)")
    }
    #expect(try await storage.int("SELECT count(*) FROM item") == 2)

    // Each entity's description is recorded, and reads back equal.
    #expect(try await recordedDescription(storage, "item") == Item.v1)
    #expect(try await recordedDescription(storage, "person") == person)
    #expect(try await recordedDescription(storage, "article") == EntityDescription.article)
    #expect(try await storage.int("SELECT count(*) FROM schema_entity") == 3)
  }

  @Test("reopening with added attributes, relationships and an index adds them and keeps every row")
  func lightweightMigration() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open(entities: [Item.v1])
      try await storage.write { db in try db.execute(sql: Item.insertSQL) }
    }
    let storage = try database.open(entities: [Item.v2])
    #expect(
      try await columns(storage, "item").map { $0[0] }
        == [
          "feed", "number", "title", "score", "pinned", "createdAt", "link", "payload", "meta", "author", "subtitle",
          "rank", "editor",
        ].map(DatabaseValue.text))
    #expect(
      try await storage.rows(
        "SELECT feed, number, title, score, pinned, createdAt, link, payload, meta, author, subtitle, rank, editor "
          + "FROM item ORDER BY number") == [
          [
            .text("f"), .integer(1), .text("One"), .real(0.5), .integer(1), .integer(1_700_000_000_000),
            .text("https://example.com/1"), .blob([0, 255]), .text(#"{"a":[1,2]}"#), .text("p1"), .null,
            .integer(7), .null,
          ],
          [
            .text("f"), .integer(2), .text("Two"), .null, .integer(0), .null, .null, .null, .null, .null, .null,
            .integer(7), .null,
          ],
        ])
    #expect(
      try await storage.rows("SELECT owner, target, position FROM item_tags ORDER BY position") == [
        [.text("f"), .text("news"), .integer(0)], [.text("f"), .text("world"), .integer(1)],
      ])
    #expect(try await indexColumns(storage, "item_by_score") == ["score", "rank"])
    #expect(try await indexColumns(storage, "item_by_editor") == ["editor"])
    #expect(try await columns(storage, "item_related").map { $0[0] } == [.text("owner"), .text("target")])
    #expect(try await recordedDescription(storage, "item") == Item.v2)
    // A new row gets the added attribute's default.
    try await storage.write { db in try db.execute(sql: "INSERT INTO item (feed, number, title) VALUES ('g', 1, 'x')") }
    #expect(try await storage.int("SELECT rank FROM item WHERE feed = 'g'") == 7)
  }

  @Test("a new required attribute without a default is refused and the file left untouched")
  func newRequiredAttributeRefused() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open(entities: [Item.v1])
      try await storage.write { db in try db.execute(sql: Item.insertSQL) }
    }
    let before = try database.fileState()
    var changed = Item.v1
    changed.attributes.append(Attribute("required", .text, optional: false))
    let message = await incompatibleSchema { try database.open(entities: [changed]) }
    #expect(message?.contains("entity item") == true, "\(message ?? "")")
    #expect(message?.contains("required") == true, "\(message ?? "")")
    #expect(try database.fileState() == before)
  }

  /// Changes that only a numbered migration may make.
  static let incompatibleChanges: [(String, EntityDescription)] = [
    ("title TEXT → INTEGER", Item.replacing("title", with: Attribute("title", .integer, optional: false))),
    ("score REAL → TEXT", Item.replacing("score", with: Attribute("score", .text))),
    ("score removed", Item.replacing("score", with: nil)),
    (
      "score removed, extra added",
      EntityDescription(
        name: "item", identity: ["feed", "number"],
        attributes: Item.attributes.filter { $0.name != "score" } + [Attribute("extra", .text)],
        relationships: Item.relationships, indexes: Item.indexes)
    ),
    (
      "author (to-one) removed",
      EntityDescription(name: "item", identity: ["feed", "number"], attributes: Item.attributes)
    ),
    (
      "identity (feed)",
      EntityDescription(
        name: "item", identity: ["feed"], attributes: Item.attributes, relationships: Item.relationships)
    ),
    (
      "identity (number, feed)",
      EntityDescription(
        name: "item", identity: ["number", "feed"], attributes: Item.attributes, relationships: Item.relationships)
    ),
    (
      "identity (feed, number, title)",
      EntityDescription(
        name: "item", identity: ["feed", "number", "title"], attributes: Item.attributes,
        relationships: Item.relationships)
    ),
  ]

  @Test(
    "an incompatible change is refused with .incompatibleSchema naming the entity, the file byte-identical",
    arguments: 0..<EntityTests.incompatibleChanges.count)
  func incompatibleChange(_ index: Int) async throws {
    let (label, changed) = Self.incompatibleChanges[index]
    let database = TestDatabase()
    do {
      let storage = try database.open(entities: [Item.v1, person])
      try await storage.write { db in try db.execute(sql: Item.insertSQL) }
    }
    #expect(!database.exists("-wal"))
    let before = try database.fileState()

    let error = await storageError { try database.open(entities: [person, changed]) }
    guard case .some(.incompatibleSchema(let message)) = error?.kind else {
      Issue.record("\(label): expected .incompatibleSchema, got \(String(describing: error))")
      return
    }
    #expect(message.contains("entity item"), "\(label): \(message)")
    #expect(error?.path == database.path)
    #expect(error?.description.contains(database.path) == true)
    #expect(try database.fileState() == before, "\(label): the refused open changed the file")
    #expect(!database.exists("-wal"), "\(label)")

    // The original declaration still opens, with its rows and its recorded description.
    let storage = try database.open(entities: [Item.v1, person])
    #expect(try await storage.int("SELECT count(*) FROM item") == 2, "\(label)")
    #expect(try await storage.int("SELECT count(*) FROM item_tags") == 2, "\(label)")
    #expect(try await recordedDescription(storage, "item") == Item.v1, "\(label)")
  }

  /// Changes of type that keep the SQLite column type: INTEGER → bool (values other than 0 and 1 may be stored),
  /// TEXT → json (non-JSON text may be stored), TEXT → url, INTEGER → date.
  static let sameColumnTypeChanges: [(String, EntityDescription)] = [
    ("number INTEGER → bool: identity", Item.replacing("number", with: Attribute("number", .bool))),
    ("title text → json", Item.replacing("title", with: Attribute("title", .json, optional: false))),
    ("link url → text", Item.replacing("link", with: Attribute("link", .text))),
    ("createdAt date → integer", Item.replacing("createdAt", with: Attribute("createdAt", .integer))),
  ]

  @Test(
    "a change of attribute type that keeps the SQLite column type is refused too",
    arguments: 0..<EntityTests.sameColumnTypeChanges.count)
  func sameColumnTypeChange(_ index: Int) async throws {
    let (label, changed) = Self.sameColumnTypeChanges[index]
    let database = TestDatabase()
    do {
      let storage = try database.open(entities: [Item.v1])
      try await storage.write { db in try db.execute(sql: Item.insertSQL) }
    }
    let before = try database.fileState()
    let message = await incompatibleSchema { try database.open(entities: [changed]) }
    #expect(message?.contains("entity item") == true, "\(label): \(message ?? "")")
    #expect(try database.fileState() == before, "\(label): the refused open changed the file")
  }

  @Test(
    "an invalid name is refused before the file is created",
    arguments: [
      EntityDescription(name: "drop table", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "sqlite_x", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "SQLITE_master", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "1abc", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "caf\u{E9}", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "x\"y", identity: ["id"], attributes: [Attribute("id", .text)]),
      EntityDescription(
        name: "thing", identity: ["id"], attributes: [Attribute("id", .text), Attribute("title = '' OR 1=1 --", .text)]
      ),
      EntityDescription(name: "thing", identity: ["id"], attributes: [Attribute("id", .text), Attribute("2x", .text)]),
      EntityDescription(
        name: "thing", identity: ["id"], attributes: [Attribute("id", .text)],
        relationships: [Relationship("owner\"; DROP TABLE article; --", to: "person", .toOne)]),
      EntityDescription(
        name: "thing", identity: ["id"], attributes: [Attribute("id", .text)],
        indexes: [EntityIndex("by id", on: ["id"])]),
      EntityDescription(
        name: "thing", identity: ["id"], attributes: [Attribute("id", .text)],
        indexes: [EntityIndex("thing_by_nothing", on: ["nothing"])]),
      EntityDescription(name: "thing", identity: ["missing"], attributes: [Attribute("id", .text)]),
      EntityDescription(name: "thing", identity: [], attributes: [Attribute("id", .text)]),
      EntityDescription(
        name: "thing", identity: ["id"], attributes: [Attribute("id", .text), Attribute("id", .integer)]),
      EntityDescription(
        name: "thing", identity: ["id"],
        attributes: [Attribute("id", .text), Attribute("seen", .bool, optional: false, localOnly: true)]),
    ])
  func invalidName(_ entity: EntityDescription) async throws {
    let database = TestDatabase()
    let message = await incompatibleSchema { try database.open(entities: [entity]) }
    #expect(message?.contains("entity \(entity.name)") == true, "\(message ?? "")")
    #expect(!database.exists(), "the refused declaration created the database")
  }

  @Test(
    "a to-many relationship with an invalid name is refused before the file is created",
    arguments: ["bad name", "x\" (owner, target); DROP TABLE article; --", "sqlite_tags", "9lives"])
  func invalidToManyName(_ name: String) async throws {
    let database = TestDatabase()
    let entity = EntityDescription(
      name: "thing", identity: ["id"], attributes: [Attribute("id", .text)],
      relationships: [Relationship(name, to: "person", .toMany)])
    let message = await incompatibleSchema { try database.open(entities: [entity]) }
    #expect(message?.contains("entity thing") == true, "\(message ?? "")")
    #expect(!database.exists(), "the refused declaration created the database")
  }

  @Test("an unchanged reopen writes nothing: same bytes, same modification date")
  func unchangedReopenWritesNothing() async throws {
    let database = TestDatabase()
    do {
      let storage = try database.open(entities: [Item.v1, person])
      try await storage.write { db in try db.execute(sql: Item.insertSQL) }
      await storage.close()
    }
    #expect(!database.exists("-wal"))
    // A modification date long past: any write, on however coarse a clock, would move it to now.
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: database.path)
    let before = try database.fileState()
    for _ in 0..<2 {
      let storage = try database.open(entities: [Item.v1, person])
      #expect(try await storage.int("SELECT count(*) FROM item") == 2)
      #expect(try await storage.int("SELECT count(*) FROM schema_entity") == 3)
    }
    #expect(try database.fileState() == before)
    // The entities may be declared in another order: same descriptions, nothing written.
    do {
      let storage = try database.open(entities: [person, Item.v1])
      #expect(try await storage.int("SELECT count(*) FROM item") == 2)
    }
    #expect(try database.fileState() == before)
  }
}
