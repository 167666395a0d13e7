import Foundation
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// The `article` table's shape is declared once, by `EntityDescription.article`; the numbered migrations are the
/// history that brings any older file to it. A fresh database made by the migrations has exactly the declared
/// columns, with the declared SQL types and NOT NULL rules, and the declared indexes.
@Suite("The article schema: one declaration")
struct ArticleSchemaTests {
  @Test("a database made by the migrations has exactly the columns, types, NOT NULL rules and indexes declared")
  func migrationsMatchTheDeclaration() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let columns = try await storage.read { db in
      try db.makeStatement("SELECT name, type, \"notnull\" FROM pragma_table_info('article')").fetchAll {
        ($0.string(0) ?? "", ($0.string(1) ?? "").uppercased(), ($0.int64(2) ?? 0) != 0)
      }
    }
    let declared = EntityDescription.article
    #expect(Set(columns.map(\.0)) == Set(declared.columns))
    for (name, type, notNull) in columns {
      let attribute = try #require(declared.attribute(name), "\(name) is not declared")
      #expect(type == attribute.type.sqlType, "\(name): \(type) in the table, \(attribute.type.sqlType) declared")
      // NOT NULL in the table exactly where the description says a value is required (the key aside: it is
      // NOT NULL).
      let required = !attribute.isOptional || declared.identity.contains(name)
      #expect(notNull == required, "\(name): NOT NULL \(notNull) in the table, required \(required) declared")
    }
    let indexes = try await storage.read { db in
      try db.makeStatement(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'article' AND sql IS NOT NULL"
      ).fetchAll { $0.string(0) ?? "" }
    }
    // The declared indexes, and the key's own (migration 12: a unique index, not the table's primary key).
    #expect(Set(indexes) == Set(declared.indexes.map(\.name)).union(["article_by_url"]))
    let key = try await storage.read { db in
      try db.makeStatement(
        """
        SELECT l."unique", i.name FROM pragma_index_list('article') l, pragma_index_info(l.name) i
        WHERE l.name = 'article_by_url'
        """
      ).fetchAll { "\($0.int64(0) ?? 0) \($0.string(1) ?? "")" }
    }
    #expect(key == ["1 \(declared.identity.joined())"])
  }

  @Test("the trigger texts read from the migrations are those of a fresh database, word for word")
  func triggerDefinitionsMatchTheDatabase() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    let triggers = try await storage.read { db in
      try db.makeStatement("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchAll {
        ($0.string(0) ?? "", Schema.collapsed($0.string(1) ?? ""))
      }
    }
    // The four triggers of the search index (migrations 7, 9 and 11), each as the latest migration wrote it.
    #expect(
      Set(triggers.map(\.0)) == [
        "article_fts_after_insert", "article_fts_before_delete", "article_fts_before_update",
        "article_fts_after_update",
      ])
    for (name, sql) in triggers {
      #expect(Schema.triggerDefinitions[name] == sql, "\(name)")
    }
  }
}
