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
    #expect(try await storage.read { try $0.scalarInt("PRAGMA user_version") } == 23)
  }
}
