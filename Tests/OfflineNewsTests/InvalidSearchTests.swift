import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

/// A search text with no word to look for is the caller's input: `NewsRepositoryError.invalidSearch`, naming the
/// text, not a storage failure naming the database (embedder finding L1: `search("-")`).
@Suite("a search text that cannot be searched is a typed input error naming the text")
struct InvalidSearchTests {
  @Test(
    "no word, only punctuation, too many words",
    arguments: ["-", "", "  ", "\" * ( )", String(repeating: "a ", count: 201)])
  func refused(_ text: String) async throws {
    let directory = TemporaryDirectory()
    let database = directory.path("news.sqlite")
    let repository = NewsRepository(storage: try StorageContext(path: database), network: FileNewsNetwork())
    let expected: SearchQueryError
    do {
      _ = try SearchQuery(text)
      Issue.record("\(text) parsed")
      return
    } catch {
      expected = error
    }
    do {
      _ = try await repository.search(text)
      Issue.record("\(text): no error")
    } catch {
      guard case .invalidSearch(let cause) = error else {
        Issue.record("\(text): \(error)")
        return
      }
      #expect(cause == expected)
      #expect(!error.description.contains(database), "\(error)")
      if text == "-" {
        #expect(error.description == "the search text \"-\" has no word to look for (only punctuation)")
      }
    }
    #expect(try await repository.search("storm").isEmpty, "a searchable text still searches")
  }
}
