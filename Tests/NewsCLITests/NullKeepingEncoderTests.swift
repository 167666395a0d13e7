import Foundation
import OfflineNewsModel
import Testing

@testable import NewsCLI

/// Every `--json` document keeps its absent optionals as `null` through one encoder (`NullKeeping`), not a
/// hand-written `encode(to:)` per type.
@Suite("NullKeeping: absent optionals are null in --json")
struct NullKeepingEncoderTests {
  struct Inner: Encodable {
    var name: String?
    var count: Int?
    var flag: Bool?
  }

  struct Outer: Encodable {
    var title: String
    var missing: String?
    var inner: Inner?
    var items: [Inner]
    var optionals: [Int?]
    var link: URL?
    var map: [String: Inner]
  }

  @Test("nil optionals at every depth are written as null; values, URLs and arrays as JSONEncoder writes them")
  func keepsNulls() throws {
    let value = Outer(
      title: "t", missing: nil, inner: Inner(name: nil, count: 2, flag: nil), items: [Inner(), Inner(name: "n")],
      optionals: [1, nil], link: URL(string: "https://example.com/a/b"), map: ["k": Inner(flag: true)])
    let text = OutputFormat.json(value)
    #expect(
      text == """
        {"inner":{"count":2,"flag":null,"name":null},"items":[{"count":null,"flag":null,"name":null},\
        {"count":null,"flag":null,"name":"n"}],"link":"https://example.com/a/b","map":{"k":{"count":null,"flag":true,\
        "name":null}},"missing":null,"optionals":[1,null],"title":"t"}

        """)
    let absent = OutputFormat.json(Outer(title: "x", items: [], optionals: [], map: [:]))
    #expect(absent.contains(#""inner":null"#) && absent.contains(#""link":null"#))
  }

  @Test("an open report keeps its opener key when none was found")
  func openReport() {
    let text = OutputFormat.json(OpenCommand.Report(handle: "abc", url: "https://example.com/", opener: nil))
    #expect(text == #"{"handle":"abc","opener":null,"url":"https://example.com/"}"# + "\n")
  }
}
