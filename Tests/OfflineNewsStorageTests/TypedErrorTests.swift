import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Testing

/// The storage context's public calls throw `StorageError` only (`throws(StorageError)`), so a caller switches on
/// its kind exhaustively, with no `as` cast and no catch-all for other types.
@Suite("Typed storage errors")
struct TypedErrorTests {
  /// The kind's name, by an exhaustive switch: this compiles only while every public call throws StorageError.
  static func name(_ error: StorageError) -> String {
    switch error.kind {
    case .newerSchema: "newerSchema"
    case .notADatabase: "notADatabase"
    case .cannotOpen: "cannotOpen"
    case .readOnly: "readOnly"
    case .diskFull: "diskFull"
    case .busy: "busy"
    case .invalidRequest: "invalidRequest"
    case .incompatibleSchema: "incompatibleSchema"
    case .closed: "closed"
    case .cancelled: "cancelled"
    case .other: "other"
    }
  }

  @Test("after close(), each public read and write throws .closed, naming the file")
  func closed() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: Timestamp(millisecondsSince1970: 0))
    await storage.close()
    var kinds: [String] = []
    do { _ = try await storage.articleCount() } catch { kinds.append(Self.name(error)) }
    do { _ = try await storage.articles() } catch { kinds.append(Self.name(error)) }
    do { _ = try await storage.fetch(FetchRequest(entity: "article")) } catch { kinds.append(Self.name(error)) }
    do { _ = try await storage.deleteAllArticles() } catch {
      kinds.append(Self.name(error))
      #expect(error.path == database.path)
      #expect(error.description.contains(database.path))
    }
    #expect(kinds == ["closed", "closed", "closed", "closed"])
  }

  @Test("a request naming an unknown entity throws .invalidRequest with the name")
  func invalidRequest() async throws {
    let database = TestDatabase()
    let storage = try database.open()
    do {
      _ = try await storage.count(FetchRequest(entity: "nothing"))
      Issue.record("counted an entity that does not exist")
    } catch {
      #expect(Self.name(error) == "invalidRequest")
      #expect(error.description.contains("nothing"))
    }
  }
}
