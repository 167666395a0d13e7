import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsHTML
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import OfflineNewsSync
import Testing

/// With every module of the library imported, Swift's own `KeyPath` and `Index`-named types still mean what they
/// mean in Swift: no public type of ours shadows them (the importer's dotted path is `JSONPath`, an entity's index
/// `EntityIndex`). This file compiling is most of the test.
@Suite("Names: no public type shadows Swift's own")
struct NameShadowingTests {
  @Test("KeyPath<Article, String> is Swift's key path, after importing every module")
  func swiftKeyPath() throws {
    let title: KeyPath<Article, String> = \.title
    let url = try #require(URL(string: "https://example.com/a"))
    let article = Article(url: url, title: "Storm Isolde", publishedAt: Date(timeIntervalSince1970: 0))
    #expect(article[keyPath: title] == "Storm Isolde")
    let path: JSONPath = "source.name"
    #expect(path.components == ["source", "name"])
  }

  @Test("String.Index and Array.Index are Swift's, after importing every module")
  func swiftIndex() {
    let text = "news"
    let start: String.Index = text.startIndex
    let first: Array<Int>.Index = [7, 8].startIndex
    #expect(text[start] == "n")
    #expect(first == 0)
  }
}
