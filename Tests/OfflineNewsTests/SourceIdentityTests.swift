import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// A source keeps its identity (the name it was first recorded under, store schema 23) through renames, so that
/// what is derived from it outside the store (`news serve`'s feed ids) does not change; a new source under a retired
/// name is another source.
@Suite("Source identities: kept through renames, never reused by a new source")
struct SourceIdentityTests {
  @Test("rename, rename again, back, case only; a new source under a retired name gets its own")
  func renames() async throws {
    let folder = TemporaryDirectory("source-identity")
    let list = SubscriptionFile(path: folder.path("news.json"))
    let feed = try #require(URL(string: "https://alpha.example.org/feed.xml"))
    try await list.subscribe([NewsSource(name: "Alpha", url: feed)])
    let repository = NewsRepository(
      storage: try StorageContext(path: folder.path("news.sqlite")), network: FileNewsNetwork())
    func identity(_ name: String) async throws -> String {
      try await repository.sourceIdentities().identity(ofSourceNamed: name)
    }
    #expect(try await identity("Alpha") == "Alpha", "never renamed: its own name")

    try await repository.renameSubscription("Alpha", to: "Bravo", in: list)
    #expect(try await identity("Bravo") == "Alpha")
    try await repository.renameSubscription("bravo", to: "Charlie", in: list)
    #expect(try await identity("CHARLIE") == "Alpha", "any case")
    try await repository.renameSubscription("Charlie", to: "charlie", in: list)
    #expect(try await identity("charlie") == "Alpha", "a change of case is no rename")

    // New sources under the retired names: each is another source, with an identity no other source has.
    let other = try #require(URL(string: "https://other.example.org/feed.xml"))
    let third = try #require(URL(string: "https://third.example.org/feed.xml"))
    try await list.subscribe([NewsSource(name: "Alpha", url: other), NewsSource(name: "Bravo", url: third)])
    let names = ["charlie", "Alpha", "Bravo"]
    var identities: [String] = []
    for name in names { identities.append(try await identity(name)) }
    #expect(Set(identities).count == 3, "\(identities)")
    #expect(identities[0] == "Alpha")

    // The new Alpha renamed away and the first one renamed back to its first name: it is "Alpha" again.
    let newAlpha = identities[1]
    try await repository.renameSubscription("Alpha", to: "Delta", in: list)
    #expect(try await identity("Delta") == newAlpha)
    try await repository.renameSubscription("charlie", to: "Alpha", in: list)
    #expect(try await identity("Alpha") == "Alpha")
    var after: [String] = []
    for name in ["Alpha", "Bravo", "Delta"] { after.append(try await identity(name)) }
    #expect(Set(after).count == 3, "\(after)")
  }
}
