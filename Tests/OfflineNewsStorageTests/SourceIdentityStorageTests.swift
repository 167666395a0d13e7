import Foundation
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migration 23's `source_identity` on a store made before it: read as it is, written after the migration.
@Suite("Source identities on a store of schema 22")
struct SourceIdentityStorageTests {
  @Test("read before the migration: none; the first rename migrates the store and records the identity")
  func olderStore() async throws {
    let folder = TemporaryDirectory("source-identity-22")
    let path = folder.path("news.sqlite")
    do {
      let old = try Connection(path: path)
      try Migrator(migrations: Array(Schema.migrations.prefix { $0.version <= 22 })).migrate(old)
    }
    let storage = try StorageContext(path: path)
    #expect(try await storage.sourceIdentities().isEmpty)
    try await storage.renameArticleSource(from: "Alpha", to: "Bravo")
    let identities = try await storage.sourceIdentities()
    #expect(identities["Bravo"] == "Alpha")
    #expect(identities["Alpha"].map { $0 != "Alpha" && $0.hasPrefix("Alpha") } == true, "\(identities)")
    #expect(
      try await storage.read { try $0.scalarInt("PRAGMA user_version") }
        == Int64(Schema.migrations.last?.version ?? 0))
  }

  @Test("adopting articles: a name with a fetch history of its own keeps its identity, a new name takes theirs")
  func adoptionKeepsAnEstablishedIdentity() async throws {
    let folder = TemporaryDirectory("source-identity-adopt")
    let storage = try StorageContext(path: folder.path("news.sqlite"))
    try await storage.write { db in
      // "Man" saved its own feed; an address read once (`news fetch --url`) was saved under itself; "Old" is a
      // subscription's former name.
      for (query, source) in [
        ("https://a.example/feed", "Man"), ("https://b.example/feed", "https://b.example/feed"),
        ("https://c.example/feed", "Old"),
      ] {
        try db.execute(
          "INSERT INTO query_fetch (query, fetchedAt, articleCount, source) VALUES (?1, 0, 0, ?2)",
          [.text(query), .text(source)])
      }
    }
    // Man re-linked onto b's address; a hand-edited rename of Old to New.
    let moves = try await storage.adoptArticles(
      of: ["https://b.example/feed": "Man", "https://c.example/feed": "New"], live: ["Man", "New"])
    #expect(moves.map(\.to).sorted() == ["Man", "New"], "\(moves)")
    let identities = try await storage.sourceIdentities()
    #expect(identities["Man"] == nil, "Man keeps its own identity: \(identities)")
    #expect(identities["New"] == "Old", "\(identities)")
  }
}
